"""Landlock: confine file access, TCP, abstract unix sockets and signals of the calling process."""

from __future__ import annotations

import ctypes
import os
import struct
from collections.abc import Iterable

from . import _linux

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13
TRUNCATE = 1 << 14
IOCTL_DEV = 1 << 15
NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
_FILE_RIGHTS = READ_FILE | WRITE_FILE | EXECUTE | TRUNCATE | IOCTL_DEV
_CREATE_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1


def abi_version() -> int:
    """Return the kernel's Landlock ABI version, 0 when Landlock is unavailable."""
    try:
        return _linux.landlock_call(_linux.LANDLOCK_CREATE_RULESET, None, 0, _CREATE_VERSION)
    except OSError:
        return 0


def fs_access_for(abi: int) -> int:
    """Return every file access right the given ABI knows."""
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(
    abi: int,
    read_only: Iterable[str],
    read_write: Iterable[str],
    write_files: Iterable[str] = (),
) -> list[str]:
    """Allow only the listed paths, deny TCP and scope sockets and signals; return the features used.

    ``read_only`` paths may be read and executed, ``read_write`` paths anything, ``write_files``
    (device files such as /dev/null) read and written. Paths that do not exist are skipped.
    no_new_privs must already be set.
    """
    if abi < 1:
        raise OSError(95, "Landlock is not available")
    handled_fs = fs_access_for(abi)
    features = ["landlock-fs"]
    handled_net = 0
    scoped = 0
    if abi >= 4:
        handled_net = NET_BIND_TCP | NET_CONNECT_TCP
        features.append("landlock-net")
    if abi >= 6:
        scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        features.append("landlock-scope")
    if abi >= 6:
        attr = struct.pack("=QQQ", handled_fs, handled_net, scoped)
    elif abi >= 4:
        attr = struct.pack("=QQ", handled_fs, handled_net)
    else:
        attr = struct.pack("=Q", handled_fs)
    attr_buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _linux.landlock_call(
        _linux.LANDLOCK_CREATE_RULESET, ctypes.cast(attr_buf, ctypes.c_void_p), len(attr), 0
    )
    try:
        dev_rights = READ_FILE | WRITE_FILE | (IOCTL_DEV if abi >= 5 else 0) | (TRUNCATE if abi >= 3 else 0)
        for paths, rights in ((read_only, READ), (read_write, handled_fs), (write_files, dev_rights)):
            for path in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue
                try:
                    allowed = rights & handled_fs
                    if not os.path.isdir(path):
                        allowed &= _FILE_RIGHTS
                    rule = ctypes.create_string_buffer(struct.pack("=Qi", allowed, fd), 12)
                    _linux.landlock_call(
                        _linux.LANDLOCK_ADD_RULE,
                        ruleset,
                        _RULE_PATH_BENEATH,
                        ctypes.cast(rule, ctypes.c_void_p),
                        0,
                    )
                finally:
                    os.close(fd)
        _linux.landlock_call(_linux.LANDLOCK_RESTRICT_SELF, ruleset, 0)
    finally:
        os.close(ruleset)
    return features
