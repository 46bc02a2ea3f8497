"""Code typed on the line that opens it, in the terminal, is kept.

A code answer typed as one line between fences (```total = ...```) went into the paste prompt with
its code dropped: the learner then ended the block and was told the code was empty. `run CODE`
(what `/quiz run CODE` does on Slack and Discord) likewise ignored CODE and waited for a paste.
"""

from __future__ import annotations

from pathlib import Path

from tests.console.test_console import Terminal, open_terminal


async def to_the_code_question(terminal: Terminal) -> str:
    screen = await terminal.send("start demo count:5")
    for _ in range(5):
        if "Define total as the sum" in screen[screen.rfind("Question ") :]:
            return screen
        screen = await terminal.send("skip")
    raise AssertionError(screen)


async def test_a_code_answer_on_one_line_between_fences_is_graded(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    await to_the_code_question(terminal)
    screen = await terminal.send("```total = sum(range(1, 11)); print(total)```")
    assert "Paste your code" not in screen, screen
    assert "Correct!" in screen, screen
    await terminal.close()


async def test_code_after_the_opening_fence_is_the_first_line(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    await to_the_code_question(terminal)
    await terminal.send("```total = sum(range(1, 11))")
    screen = await terminal.send("print(total)")
    screen = await terminal.send("```")
    assert "Correct!" in screen and "empty" not in screen, screen
    await terminal.close()


async def test_run_with_the_code_on_its_line_runs_it(tmp_path: Path) -> None:
    terminal = await open_terminal(tmp_path)
    screen = await terminal.send("run print(6 * 7)")
    assert "Paste your code" not in screen and "42" in screen, screen
    screen = await terminal.send("run ```print(sum(range(5)))```")
    assert "Paste your code" not in screen and "10" in screen, screen
    await terminal.send("quit")
    assert await terminal.close() == 0
