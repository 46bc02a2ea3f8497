"""Tell the truth about the host: which isolation layers work here, checked from inside a job."""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _landlock, _seccomp
from ._cgroup import parse_mountinfo
from .config import SandboxConfig
from .runner import Sandbox

# Run inside the sandbox: what the job itself can observe.
PROBE = r"""
import json, os, socket
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return line.split(":", 1)[1].strip()
    return None
def can(fn):
    try:
        fn()
        return True
    except Exception:
        return False
out = {
    "uid": os.getuid(),
    "uid_map": open("/proc/self/uid_map").read().split(),
    "pid": os.getpid(),
    "processes_visible": len([p for p in os.listdir("/proc") if p.isdigit()]),
    "hostname": socket.gethostname(),
    "cap_eff": status("CapEff"),
    "no_new_privs": status("NoNewPrivs"),
    "seccomp": status("Seccomp"),
    "inet_socket": can(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()),
    "write_root": can(lambda: open("/x", "w")),
    "cwd": os.getcwd(),
    "root_entries": sorted(os.listdir("/")),
    "env_names": sorted(os.environ),
    "open_fds": sorted(int(f) for f in os.listdir("/proc/self/fd")),
}
def up(name):  # SIOCGIFFLAGS through a unix socket: the only family a job may open
    import fcntl, struct
    with socket.socket(socket.AF_UNIX) as s:
        flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH", name.encode(), 0))[:18])[1]
    return "up" if flags & 1 else "down"
try:  # the job's own network namespace, as /proc shows it
    names = [l.split(":")[0].strip() for l in open("/proc/net/dev").read().splitlines()[2:]]
    out["interfaces"] = {n: up(n) for n in names}
except OSError:
    out["interfaces"] = None
print(json.dumps(out))
"""


@dataclass
class Diagnosis:
    """What :func:`diagnose` found."""

    host: dict[str, Any]
    layers: tuple[str, ...] = ()
    degraded: bool = False
    start_s: float = 0.0
    job_ms: list[float] = field(default_factory=list)
    probe: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        ms = sorted(self.job_ms)
        return {
            "host": self.host,
            "layers": list(self.layers),
            "degraded": self.degraded,
            "start_s": round(self.start_s, 3),
            "job_ms": {
                "runs": len(ms),
                "median": round(statistics.median(ms), 1) if ms else None,
                "p95": round(ms[min(len(ms) - 1, int(len(ms) * 0.95))], 1) if ms else None,
            },
            "probe": self.probe,
            "error": self.error,
        }


def host_facts() -> dict[str, Any]:
    """Return what the host offers, before starting anything."""
    try:
        with open("/proc/sys/user/max_user_namespaces") as fh:
            userns = int(fh.read())
    except (OSError, ValueError):
        userns = None
    v1: list[str] = []
    v2: list[str] = []
    try:
        for _root, point, fstype, opts in parse_mountinfo(Path("/proc/self/mountinfo").read_text()):
            if fstype == "cgroup":
                v1 += sorted(o for o in opts if o in ("memory", "pids", "cpu", "cpuacct"))
            else:
                v2 += Path(point, "cgroup.controllers").read_text().split()
    except OSError:
        pass
    return {
        "kernel": platform.release(),
        "machine": platform.machine(),
        "python": sys.version.split()[0],
        "root": os.geteuid() == 0,
        "max_user_namespaces": userns,
        "cgroup1_controllers": sorted(set(v1)),
        "cgroup2_controllers": sorted(set(v2)),
        "libseccomp": _seccomp.libseccomp_path(),
        "landlock_abi": _landlock.abi_version(),
        "cpus": os.cpu_count(),
    }


async def diagnose(config: SandboxConfig, runs: int = 20) -> Diagnosis:
    """Start a sandbox with ``config``, probe a job from inside, and time ``runs`` small jobs."""
    diag = Diagnosis(host=host_facts())
    started = time.monotonic()
    try:
        async with Sandbox(config) as sb:
            diag.start_s = time.monotonic() - started
            diag.degraded = sb.degraded
            probe = await sb.run(PROBE)
            diag.layers = probe.isolation or sb.isolation
            if probe.status == "passed":
                diag.probe = json.loads(probe.stdout)
            else:
                diag.error = f"probe job: {probe.status}: {probe.message} {probe.stderr[-300:]}"
            for _ in range(runs):
                t = time.monotonic()
                await sb.run("print(sum(range(10)))")
                diag.job_ms.append((time.monotonic() - t) * 1000)
    except Exception as exc:
        diag.error = f"{type(exc).__name__}: {exc}"
    return diag


def render(diag: Diagnosis) -> str:
    """Return the human report."""
    d = diag.to_dict()
    host = d["host"]
    lines = [
        f"host: Linux {host['kernel']} {host['machine']}, Python {host['python']}, {host['cpus']} CPUs, "
        f"{'root' if host['root'] else 'not root'}",
        f"  user namespaces: {'allowed' if host['max_user_namespaces'] else 'not allowed'}; "
        f"cgroup v1 controllers: {', '.join(host['cgroup1_controllers']) or 'none'}; "
        f"cgroup v2 controllers: {', '.join(host['cgroup2_controllers']) or 'none'}",
        f"  libseccomp: {host['libseccomp'] or 'missing'}; Landlock ABI: {host['landlock_abi'] or 'unavailable'}",
    ]
    if diag.error:
        lines.append(f"ERROR: {diag.error}")
    if diag.layers:
        lines.append(("DEGRADED isolation" if diag.degraded else "isolation") + ": " + ", ".join(diag.layers))
    probe = diag.probe
    if probe:
        lines += [
            "checked from inside a job:",
            f"  uid {probe['uid']} (map {' '.join(probe['uid_map'])}), pid {probe['pid']}, "
            f"{probe['processes_visible']} processes visible, host name {probe['hostname']!r}",
            f"  capabilities {probe['cap_eff']}, no_new_privs {probe['no_new_privs']}, seccomp mode {probe['seccomp']}",
            f"  network interfaces {probe['interfaces']}, IPv4 socket {'ALLOWED' if probe['inet_socket'] else 'refused'}",
            f"  write to / {'ALLOWED' if probe['write_root'] else 'refused'}; root holds {', '.join(probe['root_entries'])}",
            f"  environment: {', '.join(probe['env_names'])}; open descriptors {probe['open_fds']}",
        ]
    jobs = d["job_ms"]
    lines.append(f"template start: {d['start_s']:.2f} s (imports torch once)")
    if jobs["runs"]:
        lines.append(
            f"job round trip: median {jobs['median']} ms, p95 {jobs['p95']} ms over {jobs['runs']} runs"
        )
    return "\n".join(lines)
