"""What a run records about where it came from: its header, configuration hash and git commit."""

from __future__ import annotations

import functools
import hashlib
import platform
import secrets
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from .. import __version__
from ..core.task import Task
from .cache import canonical_json
from .options import RunOptions
from .records import PromptInfo, RatingsInfo, RoleBinding, RunHeader
from .runlog import now_iso
from .secrets import scrub_url

# Generation settings added after runs were first written: left out of the hash while unset, so
# that those runs keep their hash (and stay resumable).
_UNSET_NEWER_FIELDS = frozenset({"reasoning_effort"})


def config_hash(task: Task, bindings: dict[str, RoleBinding], seed: int | None, epochs: int) -> str:
    """What must match for a resumed run to continue the same experiment (not concurrency, not limit)."""
    payload = {
        "task": task.name,
        "version": task.version,
        "params": task.params,
        "roles": {
            role: {
                "spec": b.spec,
                "base_urls": sorted(scrub_url(u) for u in b.base_urls),
                "config": b.config.model_dump(
                    exclude={name for name in _UNSET_NEWER_FIELDS if getattr(b.config, name) is None}
                ),
            }
            for role, b in sorted(bindings.items())
        },
        "seed": seed,
        "epochs": epochs,
    }
    replaced = {name: t.sha256 for name, t in sorted(task.prompts.items()) if t.source != "builtin"}
    if replaced:  # absent otherwise, so that runs without prompt files keep their hash
        payload["prompts"] = replaced
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()[:16]


@functools.cache
def git_commit() -> str | None:
    """The commit of the code this process runs, looked up once (the code loaded cannot change)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=Path(__file__).resolve().parent,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def new_run_id(task: Task) -> str:
    slug = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in task.name)
    return f"{slug}-{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def build_header(
    task: Task,
    bindings: dict[str, RoleBinding],
    options: RunOptions,
    run_id: str,
    *,
    demo: bool,
    rescored_from: str | None = None,
    n_samples: int,
) -> RunHeader:
    return RunHeader(
        run_id=run_id,
        task=task.name,
        task_version=task.version,
        task_params=task.params,
        dataset={**task.dataset_source, "n_samples": n_samples},
        roles={
            role: b.model_copy(update={"base_urls": [scrub_url(u) for u in b.base_urls]})
            for role, b in bindings.items()
        },
        seed=options.seed,
        limit=options.limit,
        epochs=options.epochs,
        config_hash=config_hash(task, bindings, options.seed, options.epochs),
        package_version=__version__,
        git_commit=git_commit(),
        python=sys.version.split()[0],
        platform=platform.platform(),
        started_at=now_iso(),
        demo_models=demo,
        rescored_from=rescored_from,
        repeat=options.repeat,
        prompts=prompt_infos(task),
        preset=task.preset,
        scorer_plugin=task.scorer_plugin,
        batch=list(options.batch_roles),
        ratings=ratings_info(task),
    )


def ratings_info(task: Task) -> RatingsInfo:
    swapped = task.swap_param is not None and task.params.get(task.swap_param) == "swapped"
    return RatingsInfo(recorded=task.ratings is not None, slice_keys=list(task.slice_keys), swapped=swapped)


def prompt_infos(task: Task) -> dict[str, PromptInfo]:
    return {name: PromptInfo(source=t.source, sha256=t.sha256) for name, t in sorted(task.prompts.items())}
