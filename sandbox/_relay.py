"""The template's side of a worker's reports: read the supervisor's frames, answer the bot.

A supervisor says ``ready`` once its job process waits, then, when the job ends, ``{"op": "ending",
"early"}`` and the report. The report is the job's output and feedback (which may quote the test's
expected values), so the template relays it to the bot unread (``_sealed``), with what it adds
itself beside it: the slot's counters and its own clock. Only ``ready``, ``ending`` and a set-up
error (nothing of a job) are parsed here.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any, cast

from . import _sealed, _wire
from ._messages import Report

if TYPE_CHECKING:
    from ._template import Template, _Worker


def on_report(template: Template, worker: _Worker) -> None:
    """Read the supervisor's frames: "ready"; then "ending" and the report, relayed unread (``_sealed``)."""
    reader = worker.reader
    if reader is None:
        return
    while not worker.eof:
        try:
            more = reader.read(worker.rep_r)
        except BlockingIOError:
            break
        except (OSError, _wire.WireError):
            more = False
        if not more:
            worker.eof = True
            with contextlib.suppress(KeyError, ValueError):
                template.sel.unregister(worker.rep_r)
            break
    try:
        bodies = reader.bodies()
    except _wire.WireError:
        bodies = []
    for body in bodies:
        if worker.ending is not None:  # the report: the job's output, relayed unread
            if worker.job is not None and not worker.replied:
                answer_sealed(template, worker, body, early=worker.ending)
            body.close()
            continue
        try:
            frame = _sealed.opened(body)  # ready, ending or a set-up error: nothing of a job
        except _wire.WireError:
            continue
        if frame.get("op") == "ready":
            worker.ready_at = time.monotonic()
        elif frame.get("op") == "ending":
            worker.ending = bool(frame.get("early"))
        else:
            worker.last = frame
            if worker.job is not None and not worker.replied:
                answer(template, worker, cast(Report, frame))


def _added(template: Template, worker: _Worker, *, early: bool) -> dict[str, Any]:
    """What the template adds to a job's report: the slot's counters and its own clock."""
    job = worker.job
    assert job is not None
    added: dict[str, Any] = {}
    if template._counted(worker.index):
        if not early:  # else the killed processes may still be tearing down
            added["leftovers"] = template.sweep(worker.index)
        with contextlib.suppress(OSError, ValueError):
            added["cgroup"] = template.counters[worker.index].after_job()
    added["timing"] = {"recv": job.get("t_recv"), "answered": time.monotonic()}
    worker.replied = True
    worker.failures = 0
    return added


def answer(template: Template, worker: _Worker, report: Report) -> None:
    """Send the bot a report the template made or read (a set-up failure), with the slot's counters."""
    assert worker.job is not None
    added = _added(template, worker, early=bool(report.get("early")))
    timing = report.get("timing")
    report.update({k: v for k, v in added.items() if k != "timing"})  # type: ignore[typeddict-item]
    report["timing"] = {**(timing if isinstance(timing, dict) else {}), **added["timing"]}
    template.reply({"op": "done", "id": worker.job["id"], "report": report})


def answer_sealed(template: Template, worker: _Worker, body: _sealed.Sealed, *, early: bool) -> None:
    """Send the bot the supervisor's report unread, with what the template adds beside it."""
    assert worker.job is not None
    added = _added(template, worker, early=early)
    _wire.send(template.sock, {"op": "done", "id": worker.job["id"], "added": added, "sealed": body.size})
    body.write_to(template.sock)
