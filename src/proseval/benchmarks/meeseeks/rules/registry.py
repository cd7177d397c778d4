"""The two checker registries (CJK and non-CJK dispatchers) and rule dispatch.

A label is handled by the registered prefix that matches it; when several match, the
longest wins (so ``has_dakuten_count_range`` is never shadowed by ``has_dakuten_count``).
Unknown labels are reported as ``unsupported`` and never pass or fail.
"""

from __future__ import annotations

import importlib.util
import re
from functools import lru_cache

from . import (
    affixes,
    arabic,
    chinese,
    chinese_prosody,
    european,
    french,
    frequency,
    german,
    indonesian,
    japanese,
    keywords,
    korean,
    length,
    notation,
    portuguese,
    ratio,
    repetition,
    rhyme,
    russian,
    schema,
    spanish,
)
from .base import Dispatcher, ParameterError, RuleContext, Verdict
from .spec import RuleSpec

_ALL: list[RuleSpec] = [
    *length.RULES,
    *keywords.RULES,
    *frequency.RULES,
    *repetition.RULES,
    *affixes.RULES,
    *notation.RULES,
    *ratio.RULES,
    *schema.RULES,
    *rhyme.RULES,
    *chinese.RULES,
    *japanese.RULES,
    *korean.RULES,
    *european.RULES,
    *chinese_prosody.RULES,
    *spanish.RULES,
    *french.RULES,
    *portuguese.RULES,
    *german.RULES,
    *russian.RULES,
    *indonesian.RULES,
    *arabic.RULES,
]

REGISTRIES: dict[Dispatcher, tuple[RuleSpec, ...]] = {
    d: tuple(sorted((s for s in _ALL if d in s.dispatchers), key=lambda s: -len(s.prefix))) for d in ("cjk", "latin")
}


@lru_cache(maxsize=8192)
def find_spec(label: str, dispatcher: Dispatcher) -> RuleSpec | None:
    """The checker that handles ``label`` in ``dispatcher``'s registry, if any."""
    return next((s for s in REGISTRIES[dispatcher] if s.matches(label)), None)


@lru_cache(maxsize=None)
def module_available(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def missing_modules(spec: RuleSpec) -> list[str]:
    return [m for m in spec.requires if not module_available(m)]


def evaluate_rule(label: str, items: list[str] | str, ctx: RuleContext, dispatcher: Dispatcher) -> Verdict:
    """Check extracted ``items`` (or, for ``SCHEMA``, the raw response) against ``label``.

    A bare string given where a list is expected is read as the checker's spec says.
    """
    spec = find_spec(label, dispatcher)
    if spec is None:
        return Verdict.unsupported(f"no {dispatcher} checker for rule {label!r}")
    missing = missing_modules(spec)
    if missing:
        hint = f" (install proseval[{spec.extra}])" if spec.extra else ""
        return Verdict.missing_dependency(f"rule {label!r} needs {', '.join(missing)}{hint}")
    try:
        params = spec.parse(label)
    except ParameterError as exc:
        return Verdict.undecidable(str(exc))
    if isinstance(items, str) and spec.bare_string != "raw":
        items = list(items) if spec.bare_string == "chars" else [items]
    return spec.check(params, items, ctx)  # type: ignore[arg-type]  # a "raw" rule's checker takes the string


_TRAILING_DIGITS = re.compile(r"\d+$")


def label_family(label: str, dispatcher: Dispatcher) -> str:
    """Family name of a label: its checker's family, else the label name without parameters."""
    spec = find_spec(label, dispatcher)
    if spec is not None:
        return spec.family
    name = re.split(r"[:\[\s,<]", label, maxsplit=1)[0]
    return _TRAILING_DIGITS.sub("", name).lower()
