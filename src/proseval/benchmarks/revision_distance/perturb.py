"""Small meaning-preserving perturbations for the stability check (a pure, seeded function).

`perturb(text, seed=…, rate=…, key=…)` replaces about ``rate`` of the words that have a rule in
`RULES` by the rule's substitute, keeping capitalisation and the punctuation around the word. At
least one word is replaced when any can be. The positions are chosen by a random generator seeded
with ``seed`` and ``key`` (the draft's id), so the same inputs always give the same text, whatever
the order drafts are processed in, on any machine.

A substitution must keep the sentence's meaning, so the table holds only

- words with a single sense whose substitute covers it (``frequently`` → ``often``,
  ``approximately`` → ``about``), one way only where the reverse is not safe ("about" may mean
  "concerning"); and
- words whose sense the next or previous word settles, substituted only in that context:
  ``about`` before a number (``about 20`` → ``approximately 20``, never "books about the sea"),
  ``show that`` → ``demonstrate that``, ``try to`` → ``attempt to``, ``easy to`` → ``simple to``,
  ``difficult to`` → ``hard to`` (not "a difficult person", who is not "a hard person"),
  ``need`` after a subject pronoun (``it needs a roof``, not "the needs of"), ``many`` before a
  plural noun other than a noun of time or repetition ("many years ago" is not "numerous years
  ago"), ``is happy.`` → ``is glad.`` (not "happy with the service").

Words are matched whole (a run of letters between non-letters), never inside another word.

Everywhere, a word joined to another by a hyphen or an apostrophe is left alone ("quick-witted",
"it's"), and so is a word after "a" / "an" whose substitute would need the other article.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

Context = Callable[[str, str], bool]  # (previous word, next token), both lower case → may substitute here

_NUMBER_WORDS = {
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "fifteen",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
    "hundred",
    "thousand",
    "million",
    "billion",
    "half",
}
# Not the copulas: "the film is about two brothers" is about them, not approximately them.
_BEFORE_APPROXIMATE = {
    "of",
    "for",
    "at",
    "by",
    "to",
    "in",
    "within",
    "with",
    "from",
    "after",
    "than",
    "only",
    "just",
    "take",
    "takes",
    "took",
    "last",
    "lasts",
    "lasted",
    "cost",
    "costs",
    "weigh",
    "weighs",
    "weighed",
    "sleep",
    "sleeps",
    "slept",
    "wait",
    "waited",
    "spend",
    "spends",
    "spent",
    "earn",
    "earns",
    "earned",
    "pay",
    "pays",
    "paid",
    "reach",
    "reaches",
    "reached",
    "rose",
    "fell",
    "grew",
    "increased",
    "decreased",
    "dropped",
}
_COPULAS = {"is", "am", "are", "was", "were", "be", "been", "being", "feel", "feels", "felt", "very", "so", "really"}
_SUBJECTS = {
    "i",
    "you",
    "we",
    "they",
    "he",
    "she",
    "it",
    "who",
    "one",
    "some",
    "everyone",
    "everybody",
    "someone",
    "somebody",
    "nobody",
    "also",
    "still",
    "really",
    "often",
    "usually",
}
# After "need(s)", a word that makes it a noun ("some needs are") or an auxiliary ("need not", "need to").
_NOT_AN_OBJECT = {
    "to",
    "of",
    "not",
    "be",
    "are",
    "is",
    "was",
    "were",
    "will",
    "would",
    "can",
    "could",
    "should",
    "must",
    "may",
    "might",
    "have",
    "has",
    "had",
    "do",
    "does",
    "did",
    "remain",
    "remains",
    "vary",
    "change",
    "include",
    "includes",
}
_NOT_PLURAL_NOUNS = {
    "is",
    "was",
    "has",
    "does",
    "this",
    "its",
    "his",
    "hers",
    "ours",
    "yours",
    "theirs",
    "us",
    "as",
    "less",
    "unless",
    "thus",
    "plus",
    "yes",
    "whereas",
    "perhaps",
    "thanks",
}
_DEGREE = {"how", "so", "too", "as", "great", "very", "that", "not", "a"}
# Nouns of time and of repetition: "many years ago", "many times" are set phrases that "numerous" does not fit.
_SET_PHRASE_NOUNS = {
    "years",
    "months",
    "weeks",
    "days",
    "hours",
    "minutes",
    "seconds",
    "decades",
    "centuries",
    "times",
    "ways",
}


def always(previous: str, following: str) -> bool:
    return True


def before_number(previous: str, following: str) -> bool:
    """``takes about 20``, ``for about two`` — "about" as "approximately": a number follows and the word
    before is a verb of measure or a preposition (or none), not a noun or verb that "about" would
    complete ("a film about two soldiers", "think about 20 things")."""
    number = following[:1].isdigit() or (following[:1] != "" and following[:1] in "$€£") or following in _NUMBER_WORDS
    return number and (previous == "" or previous in _BEFORE_APPROXIMATE)


def before_that(previous: str, following: str) -> bool:
    """``shows that`` — "show" as "make evident", not "display" or "a show"."""
    return following == "that"


def before_to(previous: str, following: str) -> bool:
    """``try to`` — "try" as "attempt", not "taste" or "a try"."""
    return following == "to"


def verb_after_subject(previous: str, following: str) -> bool:
    """``it needs a roof`` — "need" as a verb with an object, not "the needs of" or "need to"."""
    return previous in _SUBJECTS and following.isalpha() and following not in _NOT_AN_OBJECT


def before_plural_noun(previous: str, following: str) -> bool:
    """``many books`` — not "how many", "many of", "so many", "many is", nor the set phrases "many
    years (ago)", "many times", "many ways"."""
    return (
        previous not in _DEGREE
        and following.isalpha()
        and following.endswith("s")
        and following not in _NOT_PLURAL_NOUNS
        and following not in _SET_PHRASE_NOUNS
    )


def attributive(previous: str, following: str) -> bool:
    """``the main idea`` — "main" before its noun after a determiner, not "water main" or "in the main"."""
    return previous in ("the", "its", "our", "their", "his", "her", "my", "your") and following.isalpha()


def predicative(previous: str, following: str) -> bool:
    """``he is happy.``, ``happy to help`` — "happy" as "glad", not "happy with the service" or "a happy ending"."""
    return previous in _COPULAS and (following in ("", "to", "that") or not following[:1].isalnum())


def starting_off(previous: str, following: str) -> bool:
    """``to start, …`` / ``to start with`` — "start" as "begin", not "start the car" or "a head start"."""
    return previous == "to" and following in (",", "by", "with")


@dataclass(frozen=True)
class Rule:
    word: str
    substitute: str
    context: Context = always


RULES: tuple[Rule, ...] = (
    # one sense, substitute covers it (both ways where both are safe)
    Rule("often", "frequently"),
    Rule("frequently", "often"),
    Rule("maybe", "perhaps"),
    Rule("perhaps", "maybe"),
    Rule("nearly", "almost"),
    Rule("almost", "nearly"),
    Rule("mostly", "largely"),
    Rule("largely", "mostly"),
    Rule("quickly", "rapidly"),
    Rule("rapidly", "quickly"),
    Rule("usually", "typically"),
    Rule("numerous", "many"),
    Rule("approximately", "about"),
    Rule("additionally", "also"),
    Rule("entire", "whole"),
    Rule("sufficient", "enough"),
    Rule("glad", "happy"),
    Rule("outcome", "result"),
    Rule("outcomes", "results"),
    Rule("notion", "idea"),
    Rule("notions", "ideas"),
    Rule("enhance", "improve"),
    Rule("enhances", "improves"),
    Rule("enhanced", "improved"),
    Rule("obtain", "get"),
    Rule("obtains", "gets"),
    Rule("begin", "start"),
    Rule("begins", "starts"),
    Rule("began", "started"),
    Rule("method", "approach"),
    Rule("methods", "approaches"),
    Rule("require", "need", lambda p, f: f != "that"),
    Rule("requires", "needs", lambda p, f: f != "that"),
    # the context settles the sense
    Rule("about", "approximately", before_number),
    Rule("show", "demonstrate", before_that),
    Rule("shows", "demonstrates", before_that),
    Rule("showed", "demonstrated", before_that),
    Rule("shown", "demonstrated", before_that),
    Rule("try", "attempt", before_to),
    Rule("tries", "attempts", before_to),
    Rule("tried", "attempted", before_to),
    Rule("need", "require", verb_after_subject),
    Rule("needs", "requires", verb_after_subject),
    Rule("many", "numerous", before_plural_noun),
    Rule("main", "primary", attributive),
    Rule("easy", "simple", before_to),
    Rule("difficult", "hard", before_to),  # not "a difficult person"
    Rule("happy", "glad", predicative),
    Rule("start", "begin", starting_off),
    Rule("choose", "select", lambda p, f: f.isalpha() and f not in ("to", "not")),
    Rule("chose", "selected", lambda p, f: f.isalpha() and f not in ("to", "not")),
)
_RULE: dict[str, Rule] = {rule.word: rule for rule in RULES}
_WORD = re.compile(r"[A-Za-z]+")
_NEXT = re.compile(r"\s*([$€£]?\d|[A-Za-z]+|\S)")
_JOINED = "-'’"
_VOWEL_SOUND = re.compile(r"[aeiou]", re.IGNORECASE)


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


def _article_fits(previous: str, old: str, new: str) -> bool:
    """False when "a"/"an" before the word would have to change with it ("an outcome" → "a result")."""
    return previous not in ("a", "an") or bool(_VOWEL_SOUND.match(old)) == bool(_VOWEL_SOUND.match(new))


def substitutable(text: str) -> list[re.Match[str]]:
    """The words of `text` that a rule may replace where they stand."""
    words = list(_WORD.finditer(text))
    found = []
    for index, match in enumerate(words):
        rule = _RULE.get(match.group(0).lower())
        if rule is None:
            continue
        start, end = match.span()
        if (start and text[start - 1] in _JOINED) or (end < len(text) and text[end] in _JOINED):
            continue
        between = text[words[index - 1].end() : start] if index else ""
        previous = words[index - 1].group(0).lower() if index and not re.search(r"[.!?;:]", between) else ""
        following = m.group(1).lower() if (m := _NEXT.match(text, end)) else ""
        if rule.context(previous, following) and _article_fits(previous, rule.word, rule.substitute):
            found.append(match)
    return found


def perturb(text: str, *, seed: int = 0, rate: float = 0.05, key: str = "") -> Perturbed:
    """`text` with about `rate` of its words swapped for a near-synonym where that keeps the meaning
    (see the module docstring)."""
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate must be between 0 and 1 (got {rate})")
    matches = substitutable(text)
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
        new = _cased(_RULE[old.lower()].substitute, old)
        pieces.extend([text[position : match.start()], new])
        position = match.end()
        done.append((old, new))
    pieces.append(text[position:])
    return Perturbed("".join(pieces), tuple(done))
