"""Cgroups per worker slot (memory with swap, processes, CPU) on cgroup v1 or v2: the bot's side.

The bot side finds the cgroup mounts, creates the slot cgroups with their limits, kills what is in
them and removes them (:class:`CgroupSet`); the template opens the files of each slot once and
resets and reads them around every job (``sandbox._cgroup_slot``).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import re
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ._cgroup_slot import SlotFiles

log = logging.getLogger("sandbox.cgroup")

_V1_NEEDED = ("memory", "pids")
_V1_OPTIONAL = ("cpu", "cpuacct")
_PREFIX = "quizbot-sandbox-"
_instances = itertools.count(1)


def _instance_name() -> str:
    """Return a name unique to this process and sandbox (several may run in one process)."""
    return f"{_PREFIX}{os.getpid()}-{next(_instances)}"


# The kernel's CPU weight of a task at niceness 0..19 (sched_prio_to_weight): a cgroup v1 group of
# these shares weighs as one such task against the tasks beside it.
_NICE_WEIGHTS = (1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87, 70, 56, 45, 36, 29, 23, 18, 15)


def shares_for_nice(nice: int) -> int:
    """Return the cgroup v1 ``cpu.shares`` of one task at this niceness (0-19)."""
    return _NICE_WEIGHTS[min(max(nice, 0), len(_NICE_WEIGHTS) - 1)]


def parse_mountinfo(text: str) -> list[tuple[str, str, str, set[str]]]:
    """Return (mount root, mount point, fs type, super options) of every cgroup mount."""
    out = []
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        fields = left.split()
        rfields = right.split()
        if len(fields) < 5 or len(rfields) < 3 or rfields[0] not in ("cgroup", "cgroup2"):
            continue
        opts = set(rfields[2].split(",")) | set(fields[5].split(",") if len(fields) > 5 else [])
        out.append((fields[3], fields[4].replace("\\040", " "), rfields[0], opts))
    return out


def _parse_self_cgroup(text: str) -> dict[str, str]:
    """Return controller -> cgroup path of the calling process ("" keys the v2 hierarchy)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[1] == "":
            out[""] = parts[2]
        for ctl in parts[1].split(","):
            if ctl:
                out[ctl] = parts[2]
    return out


def _read(path: str) -> str:
    with open(path) as fh:
        return fh.read()


def _write(path: str, value: str) -> None:
    with open(path, "w") as fh:
        fh.write(value)


def _join(mountpoint: str, mount_root: str, cgroup_path: str) -> str:
    rel = cgroup_path
    if mount_root != "/" and rel.startswith(mount_root):
        rel = rel[len(mount_root) :]
    return os.path.join(mountpoint, rel.lstrip("/"))


@dataclass
class CgroupSet:
    """The slot cgroups of one sandbox; ``slots[i]`` holds slot i's files."""

    version: int
    base_dirs: tuple[str, ...]
    slots: list[SlotFiles] = field(default_factory=list)
    controllers: tuple[str, ...] = ()

    @property
    def layers(self) -> tuple[str, ...]:
        """Return the isolation layer names this set provides."""
        return tuple(f"cgroup{self.version}:{c}" for c in self.controllers)

    @classmethod
    def create(
        cls,
        slots: int,
        *,
        memory_bytes: int,
        pids: int,
        cpu_cores: float,
        nice: int = 0,
        parent: str | None = None,
        mountinfo: str | None = None,
        self_cgroup: str | None = None,
    ) -> CgroupSet:
        """Create ``slots`` cgroups with the given limits (raise OSError when the host cannot)."""
        mountinfo = _read("/proc/self/mountinfo") if mountinfo is None else mountinfo
        self_cgroup = _read("/proc/self/cgroup") if self_cgroup is None else self_cgroup
        mounts = parse_mountinfo(mountinfo)
        own = _parse_self_cgroup(self_cgroup)
        unified = next((m for m in mounts if m[2] == "cgroup2"), None)
        if unified is not None:
            root_ctl = set(_read(os.path.join(unified[1], "cgroup.controllers")).split())
            if {"memory", "pids"} <= root_ctl:
                return cls._create_v2(slots, unified, own, memory_bytes, pids, cpu_cores, nice, parent, root_ctl)
        v1 = {}
        for root, point, fstype, opts in mounts:
            if fstype == "cgroup":
                for ctl in (*_V1_NEEDED, *_V1_OPTIONAL):
                    if ctl in opts and ctl not in v1:
                        v1[ctl] = (root, point)
        missing = [c for c in _V1_NEEDED if c not in v1]
        if missing:
            raise OSError(errno.ENOENT, f"cgroup controllers not mounted: {', '.join(missing)}")
        return cls._create_v1(slots, v1, own, memory_bytes, pids, cpu_cores, nice, parent)

    @classmethod
    def _create_v1(
        cls,
        slots: int,
        v1: dict[str, tuple[str, str]],
        own: dict[str, str],
        memory_bytes: int,
        pids: int,
        cpu_cores: float,
        nice: int,
        parent: str | None,
    ) -> CgroupSet:
        name = _instance_name()
        bases: dict[str, str] = {}
        by_point: dict[str, str] = {}
        for ctl, (root, point) in v1.items():
            if point in by_point:  # co-mounted controllers (cpu,cpuacct) share one directory
                bases[ctl] = by_point[point]
                continue
            base_parent = _join(point, root, parent if parent is not None else own.get(ctl, "/"))
            _remove_stale(base_parent)
            bases[ctl] = by_point[point] = os.path.join(base_parent, name)
            os.makedirs(bases[ctl], exist_ok=True)
        cset = cls(version=1, base_dirs=tuple(dict.fromkeys(bases.values())), controllers=tuple(sorted(v1)))
        try:
            with contextlib.suppress(OSError):
                _write(os.path.join(bases["memory"], "memory.use_hierarchy"), "1")
            if "cpu" in bases and nice:  # the slots together weigh as one task of the sandbox's niceness
                _write(os.path.join(bases["cpu"], "cpu.shares"), str(shares_for_nice(nice)))
            for i in range(slots):
                dirs = {ctl: os.path.join(base, f"slot{i}") for ctl, base in bases.items()}
                for d in dict.fromkeys(dirs.values()):
                    os.makedirs(d, exist_ok=True)
                mem = dirs["memory"]
                memsw = os.path.join(mem, "memory.memsw.limit_in_bytes")
                has_memsw = os.path.exists(memsw)
                _write(os.path.join(mem, "memory.limit_in_bytes"), str(memory_bytes))
                if has_memsw:
                    _write(memsw, str(memory_bytes))
                with contextlib.suppress(OSError):
                    _write(os.path.join(mem, "memory.swappiness"), "0")
                _write(os.path.join(dirs["pids"], "pids.max"), str(pids))
                if "cpu" in dirs:
                    period = 100000
                    _write(os.path.join(dirs["cpu"], "cpu.cfs_period_us"), str(period))
                    _write(os.path.join(dirs["cpu"], "cpu.cfs_quota_us"), str(int(period * cpu_cores)))
                cpu_usage = os.path.join(dirs["cpuacct"], "cpuacct.usage") if "cpuacct" in dirs else None
                unique = tuple(dict.fromkeys(dirs.values()))
                cset.slots.append(
                    SlotFiles(
                        version=1,
                        dirs=unique,
                        procs=tuple(os.path.join(d, "cgroup.procs") for d in unique),
                        memory_limit=os.path.join(mem, "memory.limit_in_bytes"),
                        memsw_limit=memsw if has_memsw else None,
                        memory_peak=os.path.join(mem, "memory.max_usage_in_bytes"),
                        memory_events=os.path.join(mem, "memory.oom_control"),
                        cpu_usage=cpu_usage,
                        kill=None,
                    )
                )
        except OSError:
            cset.remove()
            raise
        return cset

    @classmethod
    def _create_v2(
        cls,
        slots: int,
        unified: tuple[str, str, str, set[str]],
        own: dict[str, str],
        memory_bytes: int,
        pids: int,
        cpu_cores: float,
        nice: int,
        parent: str | None,
        root_ctl: set[str],
    ) -> CgroupSet:
        root, point = unified[0], unified[1]
        base_parent = _join(point, root, parent if parent is not None else own.get("", "/"))
        wanted = [c for c in ("memory", "pids", "cpu") if c in root_ctl]
        _remove_stale(base_parent)
        _enable_v2(base_parent, wanted, point)
        base = os.path.join(base_parent, _instance_name())
        os.makedirs(base, exist_ok=True)
        cset = cls(version=2, base_dirs=(base,), controllers=tuple(wanted))
        try:
            _write(os.path.join(base, "cgroup.subtree_control"), " ".join(f"+{c}" for c in wanted))
            if "cpu" in wanted and nice:  # the slots together weigh as one task of the sandbox's niceness
                _write(os.path.join(base, "cpu.weight.nice"), str(nice))
            for i in range(slots):
                d = os.path.join(base, f"slot{i}")
                os.makedirs(d, exist_ok=True)
                _write(os.path.join(d, "memory.max"), str(memory_bytes))
                with contextlib.suppress(OSError):
                    _write(os.path.join(d, "memory.swap.max"), "0")
                _write(os.path.join(d, "pids.max"), str(pids))
                if "cpu" in wanted:
                    _write(os.path.join(d, "cpu.max"), f"{int(100000 * cpu_cores)} 100000")
                peak = os.path.join(d, "memory.peak")
                cset.slots.append(
                    SlotFiles(
                        version=2,
                        dirs=(d,),
                        procs=(os.path.join(d, "cgroup.procs"),),
                        memory_limit=os.path.join(d, "memory.max"),
                        memsw_limit=None,
                        memory_peak=peak if os.path.exists(peak) else None,
                        memory_events=os.path.join(d, "memory.events"),
                        cpu_usage=os.path.join(d, "cpu.stat") if "cpu" in wanted else None,
                        kill=os.path.join(d, "cgroup.kill"),
                    )
                )
        except OSError:
            cset.remove()
            raise
        return cset

    def kill_slot(self, index: int) -> None:
        """Kill every process in one slot and wait (up to 2 s) until it is empty."""
        _kill_dirs(self.slots[index].dirs, self.slots[index].kill)

    def remove(self) -> None:
        """Kill what is left and remove every cgroup this set created."""
        for slot in self.slots:
            _kill_dirs(slot.dirs, slot.kill)
            for d in slot.dirs:
                with contextlib.suppress(OSError):
                    os.rmdir(d)
        for base in self.base_dirs:
            for entry in _subdirs(base):
                _kill_dirs((entry,), os.path.join(entry, "cgroup.kill") if self.version == 2 else None)
                with contextlib.suppress(OSError):
                    os.rmdir(entry)
            with contextlib.suppress(OSError):
                os.rmdir(base)
        self.slots.clear()


def _subdirs(path: str) -> list[str]:
    try:
        return [e.path for e in os.scandir(path) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _procs(d: str) -> list[int]:
    try:
        return [int(x) for x in _read(os.path.join(d, "cgroup.procs")).split()]
    except (OSError, ValueError):
        return []


def _kill_dirs(dirs: tuple[str, ...], kill_file: str | None) -> None:
    if kill_file is not None and os.path.exists(kill_file):
        with contextlib.suppress(OSError):
            _write(kill_file, "1")
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        pids = [p for d in dirs for p in _procs(d)]
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
    log.warning("processes left in cgroups %s", ", ".join(dirs))


def _remove_stale(base_parent: str) -> None:
    """Remove slot cgroups left by a sandbox process that no longer exists."""
    for entry in _subdirs(base_parent):
        m = re.fullmatch(re.escape(_PREFIX) + r"(\d+)(-\d+)?", os.path.basename(entry))
        if m is None or os.path.exists(f"/proc/{m.group(1)}"):
            continue
        for sub in _subdirs(entry):
            _kill_dirs((sub,), os.path.join(sub, "cgroup.kill"))
            with contextlib.suppress(OSError):
                os.rmdir(sub)
        with contextlib.suppress(OSError):
            os.rmdir(entry)


def _enable_v2(base_parent: str, wanted: Sequence[str], point: str) -> None:
    """Enable controllers for the children of ``base_parent`` (moving this process to a leaf if needed)."""
    control = os.path.join(base_parent, "cgroup.subtree_control")
    have = set(_read(control).split()) if os.path.exists(control) else set()
    if set(wanted) <= have:
        return
    value = " ".join(f"+{c}" for c in wanted)
    try:
        _write(control, value)
    except OSError as exc:
        if exc.errno != errno.EBUSY or os.path.normpath(base_parent) == os.path.normpath(point):
            raise
        # "No internal processes": move this process into a leaf first, as delegated services do.
        leaf = os.path.join(base_parent, "quizbot-main")
        os.makedirs(leaf, exist_ok=True)
        for pid in _procs(base_parent):
            with contextlib.suppress(OSError):
                _write(os.path.join(leaf, "cgroup.procs"), str(pid))
        log.info("moved the processes of %s into %s to delegate controllers", base_parent, leaf)
        _write(control, value)
