"""The stability check with a fixed rule-based reviser (registered as scripted/rd-rules), from the command line.

    .venv/bin/python tests/revision_distance/measure_scripted.py revision-distance stability \
        --drafts tests/revision_distance/data/drafts20.jsonl --refs tests/revision_distance/data/refs20.jsonl \
        --role reviser=scripted/rd-rules --runs /tmp/rd-scripted

The rule reviser proposes one edit per distinct vague word of the draft (a fixed list) and one
per sentence longer than 12 words: a deterministic stand-in for a model, so that the check's
tables can be produced where no capable reviser is at hand. It is not a measurement of any
model. Any other arguments are passed to proseval's command line.
"""

from __future__ import annotations

import json
import re
import sys

from proseval.cli import app
from proseval.models.scripted import register_script

VAGUE = {
    "big",
    "good",
    "bad",
    "many",
    "thing",
    "things",
    "very",
    "really",
    "nice",
    "lot",
    "problems",
    "help",
    "need",
    "often",
    "maybe",
    "easy",
    "hard",
    "sad",
    "happy",
    "main",
}
_DRAFT = re.compile(r"Draft:\n<<<\n(.*?)\n>>>", re.S)


def rules(messages: list[dict[str, str]]) -> str:
    draft = _DRAFT.search(messages[-1]["content"]).group(1)
    edits = [
        {
            "action_name": "replace",
            "revision_description": f"make {w!r} precise",
            "revision_level": "word",
            "original_snippet": w,
            "revised_snippet": f"[precise {w}]",
            "revision_intention": "precision",
        }
        for w in sorted({w for w in re.findall(r"[A-Za-z]+", draft) if w.lower() in VAGUE})
    ]
    for sentence in re.split(r"(?<=[.!?])\s+", draft):
        if len(sentence.split()) > 12:
            edits.append(
                {
                    "action_name": "split",
                    "revision_description": "split a long sentence",
                    "revision_level": "sentence",
                    "original_snippet": sentence,
                    "revised_snippet": sentence.replace(" and ", ". ", 1),
                    "revision_intention": "readability",
                }
            )
    return json.dumps(edits)


if __name__ == "__main__":
    register_script("rd-rules", rules)
    sys.exit(app(sys.argv[1:]))
