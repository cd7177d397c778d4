"""Running untrusted, model-written code in a locked-down subprocess."""

from proseval.sandbox.result import ErrorKind, SandboxLimits, SandboxResult
from proseval.sandbox.runner import run_function, run_function_async

__all__ = ["ErrorKind", "SandboxLimits", "SandboxResult", "run_function", "run_function_async"]
