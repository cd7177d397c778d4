"""Whether a run's figures can be read beside a paper's, decided from what ran (its `header.json`
and `results.json`), never from a size's label: the paper's items (count and data files), the
paper's settings as sent (the preset's parameters and generation settings, none left out for the
model), the paper's judge by its exact identifier (`paper_settings.yaml`'s alias table, never a
prefix), and the paper's measure (a unit the headline converts to, figures per the paper's slice).

Every check gives a reason; a run is comparable when every check passes ("comparable because …")
and not comparable when one fails ("not comparable because …", the failed checks only).
"""

from __future__ import annotations

import functools
from importlib import resources

import yaml
from pydantic import BaseModel, Field

from ..core.preset import preset_params
from ..core.results import Results
from ..errors import ProsevalError
from ..registry import get_entry
from ..runtime.records import RunHeader
from .references import Comparability, PaperUnit, Reference

BUNDLED = "paper_settings.yaml"


class PaperJudge(BaseModel):
    identifiers: list[str]
    source: str


class PaperSetting(BaseModel):
    """The setting of one benchmark's published figures (`paper_settings.yaml`)."""

    never: str | None = None
    preset: str | None = None
    items: int | None = None
    items_from: str | None = None
    official_data: bool = False
    free_params: list[str] = Field(default_factory=list)
    by: str | None = None
    slices: dict[str, str] = Field(default_factory=dict)
    also_by: list[str] = Field(default_factory=list)
    caveat: str | None = None


class PaperSettings(BaseModel):
    judges: dict[str, PaperJudge]
    benchmarks: dict[str, PaperSetting]


@functools.cache
def paper_settings() -> PaperSettings:
    text = resources.files(__package__).joinpath(BUNDLED).read_text(encoding="utf-8")
    return PaperSettings.model_validate(yaml.safe_load(text))


def model_id(spec: str) -> str:
    """A model spec without its provider (`openai-compatible/Qwen/Qwen2.5-72B-Instruct` ->
    `Qwen/Qwen2.5-72B-Instruct`)."""
    provider, _, name = spec.strip().partition("/")
    return name if name else provider


def is_paper_judge(spec: str, printed: str, settings: PaperSettings | None = None) -> bool:
    """Whether `spec` names the judge a paper prints as `printed`: its identifier equals one of the
    alias table's, case aside (never a prefix: `gpt-5.2-pro` is not `gpt-5.2`)."""
    known = (settings or paper_settings()).judges.get(printed)
    names = {printed.lower(), *(i.lower() for i in known.identifiers)} if known else {printed.lower()}
    return model_id(spec).lower() in names


def _items(setting: PaperSetting, header: RunHeader, results: Results) -> tuple[bool, str]:
    ran = results.counts.total
    if setting.official_data and header.dataset.get("verified") is not True:
        return False, "its data files are not the official ones (their SHA-256 differs or was not checked)"
    if header.limit is not None or setting.items is None or ran != setting.items:
        of = f"of the paper's {setting.items:,}" if setting.items else "(the paper's count is not known)"
        return False, f"it ran {ran:,} items {of}"
    if header.epochs != 1:
        return False, f"it ran each item {header.epochs} times (the paper: once)"
    return True, f"it ran the paper's {ran:,} items ({setting.items_from or 'the official data'})"


def _settings(setting: PaperSetting, header: RunHeader) -> tuple[bool, str]:
    if setting.preset is None:
        return False, "the paper's settings are not recorded"
    ran = (header.preset or {}).get("name")
    if ran != setting.preset:
        return False, (
            f"it ran with preset {ran}, not {setting.preset}" if ran else f"it ran without the {setting.preset} preset"
        )
    try:
        entry = get_entry(header.task)
        preset = entry.preset(setting.preset)
        expected = entry.params.model_validate(preset_params(preset, {})).model_dump(mode="json")
    except (ProsevalError, ValueError) as exc:
        return False, f"the {setting.preset} preset's settings cannot be built: {exc}"
    problems = [
        f"{key}={header.task_params.get(key)!r} (the preset's: {value!r})"
        for key, value in sorted(expected.items())
        if key not in setting.free_params and header.task_params.get(key) != value
    ]
    for role, values in preset.gen.items():
        binding = header.roles.get(role)
        for key, value in values.items():
            sent = getattr(binding.config, key, None) if binding else None
            if sent != value:
                problems.append(f"{role}.{key}={sent!r} sent (the preset's: {value!r})")
    for role, binding in sorted(header.roles.items()):
        problems += [
            f"{role}.{n.get('setting')}={n.get('value')!r} not sent to {binding.spec}" for n in binding.not_sent
        ]
    if problems:
        return False, "its settings are not the " + setting.preset + " preset's: " + "; ".join(problems)
    return True, f"its settings are the {setting.preset} preset's, every one sent"


def _judges(references: list[Reference], judging: dict[str, str]) -> tuple[bool, str]:
    printed = references[0].judge
    if not printed:
        return False, f"{references[0].paper} does not name the judge of {references[0].table}"
    other = {role: spec for role, spec in judging.items() if not is_paper_judge(spec, printed)}
    if other or not judging:
        known = paper_settings().judges.get(printed)
        names = ", ".join(known.identifiers) if known else printed
        bound = ", ".join(f"{role}={spec}" for role, spec in sorted(other.items())) or "no judge"
        return False, f"judged by {bound}, not the paper's {printed} ({names})"
    return True, f"judged by the paper's {printed} ({', '.join(sorted(set(judging.values())))})"


def _measure(
    setting: PaperSetting, results: Results, converted: PaperUnit | None, unit: str | None, references: list[Reference]
) -> tuple[bool, str]:
    if converted is None:
        theirs = ", ".join(dict.fromkeys(r.unit or "unit not stated" for r in references))
        return False, f"its headline is in {unit or 'an unstated unit'}, the paper's figures in {theirs}"
    if setting.by and not results.slices.get(setting.by):
        return False, f"it has no figures per {setting.by}, the paper's granularity"
    per = f" per {setting.by}" if setting.by else ""
    return True, f"its headline converts to the paper's {converted.unit}{per}"


def run_comparability(
    benchmark: str,
    references: list[Reference],
    header: RunHeader,
    results: Results,
    judging: dict[str, str],
    converted: PaperUnit | None,
    unit: str | None,
) -> Comparability:
    """Whether one finished run of `benchmark` (its judging roles bound to `judging`) can be read
    beside the paper's `references`, with every reason."""
    if not references:
        return Comparability(comparable=False, why="no published figures")
    setting = paper_settings().benchmarks.get(benchmark)
    if setting is None:  # no setting recorded: the judge (when the paper names none) or that is why
        ok, why = _judges(references, judging)
        reason = "the paper's setting is not recorded in paper_settings.yaml" if ok else why
        return Comparability(comparable=False, why=reason, reasons=[reason])
    if setting.never:
        return Comparability(comparable=False, why=setting.never, reasons=[setting.never])
    checks = [
        _judges(references, judging),
        _items(setting, header, results),
        _settings(setting, header),
        _measure(setting, results, converted, unit, references),
    ]
    failed = [why for ok, why in checks if not ok]
    reasons = failed or [why for _, why in checks]
    caveats = [setting.caveat] if setting.caveat and not failed else []
    return Comparability(comparable=not failed, why="; ".join(reasons), reasons=reasons, caveats=caveats)


def benchmark_comparability(
    benchmark: str, references: list[Reference], per_model: dict[str, Comparability]
) -> Comparability:
    """A benchmark's verdict over its models' runs: comparable when each run is. The reasons
    common to every run are said once; the others, and those of only some models' runs, name the
    model they concern."""
    if not references:
        return Comparability(comparable=False, why="no published figures")
    setting = paper_settings().benchmarks.get(benchmark, PaperSetting())
    if setting.never:
        return Comparability(comparable=False, why=setting.never, reasons=[setting.never])
    if not per_model:
        printed = references[0].judge
        why = (
            f"{references[0].paper} does not name the judge of {references[0].table}"
            if not printed
            else "no run finished"
        )
        return Comparability(comparable=False, why=why, reasons=[why])
    comparable = all(c.comparable for c in per_model.values())
    chosen = {m: c for m, c in per_model.items() if c.comparable == comparable}
    everyone = len(chosen) == len(per_model)  # else the reasons are only some models': each is named
    shared = [
        r for r in next(iter(chosen.values())).reasons if everyone and all(r in c.reasons for c in chosen.values())
    ]
    own = [f"{model}: {r}" for model, c in chosen.items() for r in c.reasons if r not in shared]
    reasons = shared + own
    caveats = list(dict.fromkeys(c for v in chosen.values() for c in v.caveats))
    return Comparability(comparable=comparable, why="; ".join(reasons), reasons=reasons, caveats=caveats)


def verdict_line(benchmark: str, verdict: Comparability) -> str:
    """ "NAME: comparable because …" or "NAME: not comparable because …"."""
    said = "comparable because" if verdict.comparable else "not comparable because"
    caveat = f" (caveat: {'; '.join(verdict.caveats)})" if verdict.caveats else ""
    return f"{benchmark}: {said} {verdict.why}{caveat}"
