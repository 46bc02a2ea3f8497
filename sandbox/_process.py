"""The bot's handle on the template process: spawn it by exec, talk frames, notice its death."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import socket
import sys
from collections.abc import Callable
from typing import Any

from . import _wire
from .errors import TemplateFailed

log = logging.getLogger("sandbox.template")

BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "HOME": "/sandbox",
    "TMPDIR": "/tmp",  # noqa: S108 - these paths are the job's private tmpfs
    "USER": "sandbox",
    "LOGNAME": "sandbox",
    "TERM": "dumb",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "TORCH_HOME": "/tmp/torch",  # noqa: S108
    "MPLCONFIGDIR": "/tmp/matplotlib",  # noqa: S108
    "PYTHONIOENCODING": "utf-8",
}
_SECRET = re.compile(r"(^QUIZBOT_|^DISCORD_|^SLACK_|TOKEN|SECRET|PASSW|KEY|CREDENTIAL|DATABASE)", re.I)


def job_environment(allowlist: tuple[str, ...]) -> dict[str, str]:
    """Return the environment of the template and its jobs: a fixed base plus allowed names."""
    env = dict(BASE_ENV)
    for name in allowlist:
        if _SECRET.search(name):
            log.warning("not passing %s to the sandbox: it looks like a secret or a bot setting", name)
        elif name in os.environ:
            env[name] = os.environ[name]
    return env


def _launcher() -> str:
    """Return the -c program that imports the template even from a source checkout."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return (
        "import sys\n"
        f"sys.path.append({here!r})\n"
        "from sandbox._template import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )


class TemplateProcess:
    """One running template: its process, its socket and the jobs waiting for an answer."""

    def __init__(self, on_death: Callable[[TemplateProcess], None] | None = None) -> None:
        self._on_death = on_death
        self._stopping = False
        self.proc: asyncio.subprocess.Process | None = None
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.ready: dict[str, Any] = {}
        self.pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.supervisors: dict[str, int] = {}
        self.cgroups: dict[str, int] = {}  # job id -> index of the cgroup its worker runs in
        self._tasks: list[asyncio.Task[None]] = []
        self.alive = False

    @property
    def pid(self) -> int | None:
        """Return the template's pid."""
        return self.proc.pid if self.proc is not None else None

    async def spawn(
        self, config: dict[str, Any], env: dict[str, str], start_timeout: float
    ) -> dict[str, Any]:
        """Exec the template, send the configuration, wait for ``ready``; return it."""
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-I", "-B", "-c", _launcher(), str(child.fileno()),
                pass_fds=[child.fileno()], stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, env=env, cwd="/",
            )  # fmt: skip
        finally:
            child.close()
        try:
            self.reader, self.writer = await asyncio.open_unix_connection(sock=parent)
            self._tasks.append(asyncio.create_task(self._drain_stderr(), name="sandbox-template-stderr"))
            self.writer.write(_wire.encode(config))
            await self.writer.drain()
            msg = await asyncio.wait_for(_wire.read_frame(self.reader), start_timeout)
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError, _wire.WireError) as exc:
            await self.kill()
            raise TemplateFailed(f"the sandbox template did not start: {exc!r}") from exc
        except BaseException:  # cancelled while starting: leave nothing behind
            self._stopping = True
            self.kill_now()
            for task in self._tasks:
                task.cancel()
            if self.proc is not None:
                # Reap it before the loop goes away, or asyncio warns that it is still running.
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(asyncio.shield(self.proc.wait()), 5.0)
            raise
        if msg.get("op") != "ready":
            await self.kill()
            raise TemplateFailed(f"the sandbox template failed: {msg.get('error', msg)}")
        self.ready = msg
        self.alive = True
        self._tasks.append(asyncio.create_task(self._read_loop(), name="sandbox-template-reader"))
        return msg

    async def _drain_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while line := await self.proc.stderr.readline():
            log.warning("%s", line.decode(errors="replace").rstrip())

    async def _read_loop(self) -> None:
        assert self.reader is not None
        try:
            while True:
                msg = await _wire.read_frame(self.reader)
                op = msg.get("op")
                if op == "done" and "sealed" in msg:
                    msg = await self._unsealed(msg)
                if op == "done":
                    self.supervisors.pop(str(msg.get("id")), None)
                    self.cgroups.pop(str(msg.get("id")), None)
                    fut = self.pending.pop(str(msg.get("id")), None)
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                elif op == "started":
                    self.supervisors[str(msg.get("id"))] = int(msg.get("pid", 0))
                    self.cgroups[str(msg.get("id"))] = int(msg.get("cgroup", -1))
                elif op == "log":
                    log.warning("%s", msg.get("text"))
        except (asyncio.IncompleteReadError, ConnectionError, _wire.WireError) as exc:
            log.debug("template connection ended: %r", exc)
        finally:
            self.alive = False
            for fut in self.pending.values():
                if not fut.done():
                    fut.set_result({"op": "done", "report": {"setup_error": "the sandbox worker died"}})
            self.pending.clear()
            if not self._stopping and self._on_death is not None:
                log.error("the sandbox template (pid %s) died", self.pid)
                self._on_death(self)

    async def _unsealed(self, msg: dict[str, Any]) -> dict[str, Any]:
        """A ``done`` whose report the template relayed unread: the report, with what the template added."""
        assert self.reader is not None
        size = msg.get("sealed")
        if not isinstance(size, int) or not 0 <= size <= _wire.MAX_FRAME:
            raise _wire.WireError("sealed report size out of range")
        report = _wire.decode_body(await self.reader.readexactly(size))
        raw_added, raw_timing = msg.get("added"), report.get("timing")
        added: dict[str, Any] = raw_added if isinstance(raw_added, dict) else {}
        for key in ("leftovers", "cgroup"):
            if key in added:
                report[key] = added[key]
        timing: dict[str, Any] = raw_timing if isinstance(raw_timing, dict) else {}
        more = added.get("timing")
        report["timing"] = {**timing, **(more if isinstance(more, dict) else {})}
        return {"op": "done", "id": msg.get("id"), "report": report}

    async def submit(self, job_id: str, frame: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        """Send one job; return the future of its ``done`` frame."""
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        if not self.alive or self.writer is None:
            fut.set_result({"op": "done", "report": {"setup_error": "the sandbox worker is not running"}})
            return fut
        self.pending[job_id] = fut
        # The template relays the supervisor's frame unread (``_sealed``): a header, then the frame's bytes.
        payload = _wire.encode(frame)
        header = {"op": "job", "id": job_id, "slot": frame["slot"], "limits": frame["limits"], "sealed": len(payload)}
        self.writer.write(_wire.encode(header) + payload)
        try:
            await self.writer.drain()
        except ConnectionError:
            self.pending.pop(job_id, None)
            fut.set_result({"op": "done", "report": {"setup_error": "the sandbox worker is not running"}})
        return fut

    def kill_supervisor(self, job_id: str) -> None:
        """Kill a job's supervisor (its pid namespace dies with it)."""
        pid = self.supervisors.get(job_id)
        if pid:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

    async def stop(self, grace: float = 5.0) -> None:
        """Ask the template to stop, then make sure it has."""
        self._stopping = True
        if self.writer is not None and self.alive:
            with contextlib.suppress(Exception):
                self.writer.write(_wire.encode({"op": "stop"}))
                await self.writer.drain()
        if self.proc is not None:
            try:
                await asyncio.wait_for(self.proc.wait(), grace)
            except TimeoutError:
                await self.kill()
        await self._finish()

    async def kill(self) -> None:
        """Kill the template at once."""
        self._stopping = True
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()
        await self._finish()

    async def _finish(self) -> None:
        self.alive = False
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        for task in self._tasks:
            if not task.done():
                task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    def kill_now(self) -> None:
        """Kill the process without awaiting (finalizers)."""
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(OSError):
                os.kill(self.proc.pid, signal.SIGKILL)
