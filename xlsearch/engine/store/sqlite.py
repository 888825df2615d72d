"""sqlite-utils, imported on first use and without pandas."""

from __future__ import annotations

import sys
from typing import Any


def import_sqlite_utils() -> Any:
    """sqlite-utils, imported on first use. It imports pandas (≈2 s) only to map its column
    types, which we never use: pandas is masked during that one import (it stays importable)."""
    if "sqlite_utils" in sys.modules or "pandas" in sys.modules:
        import sqlite_utils

        return sqlite_utils
    sys.modules["pandas"] = None  # type: ignore[assignment]
    try:
        import sqlite_utils
    finally:
        del sys.modules["pandas"]
    return sqlite_utils
