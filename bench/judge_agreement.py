"""`proseval agreement` at scale: R run folders × N WritingBench samples × 5 criteria, timed.

The run folders are written directly with the run folder's own models and writers (RunHeader
through `build_header`, SampleRecord through SampleWriter, Results), shaped as a per-criterion
WritingBench run writes them: one source run (candidate answers of varied lengths, judged by one
judge) and R - 1 re-scores of its answers (`rescored_from` = the source run, another judge each),
for one candidate or, with `--candidates K`, for each of K candidates (R × K folders; then the
length bias and the system-level comparison are computed too),
with the stored state, the five per-criterion verdicts in scores["writingbench"].metadata
["criteria"] (about 1 % unparsable) and in `ratings` (as the runner records them), the judge's raw
replies in `calls` and per-role usage.
The queries are a synthetic JSONL (the `--queries` form of the task, so no data download is
needed); `--data-dir` takes them from the official data instead (the analysis then loads it too).

Timed: `proseval.agreement(paths)` in this process, the Python API the CLI calls (reading every
run, the statistics and the panel; not the terminal tables or report files). One untimed call
comes first (imports, the task's loading); then the median of `--repeats` calls. Memory: the
tracemalloc peak of one call here, and the growth of the peak RSS (VmHWM on Linux, else
ru_maxrss) across one call in a fresh process with the imports done first: what reading and
analysing the runs adds to the process's peak.

    python bench/judge_agreement.py                          # 3 runs × 1,000 samples, 5 repeats
    python bench/judge_agreement.py --samples 100 --repeats 1
    python bench/judge_agreement.py --candidates 3               # 9 runs: length bias and rankings too
    python bench/judge_agreement.py --data-dir ../shared/data/writingbench --keep /tmp/agreement-runs
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from datetime import datetime, timedelta, timezone
from pathlib import Path

from _common import ROOT, machine

# Candidates: (model, quality shift, median answer words); the first shares the first judge's family.
CANDIDATES = [
    ("openai/gpt-4o-2024-08-06", 0.0, 600),
    ("mistral/mistral-large-2411", -0.5, 450),
    ("deepseek/deepseek-chat-v3", 0.4, 900),
]
# (judge, its leniency in points, sd of its noise, points per doubling of length): one source judge
# and the re-score judges; the first shares the candidate's family (self-preference is computed).
JUDGES = [
    ("openai/gpt-4o-mini", 0.3, 0.8, 0.4),
    ("anthropic/claude-sonnet-4-5", -0.4, 0.6, 0.1),
    ("qwen/qwen3-235b-a22b-instruct-2507", 0.0, 1.0, 0.2),
    ("google/gemini-2.5-flash", 0.2, 0.9, 0.3),
]
CRITERION_NAMES = (
    "Task Fulfilment",
    "Structure and Organisation",
    "Factual Accuracy",
    "Use of Provided Materials",
    "Tone and Register",
    "Audience Fit",
    "Depth of Analysis",
    "Clarity of Language",
    "Formatting Requirements",
    "Length Compliance",
    "Originality",
    "Persuasiveness",
    "Domain Terminology",
    "Coherence",
    "Actionable Recommendations",
    "Citation Practice",
)
DOMAINS = (
    "Academic & Engineering",
    "Finance & Business",
    "Politics & Law",
    "Literature & Arts",
    "Education",
    "Advertising & Marketing",
)
WORDS = (
    "the report analysis market policy student design data result model growth risk section narrative "
    "strategy evidence outline argument figure summary plan customer product brand research method "
    "teacher lesson contract clause value trend budget quarter impact proposal chapter character"
).split()
UNPARSABLE = 0.01


def criterion(name: str, topic: str) -> dict[str, str]:
    return {
        "name": name,
        "criteria_description": f"How well the response handles {name.lower()} for the {topic} request, "
        "judged against what the request and its materials ask for.",
        "1-2": f"Ignores {name.lower()}; essential parts are missing or wrong.",
        "3-4": f"Attempts {name.lower()} with serious gaps or errors.",
        "5-6": f"Meets {name.lower()} at an ordinary level with visible weaknesses.",
        "7-8": f"Meets {name.lower()} well; only minor refinements remain.",
        "9-10": f"Meets {name.lower()} exceptionally; hard to improve.",
    }


def write_queries(path: Path, samples: int, rng: random.Random) -> list[dict]:
    rows = []
    for index in range(1, samples + 1):
        topic = f"{DOMAINS[index % len(DOMAINS)].lower()} piece {index}"
        body = " ".join(rng.choices(WORDS, k=rng.randint(60, 400)))
        rows.append(
            {
                "index": index,
                "domain1": DOMAINS[index % len(DOMAINS)],
                "lang": "en" if index % 2 else "zh",
                "query": f"Write a {topic}. Materials: {body}",
                "checklist": [criterion(n, topic) for n in rng.sample(CRITERION_NAMES, 5)],
            }
        )
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return rows


def official_queries(data_dir: Path, samples: int) -> list[dict]:
    from proseval.benchmarks.writingbench.data import load_benchmark

    bench = load_benchmark(data_dir)
    if samples > len(bench.queries):
        raise SystemExit(f"the official data has {len(bench.queries)} queries; --samples {samples} is too many")
    return [
        {
            "index": q.index,
            "domain1": q.domain1,
            "domain2": q.domain2,
            "lang": q.lang,
            "query": q.query,
            "checklist": [c.to_official_dict() for c in q.checklist],
        }
        for q in bench.queries[:samples]
    ]


def make_runs(
    root: Path, runs: int, samples: int, data_dir: Path | None, candidates: int = 1, seed: int = 0
) -> list[Path]:
    from proseval.benchmarks.writingbench.params import WritingBenchParams
    from proseval.registry import get_task

    if not 2 <= runs <= len(JUDGES):
        raise SystemExit(f"--runs must be 2..{len(JUDGES)} (one judge each)")
    if not 1 <= candidates <= len(CANDIDATES):
        raise SystemExit(f"--candidates must be 1..{len(CANDIDATES)}")
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    if data_dir is None:
        queries_file = root / "queries.jsonl"
        queries = write_queries(queries_file, samples, rng)
        params = WritingBenchParams(queries=str(queries_file)).model_dump()
        prefix = "queries"
    else:
        queries = official_queries(data_dir, samples)
        params = WritingBenchParams(data_dir=str(data_dir)).model_dump()
        prefix = "writingbench"
    task = get_task("writingbench", params)
    difficulty = [rng.uniform(3.0, 8.0) for _ in queries]
    started = datetime(2026, 1, 1, tzinfo=timezone.utc)
    paths: list[Path] = []
    for k in range(candidates):
        paths += _candidate_runs(root, k, runs, queries, difficulty, task, prefix, started, rng, seed)
    return paths


def _candidate_runs(root, k, runs, queries, difficulty, task, prefix, started, rng, seed) -> list[Path]:
    """One candidate's source run and its re-scores."""
    from proseval.core.score import Score
    from proseval.core.state import State
    from proseval.models.base import Usage
    from proseval.runtime.options import RunOptions
    from proseval.runtime.provenance import build_header
    from proseval.runtime.records import Call, Counts, MetricSummary, Results, RoleBinding, SampleRecord
    from proseval.runtime.runlog import RunFolder, SampleWriter

    candidate, shift, median_words = CANDIDATES[k]
    # Each answer: a latent quality and a length (log-normal around the candidate's median, x/÷ 1.8).
    answers = []
    for base in difficulty:
        words = max(20, round(median_words * math.exp(rng.gauss(0, 0.6))))
        answers.append((base + shift, words, " ".join(rng.choices(WORDS, k=words))))
    paths: list[Path] = []
    for r in range(runs):
        judge, leniency, noise, slope = JUDGES[r]
        bindings = {"judge": RoleBinding(spec=judge, concurrency=16)}
        if r == 0:
            bindings = {"candidate": RoleBinding(spec=candidate, concurrency=16), **bindings}
        run_id = f"writingbench-2026010{k + 1}-000000-{k:04x}" if r == 0 else f"{paths[0].name}-rescore-{r}"
        folder = RunFolder(root / run_id)
        options = RunOptions(out_dir=root, display="none")
        header = build_header(
            task,
            bindings,
            options,
            run_id,
            demo=False,
            n_samples=len(queries),
            rescored_from=str(paths[0]) if r else None,
        )
        at = started + timedelta(days=k, hours=r)
        folder.write_header(header.model_copy(update={"started_at": at.isoformat()}))
        writer = SampleWriter(folder.samples_path)
        judge_rng = random.Random(f"{seed}/{judge}/{k}")
        totals = {"prompt": 0, "completion": 0, "unscored": 0, "scored": []}
        try:
            for query, (quality, words, text) in zip(queries, answers):
                per_criterion, calls = {}, []
                for number, item in enumerate(query["checklist"]):
                    name = item["name"]
                    if judge_rng.random() < UNPARSABLE:
                        reply = "I cannot grade this response against the criterion."
                        entry = {
                            "score": None,
                            "reason": None,
                            "status": "unparsable",
                            "error": "no JSON object with a 'score' key in the reply",
                            "attempts": 3,
                        }
                        totals["unscored"] += 1
                    else:
                        value = (
                            quality
                            + leniency
                            + (number - 2) * 0.2
                            + slope * math.log2(words / 600)
                            + judge_rng.gauss(0, noise)
                        )
                        score = max(1, min(10, round(value)))
                        reason = f"The response covers {name.lower()} with {rng.choice(WORDS)} detail; " * 3
                        reply = json.dumps({"score": score, "reason": reason.strip()})
                        entry = {"score": score, "reason": reason.strip(), "status": "ok", "error": None, "attempts": 1}
                        totals["scored"].append(score)
                    per_criterion[name] = entry
                    calls.append(Call(role="judge", turn=f"{name}#0", text=reply, finish_reason="stop"))
                scored = [e["score"] for e in per_criterion.values() if e["score"] is not None]
                prompt_tokens = 5 * (900 + len(query["query"]) // 4 + words * 4 // 3)
                completion_tokens = sum(len(c.text or "") // 4 for c in calls)
                totals["prompt"] += prompt_tokens
                totals["completion"] += completion_tokens
                usage = {"judge": Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)}
                if r == 0:
                    usage = {
                        "candidate": Usage(prompt_tokens=len(query["query"]) // 4, completion_tokens=words * 4 // 3),
                        **usage,
                    }
                score = Score(
                    value=sum(scored) / len(scored) if scored else None,
                    explanation=f"{len(scored)} of {len(per_criterion)} criteria scored",
                    parse_status="ok" if len(scored) == len(per_criterion) else "partial" if scored else "unparsable",
                    metadata={"criteria": per_criterion, "reasoning_removed": False},
                )
                writer.append(
                    SampleRecord(
                        id=f"{prefix}/{query['index']}",
                        status="ok",
                        input=query["query"],
                        target={"index": query["index"], "checklist": query["checklist"]}
                        if prefix == "writingbench"
                        else {"checklist": query["checklist"]},
                        metadata={k: query[k] for k in ("index", "domain1", "domain2", "lang") if k in query},
                        state=State(
                            messages=[
                                {"role": "user", "content": query["query"]},
                                {"role": "assistant", "content": text},
                            ],
                            output=text,
                            finish_reason="stop",
                        ),
                        scores={"writingbench": score},
                        usage=usage,
                        calls=calls,
                        duration_s=round(rng.uniform(2, 9), 3),
                        ratings=task.ratings({"writingbench": score}),
                    )
                )  # as the runner records them
        finally:
            writer.close()
        values = totals["scored"]
        roles = {
            "judge": {
                "requests": 5 * len(queries),
                "cache_hits": 0,
                "retries": 0,
                "errors": 0,
                "prompt_tokens": totals["prompt"],
                "completion_tokens": totals["completion"],
                "mean_latency_s": 1.8,
                "sessions": 1,
            }
        }
        if r == 0:
            roles["candidate"] = {
                "requests": len(queries),
                "cache_hits": 0,
                "retries": 0,
                "errors": 0,
                "prompt_tokens": sum(len(q["query"]) // 4 for q in queries),
                "completion_tokens": sum(a[1] * 4 // 3 for a in answers),
                "mean_latency_s": 14.0,
                "sessions": 1,
            }
        folder.write_results(
            Results(
                run_id=run_id,
                task="writingbench",
                finished_at=(at + timedelta(minutes=50)).isoformat(),
                complete=True,
                counts=Counts(
                    total=len(queries), finished=len(queries), ok=len(queries), failed=0, unscored=totals["unscored"]
                ),
                metrics={"writingbench": MetricSummary(mean=statistics.fmean(values), n_scored=len(queries))},
                headline="writingbench",
                roles=roles,
                extra={
                    "overall": statistics.fmean(values),
                    "criteria_scored": len(values),
                    "criteria_unscored": totals["unscored"],
                },
            )
        )
        paths.append(folder.path)
    return paths


def time_calls(paths: list[Path], repeats: int) -> tuple[float, list[float]]:
    import proseval

    start = time.perf_counter()
    proseval.agreement(paths)
    first = time.perf_counter() - start
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        proseval.agreement(paths)
        timings.append(time.perf_counter() - start)
    return first, timings


def breakdown(paths: list[Path], repeats: int) -> dict[str, float]:
    """Median seconds of reading the runs (collect) and of the statistics (analyse_judgements)."""
    from proseval.reliability.analysis import analyse_judgements
    from proseval.reliability.collect import collect

    read, computed = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        found = collect(paths)
        read.append(time.perf_counter() - start)
        start = time.perf_counter()
        analyse_judgements(found)
        computed.append(time.perf_counter() - start)
    return {
        "read the run folders (collect)": statistics.median(read),
        "statistics, pairs and panel (analyse_judgements)": statistics.median(computed),
    }


def traced_peak(paths: list[Path]) -> int:
    import proseval

    tracemalloc.start()
    try:
        proseval.agreement(paths)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def peak_rss_kib() -> int:
    """The process's peak resident set so far: VmHWM on Linux (ru_maxrss there also keeps the peak
    of the process image before exec, e.g. the parent's, so it cannot measure a fresh child)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    scale = 1024 if sys.platform == "darwin" else 1  # bytes on macOS, KiB elsewhere
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // scale


def rss_child(paths: list[Path]) -> None:
    """In a fresh process: peak RSS before and after one call, with the imports and the task's loading
    done before, so the growth is what reading and analysing the runs adds."""
    import proseval
    import proseval.reliability.analysis  # noqa: F401  (numpy, scipy, krippendorff)
    from proseval.registry import get_task
    from proseval.runtime.runlog import RunFolder

    header = RunFolder(paths[0]).read_header()
    get_task(header.task, header.task_params)
    before = peak_rss_kib()
    proseval.agreement(paths)
    print(json.dumps({"before_kib": before, "after_kib": peak_rss_kib()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--runs",
        type=int,
        default=3,
        help="per candidate: one source run and RUNS-1 re-scores with other judges (2..4)",
    )
    parser.add_argument(
        "--candidates",
        type=int,
        default=1,
        help="candidates (1..3), each with its own runs: "
        "2 or more exercise length bias and the system-level comparison",
    )
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--data-dir", type=Path, help="take the queries from the official WritingBench data")
    parser.add_argument("--keep", type=Path, help="Write the runs here (kept) instead of a temp folder.")
    parser.add_argument("--rss-child", nargs="+", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_child:
        rss_child(args.rss_child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        start = time.perf_counter()
        paths = make_runs(root / "runs", args.runs, args.samples, args.data_dir, args.candidates)
        made = time.perf_counter() - start
        size = sum((p / "samples.jsonl").stat().st_size for p in paths) / 2**20
        python = Path(sys.executable)
        python = python.relative_to(ROOT) if python.is_relative_to(ROOT) else python
        command = " ".join([str(python), "bench/judge_agreement.py", *sys.argv[1:]])
        print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}")
        print(f"command: {command}")
        print(
            f"made {len(paths)} runs ({args.candidates} candidate(s) × {args.runs} judges) × {args.samples} "
            f"samples × 5 criteria in {made:.1f} s ({size:.1f} MiB of samples.jsonl; "
            f"{len(paths) * args.samples * 5:,} verdicts)"
        )
        first, timings = time_calls(paths, args.repeats)
        print(
            f"proseval.agreement: median {statistics.median(timings):.2f} s over {args.repeats} "
            f"(min {min(timings):.2f}, max {max(timings):.2f}); first call {first:.2f} s (imports included)"
        )
        for stage, seconds in breakdown(paths, args.repeats).items():
            print(f"  {stage}: median {seconds:.2f} s")
        print(f"tracemalloc peak of one call: {traced_peak(paths) / 2**20:.1f} MiB (Python and numpy allocations)")
        child = subprocess.run(
            [sys.executable, __file__, "--rss-child", *map(str, paths)],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        rss = json.loads(child.stdout.strip().splitlines()[-1])
        grown = (rss["after_kib"] - rss["before_kib"]) / 1024
        print(
            f"peak RSS growth across one call in a fresh process: {grown:.1f} MiB "
            f"(peak RSS {rss['before_kib'] / 1024:.0f} MiB after imports -> {rss['after_kib'] / 1024:.0f} MiB)"
        )
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
