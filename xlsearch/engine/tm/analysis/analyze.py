"""Analysis of a document against the memory (CAT bands + the semantic band), one pass of
named stages, each a module of this folder:

1. **segment** (``segment``): the units the document is analysed as — ``always`` every unit
   split into sentences, ``never`` none, ``auto`` decided unit by unit on a first look at
   the memory (whole where the whole does better);
2. **candidates** (``candidates``): repetitions set aside, every other segment looked up
   once (the lookup scores fuzzy %, cosine and repairs near-exact twins);
3. **score and repair** (``score``): tag penalty and context (101 %, another context);
4. **choose** (``choose``): the best match, the band, the alternatives, the semantic match;
5. **fill policy** (``fill``): what may be written, on the evidence of the user's own
   memory, and the placeholder check;
6. **report** (``report``): fragments for what has no match, and the counts
   (``results.Analysis``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.engine.tm.analysis.candidates import find_candidates
from xlsearch.engine.tm.analysis.choose import choose
from xlsearch.engine.tm.analysis.fill import apply_fill_policy
from xlsearch.engine.tm.analysis.report import report
from xlsearch.engine.tm.analysis.results import Analysis
from xlsearch.engine.tm.analysis.score import score_matches
from xlsearch.engine.tm.analysis.segment import segment_document
from xlsearch.engine.tm.matching.lookup import SEMANTIC_THRESHOLD, Lookup

if TYPE_CHECKING:
    from xlsearch.engine.tm.documents.document import Document


def analyze(
    doc: Document,
    lookup: Lookup,
    *,
    threshold: float = SEMANTIC_THRESHOLD,
    segment: str = "auto",
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Analysis:
    """Analyse ``doc`` (a ``tm.documents.Document``, segmented in place) against the memory
    behind ``lookup``; ``threshold``: the cosine of the semantic band; ``segment``: ``auto``,
    ``always`` or ``never`` (``tm.documents.SEGMENT_MODES``)."""
    started = time.perf_counter()
    segmentation = segment_document(doc, segment, lookup, threshold, on_progress, cancel)
    candidates = find_candidates(doc, segmentation, lookup, on_progress, cancel)
    scored = score_matches(doc, candidates, lookup)
    chosen = choose(doc, scored, threshold)
    filled = apply_fill_policy(
        chosen, lookup, doc.src, doc.tgt, threshold, on_progress=on_progress, cancel=cancel
    )
    return report(doc, lookup, filled, threshold, started)


__all__ = ["analyze"]
