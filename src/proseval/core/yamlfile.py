"""YAML files read against a pydantic schema, with errors that name the file, the line and the key.

The document is composed first (PyYAML's node tree keeps each key's line), so a value of the
wrong type, a number out of range or an unknown key is reported where it is written. A file
written as JSON is read the same way. Lines are counted as an editor counts them (by `\n`), not
as PyYAML does (which also breaks lines at a lone `\r`, U+0085, U+2028 and U+2029, characters a
JSON string may hold as they are).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from yaml.error import Mark
from yaml.nodes import MappingNode, Node, SequenceNode
from yaml.reader import ReaderError

from ..errors import UsageError, type_words
from ..models.optionfiles import OptionFileError, read_option_file

M = TypeVar("M", bound=BaseModel)


class ConfigFileError(UsageError):
    """A YAML file that cannot be read, is not YAML, or does not fit its schema."""


def read_utf8(path: Path) -> str:
    """The text of the option file `path` (`models.optionfiles`: a file, of limited size), which
    must be UTF-8 (a byte-order mark is dropped)."""
    try:
        raw = read_option_file(path)
    except OptionFileError as exc:
        raise ConfigFileError(str(exc)) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigFileError(
            f"{path}:{line}: not UTF-8 text (byte 0x{raw[exc.start]:02x}); save the file as UTF-8"
        ) from None


def line_column(text: str, index: int) -> tuple[int, int]:
    """The line and column (both from 1) of the character at `index` of `text`, lines ended by `\n`."""
    return text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index)


def mark_line(mark: Mark) -> int:
    """The line (from 1) of a PyYAML mark, as an editor counts it (see the module's text)."""
    return line_column(mark.buffer, mark.index)[0] if mark.buffer is not None else mark.line + 1


def _unreadable_character(error: ReaderError, text: str, path: Path) -> ConfigFileError:
    line, column = line_column(text, error.position)
    code = ord(str(error.character)) if isinstance(error.character, str) else int(error.character)
    return ConfigFileError(
        f"{path}:{line}:{column}: character U+{code:04X} cannot stand as it is in a YAML or "
        f"JSON file; remove it (inside a double-quoted string, write it as \\u{code:04x})"
    )


def compose(text: str, path: Path) -> tuple[Any, Node | None]:
    """The document's value and its node tree (None for an empty document)."""
    try:
        loader = yaml.SafeLoader(text)  # it refuses a character no YAML file may hold (a control character)
    except ReaderError as exc:
        raise _unreadable_character(exc, text, path) from None
    try:
        node = loader.get_single_node()
        value = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{':'.join(map(str, line_column(text, mark.index)))}" if mark else str(path)
        raise ConfigFileError(f"{where}: invalid YAML: {getattr(exc, 'problem', None) or exc}") from None
    finally:
        loader.dispose()
    return value, node


def line_of(node: Node | None, loc: tuple[Any, ...]) -> int | None:
    """The line of the deepest key (or list item) of `loc` found in the tree, 1-based."""
    line = None
    for part in loc:
        if isinstance(node, MappingNode):
            found = next(((k, v) for k, v in node.value if str(k.value) == str(part)), None)
            if found is None:
                break
            line, node = mark_line(found[0].start_mark), found[1]
        elif isinstance(node, SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
            line = mark_line(node.start_mark)
        else:
            break
    return line


Problem = tuple[int, str]  # the line (0: unknown) and the message, which names the file, line and key


def duplicate_keys(node: Node | None, path: Path) -> list[Problem]:
    """A problem for each key written twice in one mapping (YAML would keep the last silently)."""
    problems: list[Problem] = []
    if isinstance(node, MappingNode):
        seen: dict[str, Mark] = {}  # each key's first mark: a line is counted only for a key given twice
        for key, value in node.value:
            name = str(key.value)
            if name in seen:
                line = mark_line(key.start_mark)
                problems.append((line, f"{path}:{line}: {name}: given twice (also on line {mark_line(seen[name])})"))
            seen.setdefault(name, key.start_mark)
            problems += duplicate_keys(value, path)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            problems += duplicate_keys(item, path)
    return problems


def _shown(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _message(item: Mapping[str, Any]) -> str:
    message = type_words(item)
    message = message[:1].lower() + message[1:]
    return message if item["type"] in ("missing", "value_error") else f"{message} (got {_shown(item.get('input'))})"


def known_keys(model: type[BaseModel]) -> list[str]:
    """The keys `model` takes, aliases included."""
    names = []
    for field, info in model.model_fields.items():
        choices = getattr(info.validation_alias, "choices", None)
        names += [str(choice) for choice in choices] if choices else [field]
    return sorted(names)


def describe(error: ValidationError, node: Node | None, path: Path, model: type[BaseModel]) -> list[Problem]:
    """One problem per error, as `FILE:LINE: KEY: message`; an unknown key with the known ones."""
    problems: list[Problem] = []
    for item in error.errors():
        loc = tuple(item["loc"])
        line = line_of(node, loc) or 0
        where = f"{path}:{line}" if line else str(path)
        key = ".".join(str(part) for part in loc)
        if item["type"] == "extra_forbidden" and len(loc) == 1:
            known = known_keys(model)
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            problems.append((line, f"{where}: unknown key {key}{hint}; known keys: {', '.join(known)}"))
        elif item["type"] == "extra_forbidden":
            problems.append((line, f"{where}: {key}: unknown key"))
        else:
            problems.append((line, f"{where}: {key}: {_message(item)}" if key else f"{where}: {_message(item)}"))
    return problems


def load_yaml_model(path: Path, model: type[M]) -> M:
    """Read `path` (UTF-8 YAML, one mapping) and validate it as `model`; an empty file is `{}`.

    Raises `ConfigFileError` naming the file, the line and the key of every problem.
    """
    value, node = compose(read_utf8(path), path)
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise ConfigFileError(f"{path}:1: expected a mapping of keys to values, got a {type(value).__name__}")
    problems = duplicate_keys(node, path)
    try:
        validated = model.model_validate(value)
    except ValidationError as exc:
        problems += describe(exc, node, path, model)
    else:
        if not problems:
            return validated
    raise ConfigFileError("; ".join(text for _, text in sorted(problems)))
