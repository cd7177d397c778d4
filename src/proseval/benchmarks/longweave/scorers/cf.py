"""Code Fixing (CF): runnable ratio, flake8 style score and function-count score.

total = harmonic mean of
  r = 1 if the extracted code compiles (``compile()`` only: nothing is executed), else 0;
  s = 1 / (1 + Nv / 50), Nv = flake8 violations over E, W, F, B, N, SIM, C4 (0 if not runnable);
  f = 1 / (1 + (|n_answer - n_original| / max(1, n_original / 4))^2), rounded to 4 dp;
and 0 when any of them is at or below 1e-9.

The judge's relevance verdict is an input (`relevant`), never computed here:
  * ``True``: the rule scores stand;
  * ``False``: every metric is 0, as in the official gate, and flake8 is not run;
  * ``None`` (no verdict): the rule scores stand and the trace says the gate was not applied,
    which is what the official code does when no judge is configured. A task whose judge
    reply could not be parsed must report the sample as unscored instead of passing ``None``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from proseval.benchmarks.longweave.scorers.code_checks import (
    CF_SELECT,
    FLAKE8_DEFAULT_EXTEND_IGNORE,
    CheckerPool,
    CodeCheck,
    Flake8Settings,
    check_sources,
    check_sources_under,
    parse_and_compile,
    parse_module,
    top_level_functions,
)
from proseval.benchmarks.longweave.scorers.result import (
    RuleScore,
    gated_harmonic_mean,
)
from proseval.kit.measures import closeness

#: The violation count at which the style score falls to one half.
STYLE_HALF_COUNT = 50
METRICS = ("runnable_ratio", "style_quality_score", "func_count_score", "total_score")

# The official block is ```(?:python)?\s*(.*?)``` (any case): three backticks, an optional
# "python" tag, the shortest text up to the next three backticks. Other tags ("py", "python3")
# are not consumed and stay in the code, as officially. Found with str.find: the lazy `.*?`
# tests every character for the closing fence, a third of a second per thousand long answers.
_FENCE = "```"
_PYTHON_TAG = re.compile("python", re.IGNORECASE)
_RELEVANCE = {True: "judged relevant", False: "judged irrelevant", None: "not judged"}


@dataclass(frozen=True)
class CFConfig:
    """Which official behaviours to keep. The defaults fix the documented bugs.

    count_naming: count pep8-naming's N codes (False: an install from the official
        requirements file, which lacks pep8-naming).
    default_extend_ignore: keep flake8's default-ignored codes ignored (False: official, the
        explicit selection re-enables them, W503 and W504 included).
    ast_function_count: count top-level ``def``/``async def`` with the AST (False: official
        substring count of ``"def "``, comments and strings included).
    strip_lone_fence: without a complete fenced block, drop a lone opening or closing fence
        line (False: official, the leftover fence makes the code fail to compile).
    """

    count_naming: bool = True
    default_extend_ignore: bool = True
    ast_function_count: bool = True
    strip_lone_fence: bool = True

    @classmethod
    def official(cls) -> CFConfig:
        """The official scorer as the reference vectors recorded it (pep8-naming installed)."""
        return cls(
            default_extend_ignore=False,
            ast_function_count=False,
            strip_lone_fence=False,
        )

    def flake8_settings(self) -> Flake8Settings:
        select = CF_SELECT if self.count_naming else tuple(c for c in CF_SELECT if c != "N")
        ignore = FLAKE8_DEFAULT_EXTEND_IGNORE if self.default_extend_ignore else ()
        return Flake8Settings(select=select, extend_ignore=ignore)


@dataclass(frozen=True)
class CFCase:
    """One answer to score, with the polluted program it was asked to fix.

    original_functions: the original's function count when it is known by construction (a
    generated instance records it), so the original need not be parsed; counted otherwise.
    """

    answer: str
    original_code: str
    relevant: bool | None = None
    original_functions: int | None = None


@functools.lru_cache(maxsize=64)
def extract_code(answer: str, *, strip_lone_fence: bool = True) -> tuple[str, str]:
    """The code to score and how it was found: the first fenced block, else the whole answer.
    Cached: a run extracts each answer twice (for the relevance judge, then for scoring)."""
    block = _first_fenced_block(answer)
    if block is not None:
        return block.strip(), "first fenced block"
    code = answer.strip()
    if not strip_lone_fence:
        return code, "whole answer"
    lines = code.split("\n")
    kept = lines[1:] if lines[0].lstrip().startswith("```") else lines
    if kept and kept[-1].strip() == "```":
        kept = kept[:-1]
    if len(kept) == len(lines):
        return code, "whole answer"
    return "\n".join(kept).strip(), "whole answer without its lone fence line"


def _first_fenced_block(answer: str) -> str | None:
    """The official expression's group: the text after the first fence (and its "python" tag)
    up to the next fence, or None without a closing fence. Only the first fence can open a
    match: any later one would need a closing fence after it, which would close the first."""
    start = answer.find(_FENCE)
    if start < 0:
        return None
    start += len(_FENCE)
    tag = _PYTHON_TAG.match(answer, start)
    body = tag.end() if tag else start
    end = answer.find(_FENCE, body)
    return None if end < 0 else answer[body:end]


def compile_error(code: str) -> str | None:
    """Why `code` does not compile as a module, or None if it does. Nothing is executed."""
    return parse_and_compile(code)[1]


def count_functions(code: str, *, ast_count: bool = True) -> int:
    """Function count: top-level defs by AST (column-0 def lines if the code does not parse),
    or the official substring count of ``"def "``."""
    if not code.strip():
        return 0
    if not ast_count:
        return code.count("def ")
    return top_level_functions(code, parse_module(code))


def style_quality_score(violations: int) -> float:
    """1 / (1 + Nv / 50)."""
    return 1.0 / (1.0 + violations / STYLE_HALF_COUNT)


def func_count_score(answer_functions: int, original_functions: int) -> float:
    """Closeness of the function counts, scale max(1, n_original / 4), rounded to 4 dp."""
    scale = max(1.0, 0.25 * original_functions)
    return round(closeness(answer_functions, original_functions, scale), 4)


def score_cf(
    answer: str,
    original_code: str,
    *,
    relevant: bool | None = None,
    original_functions: int | None = None,
    config: CFConfig = CFConfig(),
    pool: CheckerPool | None = None,
) -> RuleScore:
    """Score one CF answer: in this process, or in a worker of `pool` (thread-safe)."""
    case = CFCase(answer, original_code, relevant, original_functions)
    return score_cf_batch([case], config=config, pool=pool)[0]


def score_cf_batch(
    answers_and_instances: Iterable[CFCase | tuple[str, str] | tuple[str, str, bool | None]],
    *,
    processes: int = 1,
    config: CFConfig = CFConfig(),
    pool: CheckerPool | None = None,
) -> list[RuleScore]:
    """Score many CF answers. Compile checks, function counts and flake8 run in `processes`
    processes (see `code_checks`), or in the persistent workers of `pool` when one is given
    (its settings must be `config`'s); this process only extracts the code and does the
    arithmetic.

    Items are `CFCase`s or ``(answer, original_code[, relevant])`` tuples.
    """
    cases = _cases(answers_and_instances)
    extracted, to_check = _to_check(cases, config)
    sources = [extracted[i][0] for i in to_check]
    if pool is not None:
        if pool.settings != config.flake8_settings():
            raise ValueError("the pool's flake8 settings are not this configuration's")
        # The workers count an original's functions too, unless the case already knows them.
        counted = config.ast_function_count
        checks = [
            pool.check(source, cases[i].original_code if counted and cases[i].original_functions is None else None)
            for i, source in zip(to_check, sources)
        ]
    else:
        checks = check_sources(sources, config.flake8_settings(), processes=processes)
    return _scores(cases, extracted, dict(zip(to_check, checks)), config)


def score_cf_configs(
    answers_and_instances: Iterable[CFCase | tuple[str, str] | tuple[str, str, bool | None]],
    configs: Sequence[CFConfig],
    *,
    processes: int = 1,
) -> list[list[RuleScore]]:
    """The scores of the same answers under each of `configs` (the official scorer beside the
    fixed one, say): one list per configuration, each as `score_cf_batch` gives it. A code
    string the configurations extract alike is checked once for all of them (see
    `check_sources_under`), so two configurations cost little more than one."""
    cases = _cases(answers_and_instances)
    selected = [_to_check(cases, config) for config in configs]
    sources = [extracted[i][0] for extracted, to_check in selected for i in to_check]
    checks = check_sources_under(sources, [c.flake8_settings() for c in configs], processes=processes)
    scores, start = [], 0
    for k, (config, (extracted, to_check)) in enumerate(zip(configs, selected)):
        own = checks[k][start : start + len(to_check)]  # this configuration's sources, its settings
        scores.append(_scores(cases, extracted, dict(zip(to_check, own)), config))
        start += len(to_check)
    return scores


def _cases(
    items: Iterable[CFCase | tuple[str, str] | tuple[str, str, bool | None]],
) -> list[CFCase]:
    return [item if isinstance(item, CFCase) else CFCase(*item) for item in items]


def _to_check(cases: list[CFCase], config: CFConfig) -> tuple[list[tuple[str, str]], list[int]]:
    """Each case's extracted code and how it was found, and the cases whose code is checked."""
    extracted = [extract_code(case.answer, strip_lone_fence=config.strip_lone_fence) for case in cases]
    to_check = [i for i, case in enumerate(cases) if extracted[i][0] and case.relevant is not False]
    return extracted, to_check


def _scores(
    cases: list[CFCase],
    extracted: list[tuple[str, str]],
    by_case: dict[int, CodeCheck],
    config: CFConfig,
) -> list[RuleScore]:
    return [
        _score(case, code, how, by_case.get(i), config) for i, (case, (code, how)) in enumerate(zip(cases, extracted))
    ]


@functools.lru_cache(maxsize=256)
def _original_functions(original_code: str, ast_count: bool) -> int:
    """Function count of an original program; many answers share one, so it is cached."""
    return count_functions(original_code, ast_count=ast_count)


def _score(case: CFCase, code: str, how: str, check: CodeCheck | None, config: CFConfig) -> RuleScore:
    trace: dict[str, object] = {
        "relevance": _RELEVANCE[case.relevant],
        "extraction": how,
        "code_chars": len(code),
    }
    if check is None:  # judged irrelevant, or nothing to score
        return RuleScore(0.0, dict.fromkeys(METRICS, 0.0), trace)
    answer_functions = check.functions if config.ast_function_count else code.count("def ")
    if case.original_functions is not None:
        original_functions = case.original_functions
    elif check.original_functions is not None:
        original_functions = check.original_functions
    else:
        original_functions = _original_functions(case.original_code, config.ast_function_count)
    trace.update(
        compile_error=check.compile_error,
        answer_functions=answer_functions,
        original_functions=original_functions,
    )
    runnable = 0.0 if check.compile_error else 1.0
    func = func_count_score(answer_functions, original_functions)
    if check.compile_error:
        style = 0.0
    elif check.violations is None:
        metrics = {
            "runnable_ratio": runnable,
            "style_quality_score": None,
            "func_count_score": func,
            "total_score": None,
        }
        trace["flake8_error"] = check.flake8_error
        return RuleScore(None, metrics, trace, f"flake8 failed: {check.flake8_error}")
    else:
        violations = sum(check.violations.values())
        trace["violations"] = violations
        trace["violation_codes"] = dict(sorted(check.violations.items()))
        style = style_quality_score(violations)
    total = gated_harmonic_mean([runnable, style, func])
    metrics = {
        "runnable_ratio": runnable,
        "style_quality_score": style,
        "func_count_score": func,
        "total_score": total,
    }
    return RuleScore(total, metrics, trace)
