"""The policy's decisions: ``{thought, action, params}`` read from its reply and validated (pure).

Anything that is not a valid decision — no JSON object, no or an unknown ``action``, missing
or non-object ``params``, a missing, non-integer or out-of-range ``section_id`` — becomes an
`Invalid` with the reason; the episode records it as a failed action and goes on. When the
tools work on the texts the policy passes (``--tool-text policy``), review needs
``params.content`` and refine ``params.content`` and ``params.feedback``, as text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from proseval.benchmarks.ravel.tools import json_objects

ActionName = Literal["outline", "draft", "review", "refine", "finish"]
ACTIONS: tuple[ActionName, ...] = ("outline", "draft", "review", "refine", "finish")
SECTION_ACTIONS = frozenset({"draft", "review", "refine"})
# The official action names, accepted as synonyms.
ALIASES: dict[str, ActionName] = {
    "plan_outline": "outline",
    "write_paragraph": "draft",
    "review_content": "review",
    "revise_paragraph": "refine",
}


@dataclass(frozen=True)
class Decision:
    action: ActionName
    params: dict[str, Any] = field(default_factory=dict)
    thought: str = ""

    @property
    def section_id(self) -> int | None:
        """The section acted on (draft, review, refine); None for outline and finish, whatever their params."""
        return self.params["section_id"] if self.action in SECTION_ACTIONS else None

    def as_dict(self) -> dict[str, Any]:
        return {"thought": self.thought, "action": self.action, "params": dict(self.params)}


@dataclass(frozen=True)
class Invalid:
    reason: str
    raw: Any = None  # what could be read (the object, or None)


def _decision_object(text: str) -> dict[str, Any] | None:
    """The first object with an ``action``, else the first object."""
    found = json_objects(text)
    return next((v for v in found if "action" in v), found[0] if found else None)


# The texts review and refine carry in params when the policy passes them.
TEXT_PARAMS: dict[str, tuple[str, ...]] = {"review": ("content",), "refine": ("content", "feedback")}


def validate(obj: Any, n_sections: int | None = None, texts: bool = False) -> Decision | Invalid:
    """A decision object checked against the action schema; `n_sections` bounds section ids;
    with `texts`, review and refine must carry their texts (`TEXT_PARAMS`)."""
    if not isinstance(obj, dict):
        return Invalid("the decision is not a JSON object", obj)
    action = obj.get("action")
    if not isinstance(action, str) or not action.strip():
        return Invalid("the decision has no 'action'", obj)
    name = ALIASES.get(action.strip(), action.strip())
    if name not in ACTIONS:
        return Invalid(f"unknown action {action!r} (actions: {', '.join(ACTIONS)})", obj)
    if "params" not in obj:
        return Invalid("the decision has no 'params' (use {} when the action takes none)", obj)
    params = obj["params"]
    if not isinstance(params, dict):
        return Invalid(f"'params' must be an object, got {type(params).__name__}", obj)
    if name in SECTION_ACTIONS:
        if "section_id" not in params:
            return Invalid(f"{name} needs params.section_id", obj)
        section_id = params["section_id"]
        if isinstance(section_id, bool) or not isinstance(section_id, int):
            return Invalid(f"section_id must be a whole number, got {section_id!r}", obj)
        if n_sections is not None and not 0 <= section_id < n_sections:
            where = "there is no outline yet" if n_sections == 0 else f"valid ids are 0..{n_sections - 1}"
            return Invalid(f"section_id {section_id} does not exist ({where})", obj)
    for key in TEXT_PARAMS.get(name, ()) if texts else ():
        if not isinstance(params.get(key), str):
            return Invalid(f"{name} needs params.{key} (the text, as a string)", obj)
    thought = obj.get("thought", "")
    return Decision(name, dict(params), thought if isinstance(thought, str) else str(thought))


def parse_decision(text: str, n_sections: int | None = None, texts: bool = False) -> Decision | Invalid:
    """The policy's reply read as a decision."""
    if not (text or "").strip():
        return Invalid("empty reply")
    obj = _decision_object(text)
    if obj is None:
        return Invalid(f"no JSON object in the reply: {text.strip()[:160]!r}")
    return validate(obj, n_sections, texts)
