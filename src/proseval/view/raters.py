"""The raters of a labelling session and their secret keys, so raters stay blind to each other.

Whoever starts the session names its raters (``proseval view RUNS --label S --rater Ann --rater
Ben``); each new rater gets a key, printed once in their own link (``/label?key=...``). A session
planned without ``--rater`` lets people join by giving a name no one has yet: they get a key the
same way, shown once on the page that lets them in. Only a hash of each key is kept, in
``S.raters.json`` beside the labels file: the file gives no one a way in. A rater's link names
them to the viewer (then a cookie does); a name already taken is never given to anyone else, nor
is a look-alike of it (`look_alike`: "ann", "ANN", "Ａnn" or a Cyrillic "Аnn" beside "Ann"), which
would split one person into two raters, or let one pass for another.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import icu  # PyICU ships no type information (pyproject.toml: [[tool.mypy.overrides]])

__all__ = ["COMPARED", "Raters", "canonical", "look_alike", "same_name", "skeleton", "spelled"]

RATERS_FORMAT = 1
COMPARED = (
    "names are compared as they look: case, width and spacing aside, and letters of other alphabets that "
    "look the same, as Unicode's confusables data has them"
)
_SPOOF = icu.SpoofChecker()
_SPOOF_LOCK = threading.Lock()  # one checker, shared by the server's threads


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def skeleton(text: str) -> str:
    """The confusable skeleton of `text` (Unicode Technical Standard #39, through ICU): two texts
    with the same skeleton look alike ("Аnn" with a Cyrillic А is "Ann"; "Kim" is "Kirn")."""
    with _SPOOF_LOCK:
        return _SPOOF.getSkeleton(0, text)  # the type argument is ignored since ICU 58


def _spaced(name: str) -> str:
    """`name` compatibility-normalised (NFKC: full-width letters as plain ones), each run of
    whitespace one space, none at the ends."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def canonical(name: str) -> str:
    """`name` with case, width and spacing folded (NFKC, casefolded, runs of whitespace one space)."""
    return _spaced(_spaced(name).casefold())


def _forms(name: str) -> tuple[str, str]:
    """What names are compared by: the skeleton of the name as written, casefolded (so "AI" and
    "al" meet), and the skeleton of its folded form (so "KIM" and "Kim" meet)."""
    return canonical(skeleton(_spaced(name))), skeleton(canonical(name))


def look_alike(name: str, other: str) -> bool:
    """Whether two rater names look alike (`COMPARED`): either of their `_forms` is the same."""
    return any(mine == theirs for mine, theirs in zip(_forms(name), _forms(other)))


def same_name(name: str, names: Iterable[str]) -> str | None:
    """The one of `names` that is `name` (preferred) or a look-alike of it; None: neither is among them."""
    names = list(names)
    if name in names:
        return name
    forms = _forms(name)
    return next((other for other in names if any(a == b for a, b in zip(forms, _forms(other)))), None)


def spelled(name: str, other: str) -> str:
    """What tells two look-alike names apart that a reader may not see: each character outside ASCII
    that one has and the other lacks, by its code point and Unicode name ("" when there is none)."""
    parts = []
    for word, against in ((name, other), (other, name)):
        odd = [c for c in dict.fromkeys(word) if not c.isascii() and c not in against]
        if odd:
            parts.append(
                f"{word} has " + ", ".join(f"{c} (U+{ord(c):04X} {unicodedata.name(c, 'unnamed')})" for c in odd)
            )
    return "; ".join(parts)


class Raters:
    """The raters of the session whose raters file is `path`: name -> the hash of their key."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._hashes: dict[str, str] = {}
        if self.path.is_file():
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("format") != RATERS_FORMAT:
                raise ValueError(f"{self.path}: unknown raters file format {data.get('format')!r}")
            self._hashes = {str(name): str(digest) for name, digest in data["raters"].items()}
        self._names = {digest: name for name, digest in self._hashes.items()}
        self._lock = threading.Lock()  # a name is looked up and given under it: never to two people

    def __bool__(self) -> bool:
        return bool(self._hashes)

    def add(self, names: Iterable[str]) -> dict[str, str]:
        """Give each of `names` not yet a rater a new key; the new keys, by name (shown once). A
        look-alike of a rater's name (`same_name`) is refused (ValueError naming both and what tells
        them apart), none added."""
        with self._lock:
            new: list[str] = []
            for name in dict.fromkeys(names):
                holder = same_name(name, [*self._hashes, *new])
                if holder is None:
                    new.append(name)
                elif holder != name:
                    apart = spelled(name, holder)
                    raise ValueError(
                        f"rater {name!r} looks like {holder!r}, a rater of this session ({self.path}; "
                        f"{COMPARED}{'; ' + apart if apart else ''})"
                    )
            return self._give(new)

    def __contains__(self, name: str) -> bool:
        return name in self._hashes

    def holder(self, name: str) -> str | None:
        """The rater whose name `name` is or looks like (`same_name`); None: no one's."""
        return same_name(name, self._hashes)

    def join(self, name: str) -> str | None:
        """A new key for `name` if no one has that name or a look-alike of it yet (None: it is
        taken; `holder` says by whom)."""
        with self._lock:
            return None if self.holder(name) is not None else self._give([name])[name]

    def who(self, key: str | None) -> str | None:
        """The rater whose key `key` is (None: no rater's)."""
        return self._names.get(_digest(key)) if key else None

    def _give(self, names: list[str]) -> dict[str, str]:
        """New keys for `names` (none of them a rater yet), kept as hashes; the keys, by name."""
        keys = {name: secrets.token_urlsafe(24) for name in names}
        if keys:
            self._hashes.update({name: _digest(key) for name, key in keys.items()})
            self._names = {digest: name for name, digest in self._hashes.items()}
            self._write()
        return keys

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump({"format": RATERS_FORMAT, "raters": self._hashes}, file, ensure_ascii=False, indent=1)
            file.write("\n")
        os.replace(temporary, self.path)
