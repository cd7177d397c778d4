"""The `c3ebench-construct` task: a builder model turns each of your texts into C3EBench items.

One sample per text. The protocol asks the `builder` role for each step, re-asking (bounded) while
its answer fails a check; whatever still fails is recorded as a rejection with its reason. A failed
request fails the text's sample (retry with ``proseval resume --retry-failed``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from proseval.benchmarks._shared.c3e.data import TaskName
from proseval.benchmarks.c3ebench import construct as build
from proseval.benchmarks.c3ebench.params import ConstructParams
from proseval.kit import (
    GenerateConfig,
    PromptTemplate,
    Sample,
    SampleContext,
    Score,
    State,
    Task,
    ask_until,
    extract_json,
    json_schema_format,
    scorer,
    strip_reasoning,
)

BUILDER_CONFIG = GenerateConfig(temperature=0.0, max_tokens=4096)
LANGUAGE_NAMES = {"en": "English", "zh": "Chinese"}

_BRIEF = (
    "Below is a finished text written by a professional. Work out the writing request it answers. Reply "
    "with one JSON object and nothing else, with these string fields:\n"
    '- "genre": the kind of text (e.g. op-ed, report, short story, speech);\n'
    '- "brief": two or three sentences on what the text says;\n'
    "{structure_field}"
    '- "audience": who it is written for, and in what tone;\n'
    '- "word": its length in words (Chinese: characters), as a number or a range such as "800-1000";\n'
    '- "query": the request a client would give a writer to obtain such a text, in {language}, at most '
    "{limit} words{query_note}. Do not quote the text.\n\nText:\n{text}"
)

BUILDER_PROMPTS: dict[str, PromptTemplate] = {
    "builder_brief_expand": PromptTemplate(
        "builder_brief_expand",
        _BRIEF.replace(
            "{structure_field}",
            '- "structure": the plan of the text, section by '
            "section, with the names, dates and figures each part needs;\n",
        ).replace("{query_note}", ", describing the planned structure"),
        ("text", "language", "limit"),
        description="Expand: genre, brief, structure, audience, length and request",
    ),
    "builder_brief_end2end": PromptTemplate(
        "builder_brief_end2end",
        _BRIEF.replace("{structure_field}", "").replace("{query_note}", ""),
        ("text", "language", "limit"),
        description="End2End: genre, brief, audience, length and request",
    ),
    "builder_segment": PromptTemplate(
        "builder_segment",
        "Choose one contiguous passage of the text below that carries weight in it (an "
        "argument, a turn of the story, a key description) and is between one fifth and one half of the text's "
        "length. Copy it exactly, character for character, including punctuation and line breaks. Reply with one "
        'JSON object and nothing else: {"passage": "..."}\n\nText:\n{text}',
        ("text",),
        description="Cloze and Edit: pick the passage that will be hidden",
    ),
    "builder_fill": PromptTemplate(
        "builder_fill",
        "A passage is missing from the article below at the place marked [fill in the blank]. "
        "Write that passage, about {length} long, so that the article reads as one text. Reply with the passage "
        "only.\n\n{article}",
        ("article", "length"),
        description="Edit: the draft (a model's fill of the gap)",
    ),
    "builder_critique": PromptTemplate(
        "builder_critique",
        "You are an editor. A writer filled a gap in an article with the DRAFT below. You also "
        "have the author's own passage for that gap (HIDDEN), which the writer will never see. Compare them and "
        "write a diagnosis of the draft's problems with concrete revision advice (at most 300 words, in "
        "{language}), such that a writer following it would move toward the quality of the hidden passage. Do "
        "not quote the hidden passage, do not mention that it exists, and do not call it a reference or an "
        "original. Reply with the critique only.\n\nARTICLE WITH GAP:\n{article}\n\nDRAFT:\n{draft}\n\n"
        "HIDDEN:\n{passage}",
        ("article", "draft", "passage", "language"),
        description="Edit: the critique of the draft, which must not reveal the hidden passage",
    ),
}


def _parse_brief(task: str, language: str) -> Callable[[str], tuple[Any, str | None]]:
    def parse(text: str) -> tuple[Any, str | None]:
        value = extract_json(text).value
        return value, build.check_brief(value, task, language)

    return parse


def _parse_segment(source: str) -> Callable[[str], tuple[str, str | None]]:
    def parse(text: str) -> tuple[str, str | None]:
        value = extract_json(text).value
        passage = value.get("passage") if isinstance(value, dict) else None
        if not isinstance(passage, str):
            return "", 'no {"passage": ...} object in the builder\'s answer'
        passage = passage.strip()
        return passage, build.check_segment(source, passage)

    return parse


def _parse_text(check: Callable[[str], str | None]) -> Callable[[str], tuple[str, str | None]]:
    """A plain-text answer (reasoning removed) and why `check` rejects it."""

    def parse(text: str) -> tuple[str, str | None]:
        answer = strip_reasoning(text).text.strip()
        return answer, check(answer)

    return parse


def _strings(*keys: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {key: {"type": "string"} for key in keys},
        "required": list(keys),
        "additionalProperties": False,
    }


# The shape of each JSON-answering step, for --structured.
SCHEMAS: dict[str, dict[str, Any]] = {
    "builder_brief_expand": _strings("genre", "brief", "structure", "audience", "word", "query"),
    "builder_brief_end2end": _strings("genre", "brief", "audience", "word", "query"),
    "builder_segment": _strings("passage"),
}


def _length_hint(passage: str, language: str) -> str:
    return f"{len(passage)} characters" if language == "zh" else f"{len(passage.split())} words"


class _Builder:
    """Asks the builder role for one text's steps; each step re-asked while its answer fails its check."""

    def __init__(self, ctx: SampleContext, params: ConstructParams):
        self.ctx, self.params = ctx, params

    async def ask(
        self, name: str, values: dict[str, Any], parse: Callable[[str], tuple[Any, str | None]]
    ) -> tuple[Any, str | None]:
        """The first answer that passes its check, else the last answer and the reason it failed."""
        messages = [{"role": "user", "content": self.ctx.prompt(name).render(**values)}]
        config = (
            {"response_format": json_schema_format(name, SCHEMAS[name])}
            if self.params.structured and name in SCHEMAS
            else None
        )
        asked = await ask_until(
            self.ctx,
            "builder",
            messages,
            parse,
            lambda r: r[1] is None,
            attempts=self.params.builder_attempts,
            turn=name,
            config=config,
        )
        if asked.error is not None:
            raise asked.error  # a failed request: the text's sample fails and can be retried
        assert asked.last is not None
        return asked.last


async def _brief_item(
    builder: _Builder, task: TaskName, text: build.SourceText
) -> tuple[dict[str, Any] | None, str | None]:
    """The Expand or End2End item of `text`, or why it failed."""
    values = {"text": text.text, "language": LANGUAGE_NAMES[text.language], "limit": build.QUERY_LIMIT[task]}
    brief, reason = await builder.ask(f"builder_brief_{task}", values, _parse_brief(task, text.language))
    return (build.brief_item(task, text, brief), None) if reason is None else (None, reason)


async def _edit_item(
    builder: _Builder, text: build.SourceText, prefix: str, passage: str, suffix: str
) -> tuple[dict[str, Any] | None, str | None]:
    """The Edit item of `text`: a model's fill of the gap (the draft), then a critique that hides the passage."""
    article = build.masked(prefix, suffix)
    draft, reason = await builder.ask(
        "builder_fill",
        {"article": article, "length": _length_hint(passage, text.language)},
        _parse_text(lambda answer: build.check_draft(answer, passage)),
    )
    if reason is not None:
        return None, reason
    critique, reason = await builder.ask(
        "builder_critique",
        {"article": article, "draft": draft, "passage": passage, "language": LANGUAGE_NAMES[text.language]},
        _parse_text(lambda answer: build.check_critique(answer, passage, draft, text.language)),
    )
    if reason is not None:
        return None, reason
    return build.edit_item(text, draft, critique, passage), None


def construct_task(params: ConstructParams) -> Task:
    path = Path(params.in_file)
    texts = build.read_texts(path.read_bytes(), str(path), params.task)

    def dataset() -> list[Sample]:
        return [
            Sample(
                id=f"construct/{t.id}",
                input=t.text[:200],
                target={"id": t.id, "text": t.text, "language": t.language, "genre": t.genre, "tasks": list(t.tasks)},
                metadata={"language": t.language},
            )
            for t in texts
        ]

    async def protocol(sample: Sample, ctx: SampleContext) -> State:
        text = build.SourceText(**{**sample.target, "tasks": tuple(sample.target["tasks"])})
        builder = _Builder(ctx, params)
        items: list[dict[str, Any]] = []
        rejected: list[dict[str, str]] = []

        def keep(task: str, item: dict[str, Any] | None, reason: str | None) -> None:
            if item is not None:
                items.append(item)
            else:
                rejected.append({"task": task, "reason": str(reason)})

        brief_tasks: tuple[TaskName, ...] = ("expand", "end2end")
        for task in brief_tasks:
            if task in text.tasks:
                keep(task, *await _brief_item(builder, task, text))
        if {"cloze", "edit"} & set(text.tasks):
            passage, reason = await builder.ask("builder_segment", {"text": text.text}, _parse_segment(text.text))
            if reason is not None:
                for task in ("cloze", "edit"):
                    if task in text.tasks:
                        keep(task, None, reason)
            else:
                prefix, passage, suffix = build.split_text(text.text, passage)
                if "cloze" in text.tasks:
                    keep("cloze", build.cloze_item(text, prefix, passage, suffix), None)
                if "edit" in text.tasks:
                    keep("edit", *await _edit_item(builder, text, prefix, passage, suffix))
        return State(output=json.dumps(items, ensure_ascii=False), metadata={"items": items, "rejected": rejected})

    @scorer("built", metrics=["built"])
    async def built(sample: Sample, state: State, ctx: SampleContext) -> dict[str, Score]:
        wanted = len(sample.target["tasks"])
        return {"built": Score(value=len(state.metadata.get("items", [])) / wanted)}

    return Task(
        name="c3ebench-construct",
        version="1",
        dataset=dataset,
        protocol=protocol,
        scorers=[built],
        roles_required=("builder",),
        role_configs={"builder": BUILDER_CONFIG},
        dataset_source={"source": str(path), "texts": len(texts)},
        prompts=dict(BUILDER_PROMPTS),
    )
