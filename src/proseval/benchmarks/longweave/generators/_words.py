"""Word lists shared by the text generators (proseval's own lists; tuples keep order fixed)."""

from __future__ import annotations

import random
from collections.abc import Callable

FIRST_NAMES: tuple[str, ...] = (
    "Ada", "Adrian", "Alma", "Amos", "Anika", "Arlo", "Aurora", "Basil", "Beatrix", "Bruno",
    "Calla", "Cedric", "Celeste", "Cyrus", "Dalia", "Dario", "Delphine", "Dorian", "Edith",
    "Elias", "Elena", "Emrys", "Esme", "Ezra", "Fabian", "Farah", "Felix", "Flora", "Gideon",
    "Greta", "Hana", "Hector", "Helena", "Idris", "Ilse", "Imogen", "Ines", "Ivo", "Jasper",
    "Jonah", "Juno", "Kasimir", "Keira", "Lars", "Leona", "Linus", "Lorna", "Lucian", "Mabel",
    "Magnus", "Marisol", "Matteo", "Mina", "Nadia", "Nico", "Nora", "Odette", "Oren", "Otto",
    "Petra", "Pia", "Quentin", "Rafael", "Rhea", "Rosalind", "Rufus", "Sabine", "Silas",
    "Soren", "Stella", "Tamsin", "Teodor", "Thea", "Tobias", "Uma", "Valentin", "Vera",
    "Wendell", "Willa", "Xavier", "Yara", "Yusuf", "Zelda", "Zoran",
)

LAST_NAMES: tuple[str, ...] = (
    "Abernathy", "Albright", "Ashcombe", "Bellamy", "Blackwood", "Brandt", "Calloway",
    "Castellan", "Corbin", "Dalgleish", "Delacroix", "Drummond", "Ellsworth", "Everly",
    "Falkner", "Fenwick", "Garrow", "Greaves", "Hallett", "Hartigan", "Holloway", "Ingram",
    "Jansen", "Kettering", "Kowalczyk", "Lachance", "Langford", "Lindqvist", "Marchetti",
    "Merriweather", "Moravec", "Nakamura", "Northcott", "Okafor", "Oyelaran", "Pemberton",
    "Petrov", "Quilliam", "Radcliffe", "Ravensworth", "Rosales", "Saltonstall", "Sandoval",
    "Selwyn", "Strickland", "Tavares", "Thornbury", "Trevelyan", "Underhill", "Valdane",
    "Vasquez", "Wakefield", "Whitcombe", "Winslow", "Yardley", "Ziegler", "Zamora",
    "Achterberg", "Bramwell", "Crowther", "Dunmore", "Eastwick", "Fairbanks", "Gladwin",
    "Harrowgate", "Iverson", "Jessop", "Kilbride", "Lockhart", "Mansell", "Nettleton",
)

TOWN_PREFIXES: tuple[str, ...] = (
    "Ash", "Birch", "Bright", "Clear", "Elm", "Fair", "Glen", "Hazel", "Iron", "Lark",
    "Maple", "Mill", "North", "Oak", "Pine", "Red", "Silver", "Stone", "Swan", "West",
    "Wood", "Amber", "Cold", "Frost",
)

TOWN_SUFFIXES: tuple[str, ...] = (
    "ford", "field", "haven", "ton", "wick", "bury", "dale", "mouth", "port", "vale",
    "brook", "moor",
)

COUNTRIES: tuple[str, ...] = (
    "Canada", "Ireland", "Norway", "Portugal", "Chile", "Kenya", "New Zealand", "Austria",
    "Argentina", "Denmark", "Ghana", "Iceland", "Japan", "Scotland", "Poland", "Uruguay",
    "Finland", "Greece", "Estonia", "Morocco",
)

ADJECTIVES: tuple[str, ...] = (
    "silent", "distant", "crimson", "hidden", "golden", "broken", "quiet", "restless",
    "northern", "patient", "open", "narrow", "bright", "hollow", "steady", "gentle", "wild",
    "ancient", "fragile", "scattered", "luminous", "winding", "burning", "frozen", "tangled",
    "sunlit", "uncharted", "borrowed", "endless", "faded",
)

NOUNS: tuple[str, ...] = (
    "harbor", "lantern", "orchard", "river", "compass", "archive", "meadow", "bridge",
    "garden", "signal", "voyage", "tower", "mirror", "season", "island", "engine", "current",
    "horizon", "window", "forest", "canal", "letter", "ledger", "atlas", "mountain", "valley",
    "frontier", "chorus", "workshop", "observatory", "citadel", "shoreline", "tide", "glacier",
)

REGIONS: dict[str, tuple[str, ...]] = {
    "East Region": (
        "Boston", "Hartford", "Providence", "Albany", "Newark", "Philadelphia", "Baltimore",
        "Richmond", "Portland", "Burlington",
    ),
    "West Region": (
        "Seattle", "Spokane", "Sacramento", "Fresno", "Reno", "Boise", "Salem", "Eugene",
        "Tacoma", "Oakland",
    ),
    "Central Region": (
        "Chicago", "Omaha", "Des Moines", "Madison", "Wichita", "Tulsa", "Kansas City",
        "Milwaukee", "Peoria", "Lincoln",
    ),
    "South Region": (
        "Atlanta", "Nashville", "Memphis", "Savannah", "Charlotte", "Raleigh", "Tampa",
        "Birmingham", "Jackson", "Mobile",
    ),
}

# (city, state, postal abbreviation)
US_CITIES: tuple[tuple[str, str, str], ...] = (
    ("Austin", "Texas", "TX"), ("Dayton", "Ohio", "OH"), ("Fresno", "California", "CA"),
    ("Spokane", "Washington", "WA"), ("Tulsa", "Oklahoma", "OK"), ("Madison", "Wisconsin", "WI"),
    ("Savannah", "Georgia", "GA"), ("Boise", "Idaho", "ID"), ("Albany", "New York", "NY"),
    ("Tucson", "Arizona", "AZ"), ("Omaha", "Nebraska", "NE"), ("Raleigh", "North Carolina", "NC"),
    ("Reno", "Nevada", "NV"), ("Eugene", "Oregon", "OR"), ("Lansing", "Michigan", "MI"),
    ("Wichita", "Kansas", "KS"), ("Trenton", "New Jersey", "NJ"), ("Richmond", "Virginia", "VA"),
)


def town_name(rng: random.Random) -> str:
    """A fictional town name such as ``Ashford`` or ``Silverbrook``."""
    return rng.choice(TOWN_PREFIXES) + rng.choice(TOWN_SUFFIXES)


def person_name(rng: random.Random) -> str:
    """A fictional full name."""
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


def unique(
    rng: random.Random, make: Callable[[random.Random], str], taken: set[str], attempts: int = 200
) -> str:
    """Draw ``make(rng)`` until the result is not in ``taken``; record and return it.

    After ``attempts`` collisions a numeric suffix guarantees uniqueness, so the call always
    terminates. ``taken`` is only used for membership tests, never iterated.
    """
    for _ in range(attempts):
        value = make(rng)
        if value not in taken:
            taken.add(value)
            return value
    suffix = 2
    while f"{value} {suffix}" in taken:
        suffix += 1
    taken.add(f"{value} {suffix}")
    return f"{value} {suffix}"
