"""The corpus store (SQLite via sqlite-utils): collections, documents, segments, FTS5,
embeddings and index records; importers write into it, the index and search read it."""

from __future__ import annotations

import sys


def _import_sqlite_utils_without_pandas() -> None:
    """sqlite-utils imports pandas (≈2 s) only to map its column types, which we never use;
    mask it during that one import so opening the store stays fast (pandas stays importable)."""
    if "sqlite_utils" in sys.modules or "pandas" in sys.modules:
        return
    sys.modules["pandas"] = None  # type: ignore[assignment]
    try:
        import sqlite_utils  # noqa: F401
    finally:
        del sys.modules["pandas"]


_import_sqlite_utils_without_pandas()

from xlsearch.engine.store.core import Store  # noqa: E402
from xlsearch.engine.store.ingest import ImportReport, text_hash  # noqa: E402

__all__ = ["ImportReport", "Store", "text_hash"]
