"""Importer limits: memory and time on one huge segment, one huge attribute, and plain
parse throughput — this tree against a baseline tree (e.g. an older commit), same run.

Each case runs in a fresh subprocess (peak RSS is per process); files are generated once.

    .venv/bin/python bench/import_limits.py [--segment-mb 200] [--attr-mb 50] [--units 100000]
        [--baseline DIR]   # DIR: an unpacked older tree, e.g. `git archive <commit> xlsearch`
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _data import machine  # noqa: E402

CHILD = """
import json, resource, sys, time
from pathlib import Path
from xlsearch.engine.importers import ReadContext, read_records
path = Path(sys.argv[1])
ctx = ReadContext(path)
start, cpu = time.perf_counter(), time.process_time()
try:
    n = sum(1 for _ in read_records(ctx, "tmx"))
    outcome = f"{n} segments, {ctx.warning_count} warnings"
except Exception as exc:  # noqa: BLE001 - reported, not raised
    outcome = f"{type(exc).__name__}: {str(exc).splitlines()[0][-70:]}"
print(json.dumps({"s": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                  "outcome": outcome,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def write_segment(path: Path, mb: int) -> None:
    block = "word " * 20_000 + "\n"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('<tmx version="1.4"><header srclang="en"/><body>\n<tu><tuv xml:lang="en"><seg>')
        fh.writelines(block for _ in range(mb * 10))
        fh.write('</seg></tuv><tuv xml:lang="de"><seg>kurz</seg></tuv></tu></body></tmx>')


def write_attr(path: Path, mb: int) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('<tmx version="1.4"><header srclang="en"/><body>\n<tu><tuv xml:lang="en"><seg>')
        fh.write('a<ph x="')
        fh.writelines("y" * 1_000_000 for _ in range(mb))
        fh.write('"/>b</seg></tuv></tu></body></tmx>')


def write_units(path: Path, n: int) -> None:
    unit = (
        '<tu tuid="{i}"><tuv xml:lang="en"><seg>Click <bpt i="1">&lt;b&gt;</bpt>Save'
        '<ept i="1">&lt;/b&gt;</ept> to keep file {i}.<ph>&lt;br/&gt;</ph>Done.</seg></tuv>'
        '<tuv xml:lang="de"><seg>Klicken Sie auf <hi>Speichern</hi>, um Datei {i} zu '
        "behalten.</seg></tuv></tu>\n"
    )
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('<tmx version="1.4"><header srclang="en"/><body>\n')
        fh.writelines(unit.format(i=i) for i in range(n))
        fh.write("</body></tmx>")


def run(tree: Path, path: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        env=env,
        capture_output=True,
        text=True,
        cwd=path.parent,  # not the repo: "-c" puts the cwd first on sys.path
    )
    if out.returncode:
        nan = float("nan")
        return {"s": nan, "cpu": nan, "rss_mb": nan, "outcome": out.stderr[-80:]}
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--segment-mb", type=int, default=200)
    ap.add_argument("--attr-mb", type=int, default=50)
    ap.add_argument("--units", type=int, default=100_000)
    ap.add_argument("--baseline", type=Path, help="an older tree to compare with")
    ap.add_argument("--baseline-segment-mb", type=int, default=50, help="kinder to RAM")
    ap.add_argument("--baseline-attr-mb", type=int, default=8, help="quadratic before")
    args = ap.parse_args()
    trees = [("this tree", HERE.parent)] + ([("baseline", args.baseline)] if args.baseline else [])
    print(f"# {machine()}, {dt.date.today()}, Python {sys.version.split()[0]}")
    print("| tree | case | wall s | CPU s | peak RSS MB | outcome |\n|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for name, tree in trees:
            mine = name == "this tree"
            seg_mb = args.segment_mb if mine else args.baseline_segment_mb
            attr_mb = args.attr_mb if mine else args.baseline_attr_mb
            cases = [
                (f"one {seg_mb} MB segment", write_segment, seg_mb),
                (f"one {attr_mb} MB attribute", write_attr, attr_mb),
                (f"{args.units:,} units (parse only)", write_units, args.units),
            ]
            if mine and args.baseline:  # the baseline's sizes too, for a like-for-like row
                cases.insert(
                    1,
                    (
                        f"one {args.baseline_segment_mb} MB segment",
                        write_segment,
                        args.baseline_segment_mb,
                    ),
                )
            for label, writer, size in cases:
                path = Path(tmp) / f"{writer.__name__}-{size}.tmx"
                if path not in files:
                    writer(path, size)
                    files[path] = True
                r = run(tree, path)
                print(
                    f"| {name} | {label} | {r['s']:.2f} | {r['cpu']:.2f} | {r['rss_mb']:.0f} "
                    f"| {r['outcome']} |"
                )


if __name__ == "__main__":
    main()
