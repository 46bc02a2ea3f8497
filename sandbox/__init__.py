"""Run and grade untrusted Python (with PyTorch) in a warm, isolated worker pool.

The public names: :class:`Sandbox` (the runner), :class:`SandboxConfig` (its settings),
:class:`Result` with :class:`TestOutcome` and :class:`ErrorInfo` (its answer), and the errors.
"""

from .config import SandboxConfig
from .errors import IsolationUnavailable, SandboxError, SandboxNotStarted, TemplateFailed
from .result import STATUSES, ErrorInfo, Result, Status, TestOutcome
from .runner import Sandbox

__all__ = [
    "STATUSES",
    "ErrorInfo",
    "IsolationUnavailable",
    "Result",
    "Sandbox",
    "SandboxConfig",
    "SandboxError",
    "SandboxNotStarted",
    "Status",
    "TemplateFailed",
    "TestOutcome",
]
