"""The engine calls the TUI makes: ``EngineAPI`` and its implementations.

The TUI talks only to an ``EngineAPI``: ``LocalEngine`` (heavy modules imported inside each
method, a fresh SQLite connection per call so each worker thread owns its own), in use and in
the UI tests alike. No textual import here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xlsearch.service.api import (
    SEARCH_MODES,
    CollectionInfo,
    ContextView,
    DistillConfig,
    DistillResult,
    DocumentInfo,
    EngineAPI,
    EvalReport,
    Hit,
    IndexStatus,
    MinedPair,
    ModelEntry,
    SearchMode,
    StsScore,
    TsvPreview,
)
from xlsearch.service.hits import write_export

if TYPE_CHECKING:
    from xlsearch.service.api import ImportReport as ImportReport

__all__ = [
    "SEARCH_MODES",
    "CollectionInfo",
    "ContextView",
    "DistillConfig",
    "DistillResult",
    "DocumentInfo",
    "EngineAPI",
    "EvalReport",
    "Hit",
    "ImportReport",
    "IndexStatus",
    "MinedPair",
    "ModelEntry",
    "SearchMode",
    "StsScore",
    "TsvPreview",
    "make_engine",
    "write_export",
]


def make_engine() -> EngineAPI:
    """The real engine over the store, indexes and models (imports nothing heavy)."""
    from xlsearch.service.local import LocalEngine

    return LocalEngine()


def __getattr__(name: str) -> object:
    """``ImportReport``, imported when first asked for (see ``service.api``)."""
    if name == "ImportReport":
        from xlsearch.engine.store.ingest import ImportReport

        return ImportReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
