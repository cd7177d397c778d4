"""A cost limit at its edges: one too small for a single request says so (the reservation the request
needs, and `--estimate-output` as the way to lower it) in real time and in batch mode, and the limit
it suggests sends; the limit a stopped run suggests is an upper estimate, so that one resume with it
finishes the run even when no sample finished under the tight limit; an evaluation set's limit too small
for one request says so too, and the limit it suggests finishes the set. Against the fake
OpenAI-compatible server and its batch API, reporting usage in cl100k tokens, with answers far below
`max_tokens` (`proseval.testing.replies`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.testing.fake_batch import FakeBatchServer
from proseval.testing.replies import writing_reply
from support.batching import write_queries
from support.cost import PRICES as DEMO_PRICES
from support.cost import two_member_set

PRICES = {
    "currency": "USD",
    "models": {
        "openai-compatible/cand": {"input": 2.0, "output": 8.0},  # 16,000 tokens out (max_tokens): 0.128 USD
        "openai-compatible/judge": {"input": 2.5, "output": 10.0, "batch_discount": 0.5},
    },
}
BATCH = ("--batch", "candidate", "--batch", "judge")


@pytest.fixture
def prices(tmp_path: Path) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_text(json.dumps(PRICES), encoding="utf-8")  # JSON is YAML
    return path


@pytest.fixture
def server():
    fake = FakeBatchServer(responder=writing_reply, usage="tokens", polls_to_complete=0).start_in_thread()
    yield fake
    fake.stop_thread()


def invoke(*args: object):
    from proseval.cli import app

    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})


def run_wb(server: FakeBatchServer, queries: Path, prices: Path, run_dir: Path, *args: object):
    return invoke(
        "run",
        "writingbench",
        "--queries",
        queries,
        "-m",
        "openai-compatible/cand",
        "-r",
        "judge=openai-compatible/judge",
        "--base-url",
        server.base_url,
        "--prices",
        prices,
        "--display",
        "none",
        "--no-probe",
        "--run-dir",
        run_dir,
        *args,
    )


def suggested(output: str) -> str:
    return output.rsplit("--max-cost ", 1)[-1].split()[0]


def results(run: Path) -> dict:
    return json.loads((run / "results.json").read_text(encoding="utf-8"))


def spent(run: Path) -> float:
    return sum(stats.get("cost") or 0.0 for stats in results(run)["roles"].values())


@pytest.mark.parametrize("mode", ["real time", "batch mode"])
def test_a_limit_too_small_for_one_request_says_so_and_the_limit_it_suggests_sends(tmp_path, prices, server, mode):
    queries = write_queries(tmp_path / "q.jsonl", n=2)
    batch = BATCH if mode == "batch mode" else ()
    stopped = run_wb(server, queries, prices, tmp_path / "run", "--max-cost", "0.1", *batch)

    assert stopped.exit_code == 3, stopped.output
    assert not server.model_requests and server.creates == 0  # nothing could be sent
    text = " ".join(stopped.output.split())
    # a candidate request reserves its 16,000 max_tokens at the full price (no batch discount for it)
    assert (
        "--max-cost 0.1000 USD is too small for one candidate request: it reserves 0.1280 USD (its input and "
        "16,000 output tokens: its max_tokens), more than the 0.1000 USD the limit leaves; lower the "
        "reservation with --estimate-output candidate=TOKENS (the output tokens one answer should need), or raise "
        "the limit (this request alone needs 0.1280 USD)"
    ) in text
    limit = float(suggested(stopped.output))
    assert limit > 0.1 + 0.128  # room for the spend and one more such request at least

    resumed = invoke(
        "resume", tmp_path / "run", "--prices", prices, "--max-cost", limit, "--display", "none", "--no-probe"
    )
    assert resumed.exit_code == 0, resumed.output
    assert results(tmp_path / "run")["counts"]["finished"] == 2


def test_the_suggested_limit_is_an_upper_estimate_one_resume_finishes_with_no_sample_finished(tmp_path, prices, server):
    queries = write_queries(tmp_path / "q.jsonl", n=10)
    reference = run_wb(server, queries, prices, tmp_path / "reference", "--no-cache")
    assert reference.exit_code == 0, reference.output
    full = spent(tmp_path / "reference")

    # Every candidate fits (700 tokens reserved each), every judge request (2,048 tokens reserved until the
    # judge's first answer) is refused after them: all ten samples abandoned, none finished; the spend
    # the candidates' answers.
    stopped = run_wb(
        server,
        queries,
        prices,
        tmp_path / "run",
        "-c",
        "16",
        "--estimate-output",
        "candidate=700",
        "--max-cost",
        "0.06",
    )
    assert stopped.exit_code == 3, stopped.output
    assert results(tmp_path / "run")["counts"]["finished"] == 0
    limit = float(suggested(stopped.output))
    assert limit >= full  # the samples left at what a resume reserves for their requests, and a quarter more

    resumed = invoke(
        "resume",
        tmp_path / "run",
        "--prices",
        prices,
        "--max-cost",
        limit,
        "--estimate-output",
        "candidate=700",
        "--display",
        "none",
        "--no-probe",
    )
    assert resumed.exit_code == 0, resumed.output  # one resume with the suggestion finishes
    assert results(tmp_path / "run")["counts"]["finished"] == 10
    assert spent(tmp_path / "run") == pytest.approx(full)  # the candidates' answers came back from the cache
    text = " ".join(stopped.output.split())
    assert "(the suggested limit, an upper estimate:" in text  # how it was reached
    assert "--estimate-output candidate=700" in text.rsplit("--max-cost ", 1)[-1]  # the resume keeps the estimate


def test_a_sets_limit_too_small_for_one_request_says_so_and_the_limit_it_suggests_finishes_the_set(
    tmp_path, demo_server
):
    (tmp_path / "prices.yaml").write_text(DEMO_PRICES, encoding="utf-8")
    set_file = tmp_path / "set.yaml"
    set_file.write_text(
        two_member_set(demo_server.base_url, 2, "prices: prices.yaml\nmax_cost: 0.1\n"), encoding="utf-8"
    )
    stopped = invoke("run-set", set_file, "--display", "none", "--no-probe")

    assert stopped.exit_code == 3, stopped.output
    assert not demo_server.requests  # nothing could be sent
    text = " ".join(stopped.output.split())
    assert (
        "stopped at the cost limit: --max-cost 0.1000 USD is too small for one candidate request: it reserves " in text
    )
    assert "lower the reservation with --estimate-output candidate=TOKENS" in text
    assert "2 member(s) left unfinished" in text

    again = invoke("run-set", set_file, "--max-cost", suggested(stopped.output), "--display", "none", "--no-probe")
    assert again.exit_code == 0, again.output
    summary = json.loads((tmp_path / "out" / "set.json").read_text(encoding="utf-8"))
    assert [m["outcome"] for m in summary["members"]] == ["complete", "complete"]
