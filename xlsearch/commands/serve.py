"""``xlsearch serve``: the app in a web browser on localhost."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    """Add ``serve``."""
    p = sub.add_parser(
        "serve",
        help="serve the app in a web browser (localhost) and open it",
        description="The same Textual app, served on localhost with textual-serve. Only the "
        "printed address (it holds a fresh key each run) opens it.",
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: this machine only)"
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other machines can reach (anyone there with the address can use "
        "the app as you; plain HTTP)",
    )
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the TUI over HTTP (textual-serve) and open the browser."""
    from xlsearch.tui.serve import serve

    serve(args.host, args.port, open_browser=not args.no_browser, allow_remote=args.allow_remote)
    return 0
