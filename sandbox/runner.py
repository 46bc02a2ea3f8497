"""The sandbox: a warm pool of isolated workers that run and grade untrusted code.

::

    async with Sandbox(SandboxConfig()) as sb:
        result = await sb.run(code, test=test_source, owner="discord:42")

One template process, started by exec, holds torch in memory; every job is a fork of it inside
its own namespaces, cgroup, rlimits and seccomp filter. Admission is bounded: ``workers`` jobs run,
``queue`` more may wait, anything beyond is rejected at once; one learner (``owner``) has at most
one job in the sandbox at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import os
import shutil
import time
import warnings
from types import TracebackType
from typing import Any

from . import _assemble, _cgroup, _process, _startup, _testprep, _uids
from ._admission import Admission
from ._messages import JobFrame, JobLimits
from .config import MIB, SandboxConfig
from .errors import IsolationUnavailable, SandboxNotStarted
from .result import Result

log = logging.getLogger("sandbox")

MAX_TEST_BYTES = 1024 * 1024
BACKSTOP_S = 15.0  # beyond its wall limit, how long a job may go unanswered before its worker is killed


class Sandbox:
    """Run and grade untrusted Python in a warm, isolated worker pool."""

    def __init__(self, config: SandboxConfig | None = None) -> None:
        self.config = config if config is not None else SandboxConfig()
        self._template: _process.TemplateProcess | None = None
        self._cgroups: _cgroup.CgroupSet | None = None
        self._uids: _uids.UidRange | None = None
        self._started = False
        self._closed = False
        self._workers = self.config.workers
        self._slots = 2 * self.config.workers
        self._admission = Admission(self._workers, self._slots, self.config.queue_length)
        self._owners: set[str] = set()
        self._ids = itertools.count(1)
        self._restart_lock = asyncio.Lock()
        self._avg_job_s = 1.0
        self._layers: tuple[str, ...] = ()
        self._background: set[asyncio.Task[Any]] = set()
        self.start_seconds = 0.0
        self.restarts = 0
        self.degraded = False

    # --- lifetime ---------------------------------------------------------------------------
    async def __aenter__(self) -> Sandbox:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def __del__(self, _warn: Any = warnings.warn) -> None:
        if getattr(self, "_started", False) and not self._closed:
            _warn(f"unclosed {self!r}: call close() or use 'async with'", ResourceWarning, source=self)
            if self._template is not None:
                self._template.kill_now()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "running" if self._started else "new"
        return f"<Sandbox {state} workers={self._workers} isolation={','.join(self._layers) or '-'}>"

    @property
    def isolation(self) -> tuple[str, ...]:
        """Return the pool-wide isolation layers (each job's result lists its own, complete set)."""
        return self._layers

    @property
    def waiting(self) -> int:
        """Return how many jobs wait for a worker now."""
        return self._admission.waiting

    @property
    def workers(self) -> int:
        """Return how many jobs run at once."""
        return self._workers

    @property
    def uid_base(self) -> int:
        """Return the host uid of this pool's worker 0 (its claimed range, else the configured base)."""
        return self._uids.start if self._uids is not None else self.config.uid_base

    @property
    def template_pid(self) -> int | None:
        """Return the pid of the warm template, when it runs."""
        return self._template.pid if self._template is not None else None

    async def start(self) -> None:
        """Create the slot cgroups and start the warm template (about 2-4 s: it imports torch)."""
        if self._started:
            return
        if self._closed:
            raise SandboxNotStarted("this sandbox was closed")
        cfg = self.config
        _startup.refuse_without_isolation(cfg)
        if os.geteuid() == 0 and self._uids is None:
            try:
                self._uids = _uids.claim(cfg.uid_base, cfg.uid_lock_dir, 2 * cfg.workers)
            except _uids.UidRangeUnavailable as exc:
                log.warning(
                    "sandbox: no uid range of its own (%s); workers run from uid %d", exc, cfg.uid_base
                )
        if cfg.cgroups and os.geteuid() == 0:
            try:
                self._cgroups = await asyncio.to_thread(
                    _cgroup.CgroupSet.create,
                    self._slots,
                    memory_bytes=cfg.memory_mb * MIB,
                    pids=cfg.pids,
                    cpu_cores=cfg.cpu_cores_per_job,
                    nice=cfg.nice,
                    parent=cfg.cgroup_parent,
                )
            except OSError as exc:
                log.warning("sandbox: no cgroups (%s); memory is limited by RLIMIT_DATA only", exc)
        self._started = True
        try:
            await self._spawn()
        except BaseException:
            await self._cleanup()
            self._started = False
            raise
        self._admission = Admission(self._workers, self._slots, cfg.queue_length)

    async def _spawn(self) -> None:
        cfg = self.config
        started = time.monotonic()
        template = _process.TemplateProcess(on_death=self._on_template_death)
        ready = await template.spawn(
            _startup.template_config(cfg, self.uid_base, self._cgroups),
            _process.job_environment(cfg.env_allowlist),
            cfg.start_timeout_s,
        )
        self._template = template
        self.start_seconds = time.monotonic() - started
        root_dir = ready.get("root_dir")  # the template's mount point, empty on the host side
        if isinstance(root_dir, str) and os.path.basename(root_dir).startswith("quizbot-root-"):
            with contextlib.suppress(OSError):
                os.rmdir(root_dir)
        self._workers = int(ready.get("workers", cfg.workers))
        self._layers = _assemble.order_layers(list(ready.get("layers", [])))
        try:
            degraded = _startup.judge_ready(
                ready,
                cfg,
                workers=self._workers,
                layers=self._layers,
                cgroups=self._cgroups is not None,
                start_seconds=self.start_seconds,
            )
        except IsolationUnavailable:
            await template.stop()
            self._template = None
            raise
        if degraded:
            self.degraded = True

    async def close(self) -> None:
        """Stop the template, kill whatever is left, remove the cgroups."""
        if self._closed:
            return
        self._closed = True
        self._admission.cancel_all()
        for task in list(self._background):
            task.cancel()
        for task in list(self._background):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._cleanup()

    async def _cleanup(self) -> None:
        template, self._template = self._template, None
        if template is not None:
            await template.stop()
            await self._remove_scratch(template)
        if self._cgroups is not None:
            await asyncio.to_thread(self._cgroups.remove)
            self._cgroups = None
        if self._uids is not None:
            self._uids.release()
            self._uids = None

    @staticmethod
    async def _remove_scratch(template: _process.TemplateProcess) -> None:
        """Remove the work directories a template made on the host (only without namespaces)."""
        scratch = template.ready.get("scratch")
        if isinstance(scratch, str) and os.path.basename(scratch).startswith("quizbot-sandbox-"):
            await asyncio.to_thread(shutil.rmtree, scratch, True)

    # --- the template's health --------------------------------------------------------------
    def _on_template_death(self, template: _process.TemplateProcess) -> None:
        if self._closed or template is not self._template:
            return
        task = asyncio.get_running_loop().create_task(self._template_ready(), name="sandbox-restart")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _template_ready(self) -> _process.TemplateProcess | None:
        """Return the running template, restarting it first when it died."""
        async with self._restart_lock:
            template = self._template
            if template is not None and template.alive:
                return template
            if self._closed:
                return None
            log.warning("sandbox template is gone; starting a new one")
            if template is not None:
                await template.kill()
                await self._remove_scratch(template)
            if self._cgroups is not None:
                for i in range(len(self._cgroups.slots)):
                    await asyncio.to_thread(self._cgroups.kill_slot, i)
            try:
                await self._spawn()
            except Exception:
                log.exception("sandbox template restart failed")
                self._template = None
                return None
            self.restarts += 1
            return self._template

    # --- running ----------------------------------------------------------------------------
    def _retry_after(self) -> int:
        return max(1, math.ceil(self._admission.expected_wait(self._avg_job_s)))

    async def run(
        self,
        code: str,
        *,
        test: str | None = None,
        owner: str | None = None,
        wall_s: float | None = None,
        memory_mb: int | None = None,
    ) -> Result:
        """Run ``code`` (graded by the unittest module ``test`` when given); never raises for bad code.

        ``owner`` identifies the learner: a second job of the same owner while one is in the
        sandbox is rejected. ``wall_s`` and ``memory_mb`` lower the configured limits for this
        job (a pack item's ``limits:``); they never raise them.
        """
        if not self._started or self._closed:
            raise SandboxNotStarted("call start() first" if not self._closed else "the sandbox is closed")
        cfg = self.config
        try:
            size = len(code.encode("utf-8"))
        except UnicodeEncodeError:
            return Result.rejected("The code is not valid text.")
        if size > cfg.code_bytes:
            return Result.rejected(f"Code too long: {size} bytes (limit {cfg.code_bytes}).")
        if test is not None and len(test.encode("utf-8", "replace")) > MAX_TEST_BYTES:
            return Result.rejected("The test file is too long.")
        if owner is not None and owner in self._owners:
            return Result.rejected("You already have code running; wait for its result first.")
        if self._admission.turns_away(self._avg_job_s, cfg.max_wait_s):
            return Result.rejected(f"busy, try again in {self._retry_after()} s")
        limits = JobLimits(
            wall_s=min(wall_s, cfg.wall_s) if wall_s and wall_s > 0 else cfg.wall_s,
            cpu_s=cfg.cpu_s,
            memory_mb=min(memory_mb, cfg.memory_mb) if memory_mb and memory_mb > 0 else cfg.memory_mb,
            output_bytes=cfg.output_bytes,
            file_bytes=cfg.file_bytes,
            open_files=cfg.open_files,
            pids=cfg.pids,
            data_bytes=None if self._cgroups is not None else cfg.memory_mb * MIB,
        )
        if owner is not None:
            self._owners.add(owner)
        ends: list[asyncio.Future[Any]] = []  # set when the job outlives a cancelled caller
        try:
            slot = await self._admission.acquire()
            started = time.monotonic()
            result = await self._run_on(slot, code, test, limits, ends)
            self._avg_job_s = 0.8 * self._avg_job_s + 0.2 * (time.monotonic() - started)
            return result
        finally:
            if owner is not None:
                if ends:  # the learner's job is still in the sandbox: they stay busy until it ends
                    ends[0].add_done_callback(lambda _f: self._owners.discard(owner))
                else:
                    self._owners.discard(owner)

    async def _run_on(
        self,
        slot: int,
        code: str,
        test: str | None,
        limits: JobLimits,
        ends: list[asyncio.Future[Any]],
    ) -> Result:
        """Run one job on a slot; the slot is released when the template is done with it."""
        fut: asyncio.Future[dict[str, Any]] | None = None
        try:
            template = await self._template_ready()
            if template is None:
                return Result(status="crashed", message="The sandbox is unavailable; please try again later.")
            job_id = str(next(self._ids))
            frame: JobFrame = {
                "op": "job", "id": job_id, "slot": slot, "code": code, "test": test,
                "prepared": _testprep.prepare(test) if test is not None else None, "limits": limits.to_wire(),
            }  # fmt: skip
            fut = await template.submit(job_id, dict(frame))
            try:
                done = await asyncio.wait_for(asyncio.shield(fut), limits.wall_s + BACKSTOP_S)
            except TimeoutError:
                log.error("sandbox job %s got no answer in time; killing its worker", job_id)
                await self._abandon(template, job_id)
                return Result(
                    status="crashed", message="The sandbox worker stopped answering; please try again."
                )
            return _assemble.assemble(
                _assemble.read_report(done.get("report")),
                graded=test is not None,
                limits=limits,
                layers=self._layers,
            )
        except asyncio.CancelledError:
            if fut is not None and not fut.done():
                ends.append(fut)  # the job runs on: its slot comes back when it ends
                fut.add_done_callback(lambda _f: self._admission.release(slot))
                fut = None
            raise
        finally:
            if fut is not None or not ends:
                self._admission.release(slot)

    async def _abandon(self, template: _process.TemplateProcess, job_id: str) -> None:
        template.kill_supervisor(job_id)
        index = template.cgroups.get(job_id, -1)  # the cgroup of the worker that took the job
        if self._cgroups is not None and 0 <= index < len(self._cgroups.slots):
            await asyncio.to_thread(self._cgroups.kill_slot, index)
        await template.kill()  # a template that does not answer is replaced before the next job
