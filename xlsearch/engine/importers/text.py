"""Plain text: one segment per line, or paragraphs (blank-line separated) split into sentences."""

from __future__ import annotations

import re
from collections.abc import Iterator

from xlsearch.engine.importers.base import (
    MAX_SEGMENT_CHARS,
    ReadContext,
    Record,
    check_text,
    iter_lines,
    normalize,
)

# A sentence ends at . ! ? … (Latin, Cyrillic, Greek …), ؟ (Arabic), ۔ (Urdu), । ॥ (Devanagari)
# followed by space, or right after 。！？ (CJK, no space needed); closing quotes stay attached.
_SPLIT = re.compile(r"(?<=[.!?…؟۔।॥])[\"'”’»)\]]*\s+(?=\S)|(?<=[。！？])[」』”’）]*\s*(?=\S)")
_CLOSE = "\"'”’»)]」』）"
_ABBREV = frozenset(
    "mr mrs ms dr prof st vs etc e.g i.e cf no nr fig z.b u.a d.h bzw ca usw s.o vgl "
    "mme mlle m sr sra dra jr sen gen".split()
)


def split_sentences(paragraph: str) -> list[str]:
    """Split a paragraph into sentences (a simple multilingual rule set).

    Splits after sentence punctuation followed by whitespace (not after a lower-case
    continuation, a common abbreviation or a single initial) and after CJK full stops.
    """
    text = normalize(paragraph)
    if not text:
        return []
    out: list[str] = []
    start = 0
    for m in _SPLIT.finditer(text):
        end = m.end()
        piece = text[start:end].strip()
        nxt = text[end : end + 1]
        last_word = piece.rstrip(_CLOSE).rsplit(" ", 1)[-1].rstrip(".").lower()
        cjk = piece.rstrip(_CLOSE)[-1:] in "。！？"
        if not cjk and piece.rstrip(_CLOSE).endswith("."):
            if (
                nxt.islower()
                or last_word in _ABBREV
                or (len(last_word) == 1 and last_word.isalpha())
            ):
                continue
        out.append(piece)
        start = end
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def read_text(ctx: ReadContext) -> Iterator[Record]:
    """Every non-blank line is a segment; with ``ctx.paragraphs`` blank-line separated
    paragraphs are split into sentences. All segments get ``ctx.langs[0]`` when given, else
    their language is identified."""
    lang = ctx.langs[0] if ctx.langs else None
    tu = 0
    if not ctx.paragraphs:
        for number, line in iter_lines(ctx):
            if not line.strip():
                continue
            text = normalize(line)
            if check_text(ctx, text, number):
                yield Record(tu, lang, text, number)
                tu += 1
        return
    buf: list[str] = []
    size = 0
    first = 0
    for number, line in _with_end(iter_lines(ctx)):
        if line is not None and line.strip() and size < 4 * MAX_SEGMENT_CHARS:
            if not buf:
                first = number
            buf.append(line)
            size += len(line)
            continue
        if buf:
            for sentence in split_sentences(" ".join(buf)):
                if check_text(ctx, sentence, first):
                    yield Record(tu, lang, sentence, first)
                    tu += 1
            buf, size = [], 0
        if line is not None and line.strip():  # the paragraph was too long: start a new one
            buf, size, first = [line], len(line), number


def _with_end(lines: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str | None]]:
    number = 0
    for number, line in lines:
        yield number, line
    yield number + 1, None
