"""Streaming XML for TMX/XLIFF: expat + TreeBuilder, exact line numbers, constant memory.

Any codec Python knows is read (transcoded to UTF-8 for expat, which itself only knows a
few); segment text is capped while streaming and over-long tokens are refused, so memory
stays flat in segment length as well as in file length.
"""

from __future__ import annotations

import codecs
import html.entities
import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Iterator
from typing import IO
from xml.parsers import expat

from xlsearch.engine.importers.base import MAX_SEGMENT_CHARS, ReadContext, open_binary, sniff
from xlsearch.engine.importers.encoding import decode_error, xml_encoding

CHUNK = 1 << 16
MALFORMED_HINT = (
    "the file is damaged or cut short (an interrupted copy?): export it again from the tool "
    "that made it, or fix the XML at that line"
)
MAX_TOKEN_BYTES = 1 << 20
"""A single tag, attribute or comment longer than this is refused (expat 2.5 reparses an
unfinished token on every chunk: time would grow with the square of its length)."""
TEXT_CAP = 2 * MAX_SEGMENT_CHARS
"""Characters kept per capped element (segment); beyond it the text is dropped while
streaming and the element is marked with the ``OVER`` attribute."""
OVER = "xlsearch-over"


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1]


def iter_xml(
    ctx: ReadContext,
    starts: frozenset[str],
    ends: frozenset[str],
    capped: frozenset[str] = frozenset(),
) -> Iterator[tuple[str, ET.Element, int]]:
    """Yield ("start"|"end", element, line) for the named local tags, in document order.

    Tags and attribute names are local (namespaces dropped; ``xml:lang`` → ``lang``). A
    "start" element has its attributes only. After an "end" element has been consumed it is
    cleared and detached from its parent, so memory stays flat however long the file is.
    Text inside a ``capped`` element beyond ``TEXT_CAP`` characters is dropped and the
    element gets an ``OVER`` attribute. Entities a DTD would define (``&nbsp;``) are resolved
    as HTML entities; unknown ones are kept as written, with a warning. Malformed or
    truncated XML raises ``DataError`` with the line and column.
    """
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate(encoding="utf-8", namespace_separator="}")
    parser.buffer_text = True
    parser.buffer_size = CHUNK
    parser.UseForeignDTD(True)  # undefined entities reach SkippedEntityHandler, no error
    stack: list[ET.Element] = []
    lines: list[int] = []
    # (event, element, line, parent at the time the element ended)
    pending: deque[tuple[str, ET.Element, int, ET.Element | None]] = deque()
    cap: list[list] = []  # [characters so far, element] of open capped elements
    loose = [0]  # characters outside capped elements since the last unit ended

    def start(name: str, attrs: dict[str, str]) -> None:
        tag = _local(name)
        elem = builder.start(tag, {_local(k): v for k, v in attrs.items()})
        line = parser.CurrentLineNumber
        stack.append(elem)
        lines.append(line)
        if tag in capped:
            cap.append([0, elem])
        if tag in starts:
            pending.append(("start", elem, line, None))

    def end(name: str) -> None:
        elem = builder.end(_local(name))
        stack.pop()
        line = lines.pop()
        if cap and cap[-1][1] is elem:
            size = cap.pop()[0]
            if cap:
                cap[-1][0] += size
        if elem.tag in ends:
            loose[0] = 0
            pending.append(("end", elem, line, stack[-1] if stack else None))

    def data(text: str) -> None:
        if cap:
            top = cap[-1]
            top[0] += len(text)
            if top[0] > TEXT_CAP:
                top[1].set(OVER, str(top[0]))
                return
        else:
            loose[0] += len(text)
            if loose[0] > TEXT_CAP:
                return
        builder.data(text)

    def skipped_entity(name: str, is_parameter: int) -> None:
        if is_parameter:
            return
        char = html.entities.html5.get(f"{name};")
        if char is None:
            ctx.warn(
                f"undefined entity &{name}; kept as written",
                line=parser.CurrentLineNumber,
                skip=False,
            )
            char = f"&{name};"
        data(char)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    parser.SkippedEntityHandler = skipped_entity

    def drain() -> Iterator[tuple[str, ET.Element, int]]:
        while pending:
            kind, elem, line, parent = pending.popleft()
            yield kind, elem, line
            if kind == "end":
                elem.clear()
                if parent is not None:
                    parent.remove(elem)

    with open_binary(ctx) as stream:
        _, head = sniff(stream, ctx)
        encoding = xml_encoding(head, ctx.encoding, str(ctx.path))
        ctx.decoded_as = encoding
        source = _Utf8Source(ctx, stream, encoding)
        for chunk in source:
            try:
                parser.Parse(chunk, not chunk)
            except expat.ExpatError as exc:
                detail = expat.errors.messages.get(exc.code, str(exc))
                if "no element found" in detail or "unclosed token" in detail:
                    detail += " (truncated file?)"
                raise ctx.error(
                    f"malformed XML at column {exc.offset + 1}: {detail}",
                    line=exc.lineno,
                    hint=MALFORMED_HINT,
                ) from exc
            if parser.CurrentByteIndex >= 0 and (
                source.fed - parser.CurrentByteIndex > MAX_TOKEN_BYTES
            ):
                raise ctx.error(
                    f"a single tag, attribute or comment of over {MAX_TOKEN_BYTES >> 20} MiB "
                    "(corrupt file?); refused",
                    line=parser.CurrentLineNumber,
                )
            yield from drain()


class _Utf8Source:
    """The file as UTF-8 chunks, then ``b""`` once: UTF-8 passes through (checked), any
    other codec is transcoded. ``fed`` counts the bytes handed out (for the token guard)."""

    def __init__(self, ctx: ReadContext, stream: IO[bytes], encoding: str) -> None:
        self.ctx, self.stream, self.encoding = ctx, stream, encoding
        self.fed = 0

    def __iter__(self) -> Iterator[bytes]:
        ctx = self.ctx
        passthrough = self.encoding == "utf-8"
        decoder = codecs.getincrementaldecoder(self.encoding)()
        newlines = total = 0
        try:
            while True:
                raw = self.stream.read(CHUNK)
                total += len(raw)
                if not total:
                    raise ctx.error("the file is empty (no XML)", line=1)
                try:
                    text = decoder.decode(raw, not raw)
                except UnicodeDecodeError as exc:
                    line = newlines + raw[: max(exc.start, 0)].count(b"\n") + 1
                    raise decode_error(f"{ctx.path}:{line}", self.encoding, exc, raw) from exc
                out = raw if passthrough else text.encode("utf-8")
                newlines += out.count(b"\n")
                self.fed += len(out)
                yield out
                if not raw:
                    return
        except (OSError, EOFError) as exc:
            raise ctx.error(f"cannot read (corrupt or truncated file?): {exc}") from exc


def child(elem: ET.Element, tag: str) -> ET.Element | None:
    """The first direct child with local tag ``tag``."""
    for c in elem:
        if c.tag == tag:
            return c
    return None
