"""Prompt templates a task sends, replaceable by a user's file (``--prompt NAME=FILE``).

A template names its placeholders; rendering replaces exactly ``{name}`` for those names in
one pass, so any other brace in the text (JSON examples in a judge prompt, say) stays as
written and text substituted into a placeholder is never read as a template. A replacement
text is checked when the run starts: every required placeholder must appear, and a
``{word}`` that is not a known placeholder is refused, since it is almost always a typo.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import UsageError

_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class PromptError(UsageError, ValueError):
    """A prompt file that cannot be used: unreadable, unknown name, or wrong placeholders."""


@dataclass(frozen=True)
class PromptTemplate:
    """One message template. `source` is "builtin" or the file it was read from."""

    name: str
    text: str
    placeholders: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    description: str = ""
    source: str = "builtin"

    def __post_init__(self) -> None:
        problems = check_placeholders(self.text, self.placeholders, self.optional)
        if problems:
            raise PromptError(f"prompt {self.name!r} ({self.source}): {problems}")

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def render(self, **values: object) -> str:
        """The text with each placeholder replaced by ``str(value)``; all placeholders are needed."""
        known = set(self.placeholders) | set(self.optional)
        missing = set(self.placeholders) - set(values)
        unknown = set(values) - known
        if missing or unknown:
            raise KeyError(f"prompt {self.name!r}: missing {sorted(missing)}, unknown {sorted(unknown)}")
        text = {key: str(value) for key, value in values.items()}
        return _SLOT.sub(lambda m: text.get(m.group(1), m.group(0)) if m.group(1) in known else m.group(0), self.text)

    def replaced_by(self, text: str, source: str) -> PromptTemplate:
        """The same template with another text (checked the same way)."""
        return replace(self, text=text, source=source)


def check_placeholders(text: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> str:
    """'' when `text` has every required placeholder and no unknown ``{word}``; else the problem."""
    found = set(_SLOT.findall(text))
    missing = [name for name in required if name not in found]
    unknown = sorted(found - set(required) - set(optional))
    problems = []
    if missing:
        problems.append("missing placeholder(s) " + ", ".join("{" + n + "}" for n in missing))
    if unknown:
        allowed = ", ".join("{" + n + "}" for n in (*required, *optional)) or "none"
        problems.append(
            "unknown placeholder(s) " + ", ".join("{" + n + "}" for n in unknown) + f" (this prompt takes {allowed})"
        )
    return "; ".join(problems)


def read_prompt_file(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise PromptError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise PromptError(f"{path}: {exc.strerror or exc}") from None


def override_prompts(
    prompts: Mapping[str, PromptTemplate], files: Mapping[str, Path], task_name: str
) -> dict[str, PromptTemplate]:
    """`prompts` with the named ones replaced by the texts of `files` (checked; clear errors)."""
    result = dict(prompts)
    for name, path in files.items():
        if name not in prompts:
            known = ", ".join(sorted(prompts)) or "none"
            raise PromptError(f"--prompt {name}: {task_name} has no prompt of that name (its prompts: {known})")
        result[name] = prompts[name].replaced_by(read_prompt_file(Path(path)), str(path))
    return result
