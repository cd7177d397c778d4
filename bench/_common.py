"""Helpers shared by the bench scripts: machine description, fake server process, import path."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# This checkout's sources first, unless PYTHONPATH names the sources to import: a measured child of
# `--src`/`--compare-src` runs with its source there, which must not be shadowed by this one.
if not os.environ.get("PYTHONPATH") and str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.node()} · {os.cpu_count()} cores · {cpu} · Python {platform.python_version()}"


class FakeServerProcess:
    """A fake server in its own process, so it does not share our core: the OpenAI-compatible one,
    or another of `proseval.testing` (`module`, e.g. `fake_anthropic`)."""

    def __init__(self, latency: float, responder: str | None = None, module: str = "fake_openai"):
        extra = ["--responder", responder] if responder is not None else []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", f"proseval.testing.{module}", "--latency", str(latency), *extra],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "bench")])},
        )
        line = self.proc.stdout.readline().strip()  # "listening on URL", maybe followed by a note
        self.base_url = line.removeprefix("listening on ").split(" ", 1)[0]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def add_sources(parser) -> None:
    """`--src` and `--compare-src`: the sources a bench measures, side by side in the same rounds."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    parser.add_argument("--src", type=Path, default=root / "src", help="the sources measured (default: this checkout)")
    parser.add_argument(
        "--compare-src",
        type=Path,
        action="append",
        default=[],
        help="other sources (e.g. a clone of the previous version), measured in the same rounds; "
        "may be given more than once",
    )


def sources_of(args) -> dict:
    """The sources of `add_sources`, by name: "this" and each compared one ("compared", or
    "compared1", "compared2", … in the order given when there are several)."""
    found = {"this": args.src.resolve()}
    many = len(args.compare_src) > 1
    for number, src in enumerate(args.compare_src, start=1):
        found[f"compared{number}" if many else "compared"] = src.resolve()
    return found
