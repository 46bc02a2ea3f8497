"""The seccomp filter: built once with libseccomp in the template, loaded as raw BPF by each job."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os

from . import _linux

# Calls a job never needs and that widen the kernel's attack surface or reach outside the sandbox.
DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "bpf", "keyctl", "add_key", "request_key",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "userfaultfd", "perf_event_open",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
    "swapon", "swapoff", "acct", "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "syslog",
    "iopl", "ioperm", "modify_ldt", "quotactl", "quotactl_fd", "settimeofday", "clock_settime",
    "clock_adjtime", "adjtimex", "io_uring_setup", "io_uring_enter", "io_uring_register", "fsopen",
    "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr", "kcmp", "pidfd_getfd",
    "sethostname", "setdomainname", "vhangup", "uselib", "nfsservctl", "_sysctl", "fanotify_init",
    "vmsplice",
)  # fmt: skip
NAMESPACE_FLAGS = (
    _linux.CLONE_NEWNS,
    _linux.CLONE_NEWCGROUP,
    _linux.CLONE_NEWUTS,
    _linux.CLONE_NEWIPC,
    _linux.CLONE_NEWUSER,
    _linux.CLONE_NEWPID,
    _linux.CLONE_NEWNET,
)
AF_UNIX = 1
TIOCSTI = 0x5412

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_NE = 1
SCMP_CMP_MASKED_EQ = 7


def _errno(err: int) -> int:
    return 0x00050000 | (err & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def libseccomp_path() -> str | None:
    """Return the shared library's name when libseccomp is installed."""
    return ctypes.util.find_library("seccomp")


def build_filter() -> bytes:
    """Return the filter as classic BPF (raise OSError when libseccomp is missing or fails)."""
    path = libseccomp_path()
    if path is None:
        raise OSError(errno.ENOENT, "libseccomp is not installed")
    lib = ctypes.CDLL(path, use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]

    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise OSError(errno.EINVAL, "seccomp_init failed")
    try:

        def rule(action: int, name: str, *cmps: tuple[int, int, int, int]) -> None:
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr < 0:  # not a call on this machine
                return
            arr = (_ArgCmp * max(1, len(cmps)))(*[_ArgCmp(*c) for c in cmps])
            ret = lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), arr)
            if ret < 0:
                raise OSError(-ret, f"seccomp rule for {name}: {os.strerror(-ret)}")

        for name in DENIED:
            rule(_errno(errno.EPERM), name)
        for flag in NAMESPACE_FLAGS:
            rule(_errno(errno.EPERM), "clone", (0, SCMP_CMP_MASKED_EQ, flag, flag))
        # clone3 passes its flags in memory, out of the filter's reach: make the C library use clone.
        rule(_errno(errno.ENOSYS), "clone3")
        rule(_errno(errno.EAFNOSUPPORT), "socket", (0, SCMP_CMP_NE, AF_UNIX, 0))
        rule(_errno(errno.EAFNOSUPPORT), "socketpair", (0, SCMP_CMP_NE, AF_UNIX, 0))
        rule(_errno(errno.EPERM), "ioctl", (1, SCMP_CMP_MASKED_EQ, 0xFFFFFFFF, TIOCSTI))
        rule(_errno(errno.EPERM), "kill", (0, SCMP_CMP_MASKED_EQ, 0xFFFFFFFF, 0xFFFFFFFF))

        fd = os.memfd_create("seccomp-bpf")
        try:
            ret = lib.seccomp_export_bpf(ctx, fd)
            if ret < 0:
                raise OSError(-ret, "seccomp_export_bpf failed")
            os.lseek(fd, 0, os.SEEK_SET)
            chunks = []
            while chunk := os.read(fd, 65536):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)
    finally:
        lib.seccomp_release(ctx)


def install(program: bytes) -> None:
    """Set no_new_privs and load the filter into the calling process."""
    _linux.prctl(_linux.PR_SET_NO_NEW_PRIVS, 1)
    _linux.load_seccomp_bpf(program)
