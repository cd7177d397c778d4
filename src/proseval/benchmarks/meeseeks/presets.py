"""Meeseeks presets: the official code's published statistics setup and the paper's feedback loop."""

from proseval.kit import Preset

_OFFICIAL_SAMPLING = {"temperature": 0.0, "max_tokens": 8096, "timeout": 1800}

PRESETS = {
    "official": Preset(
        "official",
        "the official code's runs: 2 rounds, one re-ask message per round, the official reading of "
        "extraction and judge answers (--compat head), temperature 0 and 8,096 tokens for every role",
        params={"rounds": 2, "feedback": "reask", "compat": "head", "extraction": "code"},
        gen={role: _OFFICIAL_SAMPLING for role in ("candidate", "extractor", "judge")},
        notes="the official runs used Qwen2.5-32B-Instruct as judge and Qwen2.5-Coder-32B-Instruct as extractor",
    ),
    "paper": Preset(
        "paper",
        "the paper's loop: up to 20 rounds with the conversation kept (chat feedback, in Chinese as "
        "in the paper-era code), temperature 0 for every role",
        params={"rounds": 20, "feedback": "chat", "feedback_language": "zh"},
        gen={role: {"temperature": 0.0} for role in ("candidate", "extractor", "judge")},
        notes="the paper reports on a 700-item set that is not the published data; its judge and extractor "
        "prompts were few-shot (pass them with --prompt judge=FILE etc. if you have them)",
    ),
}
