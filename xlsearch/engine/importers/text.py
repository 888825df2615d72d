"""Plain text: one segment per line, or paragraphs (blank-line separated) split into sentences."""

from __future__ import annotations

from collections.abc import Iterator

from xlsearch.engine.importers.base import (
    MAX_SEGMENT_CHARS,
    ReadContext,
    Record,
    check_text,
    iter_lines,
    normalize,
)
from xlsearch.engine.lang.doclang import DOCUMENT_GROUP


def split_sentences(paragraph: str, lang: str | None = None) -> list[str]:
    """Split a paragraph into sentences with ``engine.segmentation`` (sentencex); without
    ``lang`` the paragraph's language is identified to pick the rules."""
    from xlsearch.engine.lang.sentences import split_sentences as segment

    text = normalize(paragraph)
    if not text:
        return []
    if lang is None:
        from xlsearch.engine.lang.identify import UNDETERMINED, classify

        found = classify(text)[0]
        lang = "en" if found == UNDETERMINED else found
    return segment(text, lang)


def read_text(ctx: ReadContext) -> Iterator[Record]:
    """Every non-blank line is a segment; with ``ctx.paragraphs`` blank-line separated
    paragraphs are split into sentences. All segments get ``ctx.langs[0]`` when given, else
    the document's language, decided once for all of them (``doclang``)."""
    lang = ctx.langs[0] if ctx.langs else None
    tu = 0
    if not ctx.paragraphs:
        for number, line in iter_lines(ctx):
            if not line.strip():
                continue
            text = normalize(line)
            if check_text(ctx, text, number):
                yield Record(tu, lang, text, number, group=DOCUMENT_GROUP)
                tu += 1
        return
    buf: list[str] = []
    size = 0
    first = 0
    end: str | None
    for number, end in _with_end(iter_lines(ctx)):
        if end is not None and end.strip() and size < 4 * MAX_SEGMENT_CHARS:
            if not buf:
                first = number
            buf.append(end)
            size += len(end)
            continue
        if buf:
            for sentence in split_sentences(" ".join(buf), lang):
                if check_text(ctx, sentence, first):
                    yield Record(tu, lang, sentence, first, group=DOCUMENT_GROUP)
                    tu += 1
            buf, size = [], 0
        if end is not None and end.strip():  # the paragraph was too long: start a new one
            buf, size, first = [end], len(end), number


def _with_end(lines: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str | None]]:
    number = 0
    for number, line in lines:
        yield number, line
    yield number + 1, None
