"""Agreement of the rule checkers with recorded official verdicts (differential vectors).

``python -m proseval.benchmarks.meeseeks.rules.agreement VECTORS.jsonl [...]`` prints, per
rule family, how many cases agree under the default profile and under ``compat="head"``,
as a Markdown table, then the total.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..text import Compat
from .base import RuleContext, Verdict
from .registry import evaluate_rule


def load_cases(path: Path) -> list[dict]:
    """The records of one vectors file (JSON lines)."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def expected(case: dict) -> int:
    """The score the official pipeline stores for the case (errors score 0)."""
    return int(case.get("pipeline_score", case["official_result"]))


def official_error(case: dict) -> bool:
    """Whether the official checker raised on the case."""
    return str(case["official_result"]).startswith("error")


def verdict(case: dict, compat: Compat) -> Verdict:
    """Our verdict on the case under one profile."""
    ctx = RuleContext(language=case["lang"], json_schema=case["extra"].get("json_schema"), compat=compat)
    return evaluate_rule(case["rule"], case["items"], ctx, case["checker_family"])


def agrees(result: Verdict, case: dict) -> bool:
    return result.passed is not None and int(result.passed) == expected(case)


@dataclass
class FamilyAgreement:
    """Cases of one (dispatcher, family) and how many agree under each profile."""

    dispatcher: str
    family: str
    cases: int = 0
    default: int = 0
    head: int = 0
    errors: int = 0


def family_agreement(
    cases: Iterable[dict], judged: Callable[[dict, Compat], Verdict] = verdict
) -> list[FamilyAgreement]:
    """Per-family agreement, sorted by dispatcher and family. `judged` gives a case's verdict under
    a profile (`verdict`; a caller holding the verdicts already passes a look-up)."""
    rows: dict[tuple[str, str], FamilyAgreement] = {}
    for case in cases:
        key = (case["checker_family"], case["family"])
        row = rows.setdefault(key, FamilyAgreement(*key))
        row.cases += 1
        row.default += agrees(judged(case, "fixed"), case)
        row.head += agrees(judged(case, "head"), case)
        row.errors += official_error(case)
    return [rows[k] for k in sorted(rows)]


def always_erroring_families(cases: Iterable[dict]) -> list[str]:
    """Families whose official checker raised on every case with a non-empty input."""
    seen: dict[str, list[bool]] = {}
    for case in cases:
        if case["items"] not in ([], "", [""]):
            seen.setdefault(f"{case['checker_family']}:{case['family']}", []).append(official_error(case))
    return sorted(f for f, errs in seen.items() if all(errs))


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "—"


def format_table(rows: list[FamilyAgreement]) -> str:
    """Markdown table of per-family agreement plus a total line."""
    lines = ["| dispatcher | family | cases | default | head |", "| --- | --- | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r.dispatcher} | `{r.family}` | {r.cases} | {r.default} | {r.head} |")
    total = sum(r.cases for r in rows)
    default, head = sum(r.default for r in rows), sum(r.head for r in rows)
    lines.append(
        f"| **listed** | | {total} | {default} ({_percent(default, total)}) | {head} ({_percent(head, total)}) |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vectors", nargs="+", type=Path, help="rule_vectors*.jsonl files")
    parser.add_argument("--all", action="store_true", help="list every family, not only those with disagreements")
    args = parser.parse_args(argv)
    for path in args.vectors:
        cases = load_cases(path)
        rows = family_agreement(cases)
        shown = rows if args.all else [r for r in rows if r.default < r.cases or r.head < r.cases]
        print(f"## {path.name}: {len(rows)} families, {len(shown)} shown\n")
        print(format_table(shown) if shown else "(every case agrees)")
        total = sum(r.cases for r in rows)
        default, head = sum(r.default for r in rows), sum(r.head for r in rows)
        print(
            f"\ntotal: {total} cases; default {default} ({_percent(default, total)}); "
            f"head {head} ({_percent(head, total)})"
        )
        print(f"official code always errors: {', '.join(always_erroring_families(cases)) or 'none'}\n")


if __name__ == "__main__":
    main()
