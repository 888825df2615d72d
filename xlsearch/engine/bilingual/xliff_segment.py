"""Sentence segmentation of an XLIFF 1.2 ``trans-unit`` that holds a whole paragraph.

Files exported by a CMS or a filter (Okapi, TMGMT, …) often carry one paragraph per unit,
unsegmented. A CAT tool splits such a unit into sentences on import and writes them back as
``<seg-source>`` with one ``<mrk mtype="seg">`` per sentence (the target likewise), which
XLIFF 1.2 defines for this. Looking a three-sentence paragraph up against a sentence memory
finds nothing; looking up its sentences finds them. So ``segment_unit`` builds that
``seg-source``: the source's own content, each sentence wrapped in a ``mrk``, what lies
between sentences (spaces) left between them. Inline codes stay where they are; a sentence
boundary that falls inside a code or a paired tag leaves the unit whole.
"""

from __future__ import annotations

import copy
import re
from typing import Any

MID_PREFIX = "xls"
"""Segment ids xlsearch gives (``xls1``, ``xls2`` …): never a CAT tool's own."""


def _pieces(source: Any) -> list[tuple[str, Any]]:
    """The source's top level in order: ``("text", str)`` runs and ``("elem", element)``."""
    out: list[tuple[str, Any]] = [("text", source.text or "")]
    for child in source:
        out.append(("elem", child))
        out.append(("text", child.tail or ""))
    return out


def _elem_text(elem: Any) -> str:
    return "".join(elem.itertext()) if isinstance(elem.tag, str) else ""


def _spans(raw: str, sentences: list[str]) -> list[tuple[int, int]] | None:
    """Where each sentence stands in ``raw`` (its words in order, any whitespace between)."""
    out, at = [], 0
    for sentence in sentences:
        pattern = r"\s+".join(re.escape(w) for w in sentence.split())
        m = re.compile(pattern).search(raw, at)
        if m is None or raw[at : m.start()].strip():
            return None
        out.append((m.start(), m.end()))
        at = m.end()
    return out if not raw[at:].strip() else None


def segment_unit(source: Any, text: str, lang: str, q: Any) -> Any | None:
    """A ``seg-source`` element for ``source`` (not attached), one ``mrk`` a sentence, or
    None when ``text`` is one sentence or a boundary falls inside an inline element."""
    from xlsearch.engine.segmentation import split_sentences

    sentences = split_sentences(text, lang or "en")
    if len(sentences) < 2:
        return None
    pieces = _pieces(source)
    raw_parts, starts = [], []
    at = 0
    for kind, value in pieces:
        starts.append(at)
        part = value if kind == "text" else _elem_text(value)
        raw_parts.append(part)
        at += len(part)
    raw = "".join(raw_parts)
    spans = _spans(raw, sentences)
    if spans is None:
        return None
    cuts = sorted({p for span in spans for p in span} | {0, len(raw)})
    for (kind, _), start, part in zip(pieces, starts, raw_parts, strict=True):
        if kind == "elem" and any(start < c < start + len(part) for c in cuts):
            return None  # a sentence boundary inside a tag: leave the unit whole

    def bucket(pos: int) -> int | None:
        return next((k for k, (s, e) in enumerate(spans) if s <= pos < e), None)

    seg_source = source.makeelement(q("seg-source"), {})
    current: Any = seg_source
    current_bucket: int | None = None

    def switch(b: int | None) -> None:
        nonlocal current, current_bucket
        if b == current_bucket:
            return
        current_bucket = b
        if b is None:
            current = seg_source
        else:
            current = source.makeelement(q("mrk"), {"mtype": "seg", "mid": f"{MID_PREFIX}{b + 1}"})
            seg_source.append(current)

    for (kind, value), start, part in zip(pieces, starts, raw_parts, strict=True):
        if kind == "elem":
            switch(bucket(start))
            el = copy.deepcopy(value)
            el.tail = None
            current.append(el)
            continue
        pos = start
        for cut in [c for c in cuts if start < c < start + len(part)] + [start + len(part)]:
            if cut > pos:
                switch(bucket(pos))
                _append(current, part[pos - start : cut - start])
            pos = cut
    return seg_source


def _append(container: Any, text: str) -> None:
    """Add ``text`` at the end of ``container`` (its text, or its last child's tail)."""
    if len(container):
        container[-1].tail = (container[-1].tail or "") + text
    else:
        container.text = (container.text or "") + text
