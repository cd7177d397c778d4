"""Start-up: `proseval --help`, `proseval list`, `proseval describe writingbench` and importing the kit
with one benchmark's registration, against the bare import of the CLI's own dependencies (typer,
rich, pydantic, httpx), in fresh processes.

Rounds alternate the commands (and the sources, with --compare-src) so that a change in the
machine's load falls on all of them alike; prints the median wall time of each and its ratio to
the bare import.

    python bench/startup.py                                  # this checkout, median of 5
    python bench/startup.py --repeats 9 --compare-src /tmp/base/src
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import ROOT, add_sources, machine, sources_of

BARE = ("-c", "import typer, rich, pydantic, httpx")
COMMANDS = {
    "bare import": BARE,
    "proseval --help": ("-m", "proseval", "--help"),
    "proseval list": ("-m", "proseval", "list"),
    "proseval describe writingbench": ("-m", "proseval", "describe", "writingbench"),
    # what a benchmark's registration costs: the kit and one benchmark's __init__
    "import kit + writingbench": ("-c", "import proseval.kit; import proseval.benchmarks.writingbench"),
}


def timed(args: tuple[str, ...], src: Path) -> float:
    """Wall time of one fresh interpreter running `args` with `src` first on the import path."""
    env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "100"}
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="rounds; the median of each is reported")
    add_sources(parser)
    args = parser.parse_args()
    sources = sources_of(args)
    times: dict[tuple[str, str], list[float]] = {}
    for name, src in sources.items():  # a first, unmeasured round: byte-code compiled, files cached
        for command in COMMANDS.values():
            timed(command, src)
    for _ in range(args.repeats):
        for label, command in COMMANDS.items():
            for name, src in sources.items():
                times.setdefault((name, label), []).append(timed(command, src))
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.2f} at the end")
    print(f"median of {args.repeats} wall times; ratio: to the bare import measured in the same rounds")
    for name, src in sources.items():
        bare = statistics.median(times[(name, "bare import")])
        print(f"\n{name}: {src}")
        for label in COMMANDS:
            median = statistics.median(times[(name, label)])
            print(f"  {label:<32} {median:7.3f} s  {median / bare:5.2f}x")
    for other in (name for name in sources if name != "this"):
        print(f"\nthis / {other}:")
        for label in COMMANDS:
            ratio = statistics.median(times[("this", label)]) / statistics.median(times[(other, label)])
            print(f"  {label:<32} {ratio:5.2f}")


if __name__ == "__main__":
    main()
