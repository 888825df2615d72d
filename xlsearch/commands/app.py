"""``xlsearch app`` (open the TUI) and ``xlsearch demo`` (first-run demo, then the TUI)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    """Add the app commands."""
    p = sub.add_parser("app", help="open the terminal UI (the default command)")
    p.add_argument("--query", default="", help="start the search screen with this query")
    p.set_defaults(func=cmd_app)
    register_demo(sub)


def cmd_app(args: argparse.Namespace) -> int:
    """Open the Textual app."""
    from xlsearch.tui.app import run_app

    return run_app(query=args.query)


def register_demo(sub: Any) -> None:
    """Add ``xlsearch demo``."""
    p = sub.add_parser(
        "demo",
        help="first run: distill a demo student, import + index the demo corpus, open the app",
        description="The embedded default (make run). The first run distills a static student "
        "from assets/demo/demo-train.tsv on the CPU, imports assets/demo (TMX + documents) into "
        "the 'demo' collection and indexes it; later runs reuse all of it.",
    )
    p.add_argument("--fresh", action="store_true", help="rebuild the demo student and index")
    p.add_argument("--no-app", action="store_true", help="prepare the demo, do not open the app")
    p.add_argument("--query", default=None, help="the example query shown first")
    p.add_argument(
        "--calibrate-sts", metavar="FILE",
        help="STS file (e.g. STS-benchmark sts-train.csv): calibrate the demo student's 0-5 "
        "STS score",
    )  # fmt: skip
    p.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    """Prepare the demo (only what is missing) and open the app on the search screen."""
    import sys
    import time

    from xlsearch.commands.progress import ProgressDisplay as ProgressBar
    from xlsearch.service.demo import EXAMPLE_QUERY, prepare_demo

    start = time.monotonic()
    bar = ProgressBar()
    state = prepare_demo(fresh=args.fresh, sts_file=args.calibrate_sts, on_progress=bar)
    bar.close()
    took = ", ".join(f"{k} {v:.1f}s" for k, v in state.timings.items())
    print(f"demo ready in {time.monotonic() - start:.1f}s ({took})", file=sys.stderr)
    if state.heldout is not None:
        held = state.heldout
        print(
            f"demo student, held-out translation accuracy: mean {held.student.get('mean')} "
            f"(teacher {held.teacher.get('mean')}) on {held.units} unseen units",
            file=sys.stderr,
        )
    if args.no_app:
        return 0
    from xlsearch.service.demo import app_model
    from xlsearch.service.local import LocalEngine
    from xlsearch.tui.app import run_app

    # the app searches with the active model (a new user's: the shipped multilingual
    # student); without a shipped model, with the demo student, whatever model is active
    engine = LocalEngine(model=app_model(state))
    return run_app(query=args.query if args.query is not None else EXAMPLE_QUERY, engine=engine)
