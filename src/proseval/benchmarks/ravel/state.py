"""The episode state and its transitions (pure: every function returns a new state).

A section moves ``pending → drafted → completed`` (review at or above τ) or ``drafted →
revision_needed`` (review below τ) ``→ drafted`` (refine). A draft of any section makes it
``drafted`` again; its revision count is kept, so a rewrite cannot bypass the revision cap. A
review of a section whose revision count has reached the cap completes it even below τ
(``forced``), so the last refinement is always reviewed before the section is closed.

``compat="official"`` restores the reference commit's cap instead: a draft resets the revision
count, and a review or refine of a written section at the cap is not run: the section is
closed as it is (`apply_cap`, a ``skipped`` step), so the last refinement is never reviewed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Compat = Literal["fixed", "official"]
Status = Literal["pending", "drafted", "revision_needed", "completed"]
STATUSES: tuple[Status, ...] = ("pending", "drafted", "revision_needed", "completed")


class Section(BaseModel):
    """One outline section and its manuscript entry."""

    model_config = ConfigDict(frozen=True)

    id: int
    title: str
    points: tuple[str, ...] = ()
    status: Status = "pending"
    content: str = ""
    summary: str = ""
    score: float | None = None  # the in-loop reviewer's last score (0-10)
    feedback: str = ""
    revisions: int = 0  # successful refinements of this section
    forced: bool = False  # completed at the revision cap while below τ


class Episode(BaseModel):
    """Everything the environment knows about one episode."""

    model_config = ConfigDict(frozen=True)

    topic: str
    style_guide: str
    language: str = "en"
    title: str = ""
    sections: tuple[Section, ...] = ()
    outlines: int = 0  # successful outline actions (a second one replaces the first)
    finished: bool = False
    premature: bool = False  # finished while some section was not completed

    @property
    def n(self) -> int:
        return len(self.sections)

    @property
    def all_completed(self) -> bool:
        return self.n > 0 and all(s.status == "completed" for s in self.sections)

    def section(self, section_id: int) -> Section:
        return self.sections[section_id]


class TransitionError(ValueError):
    """An action that is valid JSON but not allowed in this state (recorded as a failed action)."""


class Settings(BaseModel):
    """The environment's rules."""

    model_config = ConfigDict(frozen=True)

    tau: float = 8.0
    revision_cap: int | None = 3  # None: no cap
    max_steps: int = 50
    history_window: int = 10
    max_sections: int | None = None  # None: no cap on the outline (official)
    compat: Compat = "fixed"  # official: the reference commit's revision cap (module docstring)


def start(topic: str, style_guide: str, language: str = "en") -> Episode:
    return Episode(topic=topic, style_guide=style_guide, language=language)


def _replace(episode: Episode, section: Section) -> Episode:
    sections = list(episode.sections)
    sections[section.id] = section
    return episode.model_copy(update={"sections": tuple(sections)})


def check_id(episode: Episode, section_id: int) -> Section:
    if episode.n == 0:
        raise TransitionError("there is no outline yet: call outline first")
    if not 0 <= section_id < episode.n:
        raise TransitionError(f"section_id {section_id} is outside 0..{episode.n - 1}")
    return episode.section(section_id)


def apply_outline(episode: Episode, title: str, sections: list[tuple[str, list[str]]]) -> Episode:
    """A new outline: every section pending; the previous sections and their texts are dropped."""
    if not sections:
        raise TransitionError("the outline has no sections")
    new = tuple(Section(id=i, title=t, points=tuple(p)) for i, (t, p) in enumerate(sections))
    return episode.model_copy(
        update={"title": title or episode.topic[:120], "sections": new, "outlines": episode.outlines + 1}
    )


def apply_draft(
    episode: Episode, section_id: int, content: str, summary: str, *, reset_revisions: bool = False
) -> Episode:
    """A section's (new) text: drafted, unreviewed; its revision count is kept (reset: official)."""
    section = check_id(episode, section_id)
    if not content.strip():
        raise TransitionError("the draft is empty")
    return _replace(
        episode,
        section.model_copy(
            update={
                "status": "drafted",
                "content": content,
                "summary": summary,
                "score": None,
                "feedback": "",
                "forced": False,
                "revisions": 0 if reset_revisions else section.revisions,
            }
        ),
    )


def can_review(section: Section) -> None:
    if section.status == "pending":
        raise TransitionError(f"section {section.id} has no draft to review")


def at_cap(section: Section, settings: Settings) -> bool:
    return settings.revision_cap is not None and section.revisions >= settings.revision_cap


def blocked_by_cap(section: Section, settings: Settings) -> bool:
    """The official cap: a written section that used every revision is not reviewed or refined again."""
    return settings.compat == "official" and section.status != "pending" and at_cap(section, settings)


def apply_cap(episode: Episode, section_id: int, settings: Settings) -> Episode:
    """A section closed by the official cap, as it is (``forced`` unless its last score passed)."""
    section = check_id(episode, section_id)
    passed = section.score is not None and section.score >= settings.tau
    return _replace(episode, section.model_copy(update={"status": "completed", "forced": not passed}))


def apply_review(episode: Episode, section_id: int, score: float, feedback: str, settings: Settings) -> Episode:
    """The reviewer's score: completed at or above τ; below τ revision_needed, or completed
    (``forced``) once the section has used every revision the cap allows."""
    section = check_id(episode, section_id)
    can_review(section)
    passed = score >= settings.tau
    capped = at_cap(section, settings)
    status: Status = "completed" if passed or capped else "revision_needed"
    return _replace(
        episode,
        section.model_copy(
            update={"status": status, "score": float(score), "feedback": feedback, "forced": capped and not passed}
        ),
    )


def can_refine(section: Section) -> None:
    if section.status != "revision_needed":
        raise TransitionError(
            f"section {section.id} is {section.status}: only a section a review sent back "
            "(revision_needed) can be refined"
        )


def apply_refine(episode: Episode, section_id: int, content: str) -> Episode:
    """The revised text: back to drafted (to be reviewed again), one more revision counted."""
    section = check_id(episode, section_id)
    if not content.strip():
        raise TransitionError("the revision is empty")
    return _replace(
        episode,
        section.model_copy(update={"status": "drafted", "content": content, "revisions": section.revisions + 1}),
    )


def apply_finish(episode: Episode) -> Episode:
    return episode.model_copy(update={"finished": True, "premature": not episode.all_completed})


def manuscript(episode: Episode) -> str:
    """The article: its title, then every section that has a text, in outline order."""
    parts = [f"## {s.title}\n\n{s.content.strip()}" for s in episode.sections if s.content.strip()]
    if not parts:
        return ""
    return f"# {episode.title or episode.topic}\n\n" + "\n\n".join(parts) + "\n"


def diff(before: Episode, after: Episode) -> dict[str, object]:
    """What a step changed: the outline, and per section the fields that differ."""
    out: dict[str, object] = {}
    if before.outlines != after.outlines:
        out["outline"] = {"title": after.title, "sections": [s.title for s in after.sections], "replaced": before.n}
        return out
    changes = {}
    for old, new in zip(before.sections, after.sections):
        fields = {}
        for name in ("status", "score", "revisions", "forced", "feedback", "summary"):
            a, b = getattr(old, name), getattr(new, name)
            if a != b:
                fields[name] = [a, b]
        if old.content != new.content:
            fields["content_words"] = [len(old.content.split()), len(new.content.split())]
        if fields:
            changes[str(old.id)] = fields
    if changes:
        out["sections"] = changes
    if before.finished != after.finished:
        out["finished"] = True
        out["premature"] = after.premature
    return out
