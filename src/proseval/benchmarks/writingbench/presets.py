"""WritingBench presets: the paper's setup and the official code's."""

from proseval.kit import Preset

# The candidate sampling the official README recommends (and the paper used): top_k is an
# open-weight-server parameter, so it is sent only under a preset, never by default.
_CANDIDATE = {"temperature": 0.7, "top_p": 0.8, "top_k": 20, "max_tokens": 16000}

PRESETS = {
    "paper": Preset(
        "paper",
        "the paper's setup: candidate T 0.7 / top-p 0.8 / top-k 20 / 16,000 tokens; the judge sampled "
        "like the candidate (the official code before its sampling change), one call per criterion",
        params={"judge_mode": "per-criterion", "reasoning": "official"},
        gen={"candidate": _CANDIDATE, "judge": {"temperature": 0.7, "top_p": 0.8, "top_k": 20, "max_tokens": 2048}},
        notes="the paper scored the v1 queries (1,239, no longer distributed) with its first judge prompt; "
        "this preset runs the published v2 queries; pass a judge prompt with --prompt judge=FILE",
    ),
    "official": Preset(
        "official",
        "the official code today: candidate as the README recommends; judge T 1.0 / top-p 0.95 / 2,048 tokens, "
        "one call per criterion",
        params={"judge_mode": "per-criterion", "reasoning": "official"},
        gen={"candidate": _CANDIDATE, "judge": {"temperature": 1.0, "top_p": 0.95, "max_tokens": 2048}},
        notes="a judge that does not take these settings (Claude under Anthropic's API version 2026-10-21, OpenAI's "
        "reasoning models) is sent what it takes; the run says what was left out (proseval docs models)",
    ),
}
