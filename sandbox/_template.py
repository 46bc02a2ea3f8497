"""The warm template: exec'd by the bot, imports torch once, forks a supervisor per job.

Started by ``_process.TemplateProcess`` as ``python -I -B -c <launcher> FD``, FD a unix socket to
the bot; the first frame is the configuration. The template imports and warms everything, fixes
thread counts (it never runs a parallel torch op), freezes the garbage collector, backs its memory
with huge pages (cheaper forks), gives back the library pages only start-up touched (``_warm``),
stands back for the bot when configured to (``nice``, inherited by every fork), enters its own empty
network namespace and read-only root, answers ``ready`` and serves frames:

- ``{"op": "job", "id", "slot", "limits", "sealed": N}`` and N bytes (the supervisor's frame, with
  the code and the hidden test, relayed unread: ``_sealed``) -> ``{"op": "started"}``, then
  ``{"op": "done", "id", "report"}`` (the supervisor's frames are read and answered in ``_relay``);
- ``{"op": "stop"}`` -> exits.

Two workers (a supervisor and its job process) per concurrent job are forked ahead of time, so a
job only waits for its own code to run.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import importlib
import os
import selectors
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from typing import Any

from . import _cgroup_slot, _landlock, _linux, _rootfs, _sealed, _seccomp, _supervisor, _warm, _wire, harness
from ._messages import JobLimits
from ._relay import answer, on_report


def _log(text: str) -> None:
    with contextlib.suppress(OSError):
        os.write(2, f"sandbox-template[{os.getpid()}]: {text}\n".encode())


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return -1


@dataclass
class _Worker:
    """One supervisor forked ahead of time (with its job process), waiting for a job."""

    index: int
    pid: int = 0
    pidfd: int = -1
    ctl_w: int = -1
    rep_r: int = -1
    reader: _sealed.FrameReader | None = None  # the supervisor's frames, in memory no fork inherits
    ready_at: float = 0.0
    job: dict[str, Any] | None = None
    replied: bool = False
    eof: bool = False
    failures: int = 0
    ending: bool | None = None  # the supervisor said its report comes next (and whether it ended early)
    last: dict[str, Any] | None = None  # its last frame that was not ready or ending (a set-up error)


class Template:
    """The template's state and loop."""

    def __init__(self, sock: int, cfg: dict[str, Any]) -> None:
        self.sock = sock
        self.cfg = cfg
        self.limits = JobLimits.from_wire(cfg["limits"])
        self.layers: list[str] = []
        self.namespaces = False
        self.pidns_fd = -1
        self.seccomp_bpf: bytes | None = None
        self.landlock_abi = 0
        self.scratch = ""
        self.readable: list[str] = []
        self.cap_last = _linux.last_cap()
        self.slots = int(cfg["workers"])  # jobs at once (one without namespaces)
        self.counters: list[_cgroup_slot.SlotCounters] = []
        self.workers: list[_Worker] = []
        self.waiting: list[tuple[dict[str, Any], _sealed.Sealed | None]] = []
        self.sel = selectors.DefaultSelector()
        self.inbox = _sealed.SealedInbox()  # job payloads never become objects in this heap
        self.running = True
        self.spared = 0  # torch functions whose first call no longer imports torch._dynamo

    # --- start -------------------------------------------------------------------------------
    def warm(self) -> None:
        for name in self.cfg["preload"]:
            try:
                importlib.import_module(name)
            except Exception as exc:  # a missing optional module must not stop the sandbox
                _log(f"preload {name} failed: {exc}")
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.set_num_threads(1)
            with contextlib.suppress(RuntimeError):
                torch.set_num_interop_threads(1)
        self.spared = _warm.spare_dynamo()
        _warm.warm_torch(bool(self.cfg.get("warm_optimizers", True)))
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            numpy.random.seed(0)  # the first call initialises lazily: pay it here, not per job
        if torch is not None:
            torch.manual_seed(0)
        _warm.ONLY_CPU_GENERATOR = _warm.only_cpu_generator()  # every job process inherits it
        harness.prepare_template()

    def isolate(self) -> None:
        cfg = self.cfg
        is_root = os.geteuid() == 0
        self.readable = _rootfs.readable_paths(cfg.get("exclude_paths", []))
        self.counters = [
            _cgroup_slot.SlotCounters(_cgroup_slot.SlotFiles.from_wire(s)) for s in cfg.get("cgroups") or []
        ]
        if self.counters:
            self.layers += cfg["cgroup_layers"]
        if cfg["seccomp"]:
            try:
                self.seccomp_bpf = _seccomp.build_filter()
            except OSError as exc:
                _log(f"seccomp unavailable: {exc}")
        if cfg["landlock"]:
            self.landlock_abi = _landlock.abi_version()
        if cfg["namespaces"] and is_root:
            self.pidns_fd = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            root = tempfile.mkdtemp(prefix="quizbot-root-")
            self.cfg["root_dir"] = root
            _linux.unshare(_linux.CLONE_NEWNS | _linux.CLONE_NEWNET)
            _rootfs.build_and_enter(root, cfg.get("hidden", []), cfg.get("exclude_paths", []))
            self.namespaces = True
            self.layers += ["netns", "mountns", "pidns", "ipcns", "utsns", "tmpfs", "readonly_root"]
        else:
            # Without namespaces jobs could see each other: one at a time.
            self.slots = 1
            self.scratch = tempfile.mkdtemp(prefix="quizbot-sandbox-")
            os.chmod(self.scratch, 0o711)  # noqa: S103 - workers may enter, not list
        self.layers += ["env", "fds", "watchdog"]
        # Two prepared workers per running job: one is forked while the other runs.
        self.workers = [_Worker(i) for i in range(2 * self.slots)]

    # --- workers -----------------------------------------------------------------------------
    def prepare(self, worker: _Worker) -> None:
        """Fork a supervisor (which forks its job process) ahead of the next job."""
        ctl_r, ctl_w = os.pipe2(os.O_CLOEXEC)
        rep_r, rep_w = os.pipe2(os.O_CLOEXEC)
        with contextlib.suppress(OSError):
            fcntl.fcntl(ctl_w, _supervisor.F_SETPIPE_SZ, 1024 * 1024)
        params = _supervisor.SupervisorParams(
            index=worker.index,
            uid=int(self.cfg["uid_base"]) + worker.index,
            ctl_r=ctl_r,
            rep_w=rep_w,
            cgroup_procs=list(self.counters[worker.index].procs_fds) if self._counted(worker.index) else [],
            limits=self.limits,
            namespaces=self.namespaces,
            user_namespace=bool(self.cfg["user_namespace"]),
            landlock_abi=self.landlock_abi,
            seccomp_bpf=self.seccomp_bpf,
            readable=self.readable,
            scratch=self.scratch,
            cap_last=self.cap_last,
            rehearse=self.idle(),
        )
        if self.namespaces:
            _linux.unshare(_linux.CLONE_NEWPID)  # the next child is pid 1 of a new namespace
        try:
            pid = os.fork()
        finally:
            if self.namespaces and os.getpid() != 1:
                with contextlib.suppress(OSError):
                    _linux.setns(self.pidns_fd, _linux.CLONE_NEWPID)
        if pid == 0:
            try:
                _supervisor.main(params)
            finally:
                os._exit(1)
        os.close(ctl_r)
        os.close(rep_w)
        os.set_blocking(rep_r, False)
        worker.pid, worker.ctl_w, worker.rep_r = pid, ctl_w, rep_r
        worker.pidfd = os.pidfd_open(pid)
        if worker.reader is not None:
            worker.reader.close()
        worker.reader = _sealed.FrameReader()
        worker.job = None
        worker.eof = worker.replied = False
        worker.ready_at = 0.0
        worker.ending = None
        worker.last = None
        self.sel.register(rep_r, selectors.EVENT_READ, ("rep", worker.index))
        self.sel.register(worker.pidfd, selectors.EVENT_READ, ("exit", worker.index))

    def pick(self) -> _Worker | None:
        """Return the idle worker that has been ready longest (or any idle one still starting)."""
        idle = [w for w in self.workers if w.pid and w.job is None]
        if not idle:
            return None
        ready = [w for w in idle if w.ready_at]
        pool = ready or idle
        return min(pool, key=lambda w: w.ready_at or float("inf"))

    def idle(self) -> bool:
        """Return True when no job runs or waits: a worker prepared now rehearses on spare CPU.

        The rehearsal (``harness.rehearse``) moves a job's first page copies off its clock, but costs
        CPU of its own (2 to 6 ms): on a busy pool that is CPU the running jobs lack.
        """
        return not self.waiting and all(w.job is None for w in self.workers)

    def _counted(self, index: int) -> bool:
        """Return True when worker ``index`` has a cgroup (worker i runs in slot cgroup i)."""
        return 0 <= index < len(self.counters)

    def start_job(self, msg: dict[str, Any], payload: _sealed.Sealed | None) -> None:
        if payload is None:
            self.reply(
                {
                    "op": "done",
                    "id": msg.get("id"),
                    "report": {"setup_error": "a job frame without its payload"},
                }
            )
            return
        worker = self.pick()
        if worker is None:
            self.waiting.append((msg, payload))  # every worker is busy: the job starts when one is prepared
            return
        worker.job = msg
        msg["t_recv"] = time.monotonic()
        if self._counted(worker.index):
            # The worker's job processes joined its cgroup when it was prepared (a write to
            # cgroup.procs waits for an RCU grace period: about 8 ms, off the job's clock there).
            try:
                self.counters[worker.index].before_job(
                    JobLimits.from_wire(msg["limits"]).memory_mb * 1024 * 1024
                )
            except OSError as exc:
                _log(f"cgroup reset failed: {exc}")
        try:  # the supervisor's frame, as the bot encoded it
            payload.write_to(worker.ctl_w)
        except OSError:
            pass  # the supervisor died; its exit reports the job as crashed
        finally:
            payload.close()
        cgroup = worker.index if self._counted(worker.index) else -1
        self.reply({"op": "started", "id": msg["id"], "pid": worker.pid, "cgroup": cgroup})

    def sweep(self, slot: int) -> int:
        """Kill anything left in a slot's cgroup; return how many there were."""
        if not self._counted(slot):
            return 0
        members: list[int] = []
        with contextlib.suppress(OSError, ValueError):
            members = self.counters[slot].members()
        for pid in members:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if members:
            _log(f"slot {slot}: killed {len(members)} processes left in its cgroup")
        return len(members)

    def on_exit(self, worker: _Worker) -> None:
        """Reap a supervisor that ended; report a job it left unanswered; prepare a new one."""
        on_report(self, worker)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(worker.pid, 0)
        for fd in (worker.pidfd, worker.rep_r):
            with contextlib.suppress(OSError, KeyError, ValueError):
                self.sel.unregister(fd)
        for fd in (worker.pidfd, worker.ctl_w, worker.rep_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.sweep(worker.index)  # before its next processes join the worker's cgroup
        if worker.job is not None:
            if not worker.replied:
                answer(self, worker, {"setup_error": "the supervisor died"})
        else:
            reason = worker.last.get("setup_error") if worker.last else None
            worker.failures += 1
            text = f"worker {worker.index}: {reason or 'the supervisor died while idle'}"
            _log(text)
            self.reply({"op": "log", "text": text})
        worker.pid, worker.pidfd, worker.ctl_w, worker.rep_r, worker.job = 0, -1, -1, -1, None
        if self.running and worker.failures < 3:
            try:
                self.prepare(worker)
            except OSError as exc:
                _log(f"worker {worker.index}: prepare failed: {exc}")
        while self.waiting and self.pick() is not None:
            self.start_job(*self.waiting.pop(0))
        if self.waiting and not any(w.pid for w in self.workers):
            for msg, payload in self.waiting:  # nothing can be prepared any more: fail rather than hang
                if payload is not None:
                    payload.close()
                self.reply(
                    {"op": "done", "id": msg["id"], "report": {"setup_error": "no worker could start"}}
                )
            self.waiting.clear()

    # --- loop --------------------------------------------------------------------------------
    def reply(self, msg: dict[str, Any]) -> None:
        _wire.send(self.sock, msg)

    def serve(self) -> None:
        for worker in self.workers:
            self.prepare(worker)
        self.sel.register(self.sock, selectors.EVENT_READ, ("ctl", -1))
        while self.running:
            for key, _ in self.sel.select():
                kind, index = key.data
                if kind == "ctl":
                    self.on_control()
                elif kind == "rep":
                    on_report(self, self.workers[index])
                elif kind == "exit":
                    self.on_exit(self.workers[index])
        for worker in self.workers:
            if worker.pid:
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(worker.pidfd, signal.SIGKILL)
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(worker.pid, 0)

    def on_control(self) -> None:
        if not self.inbox.read(self.sock):
            self.running = False
            return
        for msg, payload in self.inbox.frames():
            op = msg.get("op")
            if op == "job":
                self.start_job(msg, payload)
                continue
            if payload is not None:
                payload.close()
            if op == "stop":
                self.running = False
            elif op == "ping":
                self.reply({"op": "pong", "threads": _threads()})


def main(argv: list[str]) -> int:
    """Start the template on the socket descriptor given as the only argument."""
    sock = int(argv[0])
    _linux.set_process_name("sandbox-tmpl")
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        cfg = _wire.recv(sock)
        started = time.monotonic()
        template = Template(sock, cfg)
        template.warm()
        if cfg.get("nice"):
            os.nice(int(cfg["nice"]))  # the bot's answers first when the CPU is short; forks inherit it
        threads = _threads()
        gc.collect()
        gc.freeze()  # the warm objects are never collected, so forks never write to their pages
        collapsed = _linux.collapse_anonymous_memory()  # reads /proc: before the root changes
        _linux.page_out_files()  # the libraries' start-up pages (no worker is forked yet)
        template.isolate()
        _wire.send(
            sock,
            {
                "op": "ready",
                "pid": os.getpid(),
                "layers": template.layers,
                "threads": threads,
                "seconds": time.monotonic() - started,
                "root_dir": cfg.get("root_dir"),
                "scratch": template.scratch,
                "seccomp": template.seccomp_bpf is not None,
                "landlock_abi": template.landlock_abi,
                "namespaces": template.namespaces,
                "workers": template.slots,
                "huge_pages_mb": collapsed // (1024 * 1024),
                "dynamo_loaded": "torch._dynamo" in sys.modules,
            },
        )
        template.serve()
    except Exception as exc:
        _log("".join(traceback.format_exception(exc)))
        with contextlib.suppress(Exception):
            os.set_blocking(sock, True)
            _wire.send(sock, {"op": "failed", "error": f"{type(exc).__name__}: {exc}"})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
