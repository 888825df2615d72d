"""Render the README screenshots from a real run: the demo corpus, a German query; the
Evaluate screen after a run on the demo's held-out units; the distillation wizard with its
data chosen.

    XLSEARCH_HOME=… .venv/bin/python bench/screenshot.py [--out assets/screenshot.svg]
    XLSEARCH_HOME=… .venv/bin/python bench/screenshot.py --screen evaluate --out assets/evaluate.svg
    XLSEARCH_HOME=… .venv/bin/python bench/screenshot.py --screen distill --data en-de.tsv \
        --out assets/distill.svg
(the search picture needs the demo prepared first: ``xlsearch demo --no-app``).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from xlsearch.service.demo import EXAMPLE_QUERY
from xlsearch.service.local import LocalEngine
from xlsearch.tui.app import make_app


async def shoot(out: Path, query: str, size: tuple[int, int]) -> None:
    app = make_app(engine=LocalEngine(), query=query, theme="textual-dark")
    async with app.run_test(size=size) as pilot:
        for _ in range(120):  # wait for the search worker (first query loads the model)
            await pilot.pause(0.5)
            table = app.screen.query("DataTable")
            if table and table.first().row_count:
                break
        await app.workers.wait_for_complete()
        await pilot.pause(0.5)
        app.save_screenshot(filename=out.name, path=str(out.parent))


async def shoot_screen(out: Path, screen: str, data: str, size: tuple[int, int]) -> None:
    """The Evaluate screen after a run on the demo's held-out units, or the wizard with
    ``data`` chosen, as a user sees them."""
    from xlsearch.service.api import EVAL_DEMO

    app = make_app(engine=LocalEngine(), theme="textual-dark")
    async with app.run_test(size=size) as pilot:
        await pilot.press("f6" if screen == "evaluate" else "f5")
        await pilot.pause(1.0)
        await app.workers.wait_for_complete()
        if screen == "evaluate":
            app.screen.query_one("#eval-source").value = EVAL_DEMO
            await pilot.press("ctrl+r")
        else:
            app.screen.set_files([data])
        for _ in range(600):
            await pilot.pause(0.5)
            busy = [w for w in app.workers if w.is_running]
            if not busy and (screen == "evaluate" or app.screen.estimate is not None):
                break  # the wizard: its time estimate shown too
        await pilot.pause(0.5)
        app.save_screenshot(filename=out.name, path=str(out.parent))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="assets/screenshot.svg")
    ap.add_argument("--query", default=EXAMPLE_QUERY)
    ap.add_argument("--width", type=int, default=120)
    ap.add_argument("--height", type=int, default=34)
    ap.add_argument("--screen", choices=("search", "evaluate", "distill"), default="search")
    ap.add_argument("--data", default="", help="the wizard's training TSV (--screen distill)")
    args = ap.parse_args()
    out = Path(args.out)
    size = (args.width, args.height)
    if args.screen == "search":
        asyncio.run(shoot(out, args.query, size))
    else:
        asyncio.run(shoot_screen(out, args.screen, args.data, size))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
