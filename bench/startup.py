"""TUI start-up: from launching ``xlsearch app`` to an interactive search screen.

Each run starts a fresh process with ``XLSEARCH_EXIT_WHEN_READY=<file>``; the app writes the
wall-clock time at which the search screen took input (after its first refresh) and exits.
Baselines measured in the same run: a bare interpreter, and ``import textual.app``.

    .venv/bin/python bench/startup.py [--runs 7] [--home DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], env: dict[str, str]) -> float:
    """Seconds until ``cmd`` exits."""
    start = time.time()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.time() - start


def app_ready(env: dict[str, str]) -> tuple[float, float, dict[str, bool]]:
    """(seconds to interactive, seconds to exit, heavy modules loaded when ready)."""
    with tempfile.TemporaryDirectory() as tmp:
        ready = Path(tmp) / "ready.json"
        start = time.time()
        subprocess.run(
            [str(Path(sys.executable).parent / "xlsearch"), "app"],
            env={**env, "XLSEARCH_EXIT_WHEN_READY": str(ready)},
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=120,
        )
        total = time.time() - start
        data = json.loads(ready.read_text())
    return data["time"] - start, total, data["loaded"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--home", help="XLSEARCH_HOME for the app (default: the user's data)")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.home:
        env["XLSEARCH_HOME"] = args.home
    py = sys.executable
    rows: dict[str, list[float]] = {"python -c pass": [], "import textual.app": [], "app": []}
    exits: list[float] = []
    loaded: dict[str, bool] = {}
    timed([py, "-c", "import xlsearch.tui.app"], env)  # warm the OS file cache once
    for _ in range(args.runs):  # interleaved, median reported
        rows["python -c pass"].append(timed([py, "-c", "pass"], env))
        rows["import textual.app"].append(timed([py, "-c", "import textual.app"], env))
        ready, total, loaded = app_ready(env)
        rows["app"].append(ready)
        exits.append(total)
    base = statistics.median(rows["python -c pass"])
    print(f"runs: {args.runs} (median), cpus: {os.cpu_count()}, python {sys.version.split()[0]}")
    print(f"{'what':<34}{'median s':>10}{'min s':>8}{'× bare python':>15}")
    labels = {
        "python -c pass": "bare interpreter",
        "import textual.app": "import textual.app",
        "app": "xlsearch app → search screen ready",
    }
    for key, values in rows.items():
        med = statistics.median(values)
        print(f"{labels[key]:<34}{med:>10.3f}{min(values):>8.3f}{med / base:>15.1f}")
    print(f"{'xlsearch app → process exited':<34}{statistics.median(exits):>10.3f}")
    heavy = ", ".join(f"{k}={'yes' if v else 'no'}" for k, v in loaded.items())
    print(f"heavy modules loaded when ready: {heavy}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
