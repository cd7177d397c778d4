"""The cost options wherever runs are made: the keys `prices`, `max_cost` and `estimate_output` of a
run's config file and of a set file (under the flags), the Python API's arguments, `proseval score`
with `--prices`, `--max-cost` and `--batch`, and the usage and spend per member of a set with their
totals (terminal, set.json, report.html); against the fake OpenAI-compatible and batch servers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import proseval
from proseval.core.prices import Prices
from proseval.errors import UsageError
from proseval.testing.fake_batch import FakeBatchServer
from report.page import Page
from support.cost import PRICES, two_member_set
from support.priced_demo import LIMIT, demo_reply

ENV = {"COLUMNS": "400"}  # one line for each message naming long paths
FREE = "models: {openai-compatible/cand: {input: 0, output: 0}, openai-compatible/judge: {input: 0, output: 0}}\n"


def invoke(*args: str):
    from proseval.cli import app

    return CliRunner().invoke(app, [str(a) for a in args], env=ENV)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def results(run: Path) -> dict:
    return json.loads((run / "results.json").read_text(encoding="utf-8"))


def spend(run: Path) -> float:
    return sum(stats.get("cost", 0.0) for stats in results(run)["roles"].values())


def sample_ids(run: Path) -> list[str]:
    return [json.loads(line)["id"] for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


def suggested(output: str) -> str:
    return output.split("--max-cost ")[-1].split()[0]


# --- the config file --------------------------------------------------------------------------------


def test_a_config_files_cost_keys_record_the_spend_and_stop_at_its_limit_under_the_flags(tmp_path, demo_server):
    folder = tmp_path / "conf"
    prices = write(folder / "prices.yaml", PRICES)
    free = write(tmp_path / "free.yaml", FREE)
    config = write(
        folder / "eval.yaml",
        f"""\
task: demo
model: openai-compatible/cand
role: {{judge: openai-compatible/judge}}
base_url: {demo_server.base_url}
limit: 4
concurrency: 1
prices: prices.yaml          # beside this file, whatever the working directory
max_cost: {LIMIT}
estimate_output: [judge=30]   # about the judge's real output: its first request is reserved at that
""",
    )
    stopped = invoke("run", "--config", config, "--run-dir", tmp_path / "limited", "--display", "none")
    assert stopped.exit_code == 3, stopped.output
    assert 0 < spend(tmp_path / "limited") <= LIMIT
    assert results(tmp_path / "limited")["counts"]["finished"] == 2  # the third sample's judge no longer fits
    estimated = invoke("run", "--config", config, "--dry-run")  # the file's estimate is the judge's
    assert estimated.exit_code == 0 and "judge stated" in estimated.output, estimated.output
    assert f"proseval resume {tmp_path / 'limited'} --prices {prices} --max-cost" in stopped.output

    # --max-cost wins over max_cost: a run that costs more than the file's limit finishes
    raised = invoke(
        "run",
        "--config",
        config,
        "--max-cost",
        "100",
        "--no-cache",
        "--run-dir",
        tmp_path / "raised",
        "--display",
        "none",
    )
    assert raised.exit_code == 0, raised.output
    assert results(tmp_path / "raised")["complete"] and spend(tmp_path / "raised") > LIMIT

    # --prices wins over prices: free models never reach the file's limit
    sent = len(demo_server.requests)
    priced_free = invoke(
        "run", "--config", config, "--prices", free, "--no-cache", "--run-dir", tmp_path / "free", "--display", "none"
    )
    assert priced_free.exit_code == 0, priced_free.output
    assert len(demo_server.requests) == sent + 8 and spend(tmp_path / "free") == 0.0

    unpriced = write(folder / "limit-only.yaml", f"task: demo\nmax_cost: {LIMIT}\n")
    refused = invoke("run", "--config", unpriced, "--run-dir", tmp_path / "never")
    assert (
        refused.exit_code == 2 and "max_cost: in the file needs --prices FILE or prices: in the file" in refused.output
    )
    assert not (tmp_path / "never").exists()


# --- the Python API -----------------------------------------------------------------------------------


def test_the_python_api_prices_and_limits_a_run_and_its_resume(tmp_path, demo_server):
    prices = Prices.model_validate(yaml.safe_load(PRICES))
    models = {
        "model": "openai-compatible/cand",
        "roles": {"judge": "openai-compatible/judge"},
        "base_url": demo_server.base_url,
        "limit": 4,
        "concurrency": 1,
    }
    run = proseval.run("demo", **models, prices=prices, max_cost=LIMIT, out=tmp_path)
    assert not run.results.complete and run.results.final_outcome() == "stopped"
    assert 0 < spend(run.path) <= LIMIT and run.results.roles["judge"]["currency"] == "USD"

    done = proseval.resume(run.path, prices=write(tmp_path / "prices.yaml", PRICES), max_cost=100)
    assert done.results.complete and sorted(sample_ids(run.path)) == sorted(set(sample_ids(run.path)))
    assert LIMIT < spend(run.path) <= 100

    sent = len(demo_server.requests)
    with pytest.raises(UsageError, match="max_cost needs prices"):
        proseval.run("demo", **models, max_cost=1, out=tmp_path / "no-prices")
    with pytest.raises(UsageError, match="has no price for openai-compatible/other"):
        proseval.run(
            "demo",
            **{**models, "model": "openai-compatible/other"},
            prices=prices,
            max_cost=1,
            out=tmp_path / "unpriced",
        )
    assert len(demo_server.requests) == sent
    assert not (tmp_path / "no-prices").exists() and not (tmp_path / "unpriced").exists()


# --- proseval score -----------------------------------------------------------------------------------


def test_a_rescore_is_priced_and_stopped_at_its_limit_and_resumed_to_the_end(tmp_path, demo_server):
    prices = write(tmp_path / "prices.yaml", PRICES)
    source = tmp_path / "source"
    made = invoke(
        "run",
        "demo",
        "-m",
        "openai-compatible/cand",
        "-r",
        "judge=openai-compatible/judge",
        "--base-url",
        demo_server.base_url,
        "-n",
        "4",
        "-c",
        "1",
        "--run-dir",
        source,
        "--display",
        "none",
    )
    assert made.exit_code == 0, made.output

    # the run's own judge, one request at a time (~0.07 each; all four would cost ~0.27)
    limit = 0.25
    stopped = invoke("score", source, "--repeats", "2", "--prices", prices, "--max-cost", limit, "--display", "none")
    assert stopped.exit_code == 3, stopped.output
    first = next(tmp_path.glob("source-rescore-*-r1"))
    assert not list(tmp_path.glob("source-rescore-*-r2"))
    assert "repeats 2 to 2 not started" in stopped.output
    assert f"proseval resume {first} --prices {prices} --max-cost" in stopped.output
    assert 0 < results(first)["counts"]["finished"] < 4 and 0 < spend(first) <= limit
    assert set(results(first)["roles"]) == {"judge"}  # the candidate is never called

    resumed = invoke("resume", first, "--prices", prices, "--max-cost", suggested(stopped.output), "--display", "none")
    assert resumed.exit_code == 0, resumed.output
    assert results(first)["complete"] and sorted(sample_ids(first)) == sorted(sample_ids(source))
    assert results(first)["roles"]["judge"]["requests"] == 4  # a request refused at the limit is never sent


def test_a_rescores_judge_in_batch_mode_pays_the_batch_price(tmp_path):
    prices = write(tmp_path / "prices.yaml", PRICES)
    source = tmp_path / "source"
    made = invoke(
        "run",
        "demo",
        "-m",
        "scripted/echo",
        "-r",
        "judge=scripted/echo",
        "-n",
        "3",
        "--run-dir",
        source,
        "--display",
        "none",
    )
    assert made.exit_code == 0, made.output
    server = FakeBatchServer(responder=demo_reply, polls_to_complete=0, usage="tokens").start_in_thread()
    try:
        scored = invoke(
            "score",
            source,
            "-r",
            "judge=openai-compatible/judge",
            "--role-base-url",
            f"judge={server.base_url}",
            "--batch",
            "judge",
            "--prices",
            prices,
            "--max-cost",
            "100",
            "--out",
            tmp_path / "scores",
            "--display",
            "none",
            "--no-probe",
        )  # the batch's cost alone
    finally:
        server.stop_thread()
    assert scored.exit_code == 0, scored.output
    assert server.creates == 1 and len(server.submitted) == 3  # every judge request in one batch
    run = next((tmp_path / "scores").iterdir())
    assert json.loads((run / "header.json").read_text())["batch"] == ["judge"]
    judge = results(run)["roles"]["judge"]
    full = (judge["prompt_tokens"] * 200 + judge["completion_tokens"] * 800) / 1e6
    assert judge["cost"] == pytest.approx(full / 2)  # batch_discount 0.5

    refused = invoke("score", source, "-r", "judge=openai-compatible/judge", "--batch", "candidate")
    assert refused.exit_code == 2 and "never calls the candidate" in refused.output


# --- an evaluation set ------------------------------------------------------------------------------------


def test_a_set_files_cost_keys_and_the_usage_and_spend_of_every_member_with_the_totals(tmp_path, demo_server):
    write(tmp_path / "sets" / "prices.yaml", PRICES)
    set_file = write(
        tmp_path / "sets" / "set.yaml",
        two_member_set(demo_server.base_url, 2, f"prices: prices.yaml\nmax_cost: {LIMIT}\n"),
    )
    first = proseval.run_set(set_file)  # the file's prices and limit
    assert "stopped" in [m.state for m in first.members]
    stopped = invoke("run-set", set_file, "--display", "none")  # nothing more fits: said so, with the command
    assert stopped.exit_code == 3, stopped.output
    assert f"proseval run-set {set_file} --max-cost" in stopped.output

    finished = invoke("run-set", set_file, "--max-cost", "100", "--display", "none")  # the flag wins
    assert finished.exit_code == 0, finished.output
    summary = json.loads((tmp_path / "sets" / "out" / "set.json").read_text())
    members = {m["member"]: m for m in summary["members"]}
    assert set(members) == {"demo--one", "demo--two"}
    for name, member in members.items():
        roles = results(tmp_path / "sets" / "out" / name)["roles"]
        assert member["usage"] == {
            "requests": roles["candidate"]["requests"] + roles["judge"]["requests"],
            "prompt_tokens": roles["candidate"]["prompt_tokens"] + roles["judge"]["prompt_tokens"],
            "completion_tokens": roles["candidate"]["completion_tokens"] + roles["judge"]["completion_tokens"],
            "cost": pytest.approx(roles["candidate"]["cost"] + roles["judge"]["cost"]),
            "currency": "USD",
        }
    total = summary["usage"]
    for key in ("requests", "prompt_tokens", "completion_tokens"):
        assert total[key] == sum(m["usage"][key] for m in members.values())
    assert total["cost"] == pytest.approx(sum(m["usage"]["cost"] for m in members.values()))
    assert LIMIT < total["cost"] <= 100

    # the terminal's summary: the cost column and the total row
    lines = finished.output.splitlines()
    header = next(line for line in lines if "requests" in line and "tok in" in line)
    assert "cost (USD)" in header
    row = next(line for line in lines if line.strip("│ ").startswith("total"))
    cells = [cell.strip() for cell in row.split("│") if cell.strip()]
    assert cells[1:5] == [
        f"{total['requests']:,}",
        f"{total['prompt_tokens']:,}",
        f"{total['completion_tokens']:,}",
        f"{total['cost']:.4f}" if total["cost"] < 1 else f"{total['cost']:,.2f}",
    ]

    # report.html: a row per member and the total
    table = Page((tmp_path / "sets" / "out" / "report.html").read_text(encoding="utf-8")).tables["usage"]
    assert table.header == ["run", "model", "requests", "tokens in", "tokens out", "cost (USD)"]
    shown = {row.cells[0].text: [cell.text for cell in row.cells[2:]] for row in table.body}
    assert shown["total"] == [
        str(total["requests"]),
        str(total["prompt_tokens"]),
        str(total["completion_tokens"]),
        f"{total['cost']:.4f}",
    ]
    for name, member in members.items():
        usage = member["usage"]
        assert shown[name] == [
            str(usage["requests"]),
            str(usage["prompt_tokens"]),
            str(usage["completion_tokens"]),
            f"{usage['cost']:.4f}",
        ]
