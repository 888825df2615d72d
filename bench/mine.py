"""Bitext mining time and peak memory at 100k × 100k (synthetic 384-d vectors).

Source: sentence-embedding-like vectors (``query.Corpus``); target: noisy "translations" of
half the sources (shuffled) plus as many unrelated sentences. Mining is exactly
``xlsearch mine``'s core (``mining.mine_vectors``: k-NN both ways with FAISS in query
batches, ratio margin, max retrieval, threshold 1.06); ``exact`` = flat k-NN (LASER),
``fast`` = IVF k-NN (``xlsearch mine --fast``). Peak memory is the process's peak
RSS growth over the inputs, measured in a child process so nothing else is counted.

    .venv/bin/python bench/mine.py [--n 100000] [--dim 384] [--threads 2]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))


def rss_mb() -> float:
    """Current resident memory (MB)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 1e6


def peak_mb() -> float:
    """Peak resident memory since the last reset (MB), from /proc/self/status VmHWM."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1000
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000


def child(n: int, dim: int, threads: int, batch: int, exact: bool) -> dict:
    import faiss
    from query import Corpus

    from xlsearch.engine.search.mining import mine_vectors

    faiss.omp_set_num_threads(threads)
    rng = np.random.default_rng(0)
    corpus = Corpus(dim, rng)
    x = corpus.sample(n)
    half = n // 2
    perm = rng.permutation(n)[:half]
    noise = rng.standard_normal((half, dim), dtype=np.float32) * (0.45 / np.sqrt(dim))
    planted = x[perm] + noise
    planted /= np.linalg.norm(planted, axis=1, keepdims=True)
    y = np.vstack([planted, corpus.sample(n - half)])
    truth = {(int(perm[i]), i) for i in range(half)}
    base = rss_mb()
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak-RSS mark (VmHWM)
    t0, c0 = time.perf_counter(), time.process_time()
    pairs = mine_vectors(
        x, y, k=4, margin="ratio", retrieval="max", threshold=1.06, batch=batch, exact=exact
    )
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = peak_mb()
    found = {(p.src, p.tgt) for p in pairs}
    good = len(found & truth)
    return {
        "n": n,
        "seconds": elapsed,
        "cpu": cpu,
        "load": os.getloadavg()[0],
        "inputs_mb": (x.nbytes + y.nbytes) / 1e6,
        "base_mb": base,
        "peak_mb": peak,
        "pairs": len(pairs),
        "precision": good / max(len(found), 1),
        "recall": good / len(truth),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=8192)
    ap.add_argument("--modes", nargs="+", default=["exact", "fast"], help="exact and/or fast")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        exact = args.modes[0] == "exact"
        print(json.dumps(child(args.n, args.dim, args.threads, args.batch, exact)))
        return 0
    from _data import machine

    print(f"# bench/mine.py — {dt.date.today()} — {machine()} — {args.threads} FAISS threads")
    print(f"# {args.dim}-d synthetic; target = {args.n // 2:,} planted translations + distractors")
    print(
        "| src × tgt | k-NN | time s | CPU s | inputs MB | peak RSS MB | over inputs MB "
        "| pairs ≥ 1.06 | precision | recall | load avg |"
    )
    print("|---" * 11 + "|", flush=True)
    for mode in args.modes:
        cmd = [
            sys.executable,
            __file__,
            "--child",
            "--n",
            str(args.n),
            "--dim",
            str(args.dim),
            "--threads",
            str(args.threads),
            "--batch",
            str(args.batch),
            "--modes",
            mode,
        ]
        r = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
        over = r["peak_mb"] - r["base_mb"]
        print(
            f"| {r['n']:,} × {r['n']:,} | {mode} | {r['seconds']:.1f} | {r['cpu']:.1f} | "
            f"{r['inputs_mb']:.0f} | {r['peak_mb']:.0f} | {over:.0f} | {r['pairs']:,} | "
            f"{r['precision']:.3f} | {r['recall']:.3f} | {r['load']:.1f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
