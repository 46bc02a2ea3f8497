"""Errors of the sandbox package.

::

    SandboxError                 base of everything raised here
    ├── SandboxNotStarted        run() before start(), or after close()
    ├── IsolationUnavailable     the host offers no usable isolation and allow_no_isolation is off
    └── TemplateFailed           the warm template process could not be started

A job that fails (times out, crashes, is rejected) is not an error: it is a :class:`~sandbox.Result`.
"""

from __future__ import annotations


class SandboxError(Exception):
    """Base of the sandbox's errors."""


class SandboxNotStarted(SandboxError):
    """The sandbox is not running."""


class IsolationUnavailable(SandboxError):
    """No usable isolation on this host and ``allow_no_isolation`` is off."""


class TemplateFailed(SandboxError):
    """The warm template process did not start."""
