"""Cost before and during a run: `--dry-run` (offline counts and prices, nothing sent or written),
`--prices` (the spend per role in results.json) and `--max-cost` (stop at the limit, resume past it),
on the fake OpenAI-compatible server reporting usage in cl100k tokens."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from proseval.benchmarks.demo.task import JUDGE_TEXT
from proseval.core.prices import Prices
from proseval.planning import plan
from proseval.runtime.cost import CostMeter, RunSpend, message_tokens, output_estimate, round_up
from proseval.runtime.dryrun import estimate_run, filler, is_reask, synthetic_reply
from proseval.runtime.roles import RoleRequest
from proseval.testing.fake_openai import FakeOpenAIServer
from proseval.tokens import count_tokens
from support.cost import PRICES, two_member_set

ENV = {"COLUMNS": "200"}
CANDIDATE_REPLY = 300  # tokens of every candidate answer the fake gives (max_tokens is 400)
JUDGE_REASON = 90  # words of the judge's reason (its reply is ~100 tokens; max_tokens is 200)


def responder(body: dict) -> str:
    if body["model"] == "judge":
        return json.dumps({"score": 7, "reason": filler(JUDGE_REASON)})
    return filler(CANDIDATE_REPLY)


@pytest.fixture
def server():
    """The fake server, counting usage in tokens as OpenAI does; the test checks what reached it."""
    fake = FakeOpenAIServer(responder=responder, usage="tokens").start_in_thread()
    yield fake
    fake.stop_thread()


@pytest.fixture
def prices(tmp_path: Path) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_text(PRICES, encoding="utf-8")
    return path


def models(url: str) -> list[str]:
    """The bindings of these tests' runs; not probed, so that every request counted is a sample's
    (the probe's own cost is tested in test_probe.py)."""
    return [
        "--model",
        "openai-compatible/cand",
        "--role",
        "judge=openai-compatible/judge",
        "--base-url",
        url,
        "--no-probe",
    ]


def invoke(*args: str):
    from proseval.cli import app

    return CliRunner().invoke(app, list(args), env=ENV)


def samples(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


def spend(run: Path) -> dict[str, float]:
    roles = json.loads((run / "results.json").read_text(encoding="utf-8"))["roles"]
    return {role: stats["cost"] for role, stats in roles.items()}


# --- counting -------------------------------------------------------------------------------------


def test_a_request_is_counted_in_openais_chat_format():
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "word word word"}]
    # 3 per message + role (1) + content (3 and 3) + 3 priming the reply
    assert message_tokens(messages) == (3 + 1 + 3) + (3 + 1 + 3) + 3 == 17
    assert count_tokens(filler(57)) == 57


def test_the_output_estimate_is_stated_then_max_tokens_then_the_role_default():
    from proseval.models.base import GenerateConfig

    assert output_estimate("judge", GenerateConfig(max_tokens=200), {"judge": 80}) == 80
    assert output_estimate("judge", GenerateConfig(max_tokens=200), {}) == 200
    assert output_estimate("candidate", GenerateConfig(), {}) == 1024
    assert output_estimate("extractor", None, {}) == 256


def test_synthetic_replies_parse_as_json_and_have_the_estimated_size():
    from proseval.judging.structured import named_scores_schema
    from proseval.models.base import GenerateConfig

    plain = synthetic_reply("judge", GenerateConfig(), 120)
    assert json.loads(plain)["score"] == 5 and abs(count_tokens(plain) - 120) <= 2
    fmt = {"type": "json_schema", "json_schema": {"name": "s", "schema": named_scores_schema(), "strict": True}}
    shaped = json.loads(synthetic_reply("judge", GenerateConfig(response_format=fmt), 80))
    assert set(shaped["scores"][0]) == {"name", "score", "reason"}
    assert is_reask("judge#1") and is_reask("r1/judge/2#3") and not is_reask("judge#0") and not is_reask("judge")


# --- the dry run ----------------------------------------------------------------------------------


def test_dry_run_of_the_demo_counts_every_request_with_hand_checked_tokens():
    planned = plan(
        "demo",
        RoleRequest(
            model="openai-compatible/cand",
            roles={"judge": "openai-compatible/judge"},
            base_urls=["http://127.0.0.1:9/v1"],
        ),
    )
    prices = Prices.model_validate(
        {
            "models": {
                "openai-compatible/cand": {"input": 100, "output": 400},
                "judge": {"input": 200, "output": 800, "batch_discount": 0.5},
            }
        }
    )
    whole = asyncio.run(estimate_run(planned.task, planned.bindings, prices=prices))
    assert whole.samples == 8 and whole.errors == 0
    assert whole.roles["candidate"].requests == 8 and whole.roles["judge"].requests == 8
    assert whole.roles["candidate"].output_tokens == 8 * 400 and whole.roles["judge"].output_tokens == 8 * 200

    one = asyncio.run(estimate_run(planned.task, planned.bindings, limit=1, prices=prices))
    sample = planned.task.dataset()[0]
    assert sample.input == (
        "Write a short email to a customer explaining that their order will arrive three "
        "days late because of a storm, and offer a 10% discount on their next purchase. "
        "Aim for about 120 words."
    )
    # Counted by hand: the request is 40 cl100k tokens (33 words, each one token with its space, and
    # ",", " ", "10", "%", ".", " ", "120", "."); one user message adds 3 + 1 ("user"), the reply's
    # priming 3: 47. The judge's prompt: its template (81 tokens with both fields empty), the request
    # (40) and the candidate's answer at max_tokens (400 filler tokens), one more where the filler
    # ends before the newlines ("\n\n\n" is one token when the answer is empty): 522; with the
    # message's 7: 529.
    assert count_tokens(sample.input) == 40
    assert one.roles["candidate"].input_tokens == 47
    assert count_tokens(JUDGE_TEXT.replace("{request}", "").replace("{response}", "")) == 81
    assert count_tokens(JUDGE_TEXT.replace("{request}", sample.input).replace("{response}", filler(400))) == 522
    assert one.roles["judge"].input_tokens == 529
    assert (one.roles["candidate"].output_tokens, one.roles["judge"].output_tokens) == (400, 200)
    # cost: (47 × 100 + 400 × 400) / 1e6 and (529 × 200 + 200 × 800) / 1e6; the judge's batch price is half
    assert one.roles["candidate"].cost() == pytest.approx(0.1647)
    assert one.roles["judge"].cost() == pytest.approx(0.2658)
    assert one.roles["judge"].cost(batch=True) == pytest.approx(0.1329)
    batched = asyncio.run(estimate_run(planned.task, planned.bindings, limit=1, prices=prices, batch_roles=["judge"]))
    assert batched.expected_cost() == pytest.approx(0.1647 + 0.1329)  # the judge in batch mode (--batch judge)


def test_dry_run_sends_nothing_and_writes_no_run_folder_or_cache(tmp_path, server, prices, isolated_cache):
    out = tmp_path / "runs"
    result = invoke("run", "demo", *models(server.base_url), "--dry-run", "--prices", str(prices), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert server.requests == []  # nothing reached the endpoint
    assert not out.exists() and not isolated_cache.exists()
    assert "Dry run: nothing sent, nothing written; cost in USD" in result.output
    total = next(line for line in result.output.splitlines() if line.strip("│ ").startswith("total"))
    assert total.split("│")[5].strip() == "16"  # 16 requests over the 8 samples
    assert "tokens out from: candidate max_tokens, judge max_tokens" in result.output

    # without prices: tokens only, and which models lack them; the embedded model is never loaded
    bare = invoke("run", "demo", "--dry-run", "-n", "2", "--estimate-output", "judge=50", "--out", str(out))
    assert bare.exit_code == 0, bare.output
    assert "prices missing for local/smollm2-135m" in bare.output and "judge stated" in bare.output
    assert not out.exists() and not isolated_cache.exists()


def test_run_set_dry_run_lists_every_member_and_sends_nothing(tmp_path, server, prices):
    set_file = tmp_path / "set.yaml"
    set_file.write_text(
        f"""\
folder: out
models:
  - {{spec: openai-compatible/cand, base_url: {server.base_url}}}
  - {{spec: openai-compatible/other, base_url: {server.base_url}}}
tasks:
  - task: demo
  - task: demo
    name: demo-short
    limit: 3
roles: {{judge: openai-compatible/judge}}
role_base_url: {{judge: [{server.base_url}]}}
""",
        encoding="utf-8",
    )
    result = invoke("run-set", str(set_file), "--dry-run", "--prices", str(prices))
    assert result.exit_code == 0, result.output
    for member in (
        "demo--openai-compatible-cand",
        "demo--openai-compatible-other",
        "demo-short--openai-compatible-cand",
        "demo-short--openai-compatible-other",
    ):
        assert f"{member} (start)" in result.output
    assert "prices missing in" in result.output and "openai-compatible/other" in result.output
    total = next(line for line in result.output.splitlines() if line.strip("│ ").startswith("total"))
    cells = [cell.strip() for cell in total.split("│")]
    assert (cells[4], cells[5]) == ("22", "44")  # (8 + 3) samples × 2 models, 2 requests each
    assert server.requests == [] and not (tmp_path / "out").exists()


# --- spend and --max-cost -------------------------------------------------------------------------


@pytest.mark.parametrize("concurrency", [1, 4])
def test_max_cost_stops_within_one_request_and_a_resume_finishes_every_sample_once(
    tmp_path, server, prices, concurrency
):
    # The whole run's real cost, without the cache (so the runs below start cold).
    reference = invoke(
        "run",
        "demo",
        *models(server.base_url),
        "--prices",
        str(prices),
        "--no-cache",
        "--run-dir",
        str(tmp_path / "reference"),
        "--display",
        "none",
    )
    assert reference.exit_code == 0, reference.output
    full = sum(spend(tmp_path / "reference").values())
    sent = len(server.requests)
    assert sent == 16

    limit = round(full * 0.4, 4)
    run = tmp_path / "limited"
    stopped = invoke(
        "run",
        "demo",
        *models(server.base_url),
        "--prices",
        str(prices),
        "--max-cost",
        str(limit),
        "-c",
        str(concurrency),
        "--run-dir",
        str(run),
        "--display",
        "none",
    )
    assert stopped.exit_code == 3, stopped.output
    assert "stopped at the cost limit: spent" in stopped.output and f"proseval resume {run}" in stopped.output
    results = json.loads((run / "results.json").read_text())
    assert results["complete"] is False and 0 < results["counts"]["finished"] < 8
    spent = sum(spend(run).values())
    # never past the limit (every answer of a role has the same length here, so the role's mean
    # reserves exactly what the next one costs), and stopped by a request that the spend alone left
    # no room for: short of the limit by less than one request's expected cost (at most its cost
    # with the output at max_tokens, the dry run's per-request figure), at any concurrency
    assert spent <= limit
    per_request = [r.cost() / r.requests for r in _estimate(server).roles.values()]
    assert limit - spent < max(per_request)
    records = samples(run)
    assert all(r["status"] == "ok" and r["scores"]["quality"]["value"] == 7.0 for r in records)  # no half record
    assert len({r["id"] for r in records}) == len(records) == results["counts"]["finished"]

    # what is left, estimated without sending anything
    sent = len(server.requests)
    left = invoke("resume", str(run), "--dry-run", "--prices", str(prices))
    assert left.exit_code == 0, left.output
    assert f"{results['counts']['finished']} (sample, epoch) pair(s) already finished are not counted" in left.output
    assert len(server.requests) == sent

    # resume with the limit the message suggests: it finishes; every sample exactly once
    suggested = float(stopped.output.split("--max-cost ")[-1].split()[0])
    assert suggested > limit
    resumed = invoke(
        "resume", str(run), "--prices", str(prices), "--max-cost", str(suggested), "--display", "none", "--no-probe"
    )
    assert resumed.exit_code == 0, resumed.output
    records = samples(run)
    assert sorted(r["id"] for r in records) == sorted(s.id for s in _demo_samples())
    assert json.loads((run / "results.json").read_text())["complete"] is True
    # the abandoned sample's answered request came back from the cache: the whole costs what the reference did
    assert sum(spend(run).values()) == pytest.approx(full)
    assert "cost (USD)" in resumed.output  # the usage table shows the spend


def test_max_cost_is_checked_before_anything_is_written(tmp_path, server, prices):
    run = tmp_path / "never"
    no_prices = invoke("run", "demo", *models(server.base_url), "--max-cost", "1", "--run-dir", str(run))
    assert no_prices.exit_code == 2 and "--max-cost needs --prices" in no_prices.output
    unpriced = invoke(
        "run",
        "demo",
        "--model",
        "openai-compatible/unlisted",
        "--role",
        "judge=openai-compatible/judge",
        "--base-url",
        server.base_url,
        "--prices",
        str(prices),
        "--max-cost",
        "1",
        "--run-dir",
        str(run),
    )
    assert unpriced.exit_code == 2 and "has no price for openai-compatible/unlisted" in unpriced.output
    assert not run.exists() and server.requests == []


def test_a_meter_refuses_what_does_not_fit_and_counts_reservations():
    from proseval.models.base import Completion, Usage

    prices = Prices.model_validate({"models": {"m/x": {"input": 1_000_000, "output": 1_000_000}}})
    meter = CostMeter(prices, limit=100.0)
    spend = RunSpend(meter, {"candidate": "m/x"})
    messages = [{"role": "user", "content": "word " * 10}]
    reserved = asyncio.run(spend.before("candidate", messages, {"max_tokens": 20}))
    assert reserved == message_tokens(messages) + 20 == meter.reserved
    spend.after("candidate", reserved, Completion(text="ok", usage=Usage(prompt_tokens=17, completion_tokens=3)))
    assert (meter.spent, meter.reserved, spend.by_role) == (20.0, 0.0, {"candidate": 20.0})
    longer = [{"role": "user", "content": "word " * 80}]  # 87 tokens in, 3 out (the mean so far)
    with pytest.raises(Exception, match="past --max-cost"):  # 20 spent + 90 expected: never fits
        asyncio.run(spend.before("candidate", longer, {"max_tokens": 80}))
    assert meter.stopped and meter.full() and meter.refused == 1
    assert round_up(1.234) == 1.3 and round_up(0.0123) == 0.013

    # an answer from a batch pays the batch price; a cache hit nothing; a reply without usage is counted
    discounted = Prices.model_validate(
        {"models": {"m/x": {"input": 1_000_000, "output": 1_000_000, "batch_discount": 0.5}}}
    )
    batch = RunSpend(CostMeter(discounted), {"judge": "m/x"}, batch_roles=frozenset({"judge"}))
    batch.after("judge", 0.0, Completion(text="ok", usage=Usage(prompt_tokens=17, completion_tokens=3), batched=True))
    batch.after("judge", 0.0, Completion(text="ok", usage=Usage(prompt_tokens=17, completion_tokens=3), cached=True))
    assert batch.meter.spent == 10.0
    batch.after("judge", 0.0, Completion(text="word word", usage=Usage(), batched=True), messages)
    assert batch.meter.spent == 10.0 + (message_tokens(messages) + 2) / 2 and batch.meter.unreported == 1


# --- estimate against real usage -----------------------------------------------------------------


def _demo_samples():
    from proseval.benchmarks.demo.task import dataset

    return dataset()


def _estimate(server: FakeOpenAIServer, estimates: dict[str, int] | None = None):
    planned = plan(
        "demo",
        RoleRequest(
            model="openai-compatible/cand", roles={"judge": "openai-compatible/judge"}, base_urls=[server.base_url]
        ),
    )
    prices = Prices.model_validate(yaml.safe_load(PRICES))
    return asyncio.run(estimate_run(planned.task, planned.bindings, prices=prices, estimates=estimates))


def test_the_estimate_against_the_real_usage_side_by_side(tmp_path, server, prices):
    result = invoke(
        "run",
        "demo",
        *models(server.base_url),
        "--prices",
        str(prices),
        "--run-dir",
        str(tmp_path / "real"),
        "--display",
        "none",
    )
    assert result.exit_code == 0, result.output
    real = json.loads((tmp_path / "real" / "results.json").read_text())["roles"]
    bound = _estimate(server)  # output at max_tokens: an upper bound
    stated = _estimate(server, {"candidate": CANDIDATE_REPLY, "judge": JUDGE_REASON + 12})  # the replies' real sizes

    for role in ("candidate", "judge"):
        r, upper, close = real[role], bound.roles[role], stated.roles[role]
        assert upper.requests == close.requests == r["requests"]
        # max_tokens bounds every count from above; the replies' real sizes meet them
        assert upper.input_tokens >= r["prompt_tokens"]
        assert upper.output_tokens > r["completion_tokens"] and upper.cost() > r["cost"]
        assert close.input_tokens == r["prompt_tokens"]
        assert close.output_tokens == pytest.approx(r["completion_tokens"], rel=0.02)
        assert close.cost() == pytest.approx(r["cost"], rel=0.02)

    real_cost = sum(r["cost"] for r in real.values())
    for role in ("candidate", "judge"):
        assert bound.roles[role].requests == real[role]["requests"] == 8
    # With max_tokens as the output estimate the dry run is an upper bound, here within 1.6× (the
    # candidate answers 300 of its 400 tokens, the judge ~100 of 200); with the replies' real sizes
    # stated, within 2% (the fake counts input tokens as the dry run does).
    assert 1.0 <= bound.cost() / real_cost <= 1.6
    assert stated.cost() / real_cost == pytest.approx(1.0, rel=0.02)
    assert stated.roles["candidate"].input_tokens == real["candidate"]["prompt_tokens"]


def test_run_set_max_cost_stops_every_member_and_running_it_again_finishes_them(tmp_path, server, prices):
    set_file = tmp_path / "set.yaml"
    set_file.write_text(two_member_set(server.base_url, 4), encoding="utf-8")
    stopped = invoke("run-set", str(set_file), "--prices", str(prices), "--max-cost", "1.2", "--display", "none")
    assert stopped.exit_code == 3, stopped.output
    assert "stopped at the cost limit" in stopped.output and "run it again to continue" in stopped.output
    summary = json.loads((tmp_path / "out" / "set.json").read_text())
    states = {m["member"]: m["state"] for m in summary["members"]}
    assert "stopped" in states.values()
    folders = [tmp_path / "out" / name for name in states]
    spent = sum(sum(spend(f).values()) for f in folders if (f / "results.json").is_file())
    assert spent <= 1.2

    estimate = invoke("run-set", str(set_file), "--dry-run", "--prices", str(prices))
    assert estimate.exit_code == 0 and "(resume)" in estimate.output, estimate.output
    before = len(server.requests)
    assert server.requests[before:] == []

    suggested = float(stopped.output.split("--max-cost ")[-1].split()[0])
    again = invoke("run-set", str(set_file), "--prices", str(prices), "--max-cost", str(suggested), "--display", "none")
    assert again.exit_code == 0, again.output
    for folder in folders:
        records = samples(folder)
        assert len(records) == len({r["id"] for r in records}) == 4
        assert json.loads((folder / "results.json").read_text())["complete"] is True
