"""Stage 3 of an analysis, **score and repair**: the tag penalty and the context of each
segment's matches (101 % in the segment's own context, 99 % in another); near-exact twins
were repaired by the lookup."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xlsearch.engine.tm.analysis.candidates import Candidates
from xlsearch.engine.tm.matching.lookup import Lookup
from xlsearch.engine.tm.matching.penalties import penalise

if TYPE_CHECKING:
    from xlsearch.engine.tm.documents.document import Document


def score_matches(
    doc: Document, candidates: Candidates, lookup: Lookup | None = None
) -> Candidates:
    """Stage 3: each looked-up segment's matches penalised and ranked, in place: context
    from the segment's own (``msgctxt``, ``resname``), else its neighbours (the stored
    units' from ``lookup``); the document's project."""
    segs = doc.segments
    for i, result in zip(candidates.todo, candidates.found, strict=True):
        near = (segs[i - 1].source if i else "", segs[i + 1].source if i + 1 < len(segs) else "")
        penalise(
            result.matches,
            segs[i],
            project=doc.project,
            neighbours=near,
            stored_neighbours=lookup.neighbours if lookup is not None else None,
        )
    return candidates


__all__ = ["score_matches"]
