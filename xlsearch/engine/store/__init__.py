"""The corpus store (SQLite via sqlite-utils): collections, documents, segments, FTS5,
embeddings and index records; importers write into it, the index and search read it."""

from __future__ import annotations

from xlsearch.engine.store.core import Store
from xlsearch.engine.store.ingest import ImportReport, text_hash

__all__ = ["ImportReport", "Store", "text_hash"]
