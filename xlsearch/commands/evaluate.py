"""`xlsearch evaluate` command group (filled in by its issue)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    """Add this group's commands."""
