"""AP-style news writing (NW): write a news article that includes corrected statements.

Material: a news topic and statements that each break one AP style rule. Anchors: the rubric
of each selected rule category. Targets: every statement appears in the article, rewritten in
AP style (the corrected form and the reason are kept for the judge). The category subset is
drawn with the official call, ``Random(seed(sample_id)).sample(categories, k)`` (all ten in
list order at 8k); the topic and statements come from the ``nw-text`` stream.
"""

from __future__ import annotations

import random
from typing import Any

from ._ap_rules import CATEGORIES, RUBRIC, STATEMENTS
from ._common import words_request
from ._rng import stream_rng
from ._words import ADJECTIVES, LAST_NAMES, NOUNS, US_CITIES, person_name, town_name

ONES = (
    "zero",
    "one",
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
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
ORDINALS = (
    "",
    "First",
    "Second",
    "Third",
    "Fourth",
    "Fifth",
    "Sixth",
    "Seventh",
    "Eighth",
    "Ninth",
)
ABBREVIATED_MONTHS = (
    ("January", "Jan."),
    ("February", "Feb."),
    ("August", "Aug."),
    ("September", "Sept."),
    ("October", "Oct."),
    ("November", "Nov."),
    ("December", "Dec."),
)
SHORT_MONTHS = ("March", "April", "May", "June", "July")
WEEKDAYS = ("Monday", "Wednesday", "Thursday", "Friday")
S_NAMES = ("Harris", "Williams", "Jones", "Reyes", "Davis", "Morales", "Collins", "Rivas")
JOBS = ("nurse", "welder", "bus driver", "teacher", "shop owner", "retiree", "electrician")

# (event summary, organisation pattern, project, staff)
TOPICS: tuple[tuple[str, str, str, str], ...] = (
    (
        "the {city} City Council approved a budget that funds the {project}",
        "{city} City Council",
        "riverside park renovation",
        "park rangers",
    ),
    (
        "{org} opened a new emergency wing after two years of construction",
        "{city} General Hospital",
        "emergency wing",
        "nurses",
    ),
    (
        "{org} opened the first section of a new light-rail line",
        "{city} Regional Transit Authority",
        "light-rail line",
        "train operators",
    ),
    (
        "{org} announced it will close its plant and move production abroad",
        "{town} Manufacturing Co.",
        "plant closure",
        "assembly workers",
    ),
    (
        "the school board voted to start high school classes later in the morning",
        "{city} Unified School District",
        "later start schedule",
        "teachers",
    ),
    (
        "a spring storm damaged homes and cut power across the region",
        "{city} Office of Emergency Management",
        "storm cleanup",
        "utility crews",
    ),
    (
        "{org} unveiled a major exhibition of local history",
        "{city} Museum of History",
        "history exhibition",
        "curators",
    ),
    (
        "a university team won a federal grant to study drinking water safety",
        "University of {state} Water Institute",
        "water safety study",
        "researchers",
    ),
    (
        "city leaders reached a deal with a sports franchise on a new stadium",
        "{city} Stadium Authority",
        "downtown stadium",
        "construction workers",
    ),
    (
        "{org} reopened its main library after a long renovation",
        "{city} Public Library",
        "library renovation",
        "librarians",
    ),
)


def number_word(n: int) -> str:
    """English words for 0..99 (hyphenated compounds, e.g. ``forty-two``)."""
    if n < 20:
        return ONES[n]
    tens, ones = divmod(n, 10)
    return TENS[tens] + (f"-{ONES[ones]}" if ones else "")


def ordinal_suffix(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def context(rng: random.Random) -> tuple[str, dict[str, str]]:
    """A news topic (its one-line summary) and the slot values of its statements."""
    city, state, st = rng.choice(US_CITIES)
    summary, org_pattern, project, staff = rng.choice(TOPICS)
    org = org_pattern.format(city=city, state=state, town=town_name(rng))
    small, small2 = rng.sample(range(2, 10), 2)
    big = rng.randint(12, 95)
    age = rng.randint(24, 88)
    month_full, month_abbr = rng.choice(ABBREVIATED_MONTHS)
    day = rng.randint(1, 28)
    amount_tenths = rng.randint(12, 95)
    slots = {
        "city": city,
        "state": state,
        "st": st,
        "org": org,
        "project": project,
        "staff": staff,
        "small": str(small),
        "small_word": number_word(small),
        "small2": str(small2),
        "small2_word": number_word(small2),
        "small_suffix": ordinal_suffix(small),
        "small_ordinal": ORDINALS[small],
        "big": str(big),
        "big_word": number_word(big),
        "big_word_cap": number_word(big).capitalize(),
        "age": str(age),
        "age_word": number_word(age),
        "amount": f"{amount_tenths // 10}.{amount_tenths % 10}",
        "amount_full": f"{amount_tenths * 100000:,}",
        "month_full": month_full,
        "month_abbr": month_abbr,
        "month_short": rng.choice(SHORT_MONTHS),
        "day": str(day),
        "day_suffix": ordinal_suffix(day),
        "hour": str(rng.randint(1, 11)),
        "year": str(rng.randint(2021, 2024)),
        "weekday": rng.choice(WEEKDAYS),
        "house": str(rng.randint(100, 4999)),
        "street": rng.choice(LAST_NAMES),
        "p1": person_name(rng),
        "p2": person_name(rng),
        "official": person_name(rng),
        "job": rng.choice(JOBS),
        "s_name": f"{rng.choice(('Ana', 'Paul', 'Lena', 'Omar'))} {rng.choice(S_NAMES)}",
        "river": rng.choice(LAST_NAMES),
        "title": f"The {rng.choice(ADJECTIVES).title()} {rng.choice(NOUNS).title()}",
        "song": f"{rng.choice(ADJECTIVES).title()} {rng.choice(NOUNS).title()}",
        "show": f"{city} {rng.choice(('Tonight', 'Weekly', 'Morning Report'))}",
        "magazine": f"{rng.choice(NOUNS).title()} Monthly",
        "journal": f"Journal of {rng.choice(('Public Health', 'Urban Studies', 'Water Research'))}",
    }
    return summary.format(city=city, org=org, project=project), slots


def select_categories(rng: random.Random, k: int) -> list[str]:
    """The official subset rule: ``rng.sample`` below ten, the full list order at ten."""
    return list(CATEGORIES) if k >= len(CATEGORIES) else rng.sample(CATEGORIES, k)


def _rubric_block(category: str) -> str:
    criteria, wrong, right = RUBRIC[category]
    return f"Rules: {criteria}\nIncorrect examples: {' | '.join(wrong)}\nCorrect examples: {' | '.join(right)}"


def build(rng: random.Random, key: str, length: str, p: dict[str, Any]) -> tuple[str, dict]:
    """Prompt and target of one NW instance."""
    categories = select_categories(rng, p["num_categories"])
    text_rng = stream_rng(key, "nw-text")
    summary, slots = context(text_rng)
    statements: list[dict[str, Any]] = []
    for category in categories:
        chosen = text_rng.sample(STATEMENTS[category], p["statements_per_category"])
        for wrong, right, reason in chosen:
            statements.append(
                {
                    "id": len(statements) + 1,
                    "category": category,
                    "statement": wrong.format(**slots),
                    "reason": reason,
                    "correct": right.format(**slots),
                }
            )
    sections = []
    for category in categories:
        listed = "\n".join(f"{s['id']}. {s['statement']}" for s in statements if s["category"] == category)
        sections.append(
            f"## {category.upper()}\n{_rubric_block(category)}\n"
            f"Content requirements (include each, corrected to AP style):\n{listed}"
        )
    words = words_request(length)
    body = "\n\n".join(sections)
    prompt = f"""Write a news article about this event: {summary} (in {slots["city"]}, \
{slots["state"]}).

**The article must follow AP style. It is graded equally on including all of the required \
information and on following AP style.**

**Every category below lists statements that break its AP rules. Each statement must appear \
in the article, rewritten so that it follows the rules.**

{body}

Length: {words}. Write the complete AP-style article now, {words}."""
    target = {
        "query": f"Write a news article about this event: {summary}.",
        "categories": categories,
        "statements": statements,
        "rubric": {
            c: {
                "criteria": RUBRIC[c][0],
                "incorrect_examples": list(RUBRIC[c][1]),
                "correct_examples": list(RUBRIC[c][2]),
            }
            for c in categories
        },
    }
    return prompt, target
