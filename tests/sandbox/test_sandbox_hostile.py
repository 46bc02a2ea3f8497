"""Hostile submissions: each is contained, a job running beside it is unaffected, nothing survives.

Every case runs next to a bystander job on the shared pool and asserts (1) the hostile job's status,
(2) whatever else the case is about, (3) the bystander passed with its exact output, and (4) through
the ``clean_pool`` fixture, that nothing either job started is still running and the template is
the same process as before.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from sandbox import Result
from tests.sandbox.sandbox_support import BYSTANDER_OUT, SECRET, Pool

PROJECT = Path(__file__).resolve().parents[2]


@dataclass
class Case:
    name: str
    code: str
    statuses: tuple[str, ...]
    check: Callable[[Result], Any] | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)


def out_has(*texts: str) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        for text in texts:
            assert text in r.stdout + r.stderr + (r.error.message if r.error else ""), (text, r)

    return check


def error_is(*types: str) -> Callable[[Result], None]:
    def check(r: Result) -> None:
        assert r.error is not None and r.error.type in types, r

    return check


CASES = [
    # --- time -------------------------------------------------------------------------------------
    Case("cpu-loop", "while True:\n    pass\n", ("timeout",), out_has()),
    Case("sleep-past-wall", "import time\ntime.sleep(60)\n", ("timeout",)),
    Case(
        "busy-threads",
        "import threading\ndef spin():\n    while True:\n        pass\n"
        "for _ in range(4):\n    threading.Thread(target=spin).start()\n",
        ("timeout",),
    ),
    # --- processes ------------------------------------------------------------------------------
    Case(
        "setsid-double-fork-daemon",
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(300)\n"
        "    os._exit(0)\nprint('parent done')\n",
        ("passed",),
        out_has("parent done"),
    ),
    Case(
        "fork-bomb",
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        ("timeout", "error", "crashed", "memory"),
    ),
    Case(
        "thread-bomb",
        "import threading, time\nwhile True:\n    threading.Thread(target=time.sleep, args=(60,)).start()\n",
        ("error", "timeout", "crashed", "memory"),
    ),
    Case(
        "child-outlives-parent",
        "import subprocess\nsubprocess.Popen(['sleep', '300'])\nprint('started')\n",
        ("passed",),
        out_has("started"),
    ),
    Case(
        "kill-everyone",
        "import os, signal\nos.kill(-1, signal.SIGKILL)\nprint('still here')\n",
        ("error",),
        error_is("PermissionError"),
    ),
    Case(
        "kill-parent",
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n",
        ("error",),
        error_is("PermissionError", "ProcessLookupError"),
    ),
    Case(
        "kill-pid-1",
        "import os, signal\nos.kill(1, signal.SIGTERM)\n",
        ("error",),
        error_is("PermissionError", "ProcessLookupError"),
    ),
    Case(
        "ptrace-parent",
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.ptrace(16, os.getppid(), 0, 0), ctypes.get_errno())\n",
        ("passed",),
        out_has("-1 1"),
    ),
    Case(
        "see-other-processes",
        "import os\n"
        "def live(p):\n"
        "    try:\n"
        "        return open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[0] != 'Z'\n"
        "    except OSError:\n"
        "        return False\n"
        "print([int(p) for p in os.listdir('/proc') if p.isdigit() and live(p)] == [os.getpid()])\n",
        ("passed",),
        out_has("True"),
    ),
    # --- memory -------------------------------------------------------------------------------------
    Case(
        "memory-bomb-python", "chunks = []\nwhile True:\n    chunks.append(bytearray(10**7))\n", ("memory",)
    ),
    Case(
        "memory-bomb-torch",
        "import torch\nxs = []\nwhile True:\n    xs.append(torch.ones(10**7))\n",
        ("memory",),
    ),
    Case("one-huge-tensor", "import torch\nx = torch.ones(10**11)\nprint(x.sum())\n", ("memory",)),
    Case(
        "shared-memory-flood",
        "with open('/dev/shm/big', 'wb') as f:\n    while True:\n        f.write(b'x' * 10**6)\n",
        ("error", "memory"),
        error_is("OSError"),
    ),
    Case("torch-shared-memory", "import torch\nx = torch.ones(10**8).share_memory_()\n", ("error", "memory")),
    Case(
        "sysv-shared-memory",
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.shmget(0, 10**9, 0o1000 | 0o600), ctypes.get_errno())\n",
        ("passed",),
        out_has("-1 "),
    ),
    Case("recursion-bomb", "def f(n):\n    return f(n + 1)\nf(0)\n", ("error",), error_is("RecursionError")),
    Case(
        "deep-recursion-raised-limit",
        "import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1)\nf(0)\n",
        ("error", "crashed", "memory", "timeout"),
    ),
    # --- files --------------------------------------------------------------------------------------
    Case(
        "disk-fill",
        "with open('big', 'wb') as f:\n    while True:\n        f.write(b'x' * 10**6)\n",
        ("error", "memory"),
        error_is("OSError"),
    ),
    Case(
        "sparse-huge-file",
        "with open('sparse', 'wb') as f:\n    f.seek(10**12)\n    f.write(b'x')\n",
        ("error",),
        error_is("OSError"),
    ),
    Case(
        "inode-exhaustion",
        "for i in range(100000):\n    open(f'f{i}', 'w').close()\n",
        ("error",),
        error_is("OSError"),
    ),
    Case("write-root", "open('/evil', 'w')\n", ("error",), error_is("OSError", "PermissionError")),
    Case("write-usr", "open('/usr/evil', 'w')\n", ("error",), error_is("OSError", "PermissionError")),
    Case("write-etc", "open('/etc/passwd', 'a')\n", ("error",), error_is("OSError", "PermissionError")),
    Case(
        "write-bot-folder",
        f"open({str(PROJECT / 'evil-from-sandbox')!r}, 'w')\n",
        ("error",),
        error_is("OSError", "PermissionError", "FileNotFoundError"),
    ),
    Case(
        "read-bot-code",
        f"print(open({str(PROJECT / 'pyproject.toml')!r}).read())\n",
        ("error",),
        error_is("FileNotFoundError", "PermissionError"),
    ),
    Case(
        "list-bot-folder",
        f"import os\nprint(os.listdir({str(PROJECT)!r}))\n",
        ("passed",),
        lambda r: set(json.loads(r.stdout.replace("'", '"'))) <= {".venv"},
    ),
    Case(
        "read-etc-shadow",
        "print(open('/etc/shadow').read())\n",
        ("error",),
        error_is("FileNotFoundError", "PermissionError"),
    ),
    Case(
        "read-init-environ",
        "print(open('/proc/1/environ').read())\n",
        ("error",),
        error_is("FileNotFoundError", "PermissionError"),
    ),
    Case(
        "environment-has-no-secrets",
        "import os\nprint(sorted(os.environ.items()))\n",
        ("passed",),
        lambda r: SECRET not in r.stdout and "DISCORD" not in r.stdout and "QUIZBOT" not in r.stdout,
    ),
    Case(
        "open-descriptors",
        "import os\nprint(len(os.listdir('/proc/self/fd')))\n",
        ("passed",),
        lambda r: int(r.stdout) <= 5,
    ),
    Case(
        "plant-symlinks",
        "import os\nos.symlink('/etc/shadow', 'shadow')\nos.symlink('/', 'escape')\n"
        "os.remove('user_code.py')\nos.symlink('/proc/self/environ', 'user_code.py')\nprint('planted')\n",
        ("passed",),
        out_has("planted"),
    ),
    # --- output -------------------------------------------------------------------------------------
    Case(
        "stdout-flood",
        "while True:\n    print('x' * 1000)\n",
        ("output_limit",),
        lambda r: r.truncated and len(r.stdout.encode()) <= 65536,
    ),
    Case(
        "stderr-flood",
        "import sys\nwhile True:\n    sys.stderr.write('y' * 1000)\n",
        ("output_limit",),
        lambda r: r.truncated and len((r.stdout + r.stderr).encode()) <= 65536,
    ),
    Case("one-10mb-line", "print('x' * 10**7)\n", ("output_limit",), lambda r: r.truncated),
    Case(
        "invalid-utf8-and-nul",
        "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe\\x00ok\\x00\\n')\n",
        ("passed",),
        lambda r: "\x00" not in r.stdout and "ok" in r.stdout and json.dumps(r.to_dict()),
    ),
    Case("read-stdin", "print(input())\n", ("error",), error_is("EOFError")),
    # --- network ------------------------------------------------------------------------------------
    Case(
        "tcp-loopback",
        "import socket\nsocket.create_connection(('127.0.0.1', 22), timeout=2)\n",
        ("error",),
        error_is("OSError", "ConnectionRefusedError", "PermissionError"),
    ),
    Case(
        "tcp-outside",
        "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=2)\n",
        ("error",),
        error_is("OSError", "PermissionError"),
    ),
    Case(
        "udp-outside",
        "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.sendto(b'x', ('8.8.8.8', 53))\n",
        ("error",),
        error_is("OSError", "PermissionError"),
    ),
    Case(
        "ipv6",
        "import socket\nsocket.socket(socket.AF_INET6, socket.SOCK_STREAM)\n",
        ("error",),
        error_is("OSError"),
    ),
    Case(
        "dns",
        "import socket\nprint(socket.getaddrinfo('example.com', 80))\n",
        ("error",),
        error_is("gaierror", "OSError"),
    ),
    Case(
        "raw-socket",
        "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_RAW, 1)\n",
        ("error",),
        error_is("OSError", "PermissionError"),
    ),
    Case(
        "netlink-socket",
        "import socket\nsocket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)\n",
        ("error",),
        error_is("OSError"),
    ),
    Case(
        "packet-socket",
        "import socket\nsocket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)\n",
        ("error",),
        error_is("OSError", "PermissionError"),
    ),
    Case("torch-hub-download", "import torch\ntorch.hub.load('pytorch/vision', 'resnet18')\n", ("error",)),
    Case(
        "urllib-download",
        "import urllib.request\nurllib.request.urlopen('http://example.com', timeout=2)\n",
        ("error",),
    ),
    # --- privileges and kernel surface ------------------------------------------------------------
    Case(
        "identity",
        "import os\nst = open('/proc/self/status').read()\n"
        "print(os.getuid(), st.split('CapEff:')[1].split()[0], st.split('NoNewPrivs:')[1].split()[0], "
        "st.split('Seccomp:')[1].split()[0])\n",
        ("passed",),
        out_has("1000 0000000000000000 1 2"),
    ),
    Case("setuid-root", "import os\nos.setuid(0)\n", ("error",), error_is("PermissionError", "OSError")),
    Case(
        "unshare-namespaces",
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.unshare(0x10000000), ctypes.get_errno())\n",
        ("passed",),
        out_has("-1 1"),
    ),
    Case(
        "mount",
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.mount(b'none', b'/tmp', b'tmpfs', 0, None), ctypes.get_errno())\n",
        ("passed",),
        out_has("-1 1"),
    ),
    Case(
        "bpf-and-keyctl",
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.syscall(321, 0, 0, 0), ctypes.get_errno(), libc.syscall(250, 0, 0), ctypes.get_errno())\n",
        ("passed",),
        out_has("-1 1 -1 1"),
    ),
    Case(
        "userfaultfd",
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nprint(libc.syscall(323, 0), ctypes.get_errno())\n",
        ("passed",),
        out_has("-1 1"),
    ),
    Case(
        "io-uring",
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nprint(libc.syscall(425, 8, 0), ctypes.get_errno())\n",
        ("passed",),
        out_has("-1 1"),
    ),
    Case(
        "ctypes-segfault",
        "import ctypes\nctypes.string_at(0)\n",
        ("crashed",),
        lambda r: "SIGSEGV" in r.message,
    ),
    Case("abort", "import os\nos.abort()\n", ("crashed",), lambda r: "SIGABRT" in r.message),
    Case("self-sigkill", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", ("crashed",)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_submission_is_contained(clean_pool: Pool, case: Case) -> None:
    hostile, bystander = clean_pool.run_with_bystander(case.code, **case.kwargs)
    assert hostile.status in case.statuses, (
        f"{case.name}: {hostile.status} {hostile.message} {hostile.stderr[-500:]}"
    )
    if case.check is not None:
        assert case.check(hostile) is not False, hostile
    assert bystander.status == "passed", bystander
    assert bystander.stdout == BYSTANDER_OUT
    assert not (PROJECT / "evil-from-sandbox").exists()


def test_files_left_in_tmp_are_not_seen_by_the_next_job(clean_pool: Pool) -> None:
    leave = (
        "open('/tmp/leftover', 'w').write('x')\nopen('/dev/shm/leftover', 'w').write('x')\n"
        "open('leftover', 'w').write('x')\nprint('left')\n"
    )
    look = "import os\nprint(sorted(os.listdir('/tmp')), sorted(os.listdir('/dev/shm')), sorted(os.listdir('.')))\n"
    assert clean_pool.run(leave).stdout == "left\n"
    # A checkout under /tmp (as in CI) shows its read-only virtual environment there, nothing else.
    interpreter_in_tmp = sorted(
        {Path(p).parts[2] for p in (sys.prefix, sys.base_prefix) if p.startswith("/tmp/")}
    )
    # Every slot: whichever one runs next starts from an empty tmpfs.
    for result in clean_pool.gather(*[(look, {}) for _ in range(4)]):
        assert result.status == "passed", result
        assert result.stdout == f"{interpreter_in_tmp} [] ['user_code.py']\n"
    assert not Path("/tmp/leftover").exists() or Path("/tmp/leftover").stat().st_uid == 0


def test_two_memory_heavy_jobs_at_once_each_within_its_limit(clean_pool: Pool) -> None:
    heavy = "import torch\nx = torch.ones(40 * 2**20)\nx += 1\nprint(int(x[0]))\n"  # 160 MB of a 256 MB limit
    results = clean_pool.gather((heavy, {}), (heavy, {}))
    assert [r.status for r in results] == ["passed", "passed"], results
    assert all(r.stdout == "2\n" and r.peak_memory_mb >= 150 for r in results)


def test_abstract_unix_socket_does_not_reach_another_job(clean_pool: Pool) -> None:
    server = (
        "import socket, time\ns = socket.socket(socket.AF_UNIX)\ns.bind('\\0quizbot-probe')\ns.listen()\n"
        "s.settimeout(1.5)\ntry:\n    s.accept()\n    print('accepted')\nexcept OSError:\n    print('nobody came')\n"
    )
    client = (
        "import socket, time\ntime.sleep(0.4)\nc = socket.socket(socket.AF_UNIX)\n"
        "try:\n    c.connect('\\0quizbot-probe')\n    print('connected')\nexcept OSError as e:\n    print('refused', e.errno)\n"
    )
    srv, cli = clean_pool.gather((server, {}), (client, {}))
    assert srv.stdout == "nobody came\n", srv
    assert cli.stdout.startswith("refused"), cli


def test_bot_database_settings_and_code_are_invisible(clean_pool: Pool, tmp_path: Path) -> None:
    settings = tmp_path / "quizbot.toml"
    settings.write_text('discord_token = "canary"\n')
    (tmp_path / "data").mkdir()
    database = tmp_path / "data" / "quizbot.sqlite3"
    database.write_bytes(b"SQLite format 3\x00")
    paths = [settings, database, PROJECT / "bot", PROJECT / "sandbox" / "runner.py", PROJECT / "data"]
    probe = "import os\nprint([os.path.exists(p) for p in %r])\n" % [str(p) for p in paths]
    hostile, bystander = clean_pool.run_with_bystander(probe)
    assert hostile.status == "passed" and hostile.stdout == "[False, False, False, False, False]\n", hostile
    assert bystander.stdout == BYSTANDER_OUT
