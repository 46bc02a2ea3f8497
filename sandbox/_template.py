"""The warm template: exec'd by the bot, imports torch once, forks a supervisor per job.

Started by ``_process.TemplateProcess`` as ``python -I -B -c <launcher> FD``, FD a unix socket to
the bot; the first frame is the configuration. The template imports and warms everything, fixes
thread counts (it never runs a parallel torch op), freezes the garbage collector, backs its memory
with huge pages (cheaper forks), enters its own empty network namespace and read-only root,
answers ``ready`` and serves frames:

- ``{"op": "job", "id", "slot", "code", "test", "limits"}`` -> ``{"op": "started"}``,
  then ``{"op": "done", "id", "report"}``;
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
from dataclasses import dataclass, field
from typing import Any, cast

from . import _cgroup, _landlock, _linux, _rootfs, _seccomp, _supervisor, _wire, harness
from ._messages import JobLimits, Report


def _log(text: str) -> None:
    with contextlib.suppress(OSError):
        os.write(2, f"sandbox-template[{os.getpid()}]: {text}\n".encode())


def _warm_torch(optimizers: bool = True) -> None:
    """Run a small single-threaded exercise so lazy initialisation happens once, here."""
    import io

    torch = sys.modules.get("torch")
    if torch is None:
        return
    w = torch.rand(1, 3, requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = w @ x
    loss = ((y - torch.zeros(1, 2)) ** 2).mean()
    loss.backward()
    torch.allclose(x.float(), x)
    print(w.grad, loss.item(), file=io.StringIO())
    layer = torch.nn.Linear(3, 2)
    out = torch.nn.functional.mse_loss(layer(torch.ones(4, 3)), torch.zeros(4, 2))
    out.backward()
    if optimizers:  # the first optimizer imports torch._dynamo: about 1 s and 70 MB
        for opt in (torch.optim.SGD(layer.parameters(), lr=0.1), torch.optim.Adam(layer.parameters())):
            opt.step()
            opt.zero_grad()
    with torch.no_grad():
        (x * 2).sum()


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
    buf: bytearray = field(default_factory=bytearray)
    ready_at: float = 0.0
    job: dict[str, Any] | None = None
    replied: bool = False
    eof: bool = False
    failures: int = 0
    frames_seen: int = 0


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
        self.counters: list[_cgroup.SlotCounters] = []
        self.workers: list[_Worker] = []
        self.waiting: list[dict[str, Any]] = []
        self.sel = selectors.DefaultSelector()
        self.inbox = _wire.FrameBuffer()
        self.running = True

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
        _warm_torch(bool(self.cfg.get("warm_optimizers", True)))
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            numpy.random.seed(0)  # the first call initialises lazily: pay it here, not per job
        if torch is not None:
            torch.manual_seed(0)
        harness.prepare_template()

    def isolate(self) -> None:
        cfg = self.cfg
        is_root = os.geteuid() == 0
        self.readable = _rootfs.readable_paths(cfg.get("exclude_paths", []))
        self.counters = [
            _cgroup.SlotCounters(_cgroup.SlotFiles.from_wire(s)) for s in cfg.get("cgroups") or []
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
        worker.buf = bytearray()
        worker.job = None
        worker.eof = worker.replied = False
        worker.ready_at = 0.0
        worker.frames_seen = 0
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

    def _counted(self, index: int) -> bool:
        """Return True when worker ``index`` has a cgroup (worker i runs in slot cgroup i)."""
        return 0 <= index < len(self.counters)

    def start_job(self, msg: dict[str, Any]) -> None:
        slot = int(msg["slot"])
        worker = self.pick()
        if worker is None:
            self.waiting.append(msg)  # every worker is busy: the job starts when one is prepared
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
        frame = {
            "op": "job",
            "code": msg["code"],
            "test": msg.get("test"),
            "prepared": msg.get("prepared"),
            "limits": msg["limits"],
            "slot": slot,
        }
        with contextlib.suppress(OSError):  # the supervisor died; its exit reports the job as crashed
            _wire.send(worker.ctl_w, frame)
        cgroup = worker.index if self._counted(worker.index) else -1
        self.reply({"op": "started", "id": msg["id"], "pid": worker.pid, "cgroup": cgroup})

    def on_report(self, worker: _Worker) -> None:
        """Read the supervisor's frames: "ready", then the report (answered at once: the job is over)."""
        while not worker.eof:
            try:
                chunk = os.read(worker.rep_r, 65536)
            except BlockingIOError:
                break
            if not chunk:
                worker.eof = True
                with contextlib.suppress(KeyError, ValueError):
                    self.sel.unregister(worker.rep_r)
                break
            worker.buf += chunk
        frames: list[dict[str, Any]] = []
        with contextlib.suppress(_wire.WireError):
            frames = _wire.FrameBuffer().feed(bytes(worker.buf))
        for frame in frames[worker.frames_seen :]:
            worker.frames_seen += 1
            if frame.get("op") == "ready":
                worker.ready_at = time.monotonic()
            elif worker.job is not None and not worker.replied:
                self.answer(worker, cast(Report, frame))  # the supervisor's report (it checked each line)

    def answer(self, worker: _Worker, report: Report) -> None:
        """Add the slot's counters to a job's report and send it to the bot."""
        job = worker.job
        assert job is not None
        if self._counted(worker.index):
            if not report.get("early"):  # else the killed processes may still be tearing down
                report["leftovers"] = self.sweep(worker.index)
            with contextlib.suppress(OSError, ValueError):
                report["cgroup"] = self.counters[worker.index].after_job()
        timing = report.setdefault("timing", {})
        if isinstance(timing, dict):
            timing["recv"] = job.get("t_recv")
            timing["answered"] = time.monotonic()
        worker.replied = True
        worker.failures = 0
        self.reply({"op": "done", "id": job["id"], "report": report})

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
        self.on_report(worker)
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
                self.answer(worker, {"setup_error": "the supervisor died"})
        else:
            frames: list[dict[str, Any]] = []
            with contextlib.suppress(_wire.WireError):
                frames = _wire.FrameBuffer().feed(bytes(worker.buf))
            reason = frames[-1].get("setup_error") if frames else None
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
            self.start_job(self.waiting.pop(0))
        if self.waiting and not any(w.pid for w in self.workers):
            for msg in self.waiting:  # nothing can be prepared any more: fail rather than hang
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
                    self.on_report(self.workers[index])
                elif kind == "exit":
                    self.on_exit(self.workers[index])
        for worker in self.workers:
            if worker.pid:
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(worker.pidfd, signal.SIGKILL)
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(worker.pid, 0)

    def on_control(self) -> None:
        data = os.read(self.sock, 1 << 20)
        if not data:
            self.running = False
            return
        for msg in self.inbox.feed(data):
            op = msg.get("op")
            if op == "job":
                self.start_job(msg)
            elif op == "stop":
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
        threads = _threads()
        gc.collect()
        gc.freeze()  # the warm objects are never collected, so forks never write to their pages
        collapsed = _linux.collapse_anonymous_memory()  # reads /proc: before the root changes
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
