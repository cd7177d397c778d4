"""What `proseval doctor` reports: one `Check` per line. Benchmarks add their own checks with
the registry's `doctor_check` hook, so the doctor names no benchmark."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Literal

Status = Literal["ok", "warn", "fail", "info"]


@dataclass(frozen=True)
class Check:
    """One line of the report. `component` ties a failure to what the user asked for (`--require`)."""

    name: str
    status: Status
    detail: str
    component: str | None = None


def extra_check(name: str, extra: str, modules: Iterable[str], ok: str = "installed") -> Check:
    """`ok` when every module the extra installs can be imported (checked without importing it),
    else a warning naming the missing modules and the command that installs them."""
    missing = [module for module in modules if find_spec(module) is None]
    if missing:
        return Check(name, "warn", f"missing {', '.join(missing)}: pip install 'proseval[{extra}]'")
    return Check(name, "ok", ok)
