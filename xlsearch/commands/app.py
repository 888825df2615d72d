"""``xlsearch app`` (open the TUI) and ``xlsearch demo`` (first-run demo, then the TUI)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    """Add the app commands."""
    p = sub.add_parser("app", help="open the terminal UI (the default command)")
    p.add_argument("--query", default="", help="start the search screen with this query")
    p.set_defaults(func=cmd_app)


def cmd_app(args: argparse.Namespace) -> int:
    """Open the Textual app."""
    from xlsearch.tui.app import run_app

    run_app(query=args.query)
    return 0
