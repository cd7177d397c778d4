"""Reverse construction: the checks, and the command end to end with a scripted builder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import proseval
from proseval.benchmarks._shared.c3e import data
from proseval.benchmarks.c3ebench import construct as build
from proseval.cli import app
from proseval.models.base import FatalError
from proseval.models.scripted import register_script, unregister_script

TEXT = (
    "Rivers shape the towns along them. Every spring the water rises and the fields turn to mud. "
    "The old farmers read the sky and move their herds before the flood arrives, long before any warning. "
    "By summer the river is calm again, and the town forgets until the next spring."
)
PASSAGE = "The old farmers read the sky and move their herds before the flood arrives, long before any warning."


def test_a_passage_that_does_not_occur_verbatim_is_rejected():
    assert build.check_segment(TEXT, PASSAGE) is None
    altered = PASSAGE.replace("herds", "cattle")
    assert build.check_segment(TEXT, altered) == "the passage does not occur verbatim in the text"
    assert "%" in build.check_segment(TEXT, "Rivers shape the towns along them.")  # too short a share
    assert build.check_segment(TEXT, TEXT) == "the passage is the whole text"
    assert build.check_segment(TEXT, "  ") == "the passage is empty"


def test_the_split_reassembles_to_the_original_text():
    prefix, middle, suffix = build.split_text(TEXT, PASSAGE)
    assert prefix + middle + suffix == TEXT and middle == PASSAGE
    assert prefix.endswith("mud. ") and suffix.startswith(" By summer")
    with pytest.raises(ValueError, match="verbatim"):
        build.split_text(TEXT, "not there")


def test_a_critique_that_reveals_the_hidden_passage_is_rejected():
    draft = "The farmers waited for the flood."
    assert (
        build.check_critique("Show how the farmers anticipate the flood; add a concrete sign.", PASSAGE, draft, "en")
        is None
    )
    quoting = "Write: read the sky and move their herds before the flood arrives."
    assert "quotes the hidden passage" in build.check_critique(quoting, PASSAGE, draft, "en")
    named = build.check_critique("Compare with the original text.", PASSAGE, draft, "en")
    assert "refers to the hidden passage" in named
    assert "quotes" in build.check_critique(
        "参考：老农看天色赶着牛群在洪水来临之前离开。", "老农看天色赶着牛群在洪水来临之前离开村庄。", "初稿", "zh"
    )


def test_a_brief_needs_every_field_and_a_short_request():
    brief = {"genre": "essay", "brief": "b", "audience": "a", "word": "300", "query": "Write an essay."}
    assert build.check_brief(brief, "end2end", "en") is None
    assert build.check_brief(brief, "expand", "en") == "the brief lacks structure"
    assert "longer than 100" in build.check_brief({**brief, "query": "word " * 101}, "end2end", "en")
    assert build.check_brief("not an object", "end2end", "en") == "no JSON object in the builder's answer"


BRIEF = {
    "genre": "essay",
    "brief": "How a river town lives with floods.",
    "audience": "general readers",
    "word": 60,
    "query": "Write a short essay on how a river town lives with its spring floods.",
}


def builder(messages):
    prompt = messages[-1]["content"]
    if "Work out the writing request" in prompt:
        return json.dumps({**BRIEF, "structure": "1. the river 2. the farmers 3. forgetting"})
    if "Choose one contiguous passage" in prompt:
        return json.dumps({"passage": PASSAGE if "Rivers shape" in prompt else "A sentence that is not there."})
    if "is missing from the article" in prompt:
        return "The farmers saw the clouds and led their cows uphill."
    if "You are an editor" in prompt:
        return "Give the farmers' foresight a concrete sign and a sense of time before the flood."
    raise AssertionError(prompt[:80])


@pytest.fixture(autouse=True)
def scripts():
    register_script("c3e-builder", builder)
    register_script("c3e-builder-down", lambda messages: FatalError("builder endpoint refused"))
    yield
    unregister_script("c3e-builder")
    unregister_script("c3e-builder-down")


def test_construct_builds_loadable_items_and_reports_rejections(tmp_path: Path):
    texts = tmp_path / "texts.jsonl"
    texts.write_text(
        json.dumps({"id": "river", "text": TEXT, "genre": "essay"})
        + "\n"
        + json.dumps({"id": "other", "text": TEXT.replace("Rivers shape", "Streams shape"), "tasks": ["cloze"]})
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "items.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "c3ebench",
            "construct",
            "--in",
            str(texts),
            "-r",
            "builder=scripted/c3e-builder",
            "-o",
            str(out),
            "--runs",
            str(tmp_path / "runs"),
            "--display",
            "none",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "rejected other cloze: the passage does not occur verbatim in the text" in result.output
    items = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(i["infer_id"] for i in items) == [
        "cloze_en_river",
        "condition_en_river",
        "edit_en_river",
        "end2end_en_river",
    ]
    by_task = {i["task_type"]: i for i in items}
    cloze = by_task["cloze"]
    assert cloze["input"]["prefix"] + cloze["reference"] + cloze["input"]["suffix"] == TEXT
    assert by_task["edit"]["reference"] == PASSAGE and by_task["edit"]["input"]["content"].startswith("The farmers saw")
    assert by_task["condition"]["input"]["condition"].startswith("1. the river")
    assert by_task["end2end"]["input"]["word"] == "60" and by_task["end2end"]["reference"] == TEXT
    rejected = [json.loads(line) for line in (tmp_path / "items.jsonl.rejected.jsonl").read_text().splitlines()]
    assert rejected == [
        {"text_id": "other", "task": "cloze", "reason": "the passage does not occur verbatim in the text"}
    ]

    loaded = data.load_data_file(out)  # the output is a C3EBench data file
    assert data.counts(loaded.items) == {"en": {"expand": 1, "end2end": 1, "cloze": 1, "edit": 1}}
    register_script("c3e-any", lambda messages: '{"score": 6}' if messages[0]["role"] == "system" else "A text.")
    try:
        run = proseval.run(
            "c3ebench",
            model="scripted/c3e-any",
            roles={"judge": "scripted/c3e-any"},
            params={"data_file": str(out)},
            out=tmp_path / "eval",
        )
    finally:
        unregister_script("c3e-any")
    assert run.results.metrics["c3e"].mean == 6.0 and run.results.counts.ok == 4
    assert "not official data" in run.header.dataset["source"]


def test_a_failed_builder_request_is_reported_not_dropped(tmp_path: Path):
    texts = tmp_path / "texts.jsonl"
    texts.write_text(json.dumps({"id": "river", "text": TEXT}) + "\n", encoding="utf-8")
    out = tmp_path / "items.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "c3ebench",
            "construct",
            "--in",
            str(texts),
            "-r",
            "builder=scripted/c3e-builder-down",
            "-o",
            str(out),
            "--runs",
            str(tmp_path / "runs"),
            "--display",
            "none",
        ],
    )
    assert result.exit_code == 4, result.output  # a failed request is retryable, never a success
    said = " ".join(result.output.split())
    assert "rejected river *: request failed" in said and out.read_text() == ""
    assert "1 of 1 texts were not built" in said and "--retry-failed" in said


def test_no_item_passing_its_checks_is_a_failure_not_an_empty_success(tmp_path: Path):
    texts = tmp_path / "texts.jsonl"
    texts.write_text(
        json.dumps({"id": "other", "text": TEXT.replace("Rivers shape", "Streams shape"), "tasks": ["cloze"]}) + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "items.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "c3ebench",
            "construct",
            "--in",
            str(texts),
            "-r",
            "builder=scripted/c3e-builder",
            "-o",
            str(out),
            "--runs",
            str(tmp_path / "runs"),
            "--display",
            "none",
        ],
    )
    assert result.exit_code == 1, result.output
    assert "no item passed its checks" in " ".join(result.output.split()) and out.read_text() == ""


def test_a_malformed_text_line_names_file_and_line(tmp_path: Path):
    texts = tmp_path / "texts.jsonl"
    texts.write_text(json.dumps({"id": "a", "text": TEXT}) + "\n" + json.dumps({"id": "b"}) + "\n", encoding="utf-8")
    with pytest.raises(data.DataFormatError, match=r"texts.jsonl:2: 'text' must be a non-empty string"):
        build.read_texts(texts.read_bytes(), str(texts), ["cloze"])


def test_structured_construction_asks_for_a_schema_where_a_step_answers_in_json(tmp_path: Path):
    from proseval.benchmarks.c3ebench.construct_task import SCHEMAS
    from proseval.testing.fake_openai import FakeOpenAIServer

    texts = tmp_path / "texts.jsonl"
    texts.write_text(json.dumps({"id": "river", "text": TEXT}) + "\n", encoding="utf-8")
    server = FakeOpenAIServer(responder=lambda body: builder(body["messages"])).start_in_thread()
    try:
        result = CliRunner().invoke(
            app,
            [
                "c3ebench",
                "construct",
                "--in",
                str(texts),
                "--structured",
                "-r",
                "builder=openai-compatible/b",
                "--base-url",
                server.base_url,
                "-o",
                str(tmp_path / "items.jsonl"),
                "--runs",
                str(tmp_path / "runs"),
                "--display",
                "none",
            ],
        )
    finally:
        server.stop_thread()
    assert result.exit_code == 0, result.output
    schemas = [
        body["response_format"]["json_schema"]["schema"] if body.get("response_format") else None
        for body in server.requests
    ]
    assert sorted(map(str, schemas)) == sorted(map(str, [*SCHEMAS.values(), None, None]))  # fill, critique: text
    assert len((tmp_path / "items.jsonl").read_text().splitlines()) == 4
