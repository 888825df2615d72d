"""Markdown inline markup in documents to translate: formatting, not text.

A sentence of a ``.md`` document such as ``Die **Pumpe** muss `p_max` halten.`` is looked up
as ``Die Pumpe muss p_max halten.`` — the asterisks and backticks would otherwise cost fuzzy
points against every memory and end up inside the translation. The markers are kept as
*events* (a marker and where it stands in the plain text), so the sentence is rebuilt exactly
when it stays untranslated, and a translation gets the markup back by the rule tags follow
(``tags.py``): a span whose text the target holds exactly once is wrapped the same way;
anything else is left out rather than guessed — except a link, whose address is content, not
formatting: a translation that cannot hold a link is not written (``links_fit``).

Only the common, unambiguous inline constructs are read: code spans, links, strong and
emphasis with ``*`` or ``_``. Anything else (HTML, images, escapes, a marker without its
partner, a span that crosses a sentence boundary) stays in the text as written. A sentence
whose rebuild would not give back its exact text is left as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# one construct per pattern, in the order they are read; group 1 = the span's text
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("code", re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)")),
    ("link", re.compile(r"(?<![\\!])\[([^\[\]`]+)\]\(([^()\s]+(?:\s+\"[^\"]*\")?)\)")),
    ("strong", re.compile(r"(?<![\\*])\*\*(?=\S)([^*`]+?)(?<=\S)\*\*(?!\*)")),
    ("strong", re.compile(r"(?<![\\\w_])__(?=\S)([^_`]+?)(?<=\S)__(?![\w_])")),
    ("em", re.compile(r"(?<![\\*])\*(?=[^\s*])([^*`]+?)(?<=[^\s*\\])\*(?!\*)")),
    ("em", re.compile(r"(?<![\\\w_])_(?=[^\s_])([^_`]+?)(?<=[^\s_\\])_(?![\w_])")),
]


@dataclass
class Span:
    """Markup around ``plain[start:end]``: ``open`` before it, ``close`` after it."""

    start: int
    end: int
    open: str
    close: str


def split_markup(sentence: str) -> tuple[str, list[Span]]:
    """``(plain text, spans)`` of one sentence; ``(sentence, [])`` when it has no markup
    read here, or when the plain text and spans would not rebuild it exactly."""
    text, spans = sentence, list[Span]()
    found = True
    while found:  # again until nothing is left: nested spans open up one pass at a time
        found = False
        for kind, pattern in _PATTERNS:
            m = _first_free(pattern, text, spans)
            if m is None:
                continue
            found = True
            if kind == "code":
                inner_at, inner = m.start(2), m.group(2)
                open_, close = m.group(1), m.group(1)
            elif kind == "link":
                inner_at, inner = m.start(1), m.group(1)
                open_, close = "[", f"]({m.group(2)})"
            else:
                inner_at, inner = m.start(1), m.group(1)
                open_ = text[m.start() : inner_at]
                close = text[inner_at + len(inner) : m.end()]
            text = text[: m.start()] + inner + text[m.end() :]
            spans = _shift(spans, m.start(), len(open_), inner_at + len(inner), len(close))
            spans.append(Span(m.start(), m.start() + len(inner), open_, close))
    if not spans or rebuild(text, spans) != sentence:
        return sentence, []
    return text, sorted(spans, key=lambda s: (s.start, -s.end))


def _first_free(pattern: re.Pattern[str], text: str, spans: list[Span]) -> re.Match[str] | None:
    """The first match that lies outside every code span already read (code is literal)."""
    for m in pattern.finditer(text):
        if not any(
            s.open.startswith("`") and s.start < m.end() and m.start() < s.end for s in spans
        ):
            return m
    return None


def _shift(spans: list[Span], at: int, opened: int, inner_end: int, closed: int) -> list[Span]:
    """Spans read before, in the coordinates of the text without the new markers (``opened``
    characters removed at ``at``, ``closed`` more at ``inner_end`` of the old text)."""

    def move(pos: int) -> int:
        if pos > inner_end:
            return pos - opened - closed
        if pos > at:
            return pos - opened
        return pos

    return [Span(move(s.start), move(s.end), s.open, s.close) for s in spans]


def rebuild(plain: str, spans: list[Span]) -> str:
    """``plain`` with every span's markers put back: at one place, closing markers before
    opening ones, the inner span closed first and the outer one opened first."""
    inserts: list[tuple[int, int, int, str]] = []
    for k, s in enumerate(sorted(spans, key=lambda s: (s.start, -s.end))):
        inserts.append((s.start, 1, k, s.open))
        inserts.append((s.end, 0, -k, s.close))
    out, at = [], 0
    for pos, _, _, marker in sorted(inserts):
        out.append(plain[at:pos])
        out.append(marker)
        at = pos
    out.append(plain[at:])
    return "".join(out)


def apply_markup(target: str, plain: str, spans: list[Span]) -> str:
    """``target`` with the source's markup where its place is clear: a span whose text occurs
    exactly once in the target (whole words) is wrapped; an unchanged sentence gets all of
    it back; spans that overlap one already placed are left out."""
    if target == plain:
        return rebuild(plain, spans)
    placed: list[Span] = []
    for s in spans:
        inner = plain[s.start : s.end]
        if s.open + inner + s.close in target:  # the translator typed it already
            continue
        hits = [m.start() for m in re.finditer(rf"(?<!\w){re.escape(inner)}(?!\w)", target)]
        if len(hits) != 1:
            continue
        new = Span(hits[0], hits[0] + len(inner), s.open, s.close)
        if all(new.end <= p.start or new.start >= p.end for p in placed):
            placed.append(new)
    return rebuild(target, placed) if placed else target


def links_fit(written: str, spans: list[Span]) -> bool:
    """Whether ``written`` (``apply_markup``'s result) holds every link of the source: a
    sentence whose link would be lost stays as it was written."""
    return all(s.close in written for s in spans if s.close.startswith("]("))
