"""Cold CLI latency: a fresh ``xlsearch`` process per lookup, as a script or a CAT tool's
external-command hook runs it.

Each command runs in a new process (``python -m xlsearch …``; bytecode cached as in an
install, page cache warm after one uncounted run), ``--runs`` times; the median wall time is
reported with the CPU time it used (user + system: a figure the load of other processes
hardly changes) and the 1-minute load average read before each run. Conditions: ``idle``
(nothing of ours running; the machine may be shared) and ``busy`` (next to one CPU-bound
loop started by this script, a single-threaded ``while True`` in its own process).
``--before DIR`` times a second source tree (e.g. an older checkout: ``git archive REV |
tar -x -C DIR``) in the same run, interleaved with this one.

Modes:

* default: ``lookup``, ``lookup --fuzzy-only`` and ``search`` against the memory in
  ``--home`` with ``--model`` active (build a memory with
  ``bench/lookup.py --latency N --build-only --model M --home DIR``);
* ``--importtime``: the ``lookup``'s import time per top-level package (``python -X
  importtime``, median of the runs), this tree and ``--before``;
* ``--resident N``: ``lookup --stdin`` with N segments in one process (the model loaded
  once) against N fresh ``lookup`` processes: wall time per segment.

    python bench/cold_start.py --home DIR --model STUDENT [--before OLD_TREE] [--runs 5]
    python bench/cold_start.py --home DIR --model STUDENT --before OLD_TREE --importtime
    python bench/cold_start.py --home TEACHER_HOME --model bundled:teacher --resident 20
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import REPO, machine  # noqa: E402

SEGMENT = "The committee will discuss the proposal at its next meeting."
QUERY = "Der Ausschuss berät den Vorschlag."
SEGMENTS = [
    SEGMENT,
    "The meeting was postponed until next week.",
    "Please send me the report by Friday.",
    "The train to Vienna leaves at eight o'clock.",
    "We have to reduce our energy consumption.",
]
COMMANDS = {
    "lookup": ["lookup", SEGMENT, "--src", "en", "--tgt", "de"],
    "lookup --fuzzy-only": ["lookup", SEGMENT, "--src", "en", "--tgt", "de", "--fuzzy-only"],
    "search": ["search", QUERY, "--lang", "en", "--k", "5"],
}
BUSY = "while True:\n    pass\n"
CPU: list[float] = []
"""CPU seconds (user + system) of each ``wall`` run, in order: a figure the load of other
processes hardly changes."""


def env_for(tree: Path, args: argparse.Namespace) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTHONPATH=str(tree), XLSEARCH_HOME=args.home, XLSEARCH_ACTIVE_MODEL=args.model
    )  # fmt: skip
    return env


def wall(cmd: list[str], env: dict[str, str], stdin: bytes | None = None) -> float:
    """Seconds from start to exit of ``cmd`` (its output discarded; failure is fatal). It
    runs in its tree (``python -m`` puts the working folder first on the import path)."""
    start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        cmd, env=env, cwd=env["PYTHONPATH"], input=stdin,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])}…: exit {proc.returncode}\n{proc.stderr.decode()}")
    return took


class Busy:
    """One CPU-bound loop in its own process while the ``with`` block runs (or nothing)."""

    def __init__(self, on: bool) -> None:
        self.on, self.proc = on, None

    def __enter__(self) -> Busy:
        if self.on:
            self.proc = subprocess.Popen([sys.executable, "-c", BUSY])
            time.sleep(1.0)  # let it take its core
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()


def trees(args: argparse.Namespace) -> dict[str, Path]:
    out = {"after": REPO}
    if args.before:
        out = {"before": Path(args.before).resolve(), **out}
    return out


def cold(args: argparse.Namespace) -> None:
    py = [sys.executable, "-m", "xlsearch"]
    rows = []
    for condition in args.conditions.split(","):
        times: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
        cpu: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
        loads: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
        with Busy(condition == "busy"):
            for tree in trees(args).values():  # warm-up: bytecode, page cache
                for cmd in COMMANDS.values():
                    wall(py + cmd, env_for(tree, args))
            for _ in range(args.runs):
                for name, tree in trees(args).items():
                    for label, cmd in COMMANDS.items():
                        loads[label, name].append(os.getloadavg()[0])
                        times[label, name].append(wall(py + cmd, env_for(tree, args)))
                        cpu[label, name].append(CPU[-1])
        for (label, name), ts in times.items():
            rows.append(
                (label, name, condition, statistics.median(ts), min(ts), max(ts),
                 statistics.median(cpu[label, name]), statistics.median(loads[label, name]))
            )  # fmt: skip
    print(f"\n{machine()}; model {args.model}; home {args.home}; median of {args.runs}\n")
    print("| command | code | condition | wall s (median) | min–max s | CPU s | load (1 min) |")
    print("|---|---|---|---:|---:|---:|---:|")
    for label, name, cond, med, lo, hi, cpu_s, load in sorted(rows):
        print(
            f"| `{label}` | {name} | {cond} | {med:.2f} | {lo:.2f}–{hi:.2f} | {cpu_s:.2f} "
            f"| {load:.1f} |"
        )


LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def importtime(args: argparse.Namespace) -> None:
    """Self time per top-level package of one ``lookup`` (median of the runs)."""
    cmd = [sys.executable, "-X", "importtime", "-m", "xlsearch", *COMMANDS["lookup"]]
    per: dict[str, list[dict[str, float]]] = collections.defaultdict(list)
    totals: dict[str, list[float]] = collections.defaultdict(list)
    for tree in trees(args).values():
        wall(cmd, env_for(tree, args))  # warm-up
    for _ in range(args.runs):
        for name, tree in trees(args).items():
            env = env_for(tree, args)
            proc = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True)
            sums: dict[str, float] = collections.Counter()
            for m in LINE.finditer(proc.stderr):
                sums[m.group(4).split(".")[0]] += int(m.group(1)) / 1000
            per[name].append(sums)
            totals[name].append(sum(sums.values()))
    names = list(per)

    def med(name: str, pkg: str) -> float:
        return statistics.median(s.get(pkg, 0.0) for s in per[name])

    every = {p for runs in per.values() for sums in runs for p in sums}
    pkgs = {p for p in every if max(med(n, p) for n in names) >= 5}  # the rest: noise

    order = sorted(pkgs, key=lambda p: -max(med(n, p) for n in names))
    print(f"\n{machine()}; load {os.getloadavg()[0]:.1f}; median of {args.runs}\n")
    print("| package (self time of its modules) | " + " | ".join(f"{n} ms" for n in names) + " |")
    print("|---|" + "---:|" * len(names))
    for pkg in order:
        print(f"| {pkg} | " + " | ".join(f"{med(n, pkg):.0f}" for n in names) + " |")
    print(
        "| **all imports** | "
        + " | ".join(f"**{statistics.median(totals[n]):.0f}**" for n in names)
        + " |"
    )


def resident(args: argparse.Namespace) -> None:
    """Per-segment wall time: N fresh ``lookup`` processes vs one ``lookup --stdin``."""
    n = args.resident
    segs = [
        SEGMENTS[i % len(SEGMENTS)] + (f" ({i})" if i >= len(SEGMENTS) else "") for i in range(n)
    ]
    env = env_for(REPO, args)
    base = [sys.executable, "-m", "xlsearch", "lookup", "--src", "en", "--tgt", "de"]
    wall(base + [segs[0]], env)  # warm-up
    for condition in args.conditions.split(","):
        with Busy(condition == "busy"):
            load = os.getloadavg()[0]
            fresh = [wall(base + [s], env) for s in segs[: args.runs]]
            first = wall(base + ["--stdin"], env, (segs[0] + "\n").encode())
            start = time.perf_counter()
            proc = subprocess.run(
                base + ["--stdin", "--json"], env=env, cwd=REPO, capture_output=True,
                input=("\n".join(segs) + "\n").encode(), check=True,
            )  # fmt: skip
            stream = time.perf_counter() - start
        ms = [json.loads(line)["ms"] for line in proc.stdout.decode().splitlines()]
        print(
            f"{condition} (load {load:.1f}): a fresh process per segment "
            f"{statistics.median(fresh):.2f} s (median of {len(fresh)}); --stdin: {n} segments "
            f"in {stream:.2f} s, one segment {first:.2f} s (start-up and model load), each "
            f"further segment ≈ {(stream - first) / (n - 1) * 1000:.0f} ms wall; lookup time "
            f"per segment in the stream: median {statistics.median(ms[1:]):.0f} ms, first "
            f"{ms[0]:.0f} ms"
        )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--home", required=True, help="XLSEARCH_HOME holding the memory")
    ap.add_argument("--model", required=True, help="the active model (a static student)")
    ap.add_argument("--before", help="a second source tree to time in the same run")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--conditions", default="idle,busy")
    ap.add_argument("--importtime", action="store_true")
    ap.add_argument("--resident", type=int, default=0, metavar="N")
    args = ap.parse_args()
    args.home = str(Path(args.home).resolve())
    if args.importtime:
        importtime(args)
    elif args.resident:
        resident(args)
    else:
        cold(args)


if __name__ == "__main__":
    main()
