"""What a job process prints by Python's own hooks, named as the learner's traceback is: no host path.

A plain run's traceback goes through the learner's files only (``_feedback.print_user_traceback``).
An exception in a learner's thread, or one ignored in a ``__del__``, went to Python's own hooks,
which printed library frames with the host's paths; a warning raised inside a library
(``nn.MSELoss`` on shapes that broadcast) named its file by the host's path
(``/work/.../site-packages/torch/nn/modules/loss.py``). Here they are printed as the rest is: the
learner's frames only; a file by its path under the job's folder or under the import path it was
found on (``torch/nn/modules/loss.py``).
"""

from __future__ import annotations

import contextlib
import linecache
import os
import sys
import threading
import warnings
from typing import Any

from ._feedback import print_user_traceback


def short_path(filename: str, workdir: str) -> str:
    """Return ``filename`` under the job's folder or the import path, else its base name."""
    if not isinstance(filename, str) or not filename.startswith("/"):
        return filename
    roots = [workdir, *(p for p in sys.path if isinstance(p, str) and p.startswith("/"))]
    for root in sorted((r.rstrip("/") for r in roots), key=len, reverse=True):
        if root and filename.startswith(root + "/"):
            return filename[len(root) + 1 :]
    return os.path.basename(filename)


def hook_output(workdir: str) -> None:
    """Install the thread-exception hook and the warning format of this job process."""
    format_warning = warnings.formatwarning

    def formatwarning(message: Any, category: Any, filename: str, lineno: int, line: str | None = None) -> str:
        if line is None:
            with contextlib.suppress(Exception):
                line = linecache.getline(filename, lineno)
        return format_warning(message, category, short_path(filename, workdir), lineno, line)

    def excepthook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit or args.exc_value is None:
            return  # as Python's own hook: a thread's SystemExit ends it quietly
        with contextlib.suppress(Exception):
            name = args.thread.name if args.thread is not None else threading.get_ident()
            sys.stderr.write(f"Exception in thread {name}:\n")
        print_user_traceback(args.exc_value, workdir)

    def unraisablehook(unraisable: Any) -> None:
        with contextlib.suppress(Exception):
            head = unraisable.err_msg or "Exception ignored in"
            try:
                what = "" if unraisable.object is None else f" {unraisable.object!r}"
            except BaseException:
                what = " <object repr() failed>"
            sys.stderr.write(f"{head}:{what}\n")
        if isinstance(unraisable.exc_value, BaseException):
            print_user_traceback(unraisable.exc_value, workdir)

    warnings.formatwarning = formatwarning
    threading.excepthook = excepthook
    sys.unraisablehook = unraisablehook
