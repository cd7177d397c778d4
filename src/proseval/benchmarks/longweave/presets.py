"""LongWeave presets: the official code's configuration and the paper's judge."""

from proseval.kit import Preset

_OFFICIAL_PARAMS = {"per_cell": 200, "seed": 0, "official": True, "sms_leaky_example": True, "output_budget": "8192"}

PRESETS = {
    "official": Preset(
        "official",
        "the official code: its scorers' behaviour (--official), its SMS prompt with the leaky worked example, "
        "8,192 output tokens, candidate T 0.7, judge gpt-4o settings (T 0.7, 8,192 tokens)",
        params={**_OFFICIAL_PARAMS, "judge_attempts": 1},
        gen={"candidate": {"temperature": 0.7, "max_tokens": 8192}, "judge": {"temperature": 0.7, "max_tokens": 8192}},
        notes="the official judge model is gpt-4o-2024-11-20; bind it with --role judge=...",
    ),
    "paper": Preset(
        "paper",
        "the paper's setup as far as it is stated: the official scorers and prompts, up to 8K output tokens, "
        "the judge sampled at T 0.1 / top-p 0.8 (its judge was Qwen2.5-72B-Instruct)",
        params=_OFFICIAL_PARAMS,
        gen={"candidate": {"temperature": 0.7, "max_tokens": 8192}, "judge": {"temperature": 0.1, "top_p": 0.8}},
        notes="the paper's lengths are tokens while the code uses them as word counts; its length score "
        "(eq. 5) is not implemented; bind --role judge=openai-compatible/Qwen2.5-72B-Instruct",
    ),
}
