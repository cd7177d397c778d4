"""A scorer plug-in for the tests of `proseval score --scorer`."""

from __future__ import annotations

from proseval.core import PromptTemplate, Score, scorer

PROMPTS = {"grader": PromptTemplate("grader", "Count the words of: {text}", ("text",))}


def make(scale: float = 1.0):
    @scorer("grade", metrics=["grade"])
    async def grade(sample, state, ctx):
        reply = await ctx.generate("grader", [{"role": "user", "content": ctx.prompt("grader").render(
            text=state.output)}], turn="grade")
        return {"grade": Score(value=scale * len(reply.text.split()))}

    return grade
