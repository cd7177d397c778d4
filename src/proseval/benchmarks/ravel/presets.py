"""RAVEL presets: the two official agent versions."""

from proseval.kit import Preset

_AGENT = {"temperature": 0.2, "max_tokens": 5000}
_JUDGE = {"temperature": 0.0, "max_tokens": 1000, "timeout": 120}
_GEN = {
    "candidate": _AGENT,
    "planner": _AGENT,
    "writer": _AGENT,
    "reviewer": _AGENT,
    "reviser": _AGENT,
    "judge": _JUDGE,
}

PRESETS = {
    "official": Preset(
        "official",
        "the reference-commit agent (core_agents.py / ravel_bench): tau 8, T_max 50, revision cap 3 as it "
        "acted there (--compat official), no cap on the outline's length, last 10 actions shown, review and "
        "refine on the texts the policy passes (--tool-text policy), every agent call at temperature 0.2 with "
        "5,000 tokens; judge with the rubric as system message, temperature 0, 1,000 tokens, one call",
        params={
            "tau": 8.0,
            "max_steps": 50,
            "revision_cap": 3,
            "max_sections": None,
            "history_window": 10,
            "judge_attempts": 1,
            "compat": "official",
            "tool_text": "policy",
            "judge_format": "system",
        },
        gen=_GEN,
        notes="the official judge is gpt-5.2-2025-12-11 (bind it with --role judge=...)",
    ),
    "january": Preset(
        "january",
        "the first published agent: tau 8, T_max 50, no revision cap, no cap on the outline's length, a draft "
        "resets the revision count, no action history shown to the policy, review and refine on the texts the "
        "policy passes; agent calls at temperature 0.2; the judge's rubric and the manuscript in one user message",
        params={
            "tau": 8.0,
            "max_steps": 50,
            "revision_cap": None,
            "max_sections": None,
            "history_window": 0,
            "judge_attempts": 1,
            "compat": "official",
            "tool_text": "policy",
            "judge_format": "single",
        },
        gen=_GEN,
        notes="its English runner hard-wired the policy to gemini-3-pro-preview with the tested model as every tool: "
        "reproduce with --model GEMINI --role planner=TESTED --role writer=TESTED --role reviewer=TESTED "
        "--role reviser=TESTED; the legacy Chinese runner gave every item one fixed style phrase: pass it with "
        "--style-guide",
    ),
}
