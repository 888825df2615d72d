"""Stage 4 of an analysis, **choose**: each segment's best match, band, alternatives and
semantic match (the best cosine among units of its shape, where no fuzzy match reaches
75 %)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from xlsearch.engine.tm.analysis.candidates import Candidates
from xlsearch.engine.tm.analysis.plurals import flag_plural
from xlsearch.engine.tm.analysis.results import SegmentResult, band_of
from xlsearch.engine.tm.analysis.texts import repetition_key, text_key
from xlsearch.engine.tm.matching import context as ctx
from xlsearch.engine.tm.matching.shape import same_shape

if TYPE_CHECKING:
    from xlsearch.engine.tm.documents.document import Document


def choose(doc: Document, scored: Candidates, threshold: float) -> list[SegmentResult]:
    """Stage 4: the results of ``scored``, each with its choice."""
    results = list(scored.results)
    for i, lr in zip(scored.todo, scored.found, strict=True):
        res = results[i]
        best, fuzzy, alternatives = res.best, res.fuzzy, res.alternatives
        if lr.matches:
            best = lr.matches[0]
            fuzzy = max(m.fuzzy for m in lr.matches)
            alternatives = ctx.flag_alternatives(best, lr.matches, doc.project)
            ctx.flag_short_fuzzy(best, res.source)
            flag_plural(doc.segments[i], best)
        cosine, semantic = res.cosine, res.semantic
        pool = [m for m in [*lr.matches, *lr.cross] if m.semantic is not None]
        pool = same_shape(pool, res.source, doc.src)  # a sentence for a sentence
        if pool:
            top = max(pool, key=lambda m: m.semantic or 0.0)
            cosine = top.semantic
            if fuzzy < 75 and (top.semantic or 0.0) >= threshold:
                semantic = top
        res = replace(
            res,
            best=best,
            fuzzy=fuzzy,
            alternatives=alternatives,
            band=band_of(fuzzy),
            cosine=cosine,
            semantic=semantic,
        )
        first = scored.first_text[(text_key(res.source), repetition_key(doc.segments[i])[2])]
        results[i] = _tag_repetition(res, doc, first)
    return results


def _tag_repetition(res: SegmentResult, doc: Document, first: int) -> SegmentResult:
    """A repetition whose inline codes differ from its first occurrence's (segment
    ``first``) is what a match with other codes is: 99 %, flagged (when the memory gives it
    no better match)."""
    if first == res.index or res.fuzzy >= 99:
        return res
    new, old = doc.segments[res.index], doc.segments[first]
    flag = f"tags: new {new.tags} · first occurrence {old.tags}"
    return replace(
        res, band="95-99%", fuzzy=99, repetition_of=first, semantic=None, flags=[*res.flags, flag]
    )


__all__ = ["choose"]
