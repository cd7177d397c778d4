"""How much of a `--max-cost` limit a run spends before it stops, and whether one resume with the
limit it suggests finishes it.

WritingBench's first N queries (one candidate call and five per-criterion judge calls each) through
`proseval run` against the fake OpenAI-compatible server, whose answers are far below `max_tokens`
and vary as real ones do (`proseval.testing.replies`: 400–799 tokens of the candidate's 16,000,
a verdict with a 60–139-token reason of the judge's 2,048), usage reported in cl100k tokens. An
unlimited run gives the full cost F; a run with `--max-cost` = share × F stops (exit 3); then
`proseval resume --max-cost S` with the limit S the stop message suggests, again as long as it
stops, up to `--resumes` times. `--batch` sends both roles through the fake batch API; `--src`
runs other proseval sources (an older checkout's `src`) for a before/after.

    python bench/cost_limit.py --samples 20 --share 0.5 --concurrency 8
    python bench/cost_limit.py --batch
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, machine
from proseval.testing.fake_batch import FakeBatchServer
from proseval.testing.fake_openai import FakeOpenAIServer
from proseval.testing.replies import writing_reply

PRICES = {
    "currency": "USD",
    "models": {
        "openai-compatible/cand": {"input": 2.0, "output": 8.0},  # 16,000 tokens out: 0.128 USD
        "openai-compatible/judge": {"input": 2.5, "output": 10.0, "batch_discount": 0.5},
    },
}


def proseval(src: Path, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """One `proseval` command, run from the sources in `src` with its own response cache."""
    env = {**os.environ, "PYTHONPATH": str(src), "PROSEVAL_CACHE_DIR": str(cache), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "proseval", *args], env=env, capture_output=True, text=True)


def spend(run: Path) -> tuple[float, int, int]:
    """A run folder's recorded spend, finished samples and total samples."""
    results = json.loads((run / "results.json").read_text())
    return (
        sum(stats.get("cost") or 0.0 for stats in results["roles"].values()),
        results["counts"]["finished"],
        results["counts"]["total"],
    )


def batches(run: Path) -> int:
    """The batches a run folder's `batches.jsonl` records as created."""
    log = run / "batches.jsonl"
    lines = log.read_text().splitlines() if log.is_file() else []
    return sum(json.loads(line).get("event") == "created" for line in lines)


def suggestion(output: str) -> float:
    return float(output.rsplit("--max-cost ", 1)[-1].split()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data" / "writingbench"))
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--share", type=float, default=0.5, help="the limit as a share of the full cost")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.05, help="the fake server's seconds per answer")
    parser.add_argument("--batch", action="store_true", help="both roles in batch mode")
    parser.add_argument("--resumes", type=int, default=10, help="resumes tried at most")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the proseval sources to run")
    args = parser.parse_args()

    print(f"machine: {machine()}")
    print(f"command: python bench/cost_limit.py {' '.join(sys.argv[1:])}".rstrip())
    server_type = FakeBatchServer if args.batch else FakeOpenAIServer
    server = server_type(responder=writing_reply, usage="tokens", latency=args.latency).start_in_thread()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            prices = work / "prices.yaml"
            prices.write_text(json.dumps(PRICES))
            common = [
                "--data-dir",
                args.data_dir,
                "-n",
                str(args.samples),
                "-m",
                "openai-compatible/cand",
                "-r",
                "judge=openai-compatible/judge",
                "--base-url",
                server.base_url,
                "--prices",
                str(prices),
                "-c",
                str(args.concurrency),
                "--display",
                "none",
            ]
            if args.batch:
                common += ["--batch", "candidate", "--batch", "judge"]
            reference = proseval(
                args.src,
                work / "cache-reference",
                "run",
                "writingbench",
                *common,
                "--no-cache",
                "--run-dir",
                str(work / "reference"),
            )
            if reference.returncode != 0:
                sys.exit(f"the unlimited run failed ({reference.returncode}):\n{reference.stderr}")
            full, _, total = spend(work / "reference")
            limit = round(full * args.share, 4)
            print(
                f"{total} samples, {'batch mode' if args.batch else 'real time'}, -c {args.concurrency}: "
                f"full cost {full:.4f} USD; --max-cost {limit:g} ({args.share:.0%} of it)"
            )

            run = work / "limited"
            step = proseval(
                args.src,
                work / "cache",
                "run",
                "writingbench",
                *common,
                "--max-cost",
                str(limit),
                "--run-dir",
                str(run),
            )
            spent, finished, _ = spend(run)
            print(
                f"stopped (exit {step.returncode}): spent {spent:.4f} = {spent / limit:.1%} of the limit, "
                f"{finished}/{total} samples" + (f", {batches(run)} batches" if args.batch else "")
            )
            resumes = 0
            while step.returncode == 3 and resumes < args.resumes:
                suggested = suggestion(step.stderr)
                resumes += 1
                step = proseval(
                    args.src,
                    work / "cache",
                    "resume",
                    str(run),
                    "--prices",
                    str(prices),
                    "--max-cost",
                    str(suggested),
                    "--display",
                    "none",
                )
                spent, finished, _ = spend(run)
                print(
                    f"resume {resumes} with the suggested --max-cost {suggested:g} ({suggested / full:.2f} × the "
                    f"full cost): exit {step.returncode}, spent {spent:.4f} = {spent / suggested:.1%} of it, "
                    f"{finished}/{total} samples"
                )
            if step.returncode not in (0, 3):
                sys.exit(f"the run failed ({step.returncode}):\n{step.stderr}")
            verdict = "yes" if resumes == 1 and step.returncode == 0 else "no"
            print(
                f"one resume with the suggested limit finished the run: {verdict} "
                f"({resumes} resume(s); spend in all {spent:.4f} USD, {spent / full:.3f} × the unlimited run's)"
            )
    finally:
        server.stop_thread()


if __name__ == "__main__":
    main()
