"""The supervisor of one worker: pid 1 of the job's namespaces, trusted, never runs job code.

Forked by the template into a fresh pid namespace, it makes the job's private mount, ipc and uts
namespaces (a size-limited tmpfs for the work dir, /tmp and /dev/shm; a /proc of its own), forks
the job process, maps its user namespace, and waits for the code. It then forwards the code, reads
stdout, stderr and the results channel within their budgets and enforces the wall-time limit
(``_watch``), and when the job ends kills everything left in the namespace and reports to the
template.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import selectors
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass
from typing import NoReturn, cast

from . import _job, _linux, _rootfs, _wire
from ._messages import JobFrame, JobLimits, JobSpec, Report, WorkerReady
from ._watch import Watch

F_SETPIPE_SZ = 1031


@dataclass
class SupervisorParams:
    """What the template hands a slot's supervisor."""

    index: int
    uid: int
    ctl_r: int
    rep_w: int
    cgroup_procs: list[int]  # cgroup.procs of the worker's cgroup, one per hierarchy (empty: none)
    limits: JobLimits
    namespaces: bool
    user_namespace: bool
    landlock_abi: int
    seccomp_bpf: bytes | None
    readable: list[str]
    scratch: str
    cap_last: int
    rehearse: bool = True  # the learner process walks the usual paths while it waits (``harness.rehearse``)


def _pipe(big: bool = False) -> tuple[int, int]:
    r, w = os.pipe2(os.O_CLOEXEC)
    if big:
        with contextlib.suppress(OSError):
            fcntl.fcntl(w, F_SETPIPE_SZ, 1024 * 1024)
    return r, w


def _write_file(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _mount_job_fs(p: SupervisorParams) -> str:
    """Give the job a private tmpfs (work dir, /tmp, /dev/shm), its own /proc and host name."""
    flags = _linux.MS_NOSUID | _linux.MS_NODEV
    size = p.limits.file_bytes
    _linux.mount("tmpfs", "/.job", "tmpfs", flags, f"size={size},nr_inodes=4096,mode=0755")
    # An interpreter under /tmp (a checkout in a temporary folder) would vanish under the job's
    # own /tmp: hold it aside, then bind it back read-only on top of the job's tmpfs.
    kept = _rootfs.covered_by_job_fs(_rootfs.BOUND)
    for i, path in enumerate(kept):
        os.mkdir(f"/.job/keep{i}", 0o755)
        _linux.mount(path, f"/.job/keep{i}", None, _linux.MS_BIND | _linux.MS_REC)
    for name, target in (("work", _rootfs.JOB_WORKDIR), ("tmp", _rootfs.JOB_TMP), ("shm", _rootfs.JOB_SHM)):
        path = f"/.job/{name}"
        os.mkdir(path, 0o700 if name != "work" else 0o755)
        os.chown(path, p.uid, p.uid)
        _linux.mount(path, target, None, _linux.MS_BIND)
        _linux.mount(None, target, None, _linux.MS_BIND | _linux.MS_REMOUNT | flags | _linux.MS_NOEXEC)
    for i, path in enumerate(kept):
        os.makedirs(path, mode=0o755, exist_ok=True)
        _rootfs.bind_ro(f"/.job/keep{i}", path)
        _linux.umount(f"/.job/keep{i}", _linux.MNT_DETACH)
    _linux.umount("/.job")
    _linux.mount("proc", "/proc", "proc", flags | _linux.MS_NOEXEC, "hidepid=2")
    _linux.sethostname("sandbox")
    shm_pages = max(1, size // 4096)
    for path, value in (
        ("/proc/sys/kernel/shmmax", size),
        ("/proc/sys/kernel/shmall", shm_pages),
        ("/proc/sys/kernel/shmmni", 16),
        ("/proc/sys/kernel/msgmnb", 65536),
        ("/proc/sys/kernel/msgmni", 16),
        ("/proc/sys/fs/mqueue/queues_max", 4),
    ):
        with contextlib.suppress(OSError):
            _write_file(path, str(value))
    return _rootfs.JOB_WORKDIR


def _kill_orphans(pgid: int) -> None:
    """Without a pid namespace: kill the job's group and every orphan this subreaper inherited."""
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)
    me = os.getpid()
    for _ in range(200):
        found = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    stat = fh.read()
            except OSError:
                continue
            m = re.match(r".*\) \S+ (\d+)", stat, re.S)
            if m and int(m.group(1)) == me:
                found = True
                with contextlib.suppress(OSError):
                    os.kill(int(entry), signal.SIGKILL)
        _reap(block=False)
        if not found:
            return
        time.sleep(0.005)


def _reap(block: bool) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main(p: SupervisorParams) -> NoReturn:
    """Run one slot's job from set-up to report; never returns."""
    code = 0
    try:
        _supervise(p)
    except BaseException as exc:  # report what broke; the template turns it into "crashed"
        code = 1
        with contextlib.suppress(Exception):
            _wire.send(p.rep_w, {"op": "report", "setup_error": f"{type(exc).__name__}: {exc}"})
    os._exit(code)


def _supervise(p: SupervisorParams) -> None:
    _linux.set_process_name("sandbox-super")
    _linux.prctl(_linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    _job._close_all_except({0, 1, 2, p.ctl_r, p.rep_w, *p.cgroup_procs})
    if p.namespaces:
        _linux.unshare(_linux.CLONE_NEWNS | _linux.CLONE_NEWIPC | _linux.CLONE_NEWUTS)
        workdir = _mount_job_fs(p)
    else:
        _linux.prctl(_linux.PR_SET_CHILD_SUBREAPER, 1)
        workdir = tempfile.mkdtemp(prefix=f"worker{p.index}-", dir=p.scratch)
        if _job.drops_uid(p.namespaces, p.uid, p.readable):
            os.chown(workdir, p.uid, p.uid)
    try:
        _serve(p, workdir)
    finally:
        if not p.namespaces:
            shutil.rmtree(workdir, ignore_errors=True)


def _fork_job_process(
    p: SupervisorParams, workdir: str, role: str, fds: dict[str, int], close_in_child: list[int]
) -> int:
    """Fork one job process (the grader or the learner); return its pid."""
    user_ns = p.namespaces and p.user_namespace and os.geteuid() == 0
    pid = os.fork()
    if pid == 0:
        for fd in close_in_child:
            with contextlib.suppress(OSError):
                os.close(fd)
        _job.main(
            _job.JobParams(
                role=role, uid=p.uid, out_w=fds["out_w"], err_w=fds["err_w"], res_w=fds.get("res_w", -1),
                job_r=fds.get("job_r", -1), to_sup_w=fds["to_sup_w"], from_sup_r=fds["from_sup_r"],
                to_peer_w=fds["to_peer_w"], from_peer_r=fds["from_peer_r"], result_fd=fds.get("result_fd", -1),
                limits=p.limits, namespaces=p.namespaces, user_namespace=user_ns, landlock_abi=p.landlock_abi,
                seccomp_bpf=p.seccomp_bpf, workdir=workdir, readable=p.readable, cap_last=p.cap_last,
                rehearse=p.rehearse,
            )
        )  # fmt: skip
    return pid


def _serve(p: SupervisorParams, workdir: str) -> None:
    cgroup_fds = list(p.cgroup_procs)
    out_r, out_w = _pipe()
    err_r, err_w = _pipe()
    res_r, res_w = _pipe()
    job_r, job_w = _pipe(big=True)
    grader_to_sup_r, grader_to_sup_w = _pipe()
    sup_to_grader_r, sup_to_grader_w = _pipe()
    learner_to_sup_r, learner_to_sup_w = _pipe()
    sup_to_learner_r, sup_to_learner_w = _pipe()
    grader_to_learner_r, grader_to_learner_w = _pipe(big=True)
    learner_to_grader_r, learner_to_grader_w = _pipe(big=True)
    everything = [
        out_r, out_w, err_r, err_w, res_r, res_w, job_r, job_w, grader_to_sup_r, grader_to_sup_w,
        sup_to_grader_r, sup_to_grader_w, learner_to_sup_r, learner_to_sup_w, sup_to_learner_r,
        sup_to_learner_w, grader_to_learner_r, grader_to_learner_w, learner_to_grader_r, learner_to_grader_w,
    ]  # fmt: skip
    reserved = {0, 1, 2, *everything}
    result_fd = next(fd for fd in (131, 173, 197, 211, 157, 109) if fd not in reserved)
    supervisor_only = [p.ctl_r, p.rep_w, *cgroup_fds]
    grader_fds = {
        "out_w": out_w, "err_w": err_w, "res_w": res_w, "job_r": job_r, "result_fd": result_fd,
        "to_sup_w": grader_to_sup_w, "from_sup_r": sup_to_grader_r,
        "to_peer_w": grader_to_learner_w, "from_peer_r": learner_to_grader_r,
    }  # fmt: skip
    learner_fds = {
        "out_w": out_w, "err_w": err_w, "to_sup_w": learner_to_sup_w, "from_sup_r": sup_to_learner_r,
        "to_peer_w": learner_to_grader_w, "from_peer_r": grader_to_learner_r,
    }  # fmt: skip
    # The learner never holds the results channel, the job pipe or the grader's handshake pipes.
    learner_pid = _fork_job_process(
        p, workdir, "learner", learner_fds,
        supervisor_only + [fd for fd in everything if fd not in learner_fds.values()],
    )  # fmt: skip
    pid = _fork_job_process(
        p,
        workdir,
        "grader",
        grader_fds,
        supervisor_only + [fd for fd in everything if fd not in grader_fds.values()],
    )
    for fd in everything:
        if fd not in (
            out_r,
            err_r,
            res_r,
            job_w,
            grader_to_sup_r,
            sup_to_grader_w,
            learner_to_sup_r,
            sup_to_learner_w,
        ):
            os.close(fd)
    pidfd = os.pidfd_open(pid)
    learner_pidfd = os.pidfd_open(learner_pid)
    try:
        layers = _handshake(learner_pid, p, learner_to_sup_r, sup_to_learner_w)
        layers = _handshake(pid, p, grader_to_sup_r, sup_to_grader_w)
        # Both job processes join the worker's cgroup now, isolated and waiting, before either has
        # read a job: what the grader spends decoding the learner's replies counts in the job's
        # memory and CPU, its limits and its result, and the write (which waits for an RCU grace
        # period, ~8 ms) is off the job's clock. Their set-up ran outside it, as before, each with
        # its own share of a busy host's CPU. The template resets the counters when the job arrives.
        for fd in cgroup_fds:
            for member in (learner_pid, pid):
                os.write(fd, str(member).encode())
        for fd in cgroup_fds:
            os.close(fd)
    except Exception:
        for fd in (pidfd, learner_pidfd):
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
        raise
    ready: WorkerReady = {"op": "ready", "layers": layers}
    _wire.send(p.rep_w, ready)
    try:
        job = cast(JobFrame, _wire.recv(p.ctl_r))  # made by the bot, relayed by the template
    except EOFError:
        return
    if job.get("test") is None:
        # A plain run needs no learner process: the job runs the code itself. The learner is reaped
        # with the rest at the end (waiting here would put its teardown on the job's clock).
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(learner_pidfd, signal.SIGKILL)
    os.close(learner_pidfd)
    t_job = t_attached = time.monotonic()
    nonce = os.urandom(16).hex()
    limits = JobLimits.from_wire(job["limits"]) if isinstance(job.get("limits"), dict) else p.limits
    wall_s = limits.wall_s
    job_for_k: JobSpec = {
        "code": job["code"],
        "test": job.get("test"),
        "prepared": job.get("prepared"),
        "nonce": nonce,
        "workdir": workdir,
        "wall_s": wall_s,
        "ends": time.monotonic() + wall_s,  # the watch below starts its clock after this
    }
    watch = Watch(pid, pidfd, {"out": out_r, "err": err_r, "res": res_r}, limits, nonce)
    with contextlib.suppress(OSError):
        _wire.send(job_w, job_for_k)
    os.close(job_w)
    # With a pid namespace the job is over once it says "done": kill what is left and report at once,
    # without waiting for the kernel to tear down a torch-sized address space.
    early = p.namespaces
    elapsed = watch.run(wall_s, stop_at_done=early)
    t_exit = time.monotonic()
    status: int | None = None
    usage = None
    if watch.exited or not early:
        _, status, usage = os.wait4(pid, 0)
    if p.namespaces:
        with contextlib.suppress(OSError):
            os.kill(-1, signal.SIGKILL)  # pid 1 of the namespace: everything else in it
        if status is not None:
            _reap(block=True)  # an abnormal end: report only once nothing is left at all
    else:
        _kill_orphans(pid)
    watch.drain()
    messages, problem = watch.messages()
    report: Report = {
        "op": "report",
        "layers": layers,
        "stdout": _wire.b64(bytes(watch.out)),
        "stderr": _wire.b64(bytes(watch.err)),
        "exceeded": watch.exceeded,
        "timed_out": watch.timed_out,
        "wall_ns": int(elapsed * 1e9),
        "exit_code": os.waitstatus_to_exitcode(status)
        if status is not None and os.WIFEXITED(status)
        else None,
        "signal": os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None,
        "cpu_ns": int((usage.ru_utime + usage.ru_stime) * 1e9) if usage is not None else None,
        "maxrss_kb": usage.ru_maxrss if usage is not None else None,
        "messages": messages,
        "channel_error": problem,
        "early": status is None,
        "timing": {"job": t_job, "attached": t_attached, "exit": t_exit, "cleaned": time.monotonic()},
    }
    # Said first, in a frame of its own: the template relays the report after it unread (``_sealed``).
    _wire.send(p.rep_w, {"op": "ending", "early": status is None})
    _wire.send(p.rep_w, report)
    if p.namespaces:
        _reap(block=True)


def _handshake(pid: int, p: SupervisorParams, from_job_r: int, to_job_w: int) -> list[str]:
    """Map a job process's user namespace when asked; return the layers it reports active."""
    buf = b""
    deadline = time.monotonic() + 30
    sel = selectors.DefaultSelector()
    sel.register(from_job_r, selectors.EVENT_READ)
    try:
        while True:
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                text = line.decode(errors="replace")
                if text == "userns":
                    _write_file(f"/proc/{pid}/setgroups", "deny")
                    _write_file(f"/proc/{pid}/uid_map", f"{_job.INNER_UID} {p.uid} 1\n")
                    _write_file(f"/proc/{pid}/gid_map", f"{_job.INNER_UID} {p.uid} 1\n")
                    os.write(to_job_w, b"go")
                elif text.startswith("ready "):
                    value = json.loads(text[6:])
                    return [str(v) for v in value]
                elif text.startswith("fail "):
                    raise RuntimeError(f"job set-up failed: {json.loads(text[5:])}")
                else:
                    raise RuntimeError(f"job set-up said {text!r}")
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not sel.select(remaining):
                raise TimeoutError("job set-up timed out")
            chunk = os.read(from_job_r, 4096)
            if not chunk:
                raise RuntimeError("job process died during set-up")
            buf += chunk
    finally:
        sel.close()
        os.close(from_job_r)
        os.close(to_job_w)
