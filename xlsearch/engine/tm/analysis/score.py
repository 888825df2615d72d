"""Stage 3 of an analysis, **score and repair**: the tag penalty and the context of each
segment's matches (101 % in the segment's own context, 99 % in another); near-exact twins
were repaired by the lookup."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xlsearch.engine.tm.analysis.candidates import Candidates
from xlsearch.engine.tm.matching.penalties import penalise

if TYPE_CHECKING:
    from xlsearch.engine.tm.documents.document import Document


def score_matches(doc: Document, candidates: Candidates) -> Candidates:
    """Stage 3: each looked-up segment's matches penalised and ranked, in place."""
    for i, result in zip(candidates.todo, candidates.found, strict=True):
        penalise(result.matches, doc.segments[i])
    return candidates


__all__ = ["score_matches"]
