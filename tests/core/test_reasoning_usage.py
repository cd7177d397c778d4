"""Reasoning kept apart from answers and counted, refusals told apart, cached input priced.

First the providers' documented reply shapes (OpenAI chat completions with DeepSeek's, vLLM's and
OpenRouter's reasoning fields, OpenAI refusals, Anthropic thinking blocks, both batch formats),
then runs: with scripted models, and with the fake OpenAI server answering in those shapes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from rich.console import Console

import proseval
from proseval.commandline.results import usage_table
from proseval.core.prices import ModelPrice, Prices, read_prices
from proseval.core.protocols import single_turn
from proseval.core.sample import Sample
from proseval.core.score import Score
from proseval.core.task import Task
from proseval.errors import UsageError
from proseval.judging.ask import ask_until
from proseval.models.anthropic_batch import anthropic_item_result
from proseval.models.anthropic_messages import WITHHELD_REASONING, to_completion
from proseval.models.base import Completion, GenerateConfig, ReasoningExhaustedError, Usage
from proseval.models.openai_batch import item_result
from proseval.models.openai_compat import _to_completion
from proseval.models.scripted import ScriptedModel
from proseval.runtime.cache import ResponseCache
from proseval.runtime.executor import RoleModel
from proseval.runtime.records import Reasoning
from proseval.testing.fake_openai import FakeOpenAIServer, Reply

MESSAGES = [{"role": "user", "content": "What is the capital of France?"}]
SECRET = "SECRET-CANDIDATE-THOUGHT"
JUDGE_REPLY = '{"score": 7, "reason": "clear"}'


def chat_reply(message: dict[str, Any], finish: str = "stop", usage: dict[str, Any] | None = None) -> dict[str, Any]:
    """A chat completion as OpenAI documents it (`choices[0].message`, `usage`)."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        "usage": usage if usage is not None else {"prompt_tokens": 12, "completion_tokens": 20, "total_tokens": 32},
    }


DETAILED_USAGE = {
    "prompt_tokens": 120,
    "completion_tokens": 300,
    "total_tokens": 420,
    "prompt_tokens_details": {"cached_tokens": 96, "audio_tokens": 0},
    "completion_tokens_details": {
        "reasoning_tokens": 256,
        "audio_tokens": 0,
        "accepted_prediction_tokens": 0,
        "rejected_prediction_tokens": 0,
    },
}


# --- OpenAI-compatible replies ------------------------------------------------------------------


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])  # DeepSeek / vLLM / SGLang; OpenRouter
def test_reasoning_text_is_kept_apart_from_the_answer(field):
    reply = chat_reply({"content": "Paris.", field: "France's capital is Paris."}, usage=DETAILED_USAGE)
    completion = _to_completion(reply, 0.2)
    assert completion.text == "Paris."
    assert completion.reasoning == "France's capital is Paris."
    assert completion.usage == Usage(prompt_tokens=120, completion_tokens=300, reasoning_tokens=256, cached_tokens=96)
    assert not completion.refused and not completion.reasoning_exhausted


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": 12, "completion_tokens": 20, "total_tokens": 32},
        {
            "prompt_tokens": 12,
            "completion_tokens": 20,
            "prompt_tokens_details": None,
            "completion_tokens_details": None,
        },
        {"prompt_tokens": 12, "completion_tokens": 20, "completion_tokens_details": {"reasoning_tokens": None}},
    ],
)
def test_a_reply_without_breakdowns_counts_no_reasoning_or_cached_tokens(usage):
    completion = _to_completion(chat_reply({"content": "Paris.", "reasoning_content": None}, usage=usage), 0.0)
    assert completion.usage == Usage(prompt_tokens=12, completion_tokens=20)
    assert completion.reasoning is None


def test_an_openai_refusal_leaves_the_answer_empty_with_the_content_filter_reason():
    reply = chat_reply({"content": None, "refusal": "I'm sorry, I can't help with that."})
    completion = _to_completion(reply, 0.0)
    assert (completion.text, completion.finish_reason) == ("", "content_filter")
    assert completion.refusal == "I'm sorry, I can't help with that." and completion.refused


def test_a_content_filter_finish_is_kept_as_a_refusal():
    completion = _to_completion(chat_reply({"content": "Partial"}, finish="content_filter"), 0.0)
    assert (completion.text, completion.finish_reason, completion.refusal) == ("Partial", "content_filter", None)
    assert completion.refused


@pytest.mark.parametrize(
    ("text", "finish", "usage", "reasoning", "exhausted"),
    [
        ("", "length", Usage(completion_tokens=64, reasoning_tokens=64), None, True),  # o-series: tokens, no text
        (" \n", "length", Usage(completion_tokens=64), "thinking…", True),  # text only (Anthropic reports no tokens)
        ("", "length", Usage(completion_tokens=64), None, False),  # an ordinary empty answer cut at the limit
        ("", "stop", Usage(completion_tokens=64, reasoning_tokens=64), "thinking…", False),  # empty, not cut
        ("Paris", "length", Usage(completion_tokens=64, reasoning_tokens=60), "thinking…", False),  # truncated
    ],
)
def test_an_answer_is_exhausted_only_when_empty_at_the_limit_after_reasoning(text, finish, usage, reasoning, exhausted):
    completion = Completion(text=text, finish_reason=finish, usage=usage, reasoning=reasoning)
    assert completion.reasoning_exhausted is exhausted


# --- Anthropic replies ----------------------------------------------------------------------------


def anthropic_message(content: list[dict[str, Any]], stop_reason: str = "end_turn", **usage: int) -> dict[str, Any]:
    """A Messages API `message` object as Anthropic documents it."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 50, **usage},
    }


def test_thinking_blocks_are_reasoning_and_only_text_blocks_are_the_answer():
    message = anthropic_message(
        [
            {"type": "thinking", "thinking": "The user wants a greeting.", "signature": "EqQBCgIYAh"},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
            {"type": "text", "text": "Hello"},
            {"type": "text", "text": " there."},
        ],
        cache_creation_input_tokens=5,
        cache_read_input_tokens=100,
    )
    completion = to_completion(message, 0.1)
    assert completion.text == "Hello there."
    assert completion.reasoning == f"The user wants a greeting.\n\n{WITHHELD_REASONING}"
    assert completion.usage == Usage(prompt_tokens=115, completion_tokens=50, cached_tokens=100)
    assert "EmwKAhgBEgy3va3pzix" not in completion.reasoning  # encrypted data is not reasoning


def test_a_thinking_block_whose_text_is_omitted_still_marks_reasoning():
    completion = to_completion(
        anthropic_message([{"type": "thinking", "thinking": "", "signature": "sig"}], stop_reason="max_tokens"), 0.0
    )
    assert (completion.text, completion.finish_reason, completion.reasoning) == ("", "length", WITHHELD_REASONING)
    assert completion.reasoning_exhausted


def test_an_anthropic_refusal_keeps_its_partial_text_as_the_refusal():
    completion = to_completion(
        anthropic_message([{"type": "text", "text": "I started to"}], stop_reason="refusal"), 0.0
    )
    assert (completion.text, completion.finish_reason, completion.refusal) == ("", "content_filter", "I started to")
    assert completion.refused
    bare = to_completion(anthropic_message([], stop_reason="refusal"), 0.0)
    assert bare.refused and bare.refusal is None


def test_batch_results_keep_the_reasoning_and_the_breakdowns():
    reply = chat_reply({"content": "Paris.", "reasoning_content": "Because."}, usage=DETAILED_USAGE)
    openai_answer = item_result({"custom_id": "a", "response": {"status_code": 200, "body": reply}}, 0.0)
    assert isinstance(openai_answer, Completion)
    assert (
        openai_answer.text,
        openai_answer.reasoning,
        openai_answer.usage.reasoning_tokens,
        openai_answer.usage.cached_tokens,
    ) == ("Paris.", "Because.", 256, 96)
    message = anthropic_message(
        [{"type": "thinking", "thinking": "Hm.", "signature": "s"}, {"type": "text", "text": "Hi."}],
        cache_read_input_tokens=7,
    )
    anthropic_answer = anthropic_item_result(
        {"custom_id": "a", "result": {"type": "succeeded", "message": message}}, 0.0
    )
    assert isinstance(anthropic_answer, Completion)
    answer = (anthropic_answer.text, anthropic_answer.reasoning, anthropic_answer.usage.cached_tokens)
    assert answer == ("Hi.", "Hm.", 7)


# --- prices ---------------------------------------------------------------------------------------


def test_cached_input_costs_its_own_price_when_given_else_the_input_price():
    tokens = {"prompt_tokens": 1_000_000, "completion_tokens": 100_000, "cached_tokens": 600_000}
    with_cached = ModelPrice(input=2.0, cached_input=0.5, output=8.0)
    assert with_cached.cost(
        tokens["prompt_tokens"], tokens["completion_tokens"], cached_tokens=tokens["cached_tokens"]
    ) == pytest.approx(0.4 * 2.0 + 0.6 * 0.5 + 0.1 * 8.0)
    without = ModelPrice(input=2.0, output=8.0)
    assert without.cost(1_000_000, 100_000, cached_tokens=600_000) == pytest.approx(2.0 + 0.8)
    discounted = ModelPrice(input=2.0, cached_input=0.5, output=8.0, batch_discount=0.5)
    assert discounted.cost(1_000_000, 100_000, cached_tokens=600_000, batch=True) == pytest.approx(1.9 / 2)


def test_the_prices_file_takes_an_optional_cached_input_price(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text(
        "currency: USD\nmodels:\n  openai/gpt-5: {input: 1.25, cached_input: 0.125, output: 10}\n"
        "  openai/gpt-4o-mini: {input: 0.15, output: 0.6}\n",
        encoding="utf-8",
    )
    prices = read_prices(path)
    assert prices.of("openai/gpt-5").cached_input == 0.125
    assert prices.of("openai/gpt-4o-mini").cached_input is None
    path.write_text("models:\n  m: {input: 1, cached_input: -1, output: 1}\n", encoding="utf-8")
    with pytest.raises(UsageError, match="cached_input"):
        read_prices(path)


# --- the executor ---------------------------------------------------------------------------------


def exhausted_reply(messages: list[dict[str, str]]) -> Completion:
    return Completion(
        text="",
        finish_reason="length",
        reasoning="Let me think about this at length…",
        usage=Usage(prompt_tokens=10, completion_tokens=64, reasoning_tokens=64),
    )


async def test_an_answer_left_empty_by_reasoning_is_counted_raised_and_never_cached(tmp_path):
    model = ScriptedModel("thinker", exhausted_reply)
    role = RoleModel(
        role="judge",
        model=model,
        config=GenerateConfig(max_tokens=64),
        concurrency=1,
        cache=ResponseCache(tmp_path / "cache.sqlite"),
        max_attempts=6,
        backoff_initial=0.01,
    )
    for _ in range(2):
        with pytest.raises(ReasoningExhaustedError) as caught:
            await role.generate(MESSAGES, sample_id="s1")
    message = str(caught.value)
    assert message == (
        "the answer is empty because the whole token budget (max_tokens 64) went to reasoning "
        "(64 reasoning tokens): raise -g judge.max_tokens= or lower -g judge.reasoning_effort="
    )
    assert len(model.calls) == 2  # never retried, and the second call was not answered from the cache
    stats = role.stats.as_dict()
    assert {
        k: stats[k]
        for k in (
            "requests",
            "cache_hits",
            "retries",
            "errors",
            "prompt_tokens",
            "completion_tokens",
            "reasoning_tokens",
        )
    } == {
        "requests": 2,
        "cache_hits": 0,
        "retries": 0,
        "errors": 2,
        "prompt_tokens": 20,
        "completion_tokens": 128,
        "reasoning_tokens": 128,
    }
    role.cache.close()


def test_without_a_max_tokens_the_message_names_the_endpoints_default():
    error = ReasoningExhaustedError(
        Completion(text="", finish_reason="length", reasoning="…", usage=Usage(completion_tokens=4096)),
        "candidate",
        None,
    )
    assert "(the endpoint's default max_tokens) went to reasoning (4096 reasoning tokens)" in str(error)


# --- runs with scripted models --------------------------------------------------------------------


class Judge:
    """A scripted judge that keeps every prompt it was sent."""

    def __init__(self, reply: Any = JUDGE_REPLY):
        self.prompts: list[str] = []
        self.reply = reply

    def __call__(self, messages: list[dict[str, str]]) -> Any:
        self.prompts.append(json.dumps(messages))
        return self.reply(messages) if callable(self.reply) else self.reply


def thinking_candidate(messages: list[dict[str, str]]) -> Completion:
    return Completion(
        text="A plain answer about the topic.",
        finish_reason="stop",
        reasoning=SECRET,
        usage=Usage(prompt_tokens=40, completion_tokens=50, reasoning_tokens=30, cached_tokens=32),
    )


def thinking_judge(messages: list[dict[str, str]]) -> Completion:
    return Completion(
        text=JUDGE_REPLY,
        finish_reason="stop",
        reasoning="The answer is clear.",
        usage=Usage(prompt_tokens=100, completion_tokens=20, reasoning_tokens=12),
    )


def table_text(results: Any) -> str:
    console = Console(record=True, width=250)
    console.print(usage_table(results))
    return console.export_text()


def test_reasoning_is_recorded_counted_and_priced_but_never_reaches_the_judge(tmp_path, scripts):
    judge = Judge(thinking_judge)
    candidate_spec = scripts("reasoner", thinking_candidate)
    prices = Prices(
        models={
            candidate_spec: ModelPrice(input=1.0, cached_input=0.25, output=4.0),
            "scripted/thinking-judge": ModelPrice(input=1.0, output=4.0),
        }
    )
    run = proseval.run(
        "demo",
        model=candidate_spec,
        roles={"judge": scripts("thinking-judge", judge)},
        out=tmp_path,
        cache=False,
        limit=2,
        prices=prices,
    )
    assert len(judge.prompts) == 2 and all("A plain answer about the topic." in p for p in judge.prompts)
    assert not any(SECRET in prompt for prompt in judge.prompts)
    for record in run.records():
        assert record.state.output == "A plain answer about the topic."
        assert SECRET not in record.model_dump_json(exclude={"reasoning"})
        assert record.reasoning == [
            Reasoning(role="candidate", turn=0, text=SECRET, tokens=30),
            Reasoning(role="judge", turn="judge", text="The answer is clear.", tokens=12),
        ]
        assert record.usage["candidate"] == Usage(
            prompt_tokens=40, completion_tokens=50, reasoning_tokens=30, cached_tokens=32
        )
    roles = json.loads((run.path / "results.json").read_text())["roles"]
    assert (roles["candidate"]["reasoning_tokens"], roles["candidate"]["cached_tokens"]) == (60, 64)
    assert (roles["judge"]["reasoning_tokens"], roles["judge"]["cached_tokens"]) == (24, 0)
    # each candidate answer: 8 uncached input tokens at 1, 32 cached at 0.25 and 50 output at 4 (per million)
    assert roles["candidate"]["cost"] == pytest.approx(2 * (8 * 1.0 + 32 * 0.25 + 50 * 4.0) / 1e6)
    session = json.loads((run.path / "usage.jsonl").read_text().splitlines()[-1])
    counted = session["roles"]["candidate"]
    assert (counted["reasoning_tokens"], counted["cached_tokens"]) == (60, 64)
    header = table_text(run.results).splitlines()
    columns = next(line for line in header if "tok in" in line)
    assert (
        columns.index("tok in")
        < columns.index("tok cached")
        < columns.index("tok out")
        < columns.index("tok reasoning")
        < columns.index("latency")
    )
    candidate_row = next(line for line in header if line.lstrip("│ ").startswith("candidate"))
    assert [cell.strip() for cell in candidate_row.split("│")[6:10]] == ["80", "64", "100", "60"]


def test_the_usage_table_has_no_reasoning_or_cached_columns_when_no_role_had_any(tmp_path, scripts):
    run = proseval.run(
        "demo",
        model=scripts("plain", ["A plain answer."]),
        roles={"judge": scripts("j", [JUDGE_REPLY])},
        out=tmp_path,
        cache=False,
        limit=1,
    )
    text = table_text(run.results)
    assert "tok in" in text and "tok cached" not in text and "tok reasoning" not in text
    assert next(run.records()).reasoning == []


def test_a_candidate_answer_left_empty_by_reasoning_is_unscored_paid_and_asked_once(tmp_path, scripts):
    asked: list[int] = []
    judge = Judge()

    def candidate(messages):
        asked.append(1)
        return exhausted_reply(messages)

    spec = scripts("exhausted", candidate)
    prices = Prices(models={spec: ModelPrice(input=1.0, output=2.0), "scripted/j": ModelPrice(input=1.0, output=2.0)})
    run = proseval.run(
        "demo",
        model=spec,
        roles={"judge": scripts("j", judge)},
        gen={"candidate": {"max_tokens": 64}},
        out=tmp_path,
        limit=2,
        prices=prices,
    )
    assert len(asked) == 2 and judge.prompts == []  # one request per sample, no retry; nothing to judge
    results = run.results
    assert results.counts.failed == 2 and results.counts.model_failures == {}
    assert results.outcome == "failed_samples"  # retryable: `resume --retry-failed`
    ((reason, count),) = results.counts.failure_reasons.items()
    assert count == 2 and reason.startswith(
        "the answer is empty because the whole token budget (max_tokens 64) "
        "went to reasoning (64 reasoning tokens): raise -g candidate.max_tokens="
    )
    for record in run.records():
        assert record.status == "error" and record.model_failure is None
        assert record.error.endswith("raise -g candidate.max_tokens= or lower -g candidate.reasoning_effort=")
        assert record.usage["candidate"] == Usage(prompt_tokens=10, completion_tokens=64, reasoning_tokens=64)
        assert record.reasoning[0].role == "candidate" and record.reasoning[0].tokens == 64
    assert results.roles["candidate"]["cost"] == pytest.approx(2 * (10 * 1.0 + 64 * 2.0) / 1e6)
    assert results.roles["candidate"]["errors"] == 2 and results.roles["candidate"]["retries"] == 0
    proseval.resume(run.path, retry_failed=True)  # errors are never cached: the requests are sent again
    assert len(asked) == 4


def test_a_judge_answer_left_empty_by_reasoning_is_unscored_with_the_advice_and_never_re_asked(tmp_path, scripts):
    judge = Judge(exhausted_reply)

    async def asked_thrice(sample: Sample, state: Any, ctx: Any) -> dict[str, Score]:
        asked = await ask_until(
            ctx,
            "judge",
            [{"role": "user", "content": state.output}],
            lambda text: text,
            lambda text: bool(text.strip()),
            attempts=3,
            turn="judge",
        )
        if asked.error is not None:
            return {"judge": Score.unscored("error", str(asked.error))}
        return {"judge": Score(value=float(len(asked.replies)))}

    task = Task(
        name="asks",
        version="1",
        dataset=lambda: [Sample(id="a", input="Write.")],
        protocol=single_turn,
        scorers=[asked_thrice],
        roles_required=("candidate", "judge"),
    )
    run = proseval.run(
        task,
        model=scripts("writer", ["Some text."]),
        roles={"judge": scripts("j", judge)},
        gen={"judge": {"max_tokens": 64}},
        out=tmp_path,
        cache=False,
    )
    assert len(judge.prompts) == 1  # the re-ask loop stopped at the first such answer
    record = next(run.records())
    assert record.status == "ok" and record.scores["judge"].value is None
    assert "raise -g judge.max_tokens= or lower -g judge.reasoning_effort=" in record.scores["judge"].explanation
    assert record.calls[0].error.startswith("the answer is empty because the whole token budget (max_tokens 64)")
    assert record.usage["judge"].completion_tokens == 64 and run.results.counts.unscored == 1


def test_a_judge_left_without_an_answer_by_reasoning_leaves_a_failed_score_that_retry_failed_asks_again(
    tmp_path, scripts
):
    judge = Judge(exhausted_reply)
    run = proseval.run(
        "demo",
        model=scripts("writer", ["An answer."]),
        roles={"judge": scripts("j", judge)},
        gen={"judge": {"max_tokens": 64}},
        out=tmp_path,
        limit=1,
    )
    quality = next(run.records()).scores["quality"]
    assert quality.value is None and quality.parse_status == "error"  # never 0
    assert quality.explanation.startswith("the answer is empty because the whole token budget (max_tokens 64)")
    assert run.results.counts.scoring_failed == 1 and run.results.outcome == "failed_samples"
    proseval.resume(run.path, retry_failed=True)
    assert len(judge.prompts) == 2  # asked again (nothing was cached), once each time


def test_a_candidate_refusal_is_a_model_failure_and_a_judge_refusal_an_unscored_score(tmp_path, scripts):
    refused = Completion(
        text="",
        finish_reason="content_filter",
        refusal="I can't help with that.",
        usage=Usage(prompt_tokens=5, completion_tokens=7),
    )
    judge = Judge()
    run = proseval.run(
        "demo",
        model=scripts("refuser", [refused]),
        roles={"judge": scripts("j", judge)},
        out=tmp_path / "candidate",
        cache=False,
        limit=2,
    )
    assert run.results.counts.model_failures == {"refusal": 2} and run.results.counts.failed == 0
    assert judge.prompts == []  # demo scores an empty answer by rule
    assert {r.model_failure for r in run.records()} == {"refusal"}

    refusing_judge = Judge(refused)
    run = proseval.run(
        "demo",
        model=scripts("writer", ["An answer."]),
        roles={"judge": scripts("rj", refusing_judge)},
        out=tmp_path / "judge",
        cache=False,
        limit=2,
    )
    assert len(refusing_judge.prompts) == 2  # once per sample: a refusal is not an outage to retry
    assert run.results.counts.model_failures == {} and run.results.counts.unscored == 2
    assert run.results.counts.scoring_failed == 0 and run.results.outcome == "complete"  # not an outage
    for record in run.records():
        quality = record.scores["quality"]
        assert quality.value is None and quality.parse_status == "refused"
        assert quality.explanation == "the judge refused to answer: I can't help with that."
        assert record.calls[0].finish_reason == "content_filter" and record.calls[0].error == quality.explanation


# --- runs against the fake OpenAI server ---------------------------------------------------------

THOUGHT = f"{SECRET} weighs the request first"  # 5 words: the fake counts words as tokens


def answered(server: FakeOpenAIServer) -> list[dict[str, Any]]:
    """The requests of the run's samples (the probe's aside)."""
    return [body for body in server.requests if "Aim for about" in body["messages"][-1]["content"]]


def test_reasoning_content_from_an_endpoint_is_recorded_and_kept_from_the_judge(tmp_path, scripts):
    judge = Judge()
    server = FakeOpenAIServer(
        reasoning_field="reasoning_content",
        reasoning_text=THOUGHT,
        cached_tokens=4,
        responder=lambda body: "An answer from the endpoint.",
    ).start_in_thread()
    try:
        run = proseval.run(
            "demo",
            model="openai-compatible/reasoner",
            base_url=server.base_url,
            roles={"judge": scripts("j", judge)},
            out=tmp_path,
            cache=False,
            limit=2,
        )
    finally:
        server.stop_thread()
    assert len(judge.prompts) == 2 and "An answer from the endpoint." in judge.prompts[0]
    assert not any(SECRET in prompt for prompt in judge.prompts)
    record = next(run.records())
    assert record.state.output == "An answer from the endpoint."
    assert record.reasoning == [Reasoning(role="candidate", turn=0, text=THOUGHT, tokens=5)]
    assert (record.usage["candidate"].reasoning_tokens, record.usage["candidate"].cached_tokens) == (5, 4)
    assert (run.results.roles["candidate"]["reasoning_tokens"], run.results.roles["candidate"]["cached_tokens"]) == (
        10,
        8,
    )


def test_an_openai_reasoning_model_that_spends_the_budget_thinking_is_asked_once(tmp_path, scripts, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    server = FakeOpenAIServer(strict=True, reasoning_cost=200).start_in_thread()
    try:
        run = proseval.run(
            "demo",
            model="openai/gpt-5-mini",
            base_url=server.base_url,
            roles={"judge": scripts("j", Judge())},
            gen={"candidate": {"max_tokens": 100}},
            out=tmp_path,
            cache=False,
            limit=2,
        )
    finally:
        server.stop_thread()
    assert len(answered(server)) == 2  # never retried
    assert run.results.counts.failed == 2 and run.results.roles["candidate"]["reasoning_tokens"] >= 200
    assert all(
        r.error.startswith(
            "the answer is empty because the whole token budget (max_tokens 100) went to "
            "reasoning (100 reasoning tokens): raise -g candidate.max_tokens="
        )
        for r in run.records()
    )


def test_an_endpoint_refusal_is_counted_as_the_candidates_refusal(tmp_path, scripts):
    def refuse(index: int, body: dict[str, Any]) -> Reply:
        return Reply("refusal", text="I can't help with that.") if "Aim for about" in json.dumps(body) else Reply()

    judge = Judge()
    server = FakeOpenAIServer(behaviour=refuse).start_in_thread()
    try:
        run = proseval.run(
            "demo",
            model="openai-compatible/refuser",
            base_url=server.base_url,
            roles={"judge": scripts("j", judge)},
            out=tmp_path,
            cache=False,
            limit=1,
        )
    finally:
        server.stop_thread()
    assert len(answered(server)) == 1 and run.results.counts.model_failures == {"refusal": 1}
    record = next(run.records())
    assert (record.state.output, record.state.finish_reason) == ("", "content_filter")
