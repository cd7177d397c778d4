"""What a command's flags ask for: role bindings, endpoints and generation settings, prompt files,
the progress display; a task's own check of its options turned into a usage error."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from ..errors import ProsevalError, UsageError
from ..runtime.config import RunConfig
from ..runtime.progress import Display
from ..runtime.roles import RoleError, RoleRequest, nest_generation, parse_assignments, parse_value
from .console import fail


def first(*values: Any) -> Any:
    """The first value that is set (not None): a flag, then the config file's, then a default."""
    return next((value for value in values if value is not None), None)


def as_config(cfg: RunConfig | Mapping[str, Any]) -> RunConfig:
    """A `RunConfig`, or a mapping of its keys (`{}`: nothing set)."""
    return cfg if isinstance(cfg, RunConfig) else RunConfig.model_validate(cfg)


def generation_settings(items: list[str]) -> dict[str, dict[str, Any]]:
    """`-g ROLE.PARAM=VALUE` flags as settings per role, each value read as YAML."""
    return nest_generation((k, parse_value(v)) for k, v in parse_assignments(items, "--gen").items())


def counts_by_role(items: list[str], what: str) -> dict[str, int]:
    """`ROLE=N` flags as whole numbers."""
    counts = {}
    for role, text in parse_assignments(items, what).items():
        value = parse_value(text)
        if not isinstance(value, int) or isinstance(value, bool):
            raise RoleError(f"{what} {role}={text}: N must be a whole number")
        counts[role] = value
    return counts


def role_request(
    cfg: RunConfig | Mapping[str, Any],
    model: Optional[str],
    role: Optional[list[str]],
    base_url: Optional[list[str]],
    role_base_url: Optional[list[str]],
    concurrency: Optional[int],
    role_concurrency: Optional[list[str]],
    gen: Optional[list[str]],
) -> RoleRequest:
    """The role bindings, endpoints, concurrency and generation settings asked for: each flag
    replaces the config file's value of the same key."""
    config = as_config(cfg)
    role_urls: dict[str, list[str]] = {}
    for item in role_base_url or []:
        name, _, url = item.partition("=")
        role_urls.setdefault(name, []).append(url)
    return RoleRequest(
        model=first(model, config.model),  # an empty --model is refused, not read as unset
        roles=parse_assignments(role, "--role") if role else dict(config.role),
        base_urls=list(base_url or config.base_url),
        role_base_urls=role_urls or {name: list(urls) for name, urls in config.role_base_url.items()},
        concurrency=first(concurrency, config.concurrency),
        role_concurrency=(
            counts_by_role(role_concurrency, "--role-concurrency")
            if role_concurrency
            else dict(config.role_concurrency)
        ),
        generation=generation_settings(gen) if gen else config.generation(),
    )


def prompt_files(prompt: Optional[list[str]], cfg: RunConfig | Mapping[str, Any]) -> dict[str, Path]:
    """--prompt NAME=FILE (or `prompts:` in the YAML file), each file checked to exist."""
    items = parse_assignments(prompt, "--prompt") if prompt else as_config(cfg).prompt
    files = {name: Path(path) for name, path in items.items()}
    for name, path in files.items():
        if not path.is_file():
            fail(f"--prompt {name}={path}: no such file")
    return files


def display_mode(value: Optional[str]) -> Display:
    """--display checked; unset, `rich` on a terminal and `plain` log lines otherwise."""
    if value is None:
        return "rich" if sys.stderr.isatty() else "plain"
    modes: tuple[Display, ...] = ("rich", "plain", "none")
    for mode in modes:
        if value == mode:
            return mode
    fail(f"--display must be rich, plain or none (got {value!r})")


def checked(build: Any) -> Any:
    """`build()`; a plain KeyError, ValueError or TypeError (a task's own check of its options) is a usage error."""
    try:
        return build()
    except ProsevalError:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise UsageError(str(exc).strip("'\"")) from exc
