"""A quiz in the terminal.

Commands: start [pack] [topic:T] [difficulty:D] [count:N], hint, skip, stop, stats, packs, run,
help, quit. While a question is open: a letter (or several, for select-all), numbers for
blank menus, a typed answer, or code pasted and ended by a line holding only ``` or by end of input.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import TextIO

from rich.console import Console

from bot.core import Actor, QuizError, QuizService, Reply, error_reply
from bot.core import actions as ax
from bot.core.replies import Button, Message, Select

from .render import render_message

ACTOR = Actor(platform="console", scope="local", user_id="you", name="you", is_admin=True)
PROMPT = "quiz> "


class ConsoleFrontEnd:
    def __init__(self, service: QuizService, *, stdin: TextIO, console: Console) -> None:
        self.service = service
        self.stdin = stdin
        self.console = console
        self.current: Message | None = None  # the open item, whose controls we translate input into
        self.eof = False

    async def read(self, prompt: str = PROMPT) -> str | None:
        self.console.print(prompt, end="", markup=False, highlight=False)
        line = await asyncio.to_thread(self.stdin.readline)
        if line == "":
            self.eof = True
            self.console.print()
            return None
        if not self.stdin.isatty():
            self.console.print(line.rstrip("\n"), markup=False, highlight=False)  # echo piped input
        return line.rstrip("\n")

    async def read_code(self) -> str:
        self.console.print("[dim]Paste your code; end with a line holding only ``` (or end of input).[/dim]")
        lines: list[str] = []
        while True:
            line = await self.read("... ")
            if line is None or line.strip() == "```":
                break
            if not lines and line.strip().startswith("```"):
                continue  # an opening fence
            lines.append(line)
        return "\n".join(lines) + "\n"

    def show(self, reply: Reply) -> None:
        if reply.update is not None and reply.update.kind == "item" and not reply.messages:
            self.current = reply.update
        for message in reply.messages:
            render_message(self.console, message)
            if message.kind == "item":
                self.current = message
            elif message.kind == "summary":
                self.current = None

    async def call(self, make: Callable[[], object]) -> None:
        try:
            reply = await make()  # type: ignore[misc]
        except QuizError as exc:
            reply = error_reply(exc)
        if reply.form is not None:
            text = await self.read_code() if reply.form.kind == "code" else await self.read("answer> ")
            if text is None:
                return
            await self.call(lambda: self.service.act(ACTOR, reply.form.action, [text]))  # type: ignore[union-attr]
            return
        self.show(reply)

    async def start(self, words: list[str]) -> None:
        options: dict[str, str] = {}
        positional: list[str] = []
        for word in words:
            key, sep, value = word.partition(":")
            if sep and key in ("pack", "topic", "difficulty", "count"):
                options[key] = value
            else:
                positional.append(word)
        if positional:
            options.setdefault("pack", positional[0])
        if len(positional) > 1:
            options.setdefault("topic", positional[1])
        if not words and self.stdin.isatty():
            await self.pick(options)
        count_text = options.get("count")
        if count_text is not None and not count_text.isdigit():
            self.show(error_reply(QuizError(f"`count` must be a whole number; you gave `{count_text}`.")))
            return
        await self.call(
            lambda: self.service.start(
                ACTOR,
                pack=options.get("pack"),
                topic=options.get("topic"),
                difficulty=options.get("difficulty"),
                count=int(count_text) if count_text else None,
            )
        )

    async def pick(self, options: dict[str, str]) -> None:
        packs = await self.service.enabled_packs(ACTOR.scope)
        for i, info in enumerate(packs, 1):
            self.console.print(f"  {i}. {info.title} ({info.id}, {info.questions} questions)", markup=False)
        choice = await self.read("pack number (Enter: all) > ")
        if choice and choice.isdigit() and 1 <= int(choice) <= len(packs):
            chosen = packs[int(choice) - 1]
            options["pack"] = chosen.id
            for i, (_, title) in enumerate(chosen.topics, 1):
                self.console.print(f"  {i}. {title}", markup=False)
            topic = await self.read("topic number (Enter: all) > ")
            if topic and topic.isdigit() and 1 <= int(topic) <= len(chosen.topics):
                options["topic"] = chosen.topics[int(topic) - 1][0]

    async def answer(self, text: str) -> None:
        """Translate typed input into the open item's controls."""
        item = self.current
        assert item is not None
        controls = item.controls()
        buttons = {c.label.upper(): c for c in controls if isinstance(c, Button) and len(c.label) <= 2}
        selects = [c for c in controls if isinstance(c, Select)]
        answer_button = next((c for c in controls if isinstance(c, Button) and c.label == "Answer"), None)
        blank_selects = [s for s in selects if (ax.parse(s.action) or ax.Action("", 0, "")).verb == ax.BLANK]
        multi = next((s for s in selects if (ax.parse(s.action) or ax.Action("", 0, "")).verb == ax.MULTI), None)
        single_menu = next((s for s in selects if (ax.parse(s.action) or ax.Action("", 0, "")).verb == ax.CHOOSE), None)
        check = next((c for c in controls if isinstance(c, Button) and c.label == "Check"), None)
        word = text.strip()
        if multi is not None and check is not None:
            letters = [w.strip().upper() for w in word.replace(",", " ").split() if w.strip()]
            values = [o.value for o in multi.options if o.label.split(".")[0].upper() in letters]
            if len(values) != len(letters) or not values:
                self.console.print("Type the letters of every right choice, e.g. `A C`.", markup=False)
                return
            await self.call(lambda: self.service.act(ACTOR, multi.action, values))
            await self.call(lambda: self.service.act(ACTOR, check.action))
        elif blank_selects and check is not None:
            await self.fill_blanks(blank_selects, check)
        elif single_menu is not None:
            value = next((o.value for o in single_menu.options if o.label.split(".")[0].upper() == word.upper()), None)
            if value is None:
                self.console.print("Type the letter of your choice.", markup=False)
                return
            await self.call(lambda: self.service.act(ACTOR, single_menu.action, [value]))
        elif word.upper() in buttons:
            button = buttons[word.upper()]
            await self.call(lambda: self.service.act(ACTOR, button.action))
        elif answer_button is not None:
            if word.startswith("```") or word == "code":
                code = await self.read_code()
                await self.call(lambda: self.service.submit_text(ACTOR, f"```python\n{code}```"))
            else:
                await self.call(lambda: self.service.submit_text(ACTOR, word))
        else:
            self.console.print("Answer with one of the letters shown, or type `help`.", markup=False)

    async def fill_blanks(self, selects: list[Select], check: Button) -> None:
        for select in selects:
            for i, option in enumerate(select.options, 1):
                self.console.print(f"  {i}. {option.label}", markup=False)
            while True:
                choice = await self.read(f"{select.placeholder} (1-{len(select.options)}) > ")
                if choice is None:
                    return
                if choice.isdigit() and 1 <= int(choice) <= len(select.options):
                    break
                letter = choice.strip().upper()
                match = [i for i, o in enumerate(select.options, 1) if o.label.split(".")[0].upper() == letter]
                if match:
                    choice = str(match[0])
                    break
                self.console.print("Pick a number from the menu.", markup=False)
            value = select.options[int(choice) - 1].value
            try:
                await self.service.act(ACTOR, select.action, [value])
            except QuizError as exc:
                self.show(error_reply(exc))
                return
        await self.call(lambda: self.service.act(ACTOR, check.action))

    async def loop(self) -> int:
        self.console.print("[bold]QuizBot[/bold] in the terminal. Type [bold]start[/bold] to begin, [bold]help[/bold] for commands.")
        try:
            reply = await self.service.current(ACTOR)
            self.console.print("[dim]Resuming your quiz.[/dim]")
            self.show(reply)
        except QuizError:
            pass
        while not self.eof:
            line = await self.read()
            if line is None:
                break
            words = line.split()
            if not words:
                if self.current is not None:
                    await self.answer("")
                continue
            command, rest = words[0].lower().lstrip("/"), words[1:]
            if command == "quiz" and rest:
                command, rest = rest[0].lower(), rest[1:]
            if command in ("quit", "exit"):
                break
            if command == "start":
                await self.start(rest)
            elif command == "hint":
                await self.call(lambda: self.service.hint(ACTOR))
            elif command == "skip":
                await self.call(lambda: self.service.skip(ACTOR))
            elif command == "stop":
                await self.call(lambda: self.service.stop(ACTOR))
            elif command == "stats":
                await self.call(lambda: self.service.stats(ACTOR))
            elif command == "packs":
                await self.call(lambda: self.service.packs(ACTOR))
            elif command == "help":
                self.show(self.service.help())
                self.console.print("[dim]Here: type the commands without /quiz; `quit` leaves.[/dim]")
            elif command == "run":
                snippet = await self.read_code()
                await self.call(lambda snippet=snippet: self.service.run_code(ACTOR, snippet))
            elif command == "answer" or self.current is not None:
                if self.current is None:
                    await self.call(lambda: self.service.answer_form(ACTOR))
                else:
                    await self.answer(line if command != "answer" else " ".join(rest) or "code")
            else:
                self.console.print("Unknown command. Type `help`.", markup=False)
        return 0


async def run_console(service: QuizService, *, stdin: TextIO | None = None, console: Console | None = None) -> int:
    front = ConsoleFrontEnd(service, stdin=stdin or sys.stdin, console=console or Console(highlight=False))
    return await front.loop()
