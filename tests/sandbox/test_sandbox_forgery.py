"""Forged verdicts: each technique that once made a wrong solution pass now comes back `failed`.

Every submission here is wrong for the seed-style test (it defines no usable `W`, `X`, `loss`), then
tries to reach the grader: its functions through `sys.modules`, its frames, its results
descriptor and nonce, its memory, its objects through `gc`, its classes through ctypes, a forked
child, a signal handler, a lying Tensor subclass. The learner's code runs in a process of its own
that holds neither the results channel nor the nonce, so each must fail like any wrong answer.
"""

from __future__ import annotations

import textwrap

import pytest

from tests.sandbox.sandbox_support import BYSTANDER_OUT, SEED_TEST, Pool

# Sent by each technique wherever it can: results that would say "all passed".
_FORGE = textwrap.dedent(
    """
    import json, os
    def forged_lines(nonce="0" * 32):
        out = [json.dumps({"n": nonce, "op": "plan", "tests": ["t%d" % i for i in range(8)]})]
        out += [json.dumps({"n": nonce, "op": "test", "i": i, "name": "x", "passed": True, "message": ""})
                for i in range(8)]
        out.append(json.dumps({"n": nonce, "op": "done", "exit": 0}))
        return ("\\n".join(out) + "\\n").encode()
    def spray(data):
        for fd in range(3, 1024):
            try:
                os.write(fd, data)
            except OSError:
                pass
    """
)

FORGERIES = {
    "sys-modules-grader-functions": """
import sys
h = sys.modules.get("sandbox.harness")
if h is not None:
    h._graded = lambda *a, **k: 0
f = sys.modules.get("sandbox._feedback")
if f is not None:
    f._Recorder.passed = property(lambda self: True)
    f.failure_line = lambda *a: ""
t = sys.modules.get("test_code")
if t is not None:
    t._verdict = lambda case, ok, p, f: setattr(case, "_testMethodName", p)
import unittest
unittest.TestCase.fail = lambda self, msg=None: None
""",
    "walk-getframe-to-the-channel": """
import sys
f = sys._getframe()
while f is not None:
    for value in list(f.f_locals.values()):
        send = getattr(value, "send", None)
        if callable(send) and type(value).__name__ == "_Channel":
            for i in range(8):
                send("test", i=i, name="x", passed=True, message="")
            send("done", exit=0)
    f = f.f_back
""",
    "inspect-stack-to-the-channel": """
import inspect
for info in inspect.stack():
    for value in list(info.frame.f_locals.values()):
        if type(value).__name__ in ("_Channel", "Peer"):
            for name in ("send", "_send"):
                fn = getattr(value, name, None)
                if callable(fn):
                    try:
                        fn("done", exit=0)
                    except Exception:
                        pass
""",
    "traceback-frames-to-the-grader": """
import sys
try:
    raise RuntimeError
except RuntimeError as exc:
    frame = exc.__traceback__.tb_frame
while frame is not None:
    recorder = frame.f_locals.get("recorder")
    if recorder is not None:
        recorder.problems.clear()
        recorder.ok = True
    frame = frame.f_back
""",
    "dup-result-pipe-and-read-the-nonce": _FORGE
    + """
import re
nonce = None
for fd in range(3, 256):
    try:
        new = os.dup(fd)
    except OSError:
        continue
    try:
        os.set_blocking(new, False)
        data = os.read(new, 65536)
        m = re.search(rb'"n": "([0-9a-f]{32})"', data)
        if m:
            nonce = m.group(1).decode()
    except OSError:
        pass
for pid in os.listdir("/proc"):
    if pid.isdigit():
        for fd in range(0, 256):
            try:
                w = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
                os.write(w, forged_lines(nonce or "0" * 32))
            except OSError:
                pass
spray(forged_lines(nonce or "0" * 32))
""",
    "proc-mem-search-for-the-nonce": _FORGE
    + """
import ctypes, re
libc = ctypes.CDLL(None)
libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE
found = set()
for pid in ["self"] + [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        maps = open(f"/proc/{pid}/maps").read().splitlines()
        mem = open(f"/proc/{pid}/mem", "rb", buffering=0)
    except OSError:
        continue
    for line in maps[:400]:
        lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
        if "rw" not in line.split()[1] or hi - lo > 64 << 20:
            continue
        try:
            mem.seek(lo)
            chunk = mem.read(hi - lo)
        except (OSError, ValueError, OverflowError):
            continue
        found.update(m.decode() for m in re.findall(rb'"n": "([0-9a-f]{32})"', chunk))
for nonce in list(found)[:20]:
    spray(forged_lines(nonce))
""",
    "gc-from-a-library-named-thread": """
import threading
src = '''
import gc
def reach():
    for obj in gc.get_objects():
        name = type(obj).__name__
        if name == "_Recorder":
            obj.problems.clear(); obj.ok = True
        if name == "_Channel":
            for i in range(8):
                obj.send("test", i=i, name="x", passed=True, message="")
'''
ns = {}
exec(compile(src, "/usr/lib/python3.11/threading.py", "exec"), ns)
t = threading.Thread(target=ns["reach"])
t.start()
t.join()
""",
    "disarm-the-module-guard": """
import sys
for name in ("sandbox._guard", "sandbox.harness"):
    mod = sys.modules.get(name)
    guard = getattr(mod, "_guard", None) if mod else None
    if guard is not None:
        guard.armed = False
import unittest
unittest.TestCase.run = lambda self, result=None: result.addSuccess(self)
""",
    "ctypes-write-into-testcase-dict": """
import ctypes, gc, unittest
d = gc.get_referents(unittest.TestCase.__dict__)[0]
version = ctypes.c_uint64.from_address(id(d) + 24).value
d["fail"] = lambda self, msg=None: None
d["assertTrue"] = lambda self, expr, msg=None: None
ctypes.c_uint64.from_address(id(d) + 24).value = version
ctypes.pythonapi.PyType_Modified(ctypes.py_object(unittest.TestCase))
""",
    "forked-child-writes-the-result": _FORGE
    + """
import time
pid = os.fork()
if pid == 0:
    for _ in range(20):
        spray(forged_lines())
        time.sleep(0.02)
    os._exit(0)
""",
    "signal-handler-drops-failures": """
import signal, sys
def handler(signum, frame):
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if type(value).__name__ == "_Recorder":
                value.problems.clear()
                value.ok = True
        frame = frame.f_back
signal.signal(signal.SIGALRM, handler)
signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
import unittest
unittest.TestResult.addFailure = unittest.TestResult.addSuccess
""",
    "tensor-subclass-with-a-lying-shape": """
import torch
class Liar(torch.Tensor):
    @property
    def shape(self):
        return torch.Size([1, 3])
    @property
    def requires_grad(self):
        return True
    @property
    def grad(self):
        return torch.ones(1, 3)
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.allclose:
            return True
        return super().__torch_function__(func, types, args, kwargs or {})
W = torch.zeros(5, 5).as_subclass(Liar)
X = torch.zeros(3, 2).as_subclass(Liar)
Y = loss = 0
print("W.grad:", "tensor")
""",
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forgery_technique_comes_back_failed(clean_pool: Pool, name: str) -> None:
    forged, bystander = clean_pool.run_with_bystander(FORGERIES[name], test=SEED_TEST)
    assert forged.status == "failed", (name, forged.status, forged.message, forged.tests)
    assert forged.tests and not all(t.passed for t in forged.tests)
    assert bystander.stdout == BYSTANDER_OUT


def test_lying_tensor_arrives_as_its_plain_data(clean_pool: Pool) -> None:
    r = clean_pool.run(FORGERIES["tensor-subclass-with-a-lying-shape"], test=SEED_TEST)
    failed = {t.name for t in r.tests if not t.passed}
    assert "`W` must have shape (1, 3)." in failed  # its real shape, 5x5, was judged
    assert "Create `W` with `requires_grad=True`." in failed
    assert "`X` must be the 3x2 tensor from the task." in failed  # allclose ran on plain data


def test_killing_the_grader_never_passes(clean_pool: Pool) -> None:
    code = "import os, signal\nfor p in os.listdir('/proc'):\n    if p.isdigit() and int(p) != os.getpid():\n"
    code += "        try:\n            os.kill(int(p), signal.SIGKILL)\n        except OSError:\n            pass\n"
    r = clean_pool.run(code, test=SEED_TEST)
    assert r.status != "passed" and not (r.tests and all(t.passed for t in r.tests))


def test_nested_json_on_the_results_channel_is_a_failed_job(clean_pool: Pool) -> None:
    """A plain run holds its results channel: garbage there fails the job, the supervisor lives."""
    code = "import os\nfor fd in range(3, 256):\n    try:\n        os.write(fd, b'[' * 200000 + b'\\n')\n"
    code += "    except OSError:\n        pass\n"
    r = clean_pool.run(code)
    assert r.status == "error" and r.message.startswith("The results could not be trusted"), r
    after = clean_pool.run("print('still here')\n")
    assert after.status == "passed" and after.stdout == "still here\n"
