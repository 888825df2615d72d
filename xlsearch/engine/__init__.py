"""The headless engine: models, distillation, store, index, search, mining, evaluation.

Never imports textual or rich. Heavy modules (torch, transformers, faiss) load lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xlsearch.engine.errors import (
    CancelledError,
    ConfigError,
    DataError,
    IndexMismatchError,
    ModelError,
    StoreError,
    XLSearchError,
)
from xlsearch.engine.progress import CancelToken, Progress
from xlsearch.engine.runtime.cpu import configure_threads

# Before any engine module imports torch or FAISS: passive OpenMP waits, threads = free cores.
configure_threads()

if TYPE_CHECKING:
    from xlsearch.engine.models.encoder import Encoder, load_encoder

__all__ = [
    "CancelToken",
    "CancelledError",
    "ConfigError",
    "DataError",
    "Encoder",
    "IndexMismatchError",
    "ModelError",
    "Progress",
    "StoreError",
    "XLSearchError",
    "load_encoder",
]

_ENCODER = "xlsearch.engine.models.encoder"
_LAZY = {"Encoder": _ENCODER, "load_encoder": _ENCODER}


def __getattr__(name: str) -> Any:
    """PEP 562 lazy attributes, so ``import xlsearch.engine`` stays light."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)
