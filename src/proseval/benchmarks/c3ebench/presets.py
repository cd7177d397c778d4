"""C3EBench presets. The repository's README and code agree on one setup, so there is one preset."""

from proseval.kit import Preset

PRESETS = {
    "official": Preset(
        "official",
        "the official code: its candidate posing (--compat official), candidate temperature 0.7 with "
        "int(1.5 x reference characters) tokens, judge temperature 0 / 1,000 tokens / 120 s, no re-ask on an "
        "unusable judge answer",
        params={"compat": "official", "budget": "reference", "judge_attempts": 1},
        gen={"candidate": {"temperature": 0.7}, "judge": {"temperature": 0.0, "max_tokens": 1000, "timeout": 120}},
        notes="the official judge is gpt-5.2-2025-12-11 (bind it with --role judge=...); the official rubric texts "
        "are not shipped: pass them with --prompt judge_{task}_{lang}=FILE",
    ),
}
