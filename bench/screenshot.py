"""Render the README screenshot from a real run: the demo corpus, a German query.

    XLSEARCH_HOME=… .venv/bin/python bench/screenshot.py [--out assets/screenshot.svg]
(the demo must be prepared first: ``xlsearch demo --no-app``).
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="assets/screenshot.svg")
    ap.add_argument("--query", default=EXAMPLE_QUERY)
    ap.add_argument("--width", type=int, default=120)
    ap.add_argument("--height", type=int, default=34)
    args = ap.parse_args()
    out = Path(args.out)
    asyncio.run(shoot(out, args.query, (args.width, args.height)))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
