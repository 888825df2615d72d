"""Sentence alignment of a document and its translation (Vecalign-class): ``align_documents``.

Modules: ``dp`` (bead search, coarse-to-fine band), ``cost`` (normalised embedding cost,
Gale–Church lengths), ``beads`` (Vecalign's bead format and scoring), ``core`` (the job),
``output`` (TMX, TSV, a collection).
"""

from __future__ import annotations

from xlsearch.engine.align.beads import Bead, read_beads, score_beads, write_beads
from xlsearch.engine.align.core import Alignment, align_documents, align_lengths, align_vectors
from xlsearch.engine.align.cost import AlignConfig

__all__ = [
    "AlignConfig",
    "Alignment",
    "Bead",
    "align_documents",
    "align_lengths",
    "align_vectors",
    "read_beads",
    "score_beads",
    "write_beads",
]
