"""Vector indexes over the store: FAISS wrapper, vector cache, build/open/repair."""

from __future__ import annotations

from xlsearch.engine.index.cache import model_key
from xlsearch.engine.index.manager import OpenIndex, build_index, index_status, open_index
from xlsearch.engine.index.vectors import KINDS, VectorIndex, choose_kind, estimate_memory

__all__ = [
    "KINDS",
    "OpenIndex",
    "VectorIndex",
    "build_index",
    "choose_kind",
    "estimate_memory",
    "index_status",
    "model_key",
    "open_index",
]
