"""Reviser replies as edits: parsing, normalisation, the compound-edit split and the categories (pure functions).

A reply is usable when it holds a JSON array of edit objects, bare or under ``"edits"``
(``[]`` is a usable reply: no edit is needed). The first complete array (or object with
``edits``) in the text is taken; failing that, the text repaired from its first bracket (a list
broken or cut short: status ``repaired``); failing that, a lone edit object. Anything else
(prose, a number, an array of strings, objects without any edit field) is unusable and the draft
stays unscored.

Edits whose every field is an angle-bracket placeholder (``"<what the edit does>"``) copy the
format description rather than propose an edit: they are dropped and counted, and a reply made
only of them is unusable.

Normalisation, applied in this order, each counted:

1. **compound split** — an ``action_name`` that joins several *actions* ("simplify and
   reorganize", "add/delete") becomes one edit per distinct action, each with the same
   snippets. A joined part is a new action only when it starts with a verb of `ACTIONS`;
   otherwise it is part of the object of the action before it ("add examples and citations"
   is one edit). Verbs of one action ("compare and contrast") count once;
2. **no-ops dropped** — an edit whose original and revised snippets are the same non-empty
   text (runs of whitespace aside; a change of case is an edit) changes nothing;
3. **duplicates dropped** — an edit equal to an earlier one (action name up to case, snippets
   up to whitespace) is the same edit proposed twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from proseval.kit import find_json_values, repair_json_value, strip_reasoning

FIELDS = (
    "action_name",
    "revision_description",
    "revision_level",
    "original_snippet",
    "revised_snippet",
    "revision_intention",
)
# The knowledge-intensive setting files every edit under one of these (the paper's Table 4).
KNOWLEDGE_CATEGORIES = ("order", "comparison", "description")
# The other settings count edits by the kind of action (our own small vocabulary).
ACTION_CATEGORIES = ("add", "delete", "rewrite", "reorder")
# "reference": an edit to what the text says about one cited work (knowledge-intensive writing).
LEVELS = ("word", "phrase", "sentence", "paragraph", "document", "reference")
OTHER = "other"

_JOINER = re.compile(r"\s*(?:,|;|/|\+|&|\band\b|\bthen\b|\bas well as\b)\s*", re.IGNORECASE)
_SPACE = re.compile(r"\s+")
# Fixed multi-word names of one action: their joiner does not split them ("search and replace" is one edit).
FIXED_PAIRS = ("search and replace", "find and replace", "cut and paste", "copy and paste")
_FIXED = re.compile(r"\b(?:" + "|".join(pair.replace(" ", r"\s+") for pair in FIXED_PAIRS) + r")\b", re.IGNORECASE)
# A knowledge category named as a word (plural too), never inside another word ("border", "disorder");
# "in order to / for" is a conjunction, not the category.
_CATEGORY_WORD = re.compile(r"\b(" + "|".join(KNOWLEDGE_CATEGORIES) + r")s?\b")
_IN_ORDER = re.compile(r"\bin\s+order\s+(?:to|for|that)\b")
_LETTERS = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class Action:
    """One revision action: the verbs that name it, and the category it counts under in each setting.

    `general` is one of `ACTION_CATEGORIES` (None: decided by the snippets), `knowledge` one of
    `KNOWLEDGE_CATEGORIES` (None: the action alone does not say).
    """

    name: str
    verbs: tuple[str, ...]
    general: str | None
    knowledge: str | None


# The paper's action vocabulary (expand, simplify, compare, group, reorganise, add, delete, ...) and
# close synonyms. Verbs of one entry are one action: "compare and contrast" is a single edit.
ACTIONS: tuple[Action, ...] = (
    Action("add", ("add", "insert", "include", "append", "introduce", "supplement"), "add", None),
    Action("expand", ("expand", "elaborate", "extend", "enrich", "develop"), "add", "description"),
    Action("delete", ("delete", "remove", "omit", "drop", "eliminate", "cut"), "delete", None),
    Action("shorten", ("shorten", "condense", "trim", "compress", "summarise", "summarize"), "delete", "description"),
    Action("simplify", ("simplify",), "rewrite", "description"),
    Action("clarify", ("clarify",), "rewrite", "description"),
    Action("describe", ("describe", "explain", "specify", "define"), None, "description"),
    Action("correct", ("correct", "fix"), "rewrite", "description"),
    Action("compare", ("compare", "contrast", "differentiate", "distinguish"), None, "comparison"),
    Action(
        "reorganise",
        ("reorganise", "reorganize", "restructure", "rearrange", "reorder", "resequence"),
        "reorder",
        "order",
    ),
    Action("move", ("move", "relocate", "swap"), "reorder", "order"),
    Action("group", ("group", "cluster", "categorise", "categorize"), "reorder", "order"),
    Action("merge", ("merge", "combine"), "rewrite", None),
    Action("split", ("split", "divide"), "rewrite", None),
    Action("rewrite", ("rewrite", "rephrase", "reword", "paraphrase"), "rewrite", None),
    Action("replace", ("replace", "substitute"), "rewrite", None),
    Action(
        "revise",
        (
            "revise",
            "modify",
            "change",
            "edit",
            "adjust",
            "improve",
            "update",
            "polish",
            "refine",
            "strengthen",
            "tighten",
            "streamline",
            "emphasise",
            "emphasize",
            "highlight",
        ),
        "rewrite",
        None,
    ),
)
_VERB_ACTION: dict[str, Action] = {verb: action for action in ACTIONS for verb in action.verbs}
# Nouns of actions ("reorganization of the paragraphs") that the suffix rules below do not reach.
_NOUNS = {
    "addition": "add",
    "expansion": "expand",
    "extension": "extend",
    "comparison": "compare",
    "simplification": "simplify",
    "clarification": "clarify",
    "description": "describe",
    "explanation": "explain",
    "removal": "remove",
    "omission": "omit",
    "division": "divide",
    "revision": "revise",
    "definition": "define",
}

_LEVEL_WORDS: dict[str, tuple[str, ...]] = {
    "word": ("word", "token", "spelling", "punctuation", "character"),
    "phrase": ("phrase", "clause", "expression", "term"),
    "sentence": ("sentence", "line"),
    "paragraph": ("paragraph", "passage"),
    "document": ("document", "section", "structure", "global", "whole", "text", "overall", "discourse"),
    "reference": ("reference", "citation", "cited"),
}


def _verb_forms(word: str) -> list[str]:
    """The base forms `word` may be an inflection of (moves, moved, moving, simplified, dropped)."""
    forms = [word]
    for suffix, endings in (
        ("ies", ("y",)),
        ("ied", ("y",)),
        ("es", ("", "e")),
        ("s", ("",)),
        ("ed", ("", "e")),
        ("d", ("",)),
        ("ing", ("", "e")),
    ):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            stem = word[: -len(suffix)]
            forms.extend(stem + ending for ending in endings)
            if suffix in ("ed", "ing") and len(stem) > 2 and stem[-1] == stem[-2]:
                forms.append(stem[:-1])  # dropped → drop
    return forms


def action_of_word(word: str, *, nouns: bool = False) -> Action | None:
    """The action a word names as a verb (any inflection), or also as a noun when `nouns` is set
    ("deletion", "reorganisation")."""
    word = word.casefold()
    forms = _verb_forms(word)
    if nouns:
        singular = word[:-1] if word.endswith("s") else word
        forms += [_NOUNS.get(singular, "")]
        for suffix, endings in (
            ("isation", ("ise",)),
            ("ization", ("ize",)),
            ("ation", ("e", "ate", "")),
            ("ion", ("", "e")),
        ):
            if singular.endswith(suffix):
                forms.extend(singular[: -len(suffix)] + ending for ending in endings)
    return next((_VERB_ACTION[form] for form in forms if form in _VERB_ACTION), None)


def _first_word(text: str) -> str:
    found = _LETTERS.search(text.casefold())
    return found.group(0) if found else ""


@dataclass(frozen=True)
class Edit:
    """One proposed edit, its six fields as strings, plus the category the reviser gave (if any)."""

    action_name: str = ""
    revision_description: str = ""
    revision_level: str = ""
    original_snippet: str = ""
    revised_snippet: str = ""
    revision_intention: str = ""
    category: str = ""

    def as_dict(self) -> dict[str, str]:
        out = {name: getattr(self, name) for name in FIELDS}
        if self.category:
            out["category"] = self.category
        return out


@dataclass(frozen=True)
class ParsedReply:
    """The edits of one reply (None when unusable), why, and what normalisation did."""

    edits: tuple[Edit, ...] | None
    status: str  # ok | repaired | unparsable | empty
    detail: str = ""
    raw_count: int = 0  # edits as the reviser listed them
    split_added: int = 0  # extra edits created by splitting compound actions
    noops: int = 0
    duplicates: int = 0
    missing_fields: int = 0  # edits lacking at least one of the six fields
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def usable(self) -> bool:
        return self.edits is not None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(_text(v) for v in value)
    return str(value).strip()


def fold(text: str) -> str:
    """Case-folded text with runs of whitespace made single spaces."""
    return _SPACE.sub(" ", text).strip().casefold()


def listed_edits(value: Any) -> list[Any] | None:
    """The array of edits a JSON value holds: the value itself or its ``edits`` (or ``revisions``) member."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key in ("edits", "revisions", "revision_edits"):
            if isinstance(value.get(key), list):
                return value[key]
    return None


def is_edit_object(value: Any) -> bool:
    return isinstance(value, dict) and any(name in value for name in FIELDS)


def find_edit_list(text: str) -> tuple[list[Any] | None, str, str]:
    """The reply's array of edits, how it was read (``ok``, ``repaired``, ``empty``, ``unparsable``) and why not.

    A lone edit object inside a broken array (``[{...}, {...`` cut short) is not taken for the
    whole reply: the repaired array is.
    """
    cleaned = strip_reasoning(text or "").text
    if not cleaned.strip():
        return None, "empty", "the reviser returned no text"
    values = find_json_values(cleaned)
    for value in values:
        if (items := listed_edits(value)) is not None:
            return items, "ok", ""
    if (items := listed_edits(repair_json_value(cleaned))) is not None:
        return items, "repaired", ""
    for value in values:
        if is_edit_object(value):
            return [value], "ok", ""
    if values:
        return None, "unparsable", f"JSON without a list of edits: {str(values[0])[:160]!r}"
    return None, "unparsable", f"no JSON list of edits in: {cleaned[:160]!r}"


def to_edit(item: Any) -> Edit | None:
    """An `Edit` from one array element, or None when it is not an edit object."""
    if not is_edit_object(item):
        return None
    return Edit(
        **{name: _text(item.get(name)) for name in FIELDS},
        category=_text(item.get("category") or item.get("revision_category")),
    )


def split_actions(action_name: str) -> list[str]:
    """The distinct actions named in `action_name`, in order (see the module docstring).

    "simplify and reorganize" → two; "add examples and citations" (a compound object) and
    "compare and contrast" (two verbs of one action) → one.
    """
    parts: list[tuple[int, int]] = []  # spans of the parts between joiners
    position = 0
    fixed = [m.span() for m in _FIXED.finditer(action_name)]
    joiners = [j for j in _JOINER.finditer(action_name) if not any(a <= j.start() < b for a, b in fixed)]
    for joiner in [*joiners, None]:
        end = joiner.start() if joiner else len(action_name)
        if action_name[position:end].strip(" ."):
            parts.append((position, end))
        position = joiner.end() if joiner else end
    actions: list[tuple[str, int, int]] = []  # (action key, start, end)
    for start, end in parts:
        first = _first_word(action_name[start:end])
        action = action_of_word(first)
        if actions and (action is None or action.name == actions[-1][0]):
            # the object of the action before it goes on ("and citations"), or a synonym of it ("and contrast")
            actions[-1] = (actions[-1][0], actions[-1][1], end)
        else:
            actions.append((action.name if action is not None else first, start, end))
    seen: set[str] = set()
    distinct = []
    for key, start, end in actions:
        if key not in seen:
            seen.add(key)
            distinct.append(action_name[start:end].strip(" ."))
    return distinct or [action_name.strip()]


def split_compound(edit: Edit) -> list[Edit]:
    """One edit per distinct action of a compound `action_name` (the other fields are kept)."""
    actions = split_actions(edit.action_name)
    return [edit] if len(actions) == 1 else [replace(edit, action_name=action) for action in actions]


def squash(text: str) -> str:
    """Text with runs of whitespace made single spaces (case kept: a capitalisation fix is an edit)."""
    return _SPACE.sub(" ", text).strip()


def is_template_echo(edit: Edit) -> bool:
    """Every filled field is a ``<placeholder>``: the format description copied, not an edit."""
    filled = [value for value in (*(getattr(edit, name) for name in FIELDS), edit.category) if value]
    return bool(filled) and all(value.startswith("<") and value.endswith(">") for value in filled)


def is_noop(edit: Edit) -> bool:
    original, revised = squash(edit.original_snippet), squash(edit.revised_snippet)
    return bool(original) and original == revised


def edit_key(edit: Edit) -> tuple[str, str, str]:
    return fold(edit.action_name), squash(edit.original_snippet), squash(edit.revised_snippet)


def normalise(edits: list[Edit]) -> tuple[list[Edit], int, int, int]:
    """Split compounds, drop no-ops and duplicates: (edits, split added, no-ops, duplicates)."""
    split: list[Edit] = []
    for edit in edits:
        split.extend(split_compound(edit))
    added = len(split) - len(edits)
    kept: list[Edit] = []
    seen: set[tuple[str, str, str]] = set()
    noops = duplicates = 0
    for edit in split:
        if is_noop(edit):
            noops += 1
        elif edit_key(edit) in seen:
            duplicates += 1
        else:
            seen.add(edit_key(edit))
            kept.append(edit)
    return kept, added, noops, duplicates


def parse_reply(text: str) -> ParsedReply:
    """The normalised edits of a reviser reply, or why there are none (see the module docstring)."""
    items, status, detail = find_edit_list(text)
    if items is None:
        return ParsedReply(None, status, detail)
    edits = [to_edit(item) for item in items]
    if any(edit is None for edit in edits):
        bad = next(item for item, edit in zip(items, edits) if edit is None)
        return ParsedReply(None, "unparsable", f"an element is not an edit object: {str(bad)[:160]!r}")
    listed = [edit for edit in edits if edit is not None]
    valid = [edit for edit in listed if not is_template_echo(edit)]
    if listed and not valid:
        return ParsedReply(None, "unparsable", "the reply copies the format description instead of proposing edits")
    missing = sum(1 for item in items if any(name not in item for name in FIELDS))
    kept, added, noops, duplicates = normalise(valid)
    return ParsedReply(
        tuple(kept),
        status,
        raw_count=len(valid),
        split_added=added,
        noops=noops,
        duplicates=duplicates,
        missing_fields=missing,
        notes={"template_echoes": len(listed) - len(valid)} if len(listed) > len(valid) else {},
    )


def _classify(text: str, vocabulary: dict[str, tuple[str, ...]]) -> str:
    words = _LETTERS.findall(text.casefold())
    for label, stems in vocabulary.items():
        if any(word.startswith(stem) for word in words for stem in stems):
            return label
    return OTHER


def _first_action(text: str) -> Action | None:
    """The first action the words of `text` name (a verb or its noun: "deletion", "reorganisation")."""
    return next(
        (
            action
            for word in _LETTERS.findall(text.casefold())
            if (action := action_of_word(word, nouns=True)) is not None
        ),
        None,
    )


def action_category(edit: Edit) -> str:
    """add, delete, rewrite, reorder or other: from the first action named in `action_name`, else
    (an unknown action, or one without a general category) from which snippet is empty."""
    action = _first_action(edit.action_name)
    if action is not None and action.general is not None:
        return action.general
    if not edit.original_snippet and edit.revised_snippet:
        return "add"
    if edit.original_snippet and not edit.revised_snippet:
        return "delete"
    return OTHER


def _category_named(text: str) -> str | None:
    """The knowledge category named in `text` (the first one named when there are several)."""
    folded = _IN_ORDER.sub(" ", text.casefold())
    found = _CATEGORY_WORD.search(folded)
    return found.group(1) if found else None


def knowledge_category(edit: Edit) -> str:
    """order, comparison, description or other for the knowledge-intensive setting.

    The reviser's `category` when it names one of the three (the first one named when it gives
    several); otherwise (none given, or another word) the action's: a category named in
    `action_name` ("add comparison"), else the category of its first action (`ACTIONS`:
    reorganise / group / move → order, compare / contrast → comparison, expand / simplify /
    describe → description). An action without one (add, delete, rephrase, …) counts as other.
    """
    for label in (_category_named(edit.category), _category_named(edit.action_name)):
        if label is not None:
            return label
    action = _first_action(edit.action_name)
    return action.knowledge if action is not None and action.knowledge is not None else OTHER


def level_of(edit: Edit) -> str:
    """word, phrase, sentence, paragraph, document, reference or other (the first level named)."""
    return _classify(edit.revision_level, _LEVEL_WORDS)


def category_names(setting: str) -> tuple[str, ...]:
    return (*(KNOWLEDGE_CATEGORIES if setting == "knowledge" else ACTION_CATEGORIES), OTHER)


def category_of(edit: Edit, setting: str) -> str:
    return knowledge_category(edit) if setting == "knowledge" else action_category(edit)
