"""The job process: forked by its supervisor, it locks itself in, waits for the code, runs it.

Order matters: take the descriptors it keeps, set rlimits, give up the uid (and enter a user
namespace of its own), drop every capability, set no_new_privs, then Landlock and seccomp, close
everything else. Only then does it read the job (its supervisor moves it into the slot's cgroups
first).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import resource
import signal
import sys
from dataclasses import dataclass
from typing import NoReturn, cast

from . import _landlock, _linux, _rootfs, _warm, _wire, harness
from ._messages import JobLimits, JobSpec

SECUREBITS_LOCKED_NOROOT = 0x2F  # NOROOT, NO_SETUID_FIXUP and KEEP_CAPS_OFF, each locked
INNER_UID = 1000


@dataclass
class JobParams:
    """What the supervisor hands a job process (all descriptors already open).

    Two job processes serve a graded job: the grader (``role == "grader"``) holds the results
    channel (``res_w``) and reads the job (``job_r``); the learner (``role == "learner"``) has
    neither, only its pipes to and from the grader. ``to_peer_w``/``from_peer_r`` are the pipes
    towards and from the other process; ``to_sup_w``/``from_sup_r`` the set-up handshake with the
    supervisor.
    """

    role: str
    uid: int
    out_w: int
    err_w: int
    res_w: int
    job_r: int
    to_sup_w: int
    from_sup_r: int
    to_peer_w: int
    from_peer_r: int
    result_fd: int
    limits: JobLimits
    namespaces: bool
    user_namespace: bool
    landlock_abi: int
    seccomp_bpf: bytes | None
    workdir: str
    readable: list[str]
    cap_last: int
    rehearse: bool = True


def _close_all_except(keep: set[int]) -> None:
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    top = limit if limit != resource.RLIM_INFINITY else 65536
    low = 0
    for fd in sorted(keep):
        if fd > low:
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, max(top, low))


def _move_fd(fd: int, target: int) -> int:
    if fd != target:
        os.dup2(fd, target, inheritable=False)
        os.close(fd)
    return target


def _sync(params: JobParams, text: str) -> None:
    os.write(params.to_sup_w, (text + "\n").encode())


def _wait_go(params: JobParams) -> None:
    reply = os.read(params.from_sup_r, 64)
    if not reply.startswith(b"go"):
        raise OSError(1, f"supervisor refused: {reply!r}")


def _rlimits(limits: JobLimits, uid_dropped: bool, role: str) -> None:
    cpu = int(limits.cpu_s + 0.999)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (65536, 65536))
    if uid_dropped:
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.pids, limits.pids))
    if limits.data_bytes:  # no cgroup: cap what each job process may add to the template's data
        with contextlib.suppress(ValueError, OSError):
            cap = _vm_data() + limits.data_bytes
            resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))


def _vm_data() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    return 0


def isolate(p: JobParams) -> list[str]:
    """Enter every layer the configuration asks for; return the names of those now active."""
    layers: list[str] = []
    os.setsid()
    null = os.open("/dev/null", os.O_RDONLY)
    _move_fd(null, 0)
    os.set_inheritable(0, True)
    os.dup2(p.out_w, 1)
    os.dup2(p.err_w, 2)
    os.close(p.out_w)
    os.close(p.err_w)
    if p.res_w >= 0:
        p.res_w = _move_fd(p.res_w, p.result_fd)
        os.set_inheritable(p.result_fd, False)

    is_root = os.geteuid() == 0
    drop_uid = drops_uid(p.namespaces, p.uid, p.readable)
    _rlimits(p.limits, uid_dropped=drop_uid or not is_root, role=p.role)
    layers.append("rlimits")
    if drop_uid:
        os.setgroups([])
        os.setresgid(p.uid, p.uid, p.uid)
        os.setresuid(p.uid, p.uid, p.uid)
        layers.append("uid")
        if p.user_namespace:
            _linux.unshare(_linux.CLONE_NEWUSER)
            _sync(p, "userns")
            _wait_go(p)
            layers.append("userns")
    if is_root or p.user_namespace:
        if is_root and not drop_uid:
            # Root keeps its uid (the interpreter is not readable by another): make uid 0 powerless.
            _linux.prctl(_linux.PR_SET_SECUREBITS, SECUREBITS_LOCKED_NOROOT)
        _linux.drop_capabilities(p.cap_last)
        layers.append("capabilities")
    _linux.prctl(_linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    if p.role == "grader":
        # No process of the same uid (the learner's) may trace it or read its memory or descriptors.
        _linux.prctl(_linux.PR_SET_DUMPABLE, 0)
    os.chdir(p.workdir)
    _linux.prctl(_linux.PR_SET_NO_NEW_PRIVS, 1)
    layers.append("no_new_privs")
    if p.landlock_abi > 0:
        if p.namespaces:
            features = _landlock.restrict(
                p.landlock_abi,
                read_only=["/"],
                read_write=[p.workdir, _rootfs.JOB_TMP, _rootfs.JOB_SHM],
                write_files=["/dev"],
            )
        else:
            features = _landlock.restrict(
                p.landlock_abi,
                read_only=p.readable,
                read_write=[p.workdir],
                write_files=["/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/random"],
            )
        layers.extend(features)
    if p.seccomp_bpf:
        _linux.load_seccomp_bpf(p.seccomp_bpf)
        layers.append("seccomp")
    return layers


def drops_uid(namespaces: bool, uid: int, readable: list[str]) -> bool:
    """Return True when the job process will run as ``uid`` (else it keeps root, powerless)."""
    return os.geteuid() == 0 and (namespaces or _readable_by(uid, readable))


def _readable_by(uid: int, paths: list[str]) -> bool:
    """Return True when ``uid`` could reach the interpreter (only "other" permission bits apply)."""
    for path in paths[:2]:
        current = "/"
        for part in path.strip("/").split("/"):
            current = os.path.join(current, part)
            try:
                mode = os.stat(current).st_mode
            except OSError:
                return False
            if not mode & 0o001:
                return False
    return bool(uid)


def _reseed() -> None:
    random.seed(os.urandom(32))
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(int.from_bytes(os.urandom(4), "little"))
    torch = sys.modules.get("torch")
    if torch is not None:
        seed = int.from_bytes(os.urandom(7), "little")
        if _warm.ONLY_CPU_GENERATOR:  # what torch.manual_seed would do, without its queued no-ops
            torch.default_generator.manual_seed(seed)
        else:
            torch.manual_seed(seed)


def main(p: JobParams) -> NoReturn:
    """Isolate, report readiness, wait for the job, run it, exit; never returns."""
    status = 70
    _linux.set_process_name(f"sandbox-{p.role}")
    try:
        try:
            layers = isolate(p)
            keep = {0, 1, 2, p.to_sup_w, p.from_sup_r, p.to_peer_w, p.from_peer_r}
            if p.role == "grader":
                keep |= {p.result_fd, p.job_r}
            _close_all_except(keep)
        except BaseException as exc:
            _sync(p, "fail " + json.dumps(f"{type(exc).__name__}: {exc}"))
            os._exit(71)
        if p.role == "learner" and p.rehearse:
            with contextlib.suppress(Exception):
                harness.rehearse()
        _sync(p, "ready " + json.dumps(layers))
        os.close(p.to_sup_w)
        os.close(p.from_sup_r)
        env = {"HOME": p.workdir, "PWD": p.workdir, "TMPDIR": _rootfs.JOB_TMP if p.namespaces else p.workdir}
        if p.role == "learner":
            _reseed()
            os.environ.update(env)
            with contextlib.suppress(AttributeError, ValueError):
                sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
            status = harness.serve_learner(p.from_peer_r, p.to_peer_w, p.workdir)
            os._exit(status)
        try:
            job = cast(JobSpec, _wire.recv(p.job_r))
        except (EOFError, _wire.WireError):
            os._exit(0)
        os.close(p.job_r)
        _reseed()
        os.environ.update(env)
        with contextlib.suppress(AttributeError, ValueError):
            sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
        status = harness.run_job(job, p.result_fd, (p.to_peer_w, p.from_peer_r))
    except BaseException:  # the harness reports through the channel; this is a last resort
        status = 70
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)
