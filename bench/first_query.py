"""First semantic result in the app: with the background warm-up vs loading on demand.

Runs the app headless (Pilot, 120×35) over the real engine on an existing home (build one
with ``XLSEARCH_HOME=DIR xlsearch demo --no-app``). "warm": the app as shipped — it loads the
active model in the background once the search screen shows; the query is typed after
``--idle`` seconds. "cold": the same with the warm-up disabled (the baseline, as before).
Reported: the first query's time from enter to its results on screen, and a second query's.
``--at-once``: the query is typed as soon as the search screen shows (no idle time, the
warm-up still running) and the time from the first screen to the first semantic result is
reported; ``--busy`` runs everything next to one CPU-bound loop (its own process).

    XLSEARCH_HOME=DIR .venv/bin/python bench/first_query.py [--runs 3] [--idle 5]
    XLSEARCH_HOME=DIR .venv/bin/python bench/first_query.py --at-once [--busy]
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


async def at_once() -> dict[str, float]:
    """The first screen, the query typed at once: seconds until its semantic results show."""
    from xlsearch.service.local import LocalEngine
    from xlsearch.tui.app import make_app

    app = make_app(engine=LocalEngine(), theme="textual-dark")
    t0 = time.perf_counter()
    async with app.run_test(size=(120, 35)) as pilot:
        screen = app.screen
        while not screen._ready:  # type: ignore[attr-defined]
            await pilot.pause(0.01)
        ready, cpu0 = time.perf_counter(), time.process_time()
        before = screen.searches  # type: ignore[attr-defined]
        screen.query_one("#query").value = QUERY  # type: ignore[attr-defined]
        await pilot.press("enter")
        while screen.searches == before:  # type: ignore[attr-defined]
            await pilot.pause(0.005)
        done, cpu = time.perf_counter(), time.process_time() - cpu0
        mode = str(screen.query_one("#mode").value)  # type: ignore[attr-defined]
    return {"screen": ready - t0, "first_result": done - ready, "cpu": cpu, "mode": mode}


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
    ap.add_argument("--at-once", action="store_true", help="type at the first screen")
    ap.add_argument("--busy", action="store_true", help="next to one CPU-bound loop")
    ap.add_argument("--mode", choices=["warm", "cold", "at-once"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.mode == "at-once":
        print(asyncio.run(at_once()))
        return
    if args.mode:  # one run in a fresh process (nothing cached between runs)
        print(asyncio.run(one(args.mode == "warm", args.idle)))
        return
    busy = None
    if args.busy:
        busy = subprocess.Popen([sys.executable, "-c", "while True:\n    pass"])
        time.sleep(1.0)
    try:
        if args.at_once:
            _report_at_once(args.runs, busy is not None)
            return
        _report(args)
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()


def _run(mode: str, idle: float) -> dict:
    """One run in a fresh process (nothing cached between runs)."""
    cmd = [sys.executable, __file__, "--mode", mode, "--idle", str(idle)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return ast.literal_eval(out.strip().splitlines()[-1])


def _report_at_once(runs: int, busy: bool) -> None:
    _run("at-once", 0)  # warm-up: bytecode, page cache
    rows, loads = [], []
    for _ in range(runs):
        loads.append(os.getloadavg()[0])
        rows.append(_run("at-once", 0))
    first = statistics.median(r["first_result"] for r in rows)
    print(
        f"CPU: {_cpu()}; {'busy (one CPU-bound loop)' if busy else 'idle'}; load average "
        f"{statistics.median(loads):.1f}; home {os.environ.get('XLSEARCH_HOME')}\n"
        f"first semantic result {first * 1000:.0f} ms after the first screen (median of "
        f"{runs}; min {min(r['first_result'] for r in rows) * 1000:.0f}, max "
        f"{max(r['first_result'] for r in rows) * 1000:.0f}; CPU time of all threads meanwhile "
        f"{statistics.median(r['cpu'] for r in rows) * 1000:.0f} ms); first screen after "
        f"{statistics.median(r['screen'] for r in rows):.1f} s; mode {rows[0]['mode']}"
    )


def _report(args: argparse.Namespace) -> None:
    print(
        f"CPU: {_cpu()}; load average {os.getloadavg()[0]:.1f}; "
        f"home {os.environ.get('XLSEARCH_HOME')}"
    )
    for mode in ("warm", "cold"):
        rows = [_run(mode, args.idle) for _ in range(args.runs)]
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
