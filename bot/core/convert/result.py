"""The result of a conversion: the pack as plain data, its files, and a report for people.

ConvertError is raised for a file that cannot be read at all (too large, not text, broken XML,
an unclosed GIFT brace, an unknown format); everything that goes wrong with one item is
reported in `Conversion.not_converted` instead, with the item's line in the source.
"""

from __future__ import annotations

import io
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.core.errors import Problem, QuizError
from bot.core.i18n import N_, _, ngettext, number, said
from bot.core.packs import LoadedPack

from .origin import ORIGIN_FILE, origin_json
from .yamlout import dump_yaml

PACK_FILE = "pack.yaml"


class ConvertError(QuizError):
    """A source file that cannot be converted at all; `str()` is `file:line: message`."""

    def __init__(self, source: str, line: int | None, message: str) -> None:
        self.source, self.line, self.message = source, line, message
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {said(message)}")

    def problem(self) -> Problem:
        """Return the error as a pack Problem, for front ends that already show those."""
        return Problem(self.source, self.line or 1, 1, self.message)


class UnknownFormat(ConvertError):
    """A file of no format the converters know (the chat, which has no `--format`, says so in its own words)."""


@dataclass(frozen=True)
class Converted:
    """One item that became a question."""

    id: str
    type: str  # choice | blanks | short | code
    line: int
    source_type: str  # the source's own name for the item type


@dataclass(frozen=True)
class NotConverted:
    """One item left out, with where it is and why."""

    line: int
    label: str
    source_type: str
    reason: str

    def describe(self, source: str) -> str:
        return f"{source}:{self.line}: `{self.label}` ({self.source_type}): {said(self.reason)}"


@dataclass(frozen=True)
class Assumption:
    """Something decided for the admin, with the source lines it concerns (none: the whole file)."""

    message: str
    lines: tuple[int, ...] = ()

    def describe(self) -> str:
        if not self.lines:
            return said(self.message)
        shown = ", ".join(str(n) for n in self.lines[:12])
        if len(self.lines) > 12:
            shown = _("{lines} and {n} more").format(lines=shown, n=number(len(self.lines) - 12))
        where = ngettext("line {lines}", "lines {lines}", len(self.lines)).format(lines=shown)
        return f"{said(self.message)} ({where})"


@dataclass(frozen=True)
class Conversion:
    """A converted pack: `pack` is the pack.yaml content, `files` the test files it names."""

    source: str
    format: str
    pack: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)
    converted: tuple[Converted, ...] = ()
    not_converted: tuple[NotConverted, ...] = ()
    assumptions: tuple[Assumption, ...] = ()
    loaded: LoadedPack | None = None  # the pack as the loader read it back; None when nothing converted

    @property
    def ok(self) -> bool:
        return bool(self.converted)

    def counts(self) -> dict[str, int]:
        """Count the converted items per question type, in the pack format's order."""
        found = Counter(c.type for c in self.converted)
        return {kind: found[kind] for kind in ("choice", "blanks", "short", "code") if found[kind]}

    def pack_yaml(self) -> str:
        return dump_yaml(self.pack)

    def folder_files(self) -> dict[str, bytes]:
        """Return every file of the pack folder, by its path inside the folder."""
        pack_yaml = self.pack_yaml().encode("utf-8")
        out = {PACK_FILE: pack_yaml}
        out.update({name: text.encode("utf-8") for name, text in self.files.items()})
        if self.loaded is not None:  # where each question came from, so later problems name the source's lines
            source_lines = {c.id: c.line for c in self.converted}
            out[ORIGIN_FILE] = origin_json(self.source, pack_yaml, self.loaded.lines, source_lines).encode("utf-8")
        return out

    def zip_bytes(self) -> bytes:
        """Return the pack folder as a .zip that `quizbot pack import` and `/quiz pack load` accept."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data in self.folder_files().items():
                archive.writestr(f"{self.pack['pack']}/{name}", data)
        return buffer.getvalue()

    def summary(self) -> str:
        """Say in one line how many items became which type."""
        counts = self.counts()
        kinds = ", ".join(f"{number(n)} {kind}" for kind, n in counts.items())  # the pack format's own type names
        total, left = len(self.converted), len(self.not_converted)
        source = _(FORMAT_NAMES[self.format]) if self.format in FORMAT_NAMES else self.format
        head = ngettext("Converted {n} item from {source}", "Converted {n} items from {source}", total)
        head = head.format(n=number(total), source=source) + (f" ({kinds})" if kinds else "")
        return head + (_("; {n} not converted.").format(n=number(left)) if left else ".")

    def preview(self, *, problems: int = 5) -> str:
        """Return a short Markdown preview for an admin: counts per type, then the first problems."""
        lines = [f"**{self.summary()}**"]
        if self.ok:
            lines.append(
                _("Pack `{pack}` · {title} · version {version}").format(
                    pack=self.pack["pack"], title=self.pack["title"], version=self.pack["version"]
                )
            )
            topics = self.pack.get("topics") or []
            if topics:
                lines.append(_("Topics:") + " " + ", ".join(t["title"] for t in topics[:10]) + (" ..." if len(topics) > 10 else ""))
        if self.not_converted:
            lines.append(_("Not converted:"))
            line = _("line {line}: `{label}` ({type}): {reason}")
            lines.extend(
                "- " + line.format(line=n.line, label=n.label, type=n.source_type, reason=said(n.reason))
                for n in self.not_converted[:problems]
            )
            if len(self.not_converted) > problems:
                lines.append("- " + _("... and {n} more").format(n=number(len(self.not_converted) - problems)))
        if self.assumptions:
            lines.append(_("Assumed:"))
            lines.extend(f"- {a.describe()}" for a in self.assumptions[:problems])
            if len(self.assumptions) > problems:
                lines.append("- " + _("... and {n} more").format(n=number(len(self.assumptions) - problems)))
        return "\n".join(lines)

    def report_lines(self, *, limit: int | None = None) -> list[str]:
        """Return the report as plain lines: summary, items not converted, assumptions."""
        lines = [self.summary()]
        if self.not_converted:
            lines.append(f"Not converted ({len(self.not_converted)}):")
            shown = self.not_converted if limit is None else self.not_converted[:limit]
            lines.extend(f"  {item.describe(self.source)}" for item in shown)
            if len(shown) < len(self.not_converted):
                lines.append(f"  ... and {len(self.not_converted) - len(shown)} more")
        if self.assumptions:
            lines.append("Assumed:")
            shown_a = self.assumptions if limit is None else self.assumptions[:limit]
            lines.extend(f"  - {a.describe()}" for a in shown_a)
            if len(shown_a) < len(self.assumptions):
                lines.append(f"  ... and {len(self.assumptions) - len(shown_a)} more")
        return lines


FORMAT_NAMES = {  # what `summary` says a file was converted from
    "moodle-xml": N_("Moodle XML"),
    "gift": N_("GIFT"),
    "red-trivia": N_("a Red-DiscordBot trivia list"),
    "opentdb": N_("Open Trivia DB JSON"),
    "csv": N_("CSV/TSV"),
    "anki": N_("an Anki text export"),
    "anki-package": N_("an Anki package (.apkg/.colpkg)"),
}
