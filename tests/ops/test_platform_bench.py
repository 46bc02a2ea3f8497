"""The platform benchmark's smallest run: five Slack learners against one `quizbot run` process, per database."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest

from bench.platform_load.measure import host_ticks, tree_cpu_seconds
from bench.platform_load.pack import write_pack
from bench.platform_load.report import print_result
from bench.platform_load.run import run_config
from bench.platform_load.slack_learners import form_value


@pytest.mark.parametrize("database", ["postgresql", "sqlite"])
async def test_every_acknowledged_answer_is_stored_once(
    tmp_path: Path, database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    write_pack(tmp_path / "packs")
    result = await run_config(
        "slack", 1, "local", seconds=2, learners=5, folder=tmp_path, packs=tmp_path / "packs", service_url=None,
        database=database,
    )  # fmt: skip
    tally = result.tally
    assert tally.quizzes >= 5 and tally.stalls == 0  # every learner got a quiz, and a next item after each answer
    assert len(tally.acks) == tally.answers_sent > 5  # each answered, and each answer was acknowledged
    assert result.attempts == len(tally.acks)  # counted in the database after the bot drained and stopped
    assert tally.http_errors == tally.lost == tally.refused == 0 and result.api_errors == 0
    assert len(tally.replies) == len(tally.acks)  # the next item (or the summary) followed every answer
    assert result.exit_codes == [0]  # SIGTERM: a clean stop
    assert result.torch == [False] and result.rss_peak_mb[0] > 0  # the bot process itself never imports torch
    assert result.uvloop == [True]  # QUIZBOT_UVLOOP is on by default
    if database == "sqlite":
        assert not list(tmp_path.glob("*.db"))  # the benchmark's database file is removed afterwards

    print_result(result)
    lines = re.findall(r"bot CPU per answer: ([0-9.]+) ms \(slack, 1 process, (\w+)\)", capsys.readouterr().out)
    assert len(lines) == 1 and lines[0][1] == database
    # the bot's own CPU time from /proc: more than nothing, less than both cores for the whole run per answer
    assert 0 < float(lines[0][0]) < 2 * 1000 * result.seconds / len(tally.acks)


@pytest.mark.parametrize("text", ['{"a": "b c", "t": "Q 3/20 & ünï ✓ ~x_y.z-"}', "", "plain", "%+ =\n\t"])
def test_a_clicks_payload_is_form_encoded_as_urlencode_would(text: str) -> None:
    assert form_value(text.encode()) == urlencode({"p": text}).removeprefix("p=")


BURN_S = 0.3
ENDED_CHILD = f"""
import os, time
pid = os.fork()
if pid == 0:  # a job process: it burns CPU and ends
    start = time.process_time()
    while time.process_time() - start < {BURN_S}:
        pass
    os._exit(0)
os.waitpid(pid, 0)
print("reaped", flush=True)
time.sleep(60)
"""


def test_a_pools_cpu_keeps_the_time_of_its_ended_processes() -> None:
    """A supervisor or job process that has ended still counts: its parent, alive, holds its time."""
    before, host_before = tree_cpu_seconds(os.getpid()), host_ticks()
    with subprocess.Popen([sys.executable, "-c", ENDED_CHILD], stdout=subprocess.PIPE, text=True) as child:
        try:
            assert child.stdout is not None and child.stdout.readline() == "reaped\n"
            after, host_after = tree_cpu_seconds(os.getpid()), host_ticks()
        finally:
            child.kill()
    assert after - before >= BURN_S * 0.8  # the grandchild is gone; its CPU is in the child's cutime
    assert host_after[1] - host_before[1] >= BURN_S * 0.8 * os.sysconf("SC_CLK_TCK") * 0.9  # the host saw it busy
    assert 0 <= host_after[1] - host_before[1] <= host_after[0] - host_before[0]
