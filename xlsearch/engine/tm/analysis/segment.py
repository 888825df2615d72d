"""Whole units first: which units of a document an analysis splits into sentences.

A unit that the memory holds word for word is a 100 % match as it stands; splitting it into
sentences first loses that match (a paragraph memory has no sentence units). So an analysis
(``segment="auto"``) looks every unit up whole and splits a unit of several sentences only
where its sentences do better than the whole: one of them has a fuzzy match
≥ ``GOOD_FUZZY`` % where the whole has none, or the whole has no match at all (no fuzzy
≥ ``GOOD_FUZZY`` %, no semantic match) — then it is segmented as a CAT tool segments a new
paragraph. A paragraph memory thus matches the job's paragraphs, a sentence memory its
sentences, and an edited paragraph gets its fuzzy match on the whole unit. A text or DOCX
document is opened as sentences (what a translator works on) and a paragraph is made whole
again where the whole paragraph has a good fuzzy match (``merge_where_better``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

GOOD_FUZZY = 75
"""A fuzzy % from which a match is good enough to keep a unit whole (the lowest CAT band
that pre-translation uses by default)."""


def text_key(text: str) -> str:
    """The text as the lookup reads it (whitespace collapsed)."""
    return " ".join(text.split())


def repetition_key(seg: Any) -> tuple[str, Any, str]:
    """What makes two segments repetitions of each other: the same text, the same inline
    codes at the same places (a code's id may differ: every unit numbers its own) and the
    same context (PO ``msgctxt``: gettext's own key of a message)."""
    if seg.source_tags:
        places: Any = tuple((int(t[0]), str(t[1])) for t in seg.source_tags)
    else:
        places = int(seg.tags or 0)
    return text_key(seg.source), places, str(getattr(seg, "context", "") or "")


class LookupCache:
    """The document's lookups, each text looked up once (whole units, then their sentences);
    every caller gets its own copy of the matches (a tag penalty changes them)."""

    def __init__(self, lookup: Any, doc: Any, on_progress: Any = None, cancel: Any = None):
        self.lookup = lookup
        self.doc = doc
        self.on_progress = on_progress
        self.cancel = cancel
        self.found: dict[str, Any] = {}

    def results(self, texts: Sequence[str]) -> list[Any]:
        """One ``LookupResult`` per text (looked up now for texts not seen before)."""
        keys = [text_key(t) for t in texts]
        missing = [k for k in dict.fromkeys(keys) if k not in self.found]
        if missing:
            found = self.lookup.lookup_many(
                missing,
                self.doc.src,
                self.doc.tgt,
                k=5,
                cross_k=2,
                require_target=bool(self.doc.tgt),
                on_progress=self.on_progress,
                cancel=self.cancel,
            )
            self.found.update(zip(missing, found, strict=True))
        return [_copy(self.found[k]) for k in keys]


def _copy(result: Any) -> Any:
    """A copy of a ``LookupResult`` whose matches can be changed (fuzzy %, flags)."""
    from dataclasses import replace

    def each(matches: list[Any]) -> list[Any]:
        return [replace(m, flags=list(m.flags)) for m in matches]

    return replace(result, matches=each(result.matches), cross=each(result.cross))


def sentences_of(doc: Any, seg: Any) -> list[str]:
    """The sentences ``doc.split`` would make of ``seg`` (an untranslated XLIFF unit or PO
    entry kept whole), or ``[]`` when it is one sentence or cannot be split."""
    if doc.fmt == "po":
        from xlsearch.engine.tm.documents.simple import po_sentences

        return po_sentences(doc, seg)
    if doc.fmt != "xliff" or seg.target.strip() or seg.locked:
        return []
    from xlsearch.engine.tm.documents.tags import local_name

    if isinstance(seg.ref, tuple):  # 1.2: the trans-unit itself, not a seg-source mrk
        if seg.ref[1] is not None:
            return []
    elif seg.ref is None or sum(local_name(c.tag) == "segment" for c in seg.ref.getparent()) != 1:
        return []  # 2.x: a unit the file already segments
    from xlsearch.engine.lang.sentences import split_sentences

    found = split_sentences(seg.source, doc.src or "en")
    return found if len(found) > 1 else []


def resegment(doc: Any, results: Sequence[Any], cache: LookupCache) -> bool:
    """``segment="auto"`` after a first pass: XLIFF units and PO entries split where their
    sentences do better (``split_where_better``), text and DOCX paragraphs made whole where
    the whole does better (``merge_where_better``). Returns whether the segments changed."""
    return split_where_better(doc, results, cache) or merge_where_better(doc, results, cache)


def merge_where_better(doc: Any, results: Sequence[Any], cache: LookupCache) -> bool:
    """Make a text or DOCX paragraph, opened as its sentences, one segment again where the
    whole paragraph has a fuzzy match ≥ ``GOOD_FUZZY`` % (a paragraph memory holds it):
    ``results`` are the sentences' analysis. Returns whether any was merged."""
    spans = doc.paragraphs()
    if not spans:
        return False
    wholes = [" ".join(s.source for s in doc.segments[a : b + 1]) for a, b in spans]
    looked = cache.results(wholes)
    changed = False
    for (first, last), found in reversed(list(zip(spans, looked, strict=True))):
        best = max((m.fuzzy for m in found.matches), default=0)
        parts = max(r.fuzzy for r in results[first : last + 1])
        if best >= GOOD_FUZZY and best >= parts and doc.merge(first, last, False):
            changed = True
    doc.renumber()
    return changed


def _semantic_fill(res: Any) -> bool:
    """Whether the whole unit has a semantic match good enough to keep it whole: one in the
    semantic band that may be written (``fill``, where the analysis decides that)."""
    return res.semantic is not None and bool(getattr(res, "fill", True))


def split_where_better(doc: Any, results: Sequence[Any], cache: LookupCache) -> bool:
    """Split (``doc.split``) the units whose sentences do better than the whole (module
    doc), each repetition of such a unit too. ``results``: the analysis of the whole units
    (``SegmentResult``s). Returns whether any unit was split."""
    plans: dict[int, list[str]] = {}
    for res in results:
        if res.repetition_of is not None or res.fuzzy >= GOOD_FUZZY:
            continue
        found = sentences_of(doc, doc.segments[res.index])
        if found:
            plans[res.index] = found
    if not plans:
        return False
    looked = iter(cache.results([s for found in plans.values() for s in found]))
    split: set[tuple[str, Any, str]] = set()
    for index, found in plans.items():
        best = max(max((m.fuzzy for m in next(looked).matches), default=0) for _ in found)
        if best >= GOOD_FUZZY or not _semantic_fill(results[index]):
            split.add(repetition_key(doc.segments[index]))
    changed = False
    for index in range(len(doc.segments) - 1, -1, -1):
        if repetition_key(doc.segments[index]) in split and doc.split(index, False) > 1:
            changed = True
    doc.renumber()
    return changed


__all__ = [
    "GOOD_FUZZY",
    "LookupCache",
    "merge_where_better",
    "repetition_key",
    "resegment",
    "sentences_of",
    "split_where_better",
]
