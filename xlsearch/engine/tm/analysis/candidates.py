"""Stage 2 of an analysis, **candidates**: a result per segment, repetitions, translator
credits and code-only segments set aside, every other segment's matches from the memory
(the lookup scores fuzzy %, cosine and repairs near-exact twins)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.engine.tm.analysis.results import CREDITS_FLAG, REPETITIONS, SegmentResult
from xlsearch.engine.tm.analysis.segment import Segmentation
from xlsearch.engine.tm.analysis.texts import (
    CREDITS,
    REPEATED,
    copy_of,
    look_up,
    own_context_decides,
    repeats,
    text_key,
)
from xlsearch.engine.tm.matching.fuzzy import words
from xlsearch.engine.tm.matching.lookup import Lookup, LookupResult

if TYPE_CHECKING:
    from xlsearch.engine.tm.documents.document import Document


@dataclass(frozen=True)
class Candidates:
    """A result per segment (``results``, by position); the segments looked up (``todo``)
    with their matches (``found``, one own copy each, to be scored); the first looked-up
    segment of each text and context (``first_text``)."""

    results: list[SegmentResult]
    todo: tuple[int, ...]
    found: tuple[LookupResult, ...]
    first_text: Mapping[tuple[str, str], int]


def find_candidates(
    doc: Document,
    segmentation: Segmentation,
    lookup: Lookup,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Candidates:
    """Stage 2 over ``doc``'s segments as ``segmentation`` left them (its answers are not
    looked up again)."""
    rep = repeats(doc.segments)
    found = {**segmentation.found}
    texts = [doc.segments[i].source for i in rep.todo]
    found.update(look_up(doc, lookup, texts, found, on_progress, cancel))
    rep = rep.looked_up_too(own_context_decides(doc.segments, rep, found))
    results: list[SegmentResult] = []
    for i, seg in enumerate(doc.segments):
        repeated, credits = rep.kinds[i] == REPEATED, rep.kinds[i] == CREDITS
        results.append(
            SegmentResult(
                seg.index,
                seg.source,
                words(seg.source),
                REPETITIONS if repeated else "no match",
                repetition_of=rep.first_of[i] if repeated else None,
                flags=[CREDITS_FLAG] if credits else [],
            )
        )
    todo = rep.todo
    texts = [doc.segments[i].source for i in todo]
    mine = tuple(copy_of(found[text_key(t)]) for t in texts)
    return Candidates(results, tuple(todo), mine, rep.first_text)


__all__ = ["Candidates", "find_candidates"]
