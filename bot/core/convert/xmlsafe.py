"""Parse XML into a small tree that remembers line numbers, refusing DTDs and entities.

defusedxml's SAX reader is used with DTDs forbidden: a billion-laughs or external-entity file is
refused at its `<!DOCTYPE`, before any entity is expanded or any file read. Depth is capped too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.sax import SAXParseException
from xml.sax.handler import ContentHandler
from xml.sax.xmlreader import AttributesImpl, Locator

import defusedxml.sax
from defusedxml import DefusedXmlException, DTDForbidden

from bot.core.i18n import M_

from .result import ConvertError

MAX_DEPTH = 40
MAX_ELEMENTS = 300_000
"""A real 5 MiB export holds far fewer (a `<text>` element alone takes 13 bytes); each costs a Node."""
_ENCODING = re.compile(rb"""^(?:\xef\xbb\xbf)?<\?xml[^>]*?encoding\s*=\s*["']([^"']{0,40})["']""")


@dataclass(slots=True)
class Node:
    """An XML element: its tag, attributes, the line it starts on, children and text."""

    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Node] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def find(self, tag: str) -> Node | None:
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list[Node]:
        return [c for c in self.children if c.tag == tag]

    def get(self, path: str, default: str = "") -> str:
        """Return the text at a slash-separated child path, e.g. `name/text`."""
        node: Node | None = self
        for part in path.split("/"):
            node = node.find(part) if node is not None else None
        return node.text if node is not None else default


class _TooDeep(Exception):
    pass


class _TooMany(Exception):
    pass


class _Builder(ContentHandler):
    def __init__(self) -> None:
        super().__init__()
        self.root: Node | None = None
        self.stack: list[Node] = []
        self.locator: Locator | None = None
        self.count = 0

    def setDocumentLocator(self, locator: Locator) -> None:
        self.locator = locator

    def line(self) -> int:
        return (self.locator.getLineNumber() or 1) if self.locator is not None else 1

    def startElement(self, name: str, attrs: AttributesImpl) -> None:
        if len(self.stack) >= MAX_DEPTH:
            raise _TooDeep
        self.count += 1
        if self.count > MAX_ELEMENTS:
            raise _TooMany
        node = Node(tag=name, attrs={k: attrs[k] for k in attrs.getNames()}, line=self.line())
        if self.stack:
            self.stack[-1].children.append(node)
        else:
            self.root = node
        self.stack.append(node)

    def endElement(self, name: str) -> None:
        self.stack.pop()

    def characters(self, content: str) -> None:
        if self.stack:
            self.stack[-1].parts.append(content)


def parse_xml(data: bytes, source: str) -> Node:
    """Parse `data`; raise ConvertError with the line for broken or hostile XML."""
    builder = _Builder()
    try:
        defusedxml.sax.parseString(data, builder, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except SAXParseException as exc:
        raise ConvertError(source, exc.getLineNumber(), M_("broken XML: {detail}", detail=exc.getMessage())) from exc
    except DTDForbidden as exc:
        raise ConvertError(
            source,
            builder.line(),
            M_(
                "the XML declares a DTD (<!DOCTYPE>); DTDs and entities are refused, "
                "because they can read local files or expand without end"
            ),
        ) from exc
    except DefusedXmlException as exc:
        raise ConvertError(source, builder.line(), M_("the XML declares entities; they are refused")) from exc
    except _TooDeep as exc:
        raise ConvertError(source, builder.line(), M_("the XML nests deeper than {most} levels", most=MAX_DEPTH)) from exc
    except _TooMany as exc:
        raise ConvertError(source, builder.line(), M_("the XML holds more than {most} elements", most=MAX_ELEMENTS)) from exc
    except (LookupError, ValueError) as exc:  # expat: an unknown encoding, or one it cannot read (UTF-7, Shift JIS ...)
        declared = _ENCODING.match(data)
        name = declared.group(1).decode("ascii", "replace") if declared else "?"
        raise ConvertError(
            source, 1, M_("the XML declares the encoding `{name}`, which cannot be read: save the file as UTF-8", name=name)
        ) from exc
    if builder.root is None:
        raise ConvertError(source, 1, M_("no XML element found"))
    return builder.root
