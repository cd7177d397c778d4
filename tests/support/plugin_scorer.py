"""A scorer plug-in for the tests of `proseval score --scorer`."""

from __future__ import annotations

from proseval import registry
from proseval.core import PromptTemplate, Score, scorer

PROMPTS = {"grader": PromptTemplate("grader", "Count the words of: {text}", ("text",))}


def make(scale: float = 1.0):
    @scorer("grade", metrics=["grade"])
    async def grade(sample, state, ctx):
        reply = await ctx.generate(
            "grader", [{"role": "user", "content": ctx.prompt("grader").render(text=state.output)}], turn="grade"
        )
        return {"grade": Score(value=scale * len(reply.text.split()))}

    return grade


def register() -> None:
    """Register the plug-in as a package does: its hooks name modules of its own package (`support`)."""
    registry.scorer_plugin(
        "grade",
        summary="words in the grader's reply",
        roles=("grader",),
        factory="support.plugin_scorer:make",
        prompts="support.plugin_scorer:PROMPTS",
        role_configs={"grader": {"temperature": 0.0}},
    )
