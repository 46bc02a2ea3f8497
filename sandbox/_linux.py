"""Linux system calls the standard library of Python 3.11 lacks, through ctypes."""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import struct

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.sethostname.argtypes = [ctypes.c_char_p, ctypes.c_size_t]

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
MNT_DETACH = 0x2

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NAME = 15
PR_SET_SECCOMP = 22
PR_CAPBSET_DROP = 24
PR_SET_SECUREBITS = 28
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2

# Syscall numbers the C library has no wrapper for, by machine.
_SYSCALLS: dict[str, dict[str, int]] = {
    "x86_64": {"pivot_root": 155, "capset": 126},
    "aarch64": {"pivot_root": 41, "capset": 91},
}
LANDLOCK_CREATE_RULESET = 444
LANDLOCK_ADD_RULE = 445
LANDLOCK_RESTRICT_SELF = 446


def _fail(what: str) -> OSError:
    err = ctypes.get_errno()
    return OSError(err, f"{what}: {os.strerror(err)}")


def _nr(name: str) -> int:
    try:
        return _SYSCALLS[platform.machine()][name]
    except KeyError as exc:
        raise OSError(38, f"{name}: unsupported machine {platform.machine()}") from exc


def syscall(nr: int, *args: int | bytes | ctypes.c_void_p | None) -> int:
    """Call a raw system call; raise OSError on failure."""
    ret = int(_libc.syscall(ctypes.c_long(nr), *args))
    if ret < 0:
        raise _fail(f"syscall {nr}")
    return ret


def unshare(flags: int) -> None:
    """Move the calling process into new namespaces."""
    if _libc.unshare(ctypes.c_int(flags)) != 0:
        raise _fail("unshare")


def setns(fd: int, nstype: int) -> None:
    """Join the namespace ``fd`` refers to."""
    if _libc.setns(ctypes.c_int(fd), ctypes.c_int(nstype)) != 0:
        raise _fail("setns")


def mount(
    source: str | None, target: str, fstype: str | None, flags: int = 0, data: str | None = None
) -> None:
    """Mount a file system (mount(2))."""
    ret = _libc.mount(
        source.encode() if source is not None else None,
        target.encode(),
        fstype.encode() if fstype is not None else None,
        flags,
        data.encode() if data is not None else None,
    )
    if ret != 0:
        raise _fail(f"mount {target}")


def umount(target: str, flags: int = MNT_DETACH) -> None:
    """Unmount ``target``."""
    if _libc.umount2(target.encode(), flags) != 0:
        raise _fail(f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    """Make ``new_root`` the root of the calling process's mount namespace."""
    syscall(_nr("pivot_root"), new_root.encode(), put_old.encode())


def set_process_name(name: str) -> None:
    """Name the calling thread (``ps``, ``top`` and profilers show it); best effort."""
    buf = ctypes.create_string_buffer(name.encode()[:15])
    _libc.prctl(PR_SET_NAME, ctypes.addressof(buf), 0, 0, 0)


def sethostname(name: str) -> None:
    """Set the host name of the current UTS namespace."""
    raw = name.encode()
    if _libc.sethostname(raw, len(raw)) != 0:
        raise _fail("sethostname")


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    """Call prctl(2)."""
    ret = int(_libc.prctl(option, arg2, arg3, arg4, arg5))
    if ret < 0:
        raise _fail(f"prctl {option}")
    return ret


def last_cap() -> int:
    """Return the highest capability number the kernel knows."""
    try:
        with open("/proc/sys/kernel/cap_last_cap") as fh:
            return int(fh.read())
    except OSError:
        return 40


def drop_capabilities(cap_last: int) -> None:
    """Drop every capability: bounding set, ambient set, and effective/permitted/inheritable."""
    call = _libc.prctl  # straight to libc: ~40 calls in every job process
    for cap in range(cap_last + 1):
        if call(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0:
            break
    with contextlib.suppress(OSError):
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    header = ctypes.create_string_buffer(struct.pack("=Ii", 0x20080522, 0))  # _LINUX_CAPABILITY_VERSION_3
    data = ctypes.create_string_buffer(bytes(24))
    syscall(_nr("capset"), ctypes.cast(header, ctypes.c_void_p), ctypes.cast(data, ctypes.c_void_p))


class _Fprog(ctypes.Structure):
    """struct sock_fprog (made once: a ctypes class costs each job process a few hundred µs)."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def load_seccomp_bpf(program: bytes) -> None:
    """Install a classic-BPF seccomp filter (no_new_privs must be set, or CAP_SYS_ADMIN held)."""
    count = len(program) // 8
    buf = ctypes.create_string_buffer(program, len(program))
    prog = _Fprog(count, ctypes.cast(buf, ctypes.c_void_p))
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog))


def landlock_call(nr: int, *args: int | bytes | ctypes.c_void_p | None) -> int:
    """Call one of the Landlock system calls."""
    return syscall(nr, *args)


_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MADV_COLLAPSE = 25
_HUGE = 2 * 1024 * 1024


def _mappings() -> list[tuple[int, int, str, str]]:
    """This process's memory mappings: (start, end, permissions, path or "" for anonymous memory)."""
    try:
        with open("/proc/self/maps") as fh:
            lines = fh.readlines()
    except OSError:
        return []
    out = []
    for line in lines:
        parts = line.split()
        start, end = (int(x, 16) for x in parts[0].split("-"))
        out.append((start, end, parts[1], parts[5] if len(parts) > 5 else ""))
    return out


def collapse_anonymous_memory() -> int:
    """Back the private writable memory with transparent huge pages; return the bytes collapsed.

    A fork copies one page-table entry per 4 KiB page of private memory; with 2 MiB pages it copies
    one per 2 MiB, so forking (and tearing down) a torch-sized process gets several times cheaper.
    Needs MADV_COLLAPSE (Linux 6.1); elsewhere nothing happens.
    """
    done = 0
    for start, end, perms, path in _mappings():
        if "w" not in perms or "p" not in perms or path not in ("", "[heap]"):
            continue
        lo, hi = (start + _HUGE - 1) & ~(_HUGE - 1), end & ~(_HUGE - 1)
        if hi > lo and _libc.madvise(lo, hi - lo, MADV_COLLAPSE) == 0:
            done += hi - lo
    return done


MADV_PAGEOUT = 21


def page_out_files() -> int:
    """Give back the file pages only this process maps; return the bytes of mappings advised.

    After the template's imports, most of what torch's libraries have resident is start-up code
    (operator registration, static initialisers) no job runs again. ``MADV_PAGEOUT`` reclaims the
    pages no other process maps; a job that needs one reads it back from the page cache or the disk.
    Anonymous memory is left alone. Needs Linux 5.4; elsewhere nothing happens.
    """
    done = 0
    for start, end, _perms, path in _mappings():
        if path.startswith("/") and _libc.madvise(start, end - start, MADV_PAGEOUT) == 0:
            done += end - start
    return done
