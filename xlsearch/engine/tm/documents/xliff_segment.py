"""Sentence segmentation of XLIFF units that hold a whole paragraph, as CAT tools do it.

Files exported by a CMS or a filter (Okapi, TMGMT, …) often carry one paragraph per unit,
unsegmented. A CAT tool splits such a unit into sentences on import. Looking a
three-sentence paragraph up against a sentence memory finds nothing; looking up its
sentences finds them. So an untranslated unit of several sentences is split the way its
version defines:

* XLIFF 1.2 (``segment12``): a ``<seg-source>`` holding the source's own content, each
  sentence wrapped in ``<mrk mtype="seg" mid="xls1">`` …, what lies between sentences left
  between them; the target is written the same way.
* XLIFF 2.0 (``segment20``): one ``<segment id="xls1">`` … a sentence, the spaces between in
  ``<ignorable>``s; not where ``canResegment="no"``.

Inline codes stay where they are; a sentence boundary inside a code or a paired tag leaves
the unit whole. A unit that gets no target is saved as the file had it (``as_loaded``).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from xlsearch.engine.tm.documents.tags import local_name
from xlsearch.engine.tm.documents.xliff_text import child_element, element_text, namespace_of

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


def sentence_spans(raw: str, sentences: list[str]) -> list[tuple[int, int]] | None:
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
    from xlsearch.engine.lang.sentences import split_sentences

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
    spans = sentence_spans(raw, sentences)
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


def segment12(tu: Any, lang: str) -> Any:
    """The ``seg-source`` xlsearch makes for an unsegmented unit of several sentences, put
    after its ``source``; None when it stays one segment."""
    from xlsearch.engine.importers.base import normalize_lang

    source = child_element(tu, "source")
    if source is None or any(local_name(c.tag) == "mrk" for c in source.iter()):
        return None
    ns = namespace_of(tu)
    q = (lambda n: f"{{{ns}}}{n}") if ns else (lambda n: n)
    seg_source = segment_unit(source, element_text(source)[0], normalize_lang(lang) or "en", q)
    if seg_source is not None:
        source.addnext(seg_source)
        seg_source.tail = source.tail
    return seg_source


def segment20(unit: Any, lang: str) -> tuple[Any, Any, list[Any]] | None:
    """An untranslated 2.0 unit of one segment holding several sentences, split as a CAT tool
    does: one ``segment`` (id ``xls1`` …) a sentence, the spaces between in ``ignorable``s.
    Returns ``(unit, the original segment, the new elements)``, or None when it stays whole
    (one sentence, a target, ``canResegment="no"``, or codes it cannot split around)."""
    from xlsearch.engine.importers.base import normalize_lang

    segments = [c for c in unit if local_name(c.tag) == "segment"]
    if len(segments) != 1 or any(local_name(c.tag) == "ignorable" for c in unit):
        return None
    seg = segments[0]
    target, source = child_element(seg, "target"), child_element(seg, "source")
    if source is None or (target is not None and element_text(target)[0]):
        return None
    node: Any = seg
    while node is not None:  # canResegment is inherited from file, group, unit
        if node.get("canResegment") == "no":
            return None
        node = node.getparent()
    if any(local_name(c.tag) in ("sc", "ec", "sm", "em", "mrk") for c in source.iter()):
        return None
    ns = namespace_of(unit)
    q = (lambda n: f"{{{ns}}}{n}") if ns else (lambda n: n)
    seg_source = segment_unit(source, element_text(source)[0], normalize_lang(lang) or "en", q)
    if seg_source is None or any(local_name(c.tag) != "mrk" for c in seg_source):
        return None  # a code between two sentences: no segment can hold it

    def ignorable(text: str) -> Any:
        elem = unit.makeelement(q("ignorable"), {})
        inner = unit.makeelement(q("source"), {})
        inner.text = text
        elem.append(inner)
        return elem

    news: list[Any] = []
    if seg_source.text:
        news.append(ignorable(seg_source.text))
    for mrk in seg_source:
        new = unit.makeelement(q("segment"), {k: v for k, v in seg.attrib.items() if k != "id"})
        new.set("id", mrk.get("mid"))
        inner = unit.makeelement(q("source"), {})
        inner.text = mrk.text
        for child in list(mrk):
            inner.append(child)
        new.append(inner)
        news.append(new)
        if mrk.tail:
            news.append(ignorable(mrk.tail))
    for new in news:
        seg.addprevious(new)
    news[-1].tail = seg.tail
    unit.remove(seg)
    return unit, seg, news


def _made_here(seg_source: Any) -> bool:
    """Whether xlsearch made this ``seg-source`` (its segment ids are ``xls1``, ``xls2`` …)."""
    marks = [m for m in seg_source if local_name(m.tag) == "mrk"]
    return bool(marks) and all((m.get("mid") or "").startswith(MID_PREFIX) for m in marks)


@contextmanager
def as_loaded(doc: Any) -> Iterator[None]:
    """Inside: the units xlsearch segmented (1.2 ``seg-source``, 2.0 split segments) that got
    no target are as the file had them; after, segmented again for later saves."""
    root = doc.handle.getroot()
    unused = [
        (s.getparent(), s)
        for s in root.iter("{urn:oasis:names:tc:xliff:document:1.2}seg-source", "seg-source")
        if _made_here(s) and child_element(s.getparent(), "target") is None
    ]
    whole = [
        (unit, seg, news)
        for unit, seg, news in doc.resegmented
        if all(child_element(n, "target") is None for n in news)
    ]
    for tu, seg_source in unused:
        tu.remove(seg_source)
    for unit, seg, news in whole:
        news[0].addprevious(seg)
        for n in news:
            unit.remove(n)
    try:
        yield
    finally:
        for tu, seg_source in unused:
            child_element(tu, "source").addnext(seg_source)
        for unit, seg, news in whole:
            for n in news:
                seg.addprevious(n)
            unit.remove(seg)
