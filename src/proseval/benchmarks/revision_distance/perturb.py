"""Small meaning-preserving perturbations for the stability check (a pure, seeded function).

`perturb(text, seed=…, rate=…, key=…)` replaces about ``rate`` of the words that have an entry
in a small built-in table of near-synonyms (``big`` → ``large``, ``shows`` → ``demonstrates``)
by that entry, keeping capitalisation and the punctuation around the word. At least one word
is replaced when any can be. The positions are chosen by a random generator seeded with
``seed`` and ``key`` (the draft's id), so the same inputs always give the same text, whatever
the order drafts are processed in, on any machine.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass

_PAIRS = (
    ("big", "large"), ("small", "little"), ("quick", "fast"), ("begin", "start"), ("began", "started"),
    ("show", "demonstrate"), ("shows", "demonstrates"), ("showed", "demonstrated"), ("help", "assist"),
    ("helps", "assists"), ("use", "employ"), ("uses", "employs"), ("used", "employed"), ("often", "frequently"),
    ("important", "significant"), ("main", "primary"), ("many", "numerous"), ("also", "additionally"),
    ("however", "nevertheless"), ("because", "since"), ("about", "approximately"), ("get", "obtain"),
    ("gets", "obtains"), ("make", "create"), ("makes", "creates"), ("made", "created"), ("need", "require"),
    ("needs", "requires"), ("needed", "required"), ("good", "fine"), ("bad", "poor"), ("hard", "difficult"),
    ("easy", "simple"), ("whole", "entire"), ("near", "close"), ("buy", "purchase"), ("end", "finish"),
    ("ended", "finished"), ("try", "attempt"), ("tried", "attempted"), ("enough", "sufficient"),
    ("method", "approach"), ("methods", "approaches"), ("result", "outcome"), ("results", "outcomes"),
    ("study", "work"), ("studies", "works"), ("paper", "article"), ("papers", "articles"), ("idea", "notion"),
    ("ideas", "notions"), ("problem", "issue"), ("problems", "issues"), ("answer", "reply"), ("choose", "select"),
    ("chose", "selected"), ("rapid", "swift"), ("quickly", "rapidly"), ("mostly", "largely"),
    ("usually", "typically"), ("clearly", "plainly"), ("nearly", "almost"), ("improve", "enhance"),
    ("improves", "enhances"), ("improved", "enhanced"), ("allow", "permit"), ("allows", "permits"),
    ("find", "discover"), ("found", "discovered"), ("build", "construct"), ("built", "constructed"),
    ("keep", "retain"), ("kept", "retained"), ("house", "home"), ("road", "street"), ("happy", "glad"),
    ("sad", "unhappy"), ("come", "attend"), ("old", "aged"), ("maybe", "perhaps"), ("then", "afterwards"),
    ("strong", "robust"),
)
SYNONYMS: dict[str, str] = dict(_PAIRS) | {b: a for a, b in _PAIRS}
_WORD = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class Perturbed:
    text: str
    substitutions: tuple[tuple[str, str], ...]  # (old, new) in text order


def _cased(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def perturb(text: str, *, seed: int = 0, rate: float = 0.05, key: str = "") -> Perturbed:
    """`text` with about `rate` of its replaceable words swapped for a near-synonym (see module docstring)."""
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate must be between 0 and 1 (got {rate})")
    matches = [m for m in _WORD.finditer(text) if m.group(0).lower() in SYNONYMS]
    words = len(_WORD.findall(text))
    if not matches or rate == 0.0:
        return Perturbed(text, ())
    count = min(len(matches), max(1, round(rate * words)))
    digest = hashlib.sha256(f"{seed}\x00{key}".encode()).digest()
    chosen = sorted(random.Random(int.from_bytes(digest[:8], "big")).sample(range(len(matches)), count))
    pieces, position, done = [], 0, []
    for index in chosen:
        match = matches[index]
        old = match.group(0)
        new = _cased(SYNONYMS[old.lower()], old)
        pieces.extend([text[position:match.start()], new])
        position = match.end()
        done.append((old, new))
    pieces.append(text[position:])
    return Perturbed("".join(pieces), tuple(done))
