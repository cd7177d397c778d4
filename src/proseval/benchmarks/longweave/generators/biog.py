"""KG-to-text biography (BioG): write a biography that covers every fact of a small KG.

A fictional person gets a birth, family, schooling, work, works, events, places and awards
(relations weighted by one of nine archetypes), each neighbour with a few attributes, until
the fact budget of the length is met. Every fact is one triple and one target sentence that
states it (both contain the subject and the object verbatim). Dates are coherent and anchored
to a fixed reference year, not to the current date.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from ._common import words_request
from ._words import ADJECTIVES, COUNTRIES, FIRST_NAMES, LAST_NAMES, NOUNS, town_name, unique

TITLES = (
    "Professor",
    "Doctor",
    "Madame",
    "Monsieur",
    "Sir",
    "Dame",
    "Lady",
    "Lord",
    "Mr",
    "Mrs",
    "Ms",
    "Mx",
    "Captain",
)
BACKGROUNDS = ("working-class", "farming", "merchant", "professional", "aristocratic")
FIELDS = (
    "chemistry",
    "botany",
    "geology",
    "music",
    "law",
    "medicine",
    "history",
    "engineering",
    "economics",
    "astronomy",
    "literature",
    "education",
)
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
SETTLEMENTS = ("market town", "port city", "mountain village", "industrial town", "capital city")
ROLES = (
    "keynote speaker",
    "organiser",
    "delegate",
    "expedition leader",
    "guest of honour",
    "judge",
)
POSITIONS = (
    "director",
    "senior partner",
    "chief editor",
    "head of research",
    "treasurer",
    "adviser",
)
DEGREES = ("bachelor's degree", "master's degree", "doctorate", "diploma")

# archetype: (occupations, birth-year range, relation weight boosts)
ARCHETYPES: dict[str, tuple[tuple[str, ...], tuple[int, int], dict[str, float]]] = {
    "Scientist": (
        ("physicist", "chemist", "botanist", "geologist"),
        (1900, 1975),
        {"authored": 2.0, "educated_at": 1.5, "participated_in": 1.5},
    ),
    "Artist": (
        ("painter", "sculptor", "composer", "photographer"),
        (1905, 1980),
        {"created": 3.0, "participated_in": 1.5},
    ),
    "Entrepreneur": (
        ("industrialist", "banker", "shipowner", "publisher"),
        (1910, 1980),
        {"founded": 3.0, "worked_at": 1.5},
    ),
    "Politician": (
        ("senator", "diplomat", "minister", "councillor"),
        (1900, 1975),
        {"member_of": 2.0, "participated_in": 2.0},
    ),
    "Doctor_Healer": (
        ("surgeon", "physician", "pharmacist", "midwife"),
        (1905, 1980),
        {"worked_at": 2.0, "authored": 1.5},
    ),
    "Lawyer_Judge": (
        ("judge", "barrister", "magistrate", "notary"),
        (1900, 1975),
        {"worked_at": 1.5, "member_of": 1.5},
    ),
    "Teacher_Educator": (
        ("schoolteacher", "lecturer", "tutor", "librarian"),
        (1905, 1980),
        {"mentored": 2.5, "worked_at": 1.5},
    ),
    "Journalist_Reporter": (
        ("reporter", "editor", "columnist", "broadcaster"),
        (1910, 1980),
        {"authored": 2.5, "worked_at": 1.5},
    ),
    "Explorer_Adventurer": (
        ("explorer", "mountaineer", "navigator", "cartographer"),
        (1900, 1975),
        {"visited": 3.0, "participated_in": 2.0},
    ),
}
OTHER_JOBS = ("farmer", "clerk", "engineer", "nurse", "carpenter", "teacher", "merchant", "tailor")

# relation: (base weight, cap on how often it may occur)
RELATIONS: dict[str, tuple[float, int]] = {
    "sibling_of": (0.6, 3),
    "married_to": (0.4, 2),
    "parent_of": (0.7, 5),
    "educated_at": (0.6, 4),
    "worked_at": (1.2, 40),
    "member_of": (0.8, 30),
    "founded": (0.5, 20),
    "authored": (1.0, 80),
    "created": (0.6, 60),
    "participated_in": (1.0, 60),
    "received_award": (0.6, 30),
    "lived_in": (0.6, 20),
    "visited": (0.8, 60),
    "mentored": (0.6, 30),
    "influenced_by": (0.4, 10),
    "collaborated_with": (0.8, 40),
}


@dataclass
class _Graph:
    rng: random.Random
    person: str
    surname: str
    born: int
    end: int  # death year, or the reference year when alive
    facts: list[tuple[str, str, str, str]] = field(default_factory=list)
    taken: set[str] = field(default_factory=set)

    def fact(self, subject: str, predicate: str, obj: Any, sentence: str) -> None:
        self.facts.append((subject, predicate, str(obj), sentence))

    def year(self, low: int, high: int) -> int:
        return self.rng.randint(min(low, high), max(low, high))

    def name(self, surname: str | None = None) -> str:
        def make(r: random.Random) -> str:
            return f"{r.choice(FIRST_NAMES)} {surname or r.choice(LAST_NAMES)}"

        return unique(self.rng, make, self.taken)

    def town(self) -> str:
        town = unique(self.rng, town_name, self.taken)
        country = self.rng.choice(COUNTRIES)
        self.fact(town, "located in", country, f"{town} lies in {country}.")
        kind = self.rng.choice(SETTLEMENTS)
        self.fact(town, "settlement type", kind, f"{town} is a {kind}.")
        return town

    def relative(self, surname: str | None, born: int) -> str:
        other = self.name(surname)
        job = self.rng.choice(OTHER_JOBS)
        self.fact(other, "occupation", job, f"{other} worked as a {job}.")
        self.fact(other, "year of birth", born, f"{other} was born in {born}.")
        return other

    def organisation(self, kinds: tuple[tuple[str, str], ...], with_founding_year: bool = True) -> str:
        rng = self.rng
        pattern, kind = rng.choice(kinds)

        def make(r: random.Random) -> str:
            return pattern.format(
                town=town_name(r),
                field=r.choice(FIELDS).title(),
                noun=r.choice(NOUNS).title(),
                adj=r.choice(ADJECTIVES).title(),
            )

        org = unique(rng, make, self.taken)
        self.fact(org, "organisation type", kind, f"{org} is a {kind}.")
        place = town_name(rng)
        self.fact(org, "headquarters", place, f"{org} is based in {place}.")
        if with_founding_year:
            founded = self.year(1750, self.born + 10)
            self.fact(org, "year founded", founded, f"{org} was founded in {founded}.")
        return org


ORG_WORK = (
    ("{town} General Hospital", "hospital"),
    ("{town} {noun} Company", "company"),
    ("The {town} Courier", "newspaper"),
    ("{town} District Court", "court"),
    ("{town} Grammar School", "school"),
    ("{town} Institute of {field}", "research institute"),
)
ORG_SCHOOL = (("University of {town}", "university"), ("{town} College of {field}", "college"))
ORG_CLUB = (
    ("{adj} {noun} Society", "learned society"),
    ("{town} {noun} Club", "club"),
    ("{adj} {noun} Guild", "guild"),
)


def _add_relation(g: _Graph, relation: str) -> None:
    rng, p = g.rng, g.person
    active = (g.born + 18, g.end - 1)
    if relation == "sibling_of":
        other = g.relative(g.surname, g.year(g.born - 8, g.born + 8))
        g.fact(p, "sibling", other, f"{p} was a sibling of {other}.")
    elif relation == "married_to":
        other = g.relative(None, g.year(g.born - 5, g.born + 5))
        g.fact(p, "spouse", other, f"{p} married {other}.")
        year = g.year(g.born + 20, min(g.born + 45, g.end - 1))
        g.fact(p, f"year of marriage to {other}", year, f"{p} married {other} in {year}.")
    elif relation == "parent_of":
        other = g.relative(g.surname, g.year(g.born + 20, min(g.born + 45, g.end - 1)))
        g.fact(p, "child", other, f"{p} was a parent of {other}.")
    elif relation in ("educated_at", "worked_at", "member_of", "founded"):
        kinds = {"educated_at": ORG_SCHOOL, "worked_at": ORG_WORK}.get(relation, ORG_CLUB)
        if relation == "founded":
            kinds = ORG_WORK + ORG_CLUB
        org = g.organisation(kinds, with_founding_year=relation != "founded")
        if relation == "educated_at":
            degree = f"{rng.choice(DEGREES)} in {rng.choice(FIELDS)}"
            g.fact(p, "educated at", org, f"{p} studied at {org}.")
            g.fact(p, f"degree from {org}", degree, f"{p} earned a {degree} from {org}.")
            year = g.year(g.born + 21, min(g.born + 30, g.end - 1))
            g.fact(p, f"year graduated from {org}", year, f"{p} graduated from {org} in {year}.")
        elif relation == "worked_at":
            position = rng.choice(POSITIONS)
            g.fact(p, "employer", org, f"{p} worked at {org}.")
            g.fact(p, f"position at {org}", position, f"{p} served as {position} at {org}.")
            year = g.year(*active)
            g.fact(p, f"year joined {org}", year, f"{p} joined {org} in {year}.")
        elif relation == "member_of":
            g.fact(p, "member of", org, f"{p} was a member of {org}.")
            year = g.year(*active)
            g.fact(p, f"year joined {org}", year, f"{p} became a member of {org} in {year}.")
        else:
            g.fact(p, "founded", org, f"{p} founded {org}.")
            year = g.year(*active)
            g.fact(p, f"year founded {org}", year, f"{p} founded {org} in {year}.")
    elif relation in ("authored", "created"):
        work = unique(rng, lambda r: f"The {r.choice(ADJECTIVES).title()} {r.choice(NOUNS).title()}", g.taken)
        kind = rng.choice(
            ("book", "essay collection", "report")
            if relation == "authored"
            else ("painting", "symphony", "sculpture", "photograph series")
        )
        verb = "wrote" if relation == "authored" else "created"
        g.fact(p, relation, work, f"{p} {verb} {work}.")
        g.fact(work, "work type", kind, f"{work} is a {kind}.")
        year = g.year(*active)
        g.fact(work, "year completed", year, f"{work} was completed in {year}.")
        topic = rng.choice(FIELDS)
        g.fact(work, "subject", topic, f"{work} deals with {topic}.")
    elif relation == "participated_in":
        year = g.year(*active)
        kind = rng.choice(("congress", "expedition", "exhibition", "summit", "festival"))
        event = unique(
            rng,
            lambda r: f"{year} {town_name(r)} {r.choice(FIELDS).title()} {kind.title()}",
            g.taken,
        )
        g.fact(p, "took part in", event, f"{p} took part in the {event}.")
        role = rng.choice(ROLES)
        g.fact(p, f"role at {event}", role, f"{p} attended the {event} as {role}.")
        g.fact(event, "event type", kind, f"The {event} was a {kind}.")
        place = town_name(rng)
        g.fact(event, "held in", place, f"The {event} was held in {place}.")
    elif relation == "received_award":
        award = unique(rng, lambda r: f"{town_name(r)} Medal for {r.choice(FIELDS).title()}", g.taken)
        g.fact(p, "award received", award, f"{p} received the {award}.")
        year = g.year(g.born + 25, g.end - 1)
        g.fact(p, f"year received {award}", year, f"{p} received the {award} in {year}.")
        society = g.organisation(ORG_CLUB)
        g.fact(award, "awarded by", society, f"The {award} is awarded by {society}.")
    elif relation in ("lived_in", "visited"):
        town = g.town()
        year = g.year(*active)
        if relation == "lived_in":
            g.fact(p, "residence", town, f"{p} lived in {town}.")
            g.fact(p, f"year moved to {town}", year, f"{p} moved to {town} in {year}.")
        else:
            g.fact(p, "visited", town, f"{p} visited {town}.")
            g.fact(p, f"year visited {town}", year, f"{p} visited {town} in {year}.")
    elif relation == "mentored":
        other = g.relative(None, g.year(g.born + 15, min(g.born + 45, g.end - 18)))
        g.fact(p, "mentored", other, f"{p} mentored {other}.")
    elif relation == "influenced_by":
        other = g.relative(None, g.year(g.born - 45, g.born - 15))
        g.fact(p, "influenced by", other, f"{p} was influenced by {other}.")
    else:  # collaborated_with
        other = g.relative(None, g.year(g.born - 10, g.born + 10))
        g.fact(p, "collaborator", other, f"{p} collaborated with {other}.")
        year = g.year(*active)
        g.fact(p, f"year began working with {other}", year, f"{p} began working with {other} in {year}.")


def build_graph(rng: random.Random, num_facts: int, reference_year: int) -> dict[str, Any]:
    """A person and at least ``num_facts`` facts about them and their neighbours."""
    archetype = rng.choice(sorted(ARCHETYPES))
    jobs, (low, high), boosts = ARCHETYPES[archetype]
    first, surname, title = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES), rng.choice(TITLES)
    person = f"{title} {first} {surname}"
    born = rng.randint(low, high)
    died = rng.randint(born + 60, min(born + 95, reference_year - 1)) if born < 1935 else None
    g = _Graph(rng, person, surname, born, died or reference_year, taken={person, f"{first} {surname}"})
    birth_date = f"{rng.randint(1, 28)} {rng.choice(MONTHS)} {born}"
    g.fact(person, "date of birth", birth_date, f"{person} was born on {birth_date}.")
    birthplace = g.town()
    g.fact(person, "place of birth", birthplace, f"{person} was born in {birthplace}.")
    job = rng.choice(jobs)
    g.fact(person, "occupation", job, f"{person} worked as a {job}.")
    background = rng.choice(BACKGROUNDS)
    g.fact(person, "social background", background, f"{person} came from a {background} family.")
    country = rng.choice(COUNTRIES)
    g.fact(person, "citizenship", country, f"{person} was a citizen of {country}.")
    if died:
        death_date = f"{rng.randint(1, 28)} {rng.choice(MONTHS)} {died}"
        g.fact(person, "date of death", death_date, f"{person} died on {death_date}.")
    for _ in range(2):
        parent = g.relative(surname, rng.randint(born - 45, born - 20))
        g.fact(person, "parent", parent, f"{person} was a child of {parent}.")
    used = dict.fromkeys(RELATIONS, 0)
    while len(g.facts) < num_facts:
        names = [r for r in RELATIONS if used[r] < RELATIONS[r][1]]
        weights = [RELATIONS[r][0] * boosts.get(r, 1.0) for r in names]
        relation = rng.choices(names, weights)[0]
        used[relation] += 1
        _add_relation(g, relation)
    return {"person": person, "archetype": archetype, "facts": g.facts}


def build(rng: random.Random, key: str, length: str, p: dict[str, Any]) -> tuple[str, dict]:
    """Prompt and target of one BioG instance."""
    graph = build_graph(rng, rng.randint(*p["num_facts"]), p["reference_year"])
    person = graph["person"]
    triples = sorted((s, pr, o) for s, pr, o, _ in graph["facts"])
    lines = "\n".join(f"- {s} - {pr} - {o}" for s, pr, o in triples)
    words = words_request(length)
    prompt = f"""You are a biographer. Write a biography of {person} using only the facts \
listed below.

Facts, one per line, written as subject - relation - object:
{lines}

Style: informative and neutral, in well-connected prose with smooth transitions; organise the \
life story sensibly (for example chronologically or by theme).
Content: state every one of the {len(triples)} facts above; do not invent facts that are \
not listed.
Length: {words}.

Write the biography of {person} now, {words}."""
    target = {
        "person": person,
        "slug": re.sub(r"[^A-Za-z0-9]+", "_", person).strip("_"),
        "archetype": graph["archetype"],
        "triples": [list(t) for t in triples],
        "facts": [
            {"subject": s, "predicate": pr, "object": o, "sentence": sentence} for s, pr, o, sentence in graph["facts"]
        ],
        "target_sentences": [sentence for *_, sentence in graph["facts"]],
    }
    return prompt, target
