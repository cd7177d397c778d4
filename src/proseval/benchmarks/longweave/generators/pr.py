"""Paragraph reordering (PR): restore the order of a shuffled article.

Documents are proseval's own: a fictional institution's history, one introduction paragraph,
dated paragraphs in chronological order and a closing paragraph, so a careful reader can
recover the order from content. Text comes from the ``pr-text`` stream; the shuffle uses the
official rule, ``Random(seed(doc_id)).shuffle``, with ``doc_id`` = the sample's seed key.
"""

from __future__ import annotations

import random
from typing import Any

from ._common import long_output_note
from ._rng import stream_rng
from ._words import ADJECTIVES, COUNTRIES, NOUNS, person_name, town_name

KINDS: tuple[tuple[str, str], ...] = (
    ("Orchestra", "a symphony orchestra"),
    ("Botanical Garden", "a public botanical garden"),
    ("Observatory", "an astronomical observatory"),
    ("Rowing Club", "an amateur rowing club"),
    ("Press", "an independent publishing house"),
    ("Museum", "a museum of local history"),
    ("Ferry Company", "a regional ferry company"),
    ("Library", "a public lending library"),
)

EVENTS: tuple[str, ...] = (
    "moved into a former {noun} factory near the {adj} {noun2}",
    "appointed {person} as its first full-time director",
    "survived a fire that destroyed most of the {noun} collection",
    "opened a second site in {town}",
    "received a large bequest from the estate of {person}",
    "began a long partnership with the university in {town}",
    "was nearly closed after a dispute over the {noun} lease",
    "launched a touring programme that visited {num} towns",
    "rebuilt its main hall to a design by {person}",
    "adopted a new charter drafted by {person}",
    "merged with a smaller society from {town}",
    "hosted an international meeting on the {adj} {noun}",
    "lost half of its members during a long economic slump",
    "opened its archive to the public for the first time",
    "won a national award for its work on the {noun}",
    "installed electric lighting and a new {noun} room",
)

FILLERS: tuple[str, ...] = (
    "Accounts from the period describe the {noun} as {adj} and crowded.",
    "{person} later recalled that the decision divided the members for {num} months.",
    "Local newspapers followed the change closely and printed letters from both sides.",
    "The cost, about {num} thousand in the currency of the day, was raised by subscription.",
    "Several of the {adj} {noun}s bought at that time are still in use.",
    "Visitors from {town} came in growing numbers, often by the new railway.",
    "The minutes of the board record long debates about the {noun} and the {noun2}.",
    "{person} kept a diary of these years, which survives in the archive.",
    "Not everyone welcomed the change; a group led by {person} resigned in protest.",
    "The staff grew to {num} people, most of them recruited from {town}.",
    "A small exhibition on the {adj} {noun} drew more visitors than expected.",
    "Money remained short, and the roof of the {noun} room leaked every winter.",
    "The period is remembered for a series of {adj} evenings devoted to the {noun}.",
    "Historians have since questioned how much of this story is accurate.",
    "Records show that {num} new members joined within a single year.",
    "The building on the {noun2} side was repaired with help from volunteers.",
    "{person} wrote a short history of the institution during this time.",
    "The experience shaped the way the board handled money for decades.",
    "Travelling exhibitions carried the {noun} collection as far as {country}.",
    "A partnership with a school in {town} brought in younger members.",
)

CLOSINGS: tuple[str, ...] = (
    "Today the {name} welcomes visitors from across {country} and abroad.",
    "Its collections and records are now catalogued and open to researchers.",
    "The board publishes an annual report on the {noun} and its other activities.",
    "Many of its members are the grandchildren of those who joined in the early years.",
    "Plans for the coming decade include a new {noun} wing and a digital archive.",
)


def _fill(rng: random.Random, template: str, name: str) -> str:
    return template.format(
        name=name,
        noun=rng.choice(NOUNS),
        noun2=rng.choice(NOUNS),
        adj=rng.choice(ADJECTIVES),
        person=person_name(rng),
        town=town_name(rng),
        country=rng.choice(COUNTRIES),
        num=rng.randint(3, 90),
    )


def _paragraph(rng: random.Random, opening: str, pool: tuple[str, ...], name: str, words: int) -> str:
    sentences = [opening]
    count = len(opening.split())
    while count < words:
        sentence = _fill(rng, rng.choice(pool), name)
        sentences.append(sentence)
        count += len(sentence.split())
    return " ".join(sentences)


def write_document(rng: random.Random, num_segments: int, doc_words: int) -> list[str]:
    """An article of ``num_segments`` paragraphs, about ``doc_words`` words, in true order."""
    kind, description = rng.choice(KINDS)
    town = town_name(rng)
    name = f"{town} {kind}"
    budget = doc_words / num_segments
    year = rng.randint(1820, 1900)
    founder = person_name(rng)
    intro = f"The {name} is {description} in {town}, {rng.choice(COUNTRIES)}. It was founded in {year} by {founder}."
    segments = [_paragraph(rng, intro, FILLERS, name, int(budget * rng.uniform(0.75, 1.25)))]
    events = rng.sample(EVENTS, len(EVENTS))  # each event once before any repeats
    for k in range(num_segments - 2):
        event = events[k % len(events)]
        year += rng.randint(3, 9)
        opening = f"In {year}, the {name} {_fill(rng, event, name)}."
        words = int(budget * rng.uniform(0.75, 1.25))
        segments.append(_paragraph(rng, opening, FILLERS, name, words))
    closing = _fill(rng, CLOSINGS[0], name)
    segments.append(_paragraph(rng, closing, CLOSINGS[1:] + FILLERS, name, int(budget * 0.8)))
    return segments


def shuffle_order(doc_id_rng: random.Random, n: int) -> list[int]:
    """``correct_order[k]`` = original index of the segment shown at position ``k``.

    ``shuffle`` draws depend only on the list length, so shuffling indices gives the same
    permutation as the official shuffle of the segment texts.
    """
    order = list(range(n))
    doc_id_rng.shuffle(order)
    return order


def build(rng: random.Random, key: str, length: str, p: dict[str, Any]) -> tuple[str, dict]:
    """Prompt and target of one PR instance; ``rng`` is seeded from the doc id (= key)."""
    text_rng = stream_rng(key, "pr-text")
    segments = write_document(text_rng, text_rng.randint(*p["num_segments"]), p["doc_words"])
    order = shuffle_order(rng, len(segments))
    shuffled = [segments[j] for j in order]
    n = len(segments)
    blocks = "\n\n".join(f"[[Segment {k}]]\n{text}" for k, text in enumerate(shuffled))
    prompt = f"""The {n} segments below are the paragraphs of one article, but their order \
has been shuffled. Put them back into the order in which the article was written.

{blocks}

Requirements:
- Keep the text of every segment exactly as it is; change nothing inside a segment.
- Output all {n} segments, each once, in the restored order.
- Start each segment with its label on a line of its own, exactly as given above \
(for example `[[Segment 3]]`), followed by the segment text on the next line; leave a blank \
line between segments.
- {long_output_note(length)}
Output only the reordered segments."""
    target = {
        "doc_id": key,
        "segments": segments,
        "shuffled": shuffled,
        "correct_order": order,
    }
    return prompt, target
