"""A quiz in the terminal.

Commands: start [pack] [topic] [difficulty] [count] (or by name: topic:T, difficulty:D, count:N), hint,
skip, stop, stats, packs, run, leaderboard [week|month|all] [pack], privacy leaderboard on|off,
report [pack] [topic] [since], help, quit. Pictures (stats, leaderboard, the report's chart) are saved
as PNG files and their paths printed; files (a data export, the report's CSV tables) are written to the
working directory. While a question is open: a letter (or several, for select-all), numbers for blank
menus (where the commands work too, and an empty line goes back), a typed answer, or code pasted and
ended by a line holding only ``` or by end of input.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from rich.console import Console

from bot.core import Actor, QuizError, QuizService, Reply, commands, error_reply
from bot.core import queries as q
from bot.core import requests as rq
from bot.core.i18n import N_, _, ngettext, number, use_locale
from bot.core.replies import Attachment, Button, Message, Select, Tone, notice

from .render import render_message

ACTOR = Actor(platform="console", scope="local", user_id="you", name="you", is_admin=True)
PROMPT = "quiz> "
PICTURES = Path(tempfile.gettempdir()) / "quizbot-pictures"  # where `stats` and `leaderboard` save pictures
QUIT_WORDS = ("quit", "exit")
NEW_WORDS = ("new", "start new", "start")  # at the Resume / Start new question
BLANKS_HELP = N_(
    "Type a number or a letter for each blank. An empty line goes back to the question; hint, skip, stop and quit work here too."
)
TERMINAL_DAILY = N_(
    "In the terminal, `review` starts today's review. Channel schedules and reminders are for Discord and Slack."
)


class ConsoleFrontEnd:
    def __init__(
        self,
        service: QuizService,
        *,
        stdin: TextIO,
        console: Console,
        pictures: Path = PICTURES,
        files_dir: Path | None = None,
    ) -> None:
        self.service = service
        self.pictures = pictures
        self.files_dir = files_dir or Path.cwd()  # where files the core sends (a data export) are written
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

    async def read_code(self, opening: str = "") -> str:
        """Code pasted up to a line holding only ``` (or end of input); `opening`: the line that began it.

        Code on the opening line counts, as in a chat message: ```print(1)``` is the whole snippet,
        and after ```total = 0 the lines pasted next follow it.
        """
        lines, closed = _fenced(opening) if opening.strip() else ([], False)
        if closed:
            return "\n".join(lines) + "\n"
        self.console.print("[dim]" + _("Paste your code; end with a line holding only ``` (or end of input).") + "[/dim]")
        while True:
            line = await self.read("... ")
            if line is None or line.strip() == "```":
                break
            if not lines and line.strip().startswith("```"):
                lines, closed = _fenced(line)  # an opening fence, maybe with code after it
                if closed:
                    break
                continue
            lines.append(line)
        return "\n".join(lines) + "\n"

    def save_files(self, reply: Reply) -> None:
        """Write every file of the reply (a data export) into `files_dir` and say where."""
        for message in reply.messages:
            for part in message.parts:
                if isinstance(part, Attachment):
                    target = self.files_dir / Path(part.filename).name
                    target.write_bytes(part.data)
                    self.console.print(_("Wrote {path}").format(path=target), markup=False, highlight=False)

    async def confirm(self, reply: Reply) -> bool:
        """A question with Confirm and Cancel buttons (deleting data): ask here; return whether it was asked."""
        controls = [c for m in reply.messages for c in m.controls() if isinstance(c, Button)]
        yes = next((c for c in controls if c.role == "confirm"), None)
        no = next((c for c in controls if c.role == "cancel"), None)
        if yes is None or no is None:
            return False
        answer = await self.read(_("{question}? Type yes to go ahead (yes/no) > ").format(question=yes.label))
        await self.call(rq.Act(yes.action if (answer or "").strip().lower() == "yes" else no.action))
        return True

    async def choose(self, reply: Reply) -> bool:
        """A quiz is running (Resume and Start new buttons): ask here; Enter resumes. Return whether it was asked."""
        buttons = {c.role: c for m in reply.messages for c in m.controls() if isinstance(c, Button) and not c.disabled}
        resume, new = buttons.get("resume"), buttons.get("restart")
        if resume is None or new is None:
            return False
        answer = await self.read(_("Type new to start the new quiz; Enter resumes the running one (new/resume) > "))
        await self.call(rq.Act(new.action if (answer or "").strip().lower().lstrip("/") in NEW_WORDS else resume.action))
        return True

    def show(self, reply: Reply) -> None:
        self.save_files(reply)
        update = reply.update
        if update is not None:
            if update.tone != Tone.INFO or update.kind != "item":
                render_message(self.console, update)  # an answered item, with its feedback
            if update.kind == "item" and any(not c.disabled for c in update.controls()):
                self.current = update
        for message in reply.messages:
            render_message(self.console, message, pictures=self.pictures)
            if message.kind == "item":
                self.current = message
            elif message.kind == "summary":
                self.current = None

    async def call(self, request: rq.Request) -> None:
        """Send one request to the core and show the reply; a form is filled in right here."""
        try:
            reply = await self.service.handle(ACTOR, request)
        except QuizError as exc:
            reply = error_reply(exc)
        if reply.form is not None:
            text = await self.read_code() if reply.form.kind == "code" else await self.read("answer> ")
            if text is None:
                return
            await self.call(rq.Act(reply.form.action, (text,)))
            return
        self.show(reply)
        await self.confirm(reply) or await self.choose(reply)

    async def start(self, words: list[str]) -> None:
        parsed = commands.start(words)
        if isinstance(parsed, commands.Usage):
            self.show(notice(parsed.problem))
            return
        if not words and self.stdin.isatty():
            parsed = await self.pick(parsed)
        await self.call(parsed)

    async def pick(self, request: rq.Start) -> rq.Start:
        packs = await self.service.ask(q.PackList(ACTOR.scope))
        for i, info in enumerate(packs, 1):
            questions = ngettext("{n} question", "{n} questions", info.questions).format(n=number(info.questions))
            self.console.print(f"  {i}. {info.title} ({info.id}, {questions})", markup=False)
        choice = await self.read(_("pack number (Enter: all) > "))
        if choice and choice.isdigit() and 1 <= int(choice) <= len(packs):
            chosen = packs[int(choice) - 1]
            request = replace(request, pack=chosen.id)
            for i, (_id, title) in enumerate(chosen.topics, 1):
                self.console.print(f"  {i}. {title}", markup=False)
            topic = await self.read(_("topic number (Enter: all) > "))
            if topic and topic.isdigit() and 1 <= int(topic) <= len(chosen.topics):
                request = replace(request, topic=chosen.topics[int(topic) - 1][0])
        return request

    async def answer(self, text: str) -> bool:
        """Translate typed input into the open item's controls, found by their roles; False: leave the program."""
        item = self.current
        assert item is not None
        controls = item.controls()
        choices = {c.label.upper(): c for c in controls if isinstance(c, Button) and c.role == "choice" and not c.disabled}
        menus = {c.role: c for c in controls if isinstance(c, Select) and c.role in ("choice", "multi")}
        blanks = [c for c in controls if isinstance(c, Select) and c.role == "blank"]
        check = next((c for c in controls if isinstance(c, Button) and c.role == "check"), None)
        answer = next((c for c in controls if isinstance(c, Button) and c.role == "answer"), None)
        word = text.strip()
        if "multi" in menus and check is not None:
            multi = menus["multi"]
            letters = [w.strip().upper() for w in word.replace(",", " ").split() if w.strip()]
            values = [o.value for o in multi.options if o.label.split(".")[0].upper() in letters]
            if len(values) != len(letters) or not values:
                self.console.print(_("Type the letters of every right choice, e.g. `A C`."), markup=False)
                return True
            await self.call(rq.Act(multi.action, tuple(values)))
            await self.call(rq.Act(check.action))
        elif blanks and check is not None:
            return await self.fill_blanks(blanks, check)
        elif "choice" in menus:
            menu = menus["choice"]
            value = next((o.value for o in menu.options if o.label.split(".")[0].upper() == word.upper()), None)
            if value is None:
                self.console.print(_("Type the letter of your choice."), markup=False)
                return True
            await self.call(rq.Act(menu.action, (value,)))
        elif word.upper() in choices:
            await self.call(rq.Act(choices[word.upper()].action))
        elif answer is not None:
            if word.startswith("```") or word == "code":
                code = await self.read_code(word if word.startswith("```") else "")
                await self.call(rq.Submit(f"```python\n{code}```"))
            else:
                await self.call(rq.Submit(word))
        else:
            self.console.print(_("Answer with one of the letters shown, or type `help`."), markup=False)
        return True

    async def fill_blanks(self, selects: list[Select], check: Button) -> bool:
        """Pick each blank from its numbered menu, then check; False: leave the program (`quit` typed here).

        The item's commands work at a menu too: a command word (`hint`, `skip`, `stop`, `quit`...)
        leaves the menus and is done as at the item's prompt; an empty line goes back to that prompt.
        """
        self.console.print("[dim]" + _(BLANKS_HELP) + "[/dim]")
        for select in selects:
            for i, option in enumerate(select.options, 1):
                self.console.print(f"  {i}. {option.label}", markup=False)
            while True:
                choice = await self.read(_("Blank {n} (1-{most}, Enter: back) > ").format(n=select.number, most=len(select.options)))
                if choice is None:
                    return True
                word = choice.strip()
                if not word:
                    return True  # back to the item's prompt, where Enter opens the menus again
                if word.isdigit() and 1 <= int(word) <= len(select.options):
                    index = int(word)
                    break
                match = [i for i, o in enumerate(select.options, 1) if o.label.split(".")[0].upper() == word.upper()]
                if match:
                    index = match[0]
                    break
                if _is_command(word):
                    return await self.one(word)
                self.console.print(_("Pick a number from the menu."), markup=False)
            value = select.options[index - 1].value
            try:
                await self.service.handle(ACTOR, rq.Act(select.action, (value,)))
            except QuizError as exc:
                self.show(error_reply(exc))
                return True
        await self.call(rq.Act(check.action))
        return True

    async def social(self, command: str, rest: list[str]) -> None:
        """`leaderboard`, `privacy leaderboard on|off`, and `race` (which says races run in a channel)."""
        parsed = commands.parse(" ".join([command, *rest]))
        if isinstance(parsed, commands.Usage):
            self.show(notice(parsed.problem))
        elif not isinstance(parsed, commands.PackLoadAsked):
            await self.call(parsed)

    async def loop(self) -> int:
        with use_locale(await self.language()):
            self.console.print(
                _("[bold]QuizBot[/bold] in the terminal. Type [bold]start[/bold] to begin, [bold]help[/bold] for commands.")
            )
            try:
                reply = await self.service.handle(ACTOR, rq.Current())
                self.console.print("[dim]" + _("Resuming your quiz.") + "[/dim]")
                self.show(reply)
            except QuizError:
                pass
        while not self.eof:
            line = await self.read()
            if line is None:
                break
            with use_locale(await self.language()):
                if not await self.one(line):
                    break
        return 0

    async def language(self) -> str:
        """The language the terminal's learner reads (`language es` sets it)."""
        try:
            return await self.service.ask(q.LearnerLanguage(ACTOR))
        except Exception:
            return "en"

    async def one(self, line: str) -> bool:
        """Do what one typed line asks; False: leave."""
        words = line.split()
        if not words:
            return await self.answer("") if self.current is not None else True
        command, rest = words[0].lower().lstrip("/"), words[1:]
        if command == "quiz" and rest:
            command, rest = rest[0].lower(), rest[1:]
        if command in QUIT_WORDS:
            return False
        if command == "start":
            await self.start(rest)
        elif command == "run":
            typed = RUN_PREFIX.sub("", line.strip(), count=1).strip()  # `run CODE`, as /quiz run CODE
            snippet = typed + "\n" if typed and not typed.startswith("```") else await self.read_code(typed)
            await self.call(rq.RunCode(snippet))
        elif command == "answer" and self.current is not None:
            return await self.answer(" ".join(rest) or "code")
        elif command in ("daily", "remind"):
            # Here there is no channel to post in and no one to message: only the personal review.
            if command == "daily" and not rest:
                await self.call(rq.DailyReview())
            else:
                self.show(notice(_(TERMINAL_DAILY)))
        elif command in commands.SUBCOMMANDS:
            parsed = commands.parse(" ".join([command, *rest]))
            if isinstance(parsed, commands.Usage):
                self.show(notice(parsed.problem))
            elif isinstance(parsed, commands.PackLoadAsked):
                self.show(notice(_("Load packs from the shell here: `quizbot pack import PATH`.")))
            else:
                await self.call(parsed)
            if command == "help":
                self.console.print("[dim]" + _("Here: type the commands without /quiz; `quit` leaves.") + "[/dim]")
        elif command in commands.SOCIAL_SUBCOMMANDS:
            await self.social(command, rest)
        elif self.current is not None:
            return await self.answer(line)
        else:
            self.console.print(_("Unknown command. Type `help`."), markup=False)
        return True


RUN_PREFIX = re.compile(r"^/?(?:quiz\s+)?run\b", re.IGNORECASE)
LANGUAGE_TAG = re.compile(r"[A-Za-z][\w+#.-]*")  # ```python: a language, not code


def _fenced(line: str) -> tuple[list[str], bool]:
    """The code on a line that opens a fence, and whether the same line closes it (```print(1)```)."""
    after = line.strip()[3:]
    if after.endswith("```") and after[:-3].strip():
        return [after[:-3].strip()], True
    after = after.rstrip("`")
    return ([after] if after.strip() and not LANGUAGE_TAG.fullmatch(after.strip()) else []), False


def _is_command(line: str) -> bool:
    """Whether a line typed at a blank's menu is a command (`hint`, `/quiz skip`, `quit`) rather than a pick."""
    words = line.lower().split()
    command = words[0].lstrip("/")
    if command == "quiz" and len(words) > 1:
        command = words[1]
    return command in QUIT_WORDS or command in commands.SUBCOMMANDS or command in commands.SOCIAL_SUBCOMMANDS


async def run_console(
    service: QuizService,
    *,
    stdin: TextIO | None = None,
    console: Console | None = None,
    pictures: Path = PICTURES,
    files_dir: Path | None = None,
) -> int:
    front = ConsoleFrontEnd(
        service, stdin=stdin or sys.stdin, console=console or Console(highlight=False), pictures=pictures, files_dir=files_dir
    )
    return await front.loop()
