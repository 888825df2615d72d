"""Streaming XML for TMX/XLIFF: expat + TreeBuilder, exact line numbers, constant memory."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Iterator
from xml.parsers import expat

from xlsearch.engine.importers.base import ReadContext, open_binary, sniff

CHUNK = 1 << 16
# Inline elements whose content is native markup (not text): dropped, their tail kept.
CODE_TAGS = frozenset({"bpt", "ept", "ph", "it", "ut"})


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1]


def iter_xml(
    ctx: ReadContext, starts: frozenset[str], ends: frozenset[str]
) -> Iterator[tuple[str, ET.Element, int]]:
    """Yield ("start"|"end", element, line) for the named local tags, in document order.

    Tags and attribute names are local (namespaces dropped; ``xml:lang`` → ``lang``). A
    "start" element has its attributes only. After an "end" element has been consumed it is
    cleared and detached from its parent, so memory stays flat however long the file is.
    Malformed or truncated XML raises ``DataError`` with the line and column.
    """
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate(namespace_separator="}")
    parser.buffer_text = True
    parser.buffer_size = CHUNK
    stack: list[ET.Element] = []
    lines: list[int] = []
    # (event, element, line, parent at the time the element ended)
    pending: deque[tuple[str, ET.Element, int, ET.Element | None]] = deque()

    def start(name: str, attrs: dict[str, str]) -> None:
        tag = _local(name)
        elem = builder.start(tag, {_local(k): v for k, v in attrs.items()})
        line = parser.CurrentLineNumber
        stack.append(elem)
        lines.append(line)
        if tag in starts:
            pending.append(("start", elem, line, None))

    def end(name: str) -> None:
        elem = builder.end(_local(name))
        stack.pop()
        line = lines.pop()
        if elem.tag in ends:
            pending.append(("end", elem, line, stack[-1] if stack else None))

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = builder.data

    def drain() -> Iterator[tuple[str, ET.Element, int]]:
        while pending:
            kind, elem, line, parent = pending.popleft()
            yield kind, elem, line
            if kind == "end":
                elem.clear()
                if parent is not None:
                    parent.remove(elem)

    with open_binary(ctx) as stream:
        sniff(stream, ctx)
        try:
            total = 0
            while True:
                chunk = stream.read(CHUNK)
                total += len(chunk)
                if not total:
                    raise ctx.error("the file is empty (no XML)", line=1)
                try:
                    parser.Parse(chunk, not chunk)
                except expat.ExpatError as exc:
                    detail = expat.errors.messages.get(exc.code, str(exc))
                    if "no element found" in detail or "unclosed token" in detail:
                        detail += " (truncated file?)"
                    raise ctx.error(
                        f"malformed XML at column {exc.offset + 1}: {detail}", line=exc.lineno
                    ) from exc
                yield from drain()
                if not chunk:
                    break
        except (OSError, EOFError) as exc:
            raise ctx.error(f"cannot read (corrupt or truncated file?): {exc}") from exc


def inline_text(elem: ET.Element) -> str:
    """The text of a segment element with inline markup stripped (codes dropped, text kept).

    Iterative, so absurdly deep nesting cannot overflow the stack.
    """
    parts: list[str] = []
    stack: list[tuple[ET.Element, bool]] = [(elem, False)]
    while stack:
        node, done = stack.pop()
        if done:  # after the children: this node's tail belongs to its parent's text
            if node is not elem:
                parts.append(node.tail or "")
            continue
        stack.append((node, True))
        if node.tag in CODE_TAGS and node is not elem:
            continue
        parts.append(node.text or "")
        stack.extend((c, False) for c in reversed(node))
    return "".join(parts)


def child(elem: ET.Element, tag: str) -> ET.Element | None:
    """The first direct child with local tag ``tag``."""
    for c in elem:
        if c.tag == tag:
            return c
    return None
