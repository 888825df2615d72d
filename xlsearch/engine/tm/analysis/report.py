"""Stage 6 of an analysis, **report**: fragments for the segments without a match
≥ ``CAT_MIN_FUZZY`` % (shown, never written), and the ``Analysis`` with its counts."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from xlsearch.engine.tm.analysis.fill import Filled
from xlsearch.engine.tm.analysis.results import CAT_MIN_FUZZY, Analysis, SegmentResult
from xlsearch.engine.tm.matching.lookup import Lookup

if TYPE_CHECKING:
    from xlsearch.engine.tm.documents.document import Document


def report(
    doc: Document, lookup: Lookup, filled: Filled, threshold: float, started: float
) -> Analysis:
    """Stage 6: the analysis as reported (its time counted from ``started``, a
    ``time.perf_counter()``)."""
    results = add_fragments(filled.results, lookup, doc.src, doc.tgt)
    model = ""
    if lookup.semantic:
        enc = lookup.searcher.encoder
        model = str(getattr(enc, "id", "") or getattr(enc, "path", ""))  # bundled:teacher
    return Analysis(
        doc.path.name,
        doc.src,
        doc.tgt,
        lookup.collection or "",
        threshold,
        results,
        time.perf_counter() - started,
        model.rsplit("/", 1)[-1],
        filled.policy,
        list(getattr(doc, "untranslatable", [])),
    )


def add_fragments(
    results: list[SegmentResult], lookup: Lookup, src: str, tgt: str
) -> list[SegmentResult]:
    """The results, each without a match ≥ ``CAT_MIN_FUZZY`` % with its fragments."""
    todo = [r.fuzzy < CAT_MIN_FUZZY and r.repetition_of is None for r in results]
    if not any(todo) or not tgt:
        return results
    from xlsearch.engine.tm.matching.fragments import index_for

    idx = index_for(lookup.store, lookup.collection, src, tgt, lookup.on_progress)
    return [
        replace(r, fragments=idx.find(r.source)) if t else r
        for r, t in zip(results, todo, strict=True)
    ]


__all__ = ["add_fragments", "report"]
