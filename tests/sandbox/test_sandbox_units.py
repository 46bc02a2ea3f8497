"""Unit tests of the sandbox's parts that need no running pool."""

from __future__ import annotations

import asyncio
import base64
import json
import operator
import os
import signal
from pathlib import Path

import pytest
import torch
from pydantic import ValidationError

from sandbox import ErrorInfo, Result, SandboxConfig
from sandbox._admission import Admission
from sandbox._assemble import JobLimits, assemble, read_report
from sandbox._cgroup import CgroupSet, parse_mountinfo, shares_for_nice
from sandbox._process import job_environment
from sandbox._seccomp import build_filter, libseccomp_path
from sandbox._watch import parse_result_line
from sandbox._wire import FrameBuffer, encode
from sandbox.bridge import Decoder, Encoder, Peer, Proxy, Refused

LIMITS = JobLimits(wall_s=10, cpu_s=10, memory_mb=768, output_bytes=65536)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_config_reads_the_environment_and_bounds_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_SANDBOX_WALL_S", "5")
    monkeypatch.setenv("QUIZBOT_SANDBOX_WORKERS", "3")
    cfg = SandboxConfig()
    assert (cfg.wall_s, cfg.workers, cfg.queue_length, cfg.memory_mb, cfg.allow_no_isolation) == (
        5,
        3,
        24,
        768,
        False,
    )
    assert cfg.max_wait_s == 10.0
    assert (cfg.pids, cfg.output_bytes, cfg.file_bytes, cfg.code_bytes) == (64, 65536, 16 * 2**20, 65536)
    with pytest.raises(ValidationError):
        SandboxConfig(wal_s=3)  # type: ignore[call-arg]  # a typo in quizbot.toml's [sandbox] table
    monkeypatch.setenv("QUIZBOT_SANDBOX_MEMORY_MB", "-1")
    with pytest.raises(ValidationError):
        SandboxConfig()


def test_result_to_dict_is_the_design_json() -> None:
    r = Result(status="error", error=ErrorInfo("SyntaxError", "invalid syntax", 2, 5, "x = (1,"), message="m")
    d = r.to_dict()
    assert d["error"] == {
        "type": "SyntaxError",
        "message": "invalid syntax",
        "line": 2,
        "col": 5,
        "source": "x = (1,",
    }
    assert d["tests"] == [] and d["isolation"] == [] and d["truncated"] is False
    assert ErrorInfo("NameError", "boom", 3).describe() == "NameError at line 3: boom"


@pytest.mark.parametrize(
    ("report", "status", "message"),
    [
        ({"exceeded": True, "signal": 9}, "output_limit", "Output limit: 64 KiB"),
        ({"timed_out": True, "signal": 9}, "timeout", "Time limit: 10 s of wall time"),
        ({"signal": int(signal.SIGXCPU)}, "timeout", "Time limit: 10 s of CPU time"),
        ({"signal": 9, "cgroup": {"oom_kills": 1}}, "memory", "Memory limit: 768 MB"),
        ({"signal": int(signal.SIGSEGV)}, "crashed", "The program crashed (SIGSEGV)."),
        ({"setup_error": "x"}, "crashed", "The sandbox could not start this job; please try again."),
        ({"exit_code": 0, "messages": [{"op": "done"}]}, "passed", "Ran without errors."),
        (
            {"exit_code": 1, "messages": [{"op": "exit", "code": 4, "text": "4"}]},
            "error",
            "The program exited with status 4.",
        ),
        ({"exit_code": 0, "channel_error": "forged"}, "error", "The results could not be trusted: forged."),
    ],
)
def test_assemble_plain_runs(report: dict[str, object], status: str, message: str) -> None:
    r = assemble(report, graded=False, limits=LIMITS, layers=("seccomp",))
    assert (r.status, r.message) == (status, message)


def test_assemble_graded_counts_unreported_tests_as_failed() -> None:
    messages = [
        {"op": "plan", "tests": ["m.T.test_a", "m.T.test_b", "m.T.test_c"]},
        {"op": "test", "i": 0, "name": "A is fine.", "passed": True, "message": ""},
        {"op": "test", "i": 1, "name": "B is wrong.", "passed": False, "message": "B is wrong."},
    ]
    r = assemble(
        {"exit_code": 0, "messages": messages, "stdout": b64("hi\x00\n")},
        graded=True,
        limits=LIMITS,
        layers=(),
    )
    assert r.status == "failed" and r.message == "2 of 3 tests failed."
    assert r.tests[2].name == "test_c" and not r.tests[2].passed and "did not report" in r.tests[2].message
    assert r.stdout == "hi\ufffd\n"
    one_of_three = [messages[0], messages[1], {"op": "done"}]
    done = assemble({"messages": one_of_three}, graded=True, limits=LIMITS, layers=())
    assert done.status == "failed"  # a plan of three with one report never passes


def test_frames_split_and_join() -> None:
    data = encode({"op": "a", "n": 1}) + encode({"op": "b", "text": "é" * 1000})
    buf = FrameBuffer()
    got = []
    for i in range(0, len(data), 7):
        got += buf.feed(data[i : i + 7])
    assert [m["op"] for m in got] == ["a", "b"] and got[1]["text"] == "é" * 1000


async def test_admission_bounds_running_and_waiting() -> None:
    adm = Admission(workers=1, slots=2, queue=1)
    first = await adm.acquire()
    waiter = asyncio.create_task(adm.acquire())
    await asyncio.sleep(0)
    assert adm.saturated() and adm.waiting == 1
    adm.release(first)
    second = await waiter
    assert second != first  # least recently used slot
    adm.release(second)
    assert not adm.saturated() and adm.running == 0


async def test_admission_turns_slow_jobs_away_before_the_queue_is_full() -> None:
    adm = Admission(workers=2, slots=4, queue=16)
    assert adm.expected_wait(3.0) == 0.0 and not adm.turns_away(3.0, max_wait_s=10.0)
    running = [await adm.acquire(), await adm.acquire()]
    waiters = [asyncio.create_task(adm.acquire()) for _ in range(5)]
    await asyncio.sleep(0)
    # Five wait for two workers: a sixth would start after three jobs of each worker's queue.
    assert adm.expected_wait(3.0) == 9.0 and adm.expected_wait(0.04) == 0.12
    assert adm.turns_away(3.0, max_wait_s=8.0) and not adm.turns_away(3.0, max_wait_s=9.0)
    assert not adm.turns_away(0.04, max_wait_s=8.0)  # cheap jobs queue on, up to the queue's bound
    for slot in running:
        adm.release(slot)
    for task in waiters[:2]:
        adm.release(await task)
    for task in waiters[2:]:
        adm.release(await task)
    assert adm.running == 0 and adm.waiting == 0


def test_cgroup_v2_slots_on_a_fake_hierarchy(tmp_path: Path) -> None:
    root = tmp_path / "cg"
    own = root / "bot.service"
    own.mkdir(parents=True)
    (root / "cgroup.controllers").write_text("cpu memory pids io\n")
    (own / "cgroup.subtree_control").write_text("memory pids cpu\n")
    mountinfo = f"41 31 0:38 / {root} rw,relatime - cgroup2 cgroup2 rw\n"
    cset = CgroupSet.create(
        2,
        memory_bytes=256 * 2**20,
        pids=64,
        cpu_cores=1.0,
        nice=10,
        mountinfo=mountinfo,
        self_cgroup="0::/bot.service\n",
    )
    assert cset.version == 2 and len(cset.slots) == 2
    slot = Path(cset.slots[1].dirs[0])
    assert slot.parent.parent == own
    assert (slot.parent / "cpu.weight.nice").read_text() == "10"  # the slots together stand back for the bot
    assert (slot / "memory.max").read_text() == str(256 * 2**20)
    assert (slot / "pids.max").read_text() == "64" and (slot / "cpu.max").read_text() == "100000 100000"
    assert (slot / "memory.swap.max").read_text() == "0"
    assert "cgroup2:memory" in cset.layers
    for path in sorted(slot.parent.rglob("*"), reverse=True):  # cgroupfs drops control files by itself
        if path.is_file():
            path.unlink()
    cset.remove()
    assert not slot.parent.exists()


def test_cgroup_v1_shares_are_the_kernels_weights_of_a_nice_task() -> None:
    assert [shares_for_nice(n) for n in (0, 1, 5, 10, 19)] == [1024, 820, 335, 110, 15]
    assert shares_for_nice(25) == 15 and shares_for_nice(-3) == 1024


def test_cgroup_v1_mountinfo_with_comounted_controllers() -> None:
    text = (
        "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
        "35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
        "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
    )
    mounts = parse_mountinfo(text)
    assert (
        mounts[0][:3] == ("/", "/sys/fs/cgroup/cpu,cpuacct", "cgroup") and {"cpu", "cpuacct"} <= mounts[0][3]
    )
    assert mounts[1][0] == "/docker/abc" and mounts[2][2] == "cgroup2"


def test_job_environment_is_an_allowlist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "secret")
    monkeypatch.setenv("MY_SETTING", "ok")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    env = job_environment(("MY_SETTING", "DISCORD_TOKEN", "AWS_SECRET_ACCESS_KEY"))
    assert env["MY_SETTING"] == "ok" and "DISCORD_TOKEN" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    assert env["OMP_NUM_THREADS"] == "1" and env["OPENBLAS_NUM_THREADS"] == "1"


def test_seccomp_filter_compiles_to_bpf() -> None:
    # No skip: on the hosts this project runs on, a missing libseccomp is a missing isolation layer.
    assert libseccomp_path() is not None, "libseccomp.so.2 not found: the seccomp layer cannot work"
    program = build_filter()
    assert program and len(program) % 8 == 0


def _peer_pair() -> tuple[Peer, Peer]:
    """A grader-side and a learner-side peer over real pipes (no process needed for encoding)."""
    a_r, a_w = os.pipe()
    b_r, b_w = os.pipe()
    return (
        Peer(a_r, b_w, learner=False, user_path="/sandbox/user_code.py"),
        Peer(b_r, a_w, learner=True, user_path="/sandbox/user_code.py"),
    )


def test_a_tensor_subclass_arrives_as_a_plain_tensor_with_its_real_data() -> None:
    grader, learner = _peer_pair()

    class Liar(torch.Tensor):
        @property
        def shape(self) -> torch.Size:  # type: ignore[override]
            return torch.Size([1, 3])

    w = torch.zeros(2, 2).as_subclass(Liar).requires_grad_(True)
    data = json.loads(json.dumps(Encoder(learner).encode({"W": w, "n": 3})))
    got = Decoder(grader).decode(data)
    assert type(got["W"]) is torch.Tensor and got["W"].shape == (2, 2) and got["W"].requires_grad
    assert got["n"] == 3


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")
def test_a_gradient_with_a_history_written_back_names_the_callers_tensors() -> None:
    """``backward(create_graph=True)`` on the caller's model: each parameter's new ``grad`` has a
    history, sent back while that parameter's own state is being written back."""
    grader, learner = _peer_pair()
    model = torch.nn.Linear(2, 1)
    sent = json.loads(json.dumps(Encoder(grader).encode((model, torch.ones(1, 2)))))
    dec = Decoder(learner)
    theirs, x = dec.decode(sent)
    theirs(x).pow(2).sum().backward(create_graph=True)
    enc = Encoder(learner, incoming=dec.objects)
    back = json.loads(json.dumps(enc.write_back()))
    weight = dec.objects.index(theirs.weight)
    entry = next(state for i, state in back if i == weight)
    assert entry["g"]["gf"]["in"] == [i for i, o in enumerate(dec.objects) if isinstance(o, torch.Tensor)]


def test_an_object_with_its_own_equality_never_equals_a_plain_value() -> None:
    grader, learner = _peer_pair()

    class Anything:
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    data = json.loads(json.dumps(Encoder(learner).encode([Anything(), 42])))
    got = Decoder(grader).decode(data)
    assert isinstance(got[0], Proxy) and got[1] == 42
    assert operator.eq(got[0], 42) is False and operator.eq(42, got[0]) is False and got != [42, 42]


def test_received_data_builds_only_trusted_classes_and_stays_shallow() -> None:
    grader, _ = _peer_pair()
    with pytest.raises(Refused):
        Decoder(grader).decode({"$": "o", "i": 0, "c": "os:system", "v": []})
    with pytest.raises(Refused):
        Decoder(grader).decode({"$": "name", "v": "subprocess:Popen"})
    deep: object = 1
    for _ in range(200):
        deep = {"$": "tuple", "v": [deep]}
    with pytest.raises(Refused):
        Decoder(grader).decode(deep)
    with pytest.raises(Refused):  # bytes that do not fill the declared shape
        Decoder(grader).decode({"$": "t", "i": 0, "dt": "float32", "sh": [1000], "v": "AAAA"})
    linear = Decoder(grader).decode(
        json.loads(json.dumps(Encoder(_peer_pair()[1]).encode(torch.nn.Linear(2, 1))))
    )
    assert type(linear) is torch.nn.Linear and linear(torch.ones(1, 2)).shape == (1, 1)


def test_unparsable_results_lines_are_refused_without_raising() -> None:
    nonce = "a" * 32
    assert parse_result_line(b"[" * 100_000, nonce) == (None, "unexpected data on the results channel")
    nested = json.dumps({"n": nonce, "op": "test", "name": [[[[[["x"]]]]]]}).encode()
    assert parse_result_line(nested, nonce)[0] is None
    assert parse_result_line(b"x" * 300_000, nonce)[0] is None
    msg, problem = parse_result_line(json.dumps({"n": nonce, "op": "done", "exit": 0}).encode(), nonce)
    assert msg == {"n": nonce, "op": "done", "exit": 0} and problem is None
    assert parse_result_line(json.dumps({"n": "b" * 32, "op": "done"}).encode(), nonce)[0] is None


@pytest.mark.parametrize(
    "fields",
    [{"i": "0"}, {"i": True}, {"passed": 1}, {"name": 5}, {"line": "3"}, {"tests": ["a", 1]}, {"exit": 0.5}],
)
def test_a_results_line_with_a_field_of_another_type_is_refused(fields: dict[str, object]) -> None:
    nonce = "a" * 32
    line = json.dumps({"n": nonce, "op": "test", "i": 0, "name": "x", "passed": True, **fields}).encode()
    assert parse_result_line(line, nonce) == (None, "unexpected data on the results channel")


def test_a_results_line_keeps_only_the_fields_of_its_shape() -> None:
    nonce = "a" * 32
    line = json.dumps({"n": nonce, "op": "test", "i": 2, "name": "x", "passed": False, "junk": [1]}).encode()
    assert parse_result_line(line, nonce) == (
        {"n": nonce, "op": "test", "i": 2, "name": "x", "passed": False},
        None,
    )


def test_a_malformed_report_is_a_crashed_job_not_an_exception() -> None:
    for data in (None, {"messages": "all passed"}, {"wall_ns": "soon"}, [1, 2]):
        r = assemble(read_report(data), graded=True, limits=LIMITS, layers=())
        assert r.status == "crashed" and not r.tests, data
    r = assemble(read_report({"messages": [], "wall_ns": 2_000_000}), graded=True, limits=LIMITS, layers=())
    assert r.status == "failed" and r.wall_ms == 2


def test_the_grader_takes_back_by_name_only_functions_it_sent() -> None:
    grader, learner = _peer_pair()
    with pytest.raises(Refused):  # a learner naming builtins' exec would have the grader call it
        Decoder(grader).decode({"$": "name", "v": "builtins:exec"})
    with pytest.raises(Refused):
        Decoder(grader).decode({"$": "mod", "v": "torch"})
    sent = json.loads(json.dumps(Encoder(grader).encode(torch.nn.functional.relu)))
    relu = Decoder(learner).decode(sent)
    back = json.loads(json.dumps(Encoder(learner).encode([relu, print])))
    assert back["v"][0] == {"$": "name", "v": "torch.nn.functional:relu"}  # the name it was given
    assert back["v"][1]["$"] == "h"  # any other function stays in the learner's process, as a handle
    assert Decoder(grader).decode(back["v"][0]) is torch.nn.functional.relu
