"""The sample page shows the models' reasoning apart from the answer: folded, labelled by role and
turn, with its tokens; a judge's refusal is labelled as one."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

import proseval
from proseval.models.base import Completion, Usage
from proseval.view import create_app

THOUGHT = "First <b>weigh</b> the topic, then write."


def sample_page(run: proseval.Run) -> str:
    client = TestClient(create_app(run.path.parent), base_url="http://127.0.0.1")
    page = client.get(f"/runs/{run.path.name}/samples/1")
    assert page.status_code == 200
    return page.text


def section(html: str, start: str, end: str) -> str:
    return html.split(start, 1)[1].split(end, 1)[0]


def test_reasoning_is_shown_folded_and_apart_from_the_output(tmp_path: Path, scripts):
    candidate = scripts(
        "view-reasoner",
        lambda m: Completion(
            text="The answer itself.",
            finish_reason="stop",
            reasoning=THOUGHT,
            usage=Usage(prompt_tokens=30, completion_tokens=90, reasoning_tokens=70, cached_tokens=24),
        ),
    )
    judge = scripts(
        "view-reasoning-judge",
        lambda m: Completion(
            text='{"score": 6}',
            finish_reason="stop",
            usage=Usage(prompt_tokens=80, completion_tokens=40, reasoning_tokens=33),
        ),
    )
    run = proseval.run("demo", model=candidate, roles={"judge": judge}, out=tmp_path / "runs", cache=False, limit=1)
    html = sample_page(run)
    output = section(html, "<h2>Output</h2>", "<h2>")
    assert "The answer itself." in output and "weigh" not in output
    reasoning = section(html, '<ol class="reasoning" id="reasoning">', "</ol>")
    items = re.findall(r"<li>(.*?)</li>", reasoning, re.S)
    assert len(items) == 2
    assert items[0].startswith(
        '<details class="reasoning"><summary>reasoning of the candidate · 0 · 70 tokens</summary>'
    )
    assert "First &lt;b&gt;weigh&lt;/b&gt; the topic, then write." in items[0]  # escaped, as every text
    assert "reasoning of the judge · judge · 33 tokens" in items[1]
    assert "the provider reported the tokens, not the text" in items[1]
    assert not re.search(r'<details class="reasoning"[^>]* open', reasoning)  # folded
    assert "30 in (24 from the prompt cache), 90 out (70 reasoning)" in html


def test_a_judges_refusal_is_labelled_refused_and_a_sample_without_reasoning_has_no_section(tmp_path, scripts):
    judge = scripts(
        "view-refusing-judge",
        lambda m: Completion(text="", finish_reason="content_filter", refusal="I won't grade this."),
    )
    run = proseval.run(
        "demo",
        model=scripts("view-writer", ["An answer."]),
        roles={"judge": judge},
        out=tmp_path / "runs",
        cache=False,
        limit=1,
    )
    html = sample_page(run)
    calls = section(html, '<ol class="calls" id="calls">', "</ol>")
    assert '<span class="badge failed">refused</span>' in calls and "request failed" not in calls
    assert "the judge refused to answer: I won&#39;t grade this." in calls
    assert 'id="reasoning"' not in html
