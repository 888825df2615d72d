"""First semantic result in the app: with the background warm-up vs loading on demand.

Runs the app headless (Pilot, 120×35) over the real engine on an existing home (build one
with ``XLSEARCH_HOME=DIR xlsearch demo --no-app``). "warm": the app as shipped — it loads the
active model in the background once the search screen shows; the query is typed after
``--idle`` seconds. "cold": the same with the warm-up disabled (the baseline, as before).
Reported: the first query's time from enter to its results on screen, and a second query's.

    XLSEARCH_HOME=DIR .venv/bin/python bench/first_query.py [--runs 3] [--idle 5]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import os
import statistics
import subprocess
import sys
import time

QUERY = "Wann fährt der letzte Zug nach Wien?"


async def one(warm: bool, idle: float) -> dict[str, float]:
    from xlsearch.service.local import LocalEngine
    from xlsearch.tui.app import make_app

    engine = LocalEngine()
    if not warm:
        engine.warm_up = lambda: ""  # type: ignore[method-assign]
    app = make_app(engine=engine, theme="textual-dark")
    t0 = time.perf_counter()
    async with app.run_test(size=(120, 35)) as pilot:
        screen = app.screen
        while not screen._ready:  # type: ignore[attr-defined]
            await pilot.pause(0.01)
        ready = time.perf_counter() - t0
        while any(w.group == "warm-up" and w.is_running for w in app.workers):
            await pilot.pause(0.02)
        warmed = time.perf_counter() - t0
        await pilot.pause(max(0.0, idle - (warmed - ready)))
        times = []
        for query in (QUERY, "Der Zug nach Wien"):
            before = screen.searches  # type: ignore[attr-defined]
            screen.query_one("#query").value = query  # type: ignore[attr-defined]
            start = time.perf_counter()
            await pilot.press("enter")
            while screen.searches == before:  # type: ignore[attr-defined]
                await pilot.pause(0.005)
            times.append(time.perf_counter() - start)
    return {"ready": ready, "warm_up": warmed - ready, "first": times[0], "second": times[1]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--idle", type=float, default=5.0, help="seconds before typing")
    ap.add_argument("--mode", choices=["warm", "cold"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.mode:  # one run in a fresh process (nothing cached between runs)
        print(asyncio.run(one(args.mode == "warm", args.idle)))
        return
    print(
        f"CPU: {_cpu()}; load average {os.getloadavg()[0]:.1f}; "
        f"home {os.environ.get('XLSEARCH_HOME')}"
    )
    for mode in ("warm", "cold"):
        rows = []
        for _ in range(args.runs):
            out = (
                subprocess.run(
                    [sys.executable, __file__, "--mode", mode, "--idle", str(args.idle)],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                .stdout.strip()
                .splitlines()[-1]
            )
            rows.append(ast.literal_eval(out))
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        print(
            f"{mode}: first query {med['first'] * 1000:.0f} ms (median of {args.runs}), second "
            f"{med['second'] * 1000:.0f} ms, screen ready {med['ready']:.1f} s, "
            f"warm-up {med['warm_up']:.1f} s"
        )


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            return next(ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name"))
    except (OSError, StopIteration):
        return "unknown"


if __name__ == "__main__":
    main()
