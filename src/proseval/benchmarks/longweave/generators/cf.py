"""Code fixing with flake8 compliance (CF): repair a polluted program, keep its functions.

Material: the polluted program (see ``_cf_program``). Anchor: the number of functions and
their names. Target: a program that compiles, has no flake8 violations under the official
selection and defines the same number of functions.
"""

from __future__ import annotations

import random
from typing import Any

from ._cf_program import write_program
from ._common import long_output_note

FAMILIES = """\
- E and W (pycodestyle): layout and whitespace, e.g. E225 missing whitespace around an \
operator, E231 missing whitespace after a comma, E302 expected two blank lines, E501 line \
longer than 79 characters, W291 trailing whitespace, W292 no newline at the end of the file.
- F (pyflakes): logical slips, e.g. F401 unused import, F841 local variable never used.
- B (bugbear): likely bugs, e.g. B006 mutable default argument, B008 function call in a \
default argument, B007 unused loop variable.
- N (pep8-naming): names, e.g. N802 function names and N803 argument names in lower case, \
N806 lower-case local variables.
- SIM (simplify): code that has a simpler form, e.g. SIM108 use a conditional expression, \
SIM118 use `key in mapping` instead of `key in mapping.keys()`.
- C4 (comprehensions): needless comprehensions or calls, e.g. C408 `dict()` instead of `{}`, \
C416 a comprehension that only copies."""


def build(rng: random.Random, key: str, length: str, p: dict[str, Any]) -> tuple[str, dict]:
    """Prompt and target of one CF instance."""
    program = write_program(
        rng,
        rng.randint(*p["num_functions"]),
        p["violation_probability"],
        p["unused_import_sites"],
        p["syntax_slip_rate"],
    )
    def_count = len(program.function_names)
    prompt = f"""You are an experienced Python developer. The program below has syntax \
errors and many style problems. Fix it so that it runs and passes flake8 with these check \
families enabled:
{FAMILIES}

Program to fix:
```python
{program.code}
```

Instructions:
- Make the program valid Python (it must compile).
- Remove every flake8 problem of the families above, with the default settings (maximum \
line length 79).
- Keep what the program does. Keep all of its functions: the fixed program must define \
exactly {def_count} functions, the same ones, and no others. Renaming a function to fix a \
naming problem is allowed.
- {long_output_note(length)}
- Reply with the complete fixed program in a single ```python code block and nothing else."""
    target = {
        "original_code": program.code,
        "def_count": def_count,
        "function_names": program.function_names,
        "violation_probability": p["violation_probability"],
        "violation_sites": program.sites,
        "violations": [list(v) for v in program.violations],
        "syntax_slips": program.syntax_slips,
    }
    return prompt, target
