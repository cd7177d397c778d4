"""State Machine Simulation (SMS): the share of leading steps whose output is right.

The answer is read as a table, one step per line, columns separated by ``|``, ``:`` or ``,``.
Blank lines, ``Current State |`` header lines and dash-only separator lines are skipped; the
first L remaining lines are the steps (L = length of the input string). Only the fourth column
(the output) is compared; the scan stops at the first line with fewer than four columns or a
wrong output. match_ratio = (number of right steps before that) / L.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from proseval.benchmarks.longweave.scorers.result import RuleScore

_COLUMN_SEPARATOR = re.compile(r"\s*[|:,]\s*")
_HEADER = re.compile(r"^\s*current\s+state\s*\|", re.IGNORECASE)
_DASHES = re.compile(r"^\s*-+\s*$")
_MARKDOWN_SEPARATOR = re.compile(r"^[\s|:-]*-[\s|:-]*$")
_STATE = re.compile(r"^S\d+$", re.IGNORECASE)


@dataclass(frozen=True)
class SMSConfig:
    """Which official behaviours to keep. The default fixes the documented bug.

    tolerant_table: strip leading and trailing ``|``, skip code-fence lines and Markdown
        separator rows, and skip lines before the first row that starts with a state name
        (False: official, any of these stops the scan at step 1).
    """

    tolerant_table: bool = True

    @classmethod
    def official(cls) -> SMSConfig:
        return cls(tolerant_table=False)


@dataclass(frozen=True)
class SMSInstance:
    """The machine and its input. State i on input x goes to S((i+x) mod states) and emits
    (i+x) mod outputs."""

    input_string: str
    num_states: int = 3
    output_size: int = 3
    initial_state: str = "S0"

    def expected_outputs(self) -> list[str]:
        """The output symbol of every step."""
        match = re.fullmatch(r"S(\d+)", self.initial_state)
        if not match or self.num_states < 1 or self.output_size < 1:
            raise ValueError(f"SMS instance has an invalid machine: {self}")
        state, outputs = int(match.group(1)), []
        for position, symbol in enumerate(self.input_string, start=1):
            if not symbol.isdigit():
                raise ValueError(f"SMS input symbol {symbol!r} at position {position} is not a digit")
            combined = state + int(symbol)
            outputs.append(str(combined % self.output_size))
            state = combined % self.num_states
        return outputs


def table_rows(answer: str, steps: int, *, tolerant: bool = True) -> list[str]:
    """The lines read as steps, at most `steps` of them."""
    lines = [line.strip() for line in answer.strip().splitlines()]
    if tolerant:
        lines = [line.strip("|").strip() for line in lines if not line.startswith("```")]
        lines = [line for line in lines if not _MARKDOWN_SEPARATOR.match(line)]
    rows = [line for line in lines if line and not _HEADER.match(line) and not _DASHES.match(line)]
    if tolerant:
        first = next((i for i, row in enumerate(rows) if _starts_with_state(row)), len(rows))
        rows = rows[first:]
    return rows[:steps]


def score_sms(answer: str, instance: SMSInstance, *, config: SMSConfig = SMSConfig()) -> RuleScore:
    """Score one SMS answer."""
    expected = instance.expected_outputs()
    total = len(expected)
    if total == 0:
        return RuleScore(None, {"match_ratio": None}, {}, "the input string is empty")
    rows = table_rows(answer, total, tolerant=config.tolerant_table)
    valid, problem = 0, None
    for step, (row, want) in enumerate(zip(rows, expected), start=1):
        parts = [part.strip() for part in _COLUMN_SEPARATOR.split(row)]
        if len(parts) < 4:
            problem = f"step {step}: fewer than four columns in {row!r}"
            break
        if parts[3] != want:
            problem = f"step {step}: output {parts[3]!r}, expected {want!r}"
            break
        valid += 1
    if problem is None and valid < total:
        problem = f"the table ends after {len(rows)} of {total} steps"
    ratio = valid / total
    trace: dict[str, Any] = {
        "valid_steps": valid,
        "total_steps": total,
        "is_correct": valid == total,
        "first_problem": problem,
    }
    return RuleScore(ratio, {"match_ratio": ratio}, trace)


def _starts_with_state(row: str) -> bool:
    parts = _COLUMN_SEPARATOR.split(row)
    return len(parts) >= 4 and bool(_STATE.match(parts[0].strip()))
