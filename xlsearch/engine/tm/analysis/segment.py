"""Stage 1 of an analysis, **segment**: the units a document is analysed as.

``always`` splits every unit of several sentences (as a CAT tool does on import), ``never``
keeps every one whole. ``auto`` decides unit by unit, with a first look at the memory: a
unit that the memory holds word for word is a 100 % match as it stands, and splitting it
into sentences first loses that match (a paragraph memory has no sentence units). So every
unit is looked at whole, and a unit of several sentences is split only where its sentences
do better than the whole: one of them has a fuzzy match ≥ ``GOOD_FUZZY`` % where the whole
has none, or the whole has no match at all (no fuzzy ≥ ``GOOD_FUZZY`` %, no semantic match
the user's memory lets write) — then it is segmented as a CAT tool segments a new
paragraph. A paragraph memory thus matches the job's paragraphs, a sentence memory its
sentences, and an edited paragraph gets its fuzzy match on the whole unit. A text or DOCX
document is opened as sentences (what a translator works on) and a paragraph is made whole
again where the whole paragraph has a good fuzzy match (``merge_where_better``).

What the memory answered while deciding is handed on (``Segmentation.found``): no text is
looked up twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.engine.tm.analysis.texts import (
    CODES_ONLY,
    CREDITS,
    REPEATED,
    Repeats,
    best_fuzzy,
    copy_of,
    look_up,
    repeats,
    repetition_key,
    text_key,
)
from xlsearch.engine.tm.calibration.fill_policy import memory_evidence
from xlsearch.engine.tm.matching.lookup import Lookup, LookupResult
from xlsearch.engine.tm.matching.matches import Match
from xlsearch.engine.tm.matching.penalties import penalise
from xlsearch.engine.tm.matching.shape import same_shape

if TYPE_CHECKING:
    from xlsearch.engine.tm.documents.document import DocSegment, Document

GOOD_FUZZY = 75
"""A fuzzy % from which a match is good enough to keep a unit whole (the lowest CAT band
that pre-translation uses by default)."""


@dataclass(frozen=True)
class Segmentation:
    """The document's segments are final: ``split`` units became sentences, ``merged``
    paragraphs one segment; ``found``: the memory's answers for the texts looked at while
    deciding (by ``text_key``)."""

    mode: str
    found: Mapping[str, LookupResult] = field(default_factory=dict)
    split: int = 0
    merged: int = 0


def segment_document(
    doc: Document,
    mode: str,
    lookup: Lookup,
    threshold: float,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Segmentation:
    """Stage 1: segment ``doc`` in place as ``mode`` says (``always``, ``never``, ``auto``:
    module doc)."""
    if mode == "always":
        doc.split_all()
        return Segmentation(mode)
    if mode == "never":
        doc.merge_all()
        return Segmentation(mode)
    rep = repeats(doc.segments)
    found = look_up(
        doc, lookup, [doc.segments[i].source for i in rep.todo], {}, on_progress, cancel
    )
    split = split_where_better(doc, rep, found, lookup, threshold, on_progress, cancel)
    merged = 0 if split else merge_where_better(doc, rep, found, lookup, on_progress, cancel)
    return Segmentation(mode, found, split, merged)


def sentences_of(doc: Document, seg: DocSegment) -> list[str]:
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


def split_where_better(
    doc: Document,
    rep: Repeats,
    found: dict[str, LookupResult],
    lookup: Lookup,
    threshold: float,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> int:
    """Split (``doc.split``) the XLIFF units and PO entries whose sentences do better than
    the whole (module doc), each repetition of such a unit too; ``found``: the whole units'
    answers, the sentences' added. Returns how many units were split."""
    plans: dict[int, list[str]] = {}
    for i, seg in enumerate(doc.segments):
        if rep.kinds[i] == REPEATED or _other_codes(rep, i, seg):
            continue  # decided with its first occurrence
        if rep.kinds[i] not in (CODES_ONLY, CREDITS):
            if best_fuzzy(found[text_key(seg.source)]) >= GOOD_FUZZY:
                continue
        sentences = sentences_of(doc, seg)
        if sentences:
            plans[i] = sentences
    if not plans:
        return 0
    texts = [s for sentences in plans.values() for s in sentences]
    found.update(look_up(doc, lookup, texts, found, on_progress, cancel))
    meaning = {i: _semantic_match(doc, rep, i, found, threshold) for i in plans}
    memory = None
    if any(m is not None for m in meaning.values()):
        memory = memory_evidence(lookup, doc.src, doc.tgt, threshold)
    split: set[tuple[str, Any, str]] = set()
    for i, sentences in plans.items():
        seg, top = doc.segments[i], meaning[i]
        kept = (  # a semantic match the user's memory lets write keeps the unit whole
            top is not None
            and memory is not None
            and memory.evidence(seg.source, float(top.semantic or 0.0), top.fuzzy) is not None
        )
        if max(best_fuzzy(found[text_key(s)]) for s in sentences) >= GOOD_FUZZY or not kept:
            split.add(repetition_key(seg))
    count = 0
    for index in range(len(doc.segments) - 1, -1, -1):
        if repetition_key(doc.segments[index]) in split and doc.split(index, False) > 1:
            count += 1
    doc.renumber()
    return count


def _other_codes(rep: Repeats, i: int, seg: Any) -> bool:
    """Whether segment ``i`` repeats the words and context of an earlier one with other
    inline codes (a repetition with other codes, or a 99 % match or better)."""
    first = rep.first_text.get((text_key(seg.source), str(getattr(seg, "context", "") or "")))
    return first is not None and first != i


def _semantic_match(
    doc: Document, rep: Repeats, i: int, found: Mapping[str, LookupResult], threshold: float
) -> Match | None:
    """Whole unit ``i``'s semantic match with a target: the best cosine ≥ ``threshold``
    among the units of its shape (it has no fuzzy match ≥ ``GOOD_FUZZY`` %)."""
    if rep.kinds[i] in (CODES_ONLY, CREDITS):
        return None  # not looked up
    seg = doc.segments[i]
    result = found[text_key(seg.source)]
    pool = [m for m in [*result.matches, *result.cross] if m.semantic is not None]
    pool = same_shape(pool, seg.source, doc.src)
    if not pool:
        return None
    top = max(pool, key=lambda m: m.semantic or 0.0)
    return top if (top.semantic or 0.0) >= threshold and top.target else None


def merge_where_better(
    doc: Document,
    rep: Repeats,
    found: dict[str, LookupResult],
    lookup: Lookup,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> int:
    """Make a text or DOCX paragraph, opened as its sentences, one segment again where the
    whole paragraph has a fuzzy match ≥ ``GOOD_FUZZY`` % (a paragraph memory holds it) and
    none of its sentences a better one; ``found``: the sentences' answers, the wholes'
    added. Returns how many paragraphs were merged."""
    spans = doc.paragraphs()
    if not spans:
        return 0
    wholes = [" ".join(s.source for s in doc.segments[a : b + 1]) for a, b in spans]
    found.update(look_up(doc, lookup, wholes, found, on_progress, cancel))
    parts = [_reported_fuzzy(doc, rep, i, found) for i in range(len(doc.segments))]
    count = 0
    for (first, last), whole in reversed(list(zip(spans, wholes, strict=True))):
        best = best_fuzzy(found[text_key(whole)])
        if best >= GOOD_FUZZY and best >= max(parts[first : last + 1]):
            count += doc.merge(first, last, False)
    doc.renumber()
    return count


def _reported_fuzzy(doc: Document, rep: Repeats, i: int, found: Mapping[str, LookupResult]) -> int:
    """The fuzzy % segment ``i`` has as it stands: its best match after the tag penalty and
    context; 0 for a repetition, translator credits or codes only; at least 99 for the
    words of an earlier segment with other codes."""
    if rep.kinds[i] in (CODES_ONLY, CREDITS, REPEATED):
        return 0
    seg = doc.segments[i]
    result = copy_of(found[text_key(seg.source)])
    penalise(result.matches, seg)
    fuzzy = best_fuzzy(result)
    return max(fuzzy, 99) if _other_codes(rep, i, seg) else fuzzy


__all__ = [
    "GOOD_FUZZY",
    "Segmentation",
    "merge_where_better",
    "segment_document",
    "sentences_of",
    "split_where_better",
]
