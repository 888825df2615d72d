"""`xlsearch index/search/sts/mine` commands (filled in by the index & search issue)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    """Add this group's commands."""
