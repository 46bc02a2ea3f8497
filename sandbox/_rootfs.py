"""The template's file system: a read-only root holding the system, the interpreter and nothing else.

Built once in the template's private mount namespace and entered with pivot_root, so every job
starts from it: /usr and the top-level links, the Python installation and the virtual environment
at their own paths (so lazy imports keep working for an unprivileged uid), a synthetic /etc, a
few device nodes, and empty mount points for the job's tmpfs and /proc. The bot's code, database,
settings and the rest of the host are simply not there.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys

from . import _linux

# Paths as the job sees them, inside its own mount namespace (not the host's /tmp).
JOB_WORKDIR = "/sandbox"
JOB_TMP = "/tmp"  # noqa: S108 - the job's private tmpfs
JOB_SHM = "/dev/shm"  # noqa: S108 - the job's private tmpfs
_TOP_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_DEVICES = {"null": (1, 3), "zero": (1, 5), "full": (1, 7), "random": (1, 8), "urandom": (1, 9)}
_ETC_COPY = ("ld.so.cache", "localtime")
USERS = (
    "root:x:0:0:root:/root:/usr/sbin/nologin\n"
    "sandbox:x:1000:1000:sandbox:/sandbox:/usr/sbin/nologin\n"
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
)
GROUPS = "root:x:0:\nsandbox:x:1000:\nnogroup:x:65534:\n"

# What build_and_enter bound into the root; supervisors forked from the template read it to put
# back the interpreter paths that the job's own /tmp (or /dev/shm) would otherwise cover.
BOUND: list[str] = []


def covered_by_job_fs(paths: list[str]) -> list[str]:
    """Return the bound paths lying under the job's tmpfs mount points (a venv under /tmp)."""
    tops = (JOB_WORKDIR, JOB_TMP, JOB_SHM)
    return [p for p in paths if any(p.startswith(top + "/") for top in tops)]


def interpreter_paths(exclude: list[str] | tuple[str, ...] = ()) -> list[str]:
    """Return the directories the interpreter needs: its installation, the venv, sys.path entries.

    ``exclude`` holds directories never to expose (the bot's source checkout on sys.path).
    """
    paths: list[str] = []
    excluded = {os.path.realpath(e) for e in exclude}
    for candidate in (sys.base_prefix, sys.prefix, *sys.path):
        if not candidate or not os.path.isabs(candidate) or not os.path.exists(candidate):
            continue
        real = os.path.realpath(candidate)
        if real in excluded:
            continue
        if os.path.isfile(real):  # python311.zip
            real = os.path.dirname(real)
        paths.append(real)
    # Keep the outermost directories only; /usr is bound whole anyway.
    out: list[str] = []
    for path in sorted(set(paths), key=len):
        if path == "/usr" or path.startswith("/usr/"):
            continue
        if not any(path == o or path.startswith(o + "/") for o in out):
            out.append(path)
    return out


def readable_paths(exclude: list[str] | tuple[str, ...] = ()) -> list[str]:
    """Return what a job may read when there is no mount namespace (Landlock rules)."""
    out = interpreter_paths(exclude)
    out += ["/usr", *[f"/{n}" for n in _TOP_LINKS if os.path.exists(f"/{n}")]]
    out += [f"/etc/{n}" for n in (*_ETC_COPY, "passwd", "group", "nsswitch.conf", "hosts")]
    return out


def bind_ro(source: str, target: str) -> None:
    _linux.mount(source, target, None, _linux.MS_BIND | _linux.MS_REC)
    flags = _linux.MS_BIND | _linux.MS_REMOUNT | _linux.MS_RDONLY | _linux.MS_NOSUID | _linux.MS_NODEV
    _linux.mount(None, target, None, flags)


def _write(path: str, text: str, mode: int = 0o644) -> None:
    with open(path, "w") as fh:
        fh.write(text)
    os.chmod(path, mode)


def build_and_enter(root: str, hidden: list[str], exclude: list[str]) -> list[str]:
    """Build the root at ``root`` (an empty directory), pivot into it; return the bound paths.

    Must run as root in a fresh private mount namespace. ``hidden`` paths (the bot's folder) are
    refused as bind sources even when the interpreter lives beneath them, except for the
    interpreter's own directories.
    """
    _linux.mount(None, "/", None, _linux.MS_REC | _linux.MS_PRIVATE)
    _linux.mount("tmpfs", root, "tmpfs", _linux.MS_NOSUID, "size=4m,nr_inodes=4096,mode=0755")
    for name in ("usr", "etc", "dev", "proc", "tmp", "sandbox", ".job", "dev/shm"):
        os.mkdir(os.path.join(root, name), 0o755)
    os.chmod(os.path.join(root, ".job"), 0o700)
    bound = ["/usr"]
    bind_ro("/usr", os.path.join(root, "usr"))
    for name in _TOP_LINKS:
        host = f"/{name}"
        if os.path.islink(host):
            os.symlink(os.readlink(host), os.path.join(root, name))
        elif os.path.isdir(host):
            os.mkdir(os.path.join(root, name), 0o755)
            bind_ro(host, os.path.join(root, name))
            bound.append(host)
    for path in interpreter_paths(exclude):
        target = root + path
        os.makedirs(target, mode=0o755, exist_ok=True)
        bind_ro(path, target)
        bound.append(path)
    # Directories created on the way (/root, /work/main ...) are plain 0755 directories here.
    for path in bound:
        parent = os.path.dirname(root + path)
        while parent != root and parent.startswith(root):
            os.chmod(parent, 0o755)  # noqa: S103 - read-only system directories of the job root
            parent = os.path.dirname(parent)
    etc = os.path.join(root, "etc")
    for name in _ETC_COPY:
        host = f"/etc/{name}"
        if os.path.exists(host):
            shutil.copyfile(host, os.path.join(etc, name))
            os.chmod(os.path.join(etc, name), 0o644)
    _write(os.path.join(etc, "passwd"), USERS)
    _write(os.path.join(etc, "group"), GROUPS)
    _write(os.path.join(etc, "hostname"), "sandbox\n")
    _write(os.path.join(etc, "hosts"), "127.0.0.1 localhost sandbox\n::1 localhost\n")
    _write(os.path.join(etc, "nsswitch.conf"), "passwd: files\ngroup: files\nhosts: files\n")
    _write(os.path.join(etc, "resolv.conf"), "")
    dev = os.path.join(root, "dev")
    for name, (major, minor) in _DEVICES.items():
        os.mknod(os.path.join(dev, name), stat.S_IFCHR | 0o666, os.makedev(major, minor))
        os.chmod(os.path.join(dev, name), 0o666)  # noqa: S103 - /dev/null and friends
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):  # fmt: skip
        os.symlink(target, os.path.join(dev, name))
    os.chmod(root, 0o755)  # noqa: S103 - the job root is read-only and world-readable
    _linux.mount(None, root, None, _linux.MS_REMOUNT | _linux.MS_RDONLY | _linux.MS_NOSUID)
    os.chdir(root)
    _linux.pivot_root(".", ".")
    _linux.umount(".", _linux.MNT_DETACH)
    os.chdir("/")
    for path in hidden:
        if os.path.exists(path) and not any(b == path or b.startswith(path + "/") for b in bound):
            raise RuntimeError(f"{path} is visible inside the sandbox root")
    BOUND[:] = bound
    return bound
