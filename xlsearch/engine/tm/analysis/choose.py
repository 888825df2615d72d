"""Stage 4 of an analysis, **choose**: each segment's best match, band, alternatives and
semantic match (the best cosine among units of its shape, where no fuzzy match reaches
75 %)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xlsearch.engine.tm.analysis.candidates import Candidates
from xlsearch.engine.tm.analysis.results import SegmentResult, band_of
from xlsearch.engine.tm.analysis.texts import text_key
from xlsearch.engine.tm.matching import context as ctx
from xlsearch.engine.tm.matching.shape import same_shape

if TYPE_CHECKING:
    from xlsearch.engine.tm.documents.document import Document


def choose(doc: Document, scored: Candidates, threshold: float) -> list[SegmentResult]:
    """Stage 4: the results of ``scored``, each with its choice."""
    results = scored.results
    for i, lr in zip(scored.todo, scored.found, strict=True):
        res = results[i]
        if lr.matches:
            res.best = lr.matches[0]
            res.fuzzy = max(m.fuzzy for m in lr.matches)
            res.alternatives = ctx.flag_alternatives(res.best, lr.matches)
        res.band = band_of(res.fuzzy)
        pool = [m for m in [*lr.matches, *lr.cross] if m.semantic is not None]
        pool = same_shape(pool, res.source, doc.src)  # a sentence for a sentence
        if pool:
            top = max(pool, key=lambda m: m.semantic or 0.0)
            res.cosine = top.semantic
            if res.fuzzy < 75 and (top.semantic or 0.0) >= threshold:
                res.semantic = top
        first = results[scored.first_text[(text_key(res.source), doc.segments[i].context)]]
        _tag_repetition(res, doc, first)
    return results


def _tag_repetition(res: SegmentResult, doc: Document, first: SegmentResult) -> None:
    """A repetition whose inline codes differ from its first occurrence's is what a match
    with other codes is: 99 %, flagged (when the memory gives it no better match)."""
    if first.index == res.index or res.fuzzy >= 99:
        return
    res.band, res.fuzzy, res.repetition_of, res.semantic = "95-99%", 99, first.index, None
    new, old = doc.segments[res.index], doc.segments[first.index]
    res.flags.append(f"tags: new {new.tags} · first occurrence {old.tags}")


__all__ = ["choose"]
