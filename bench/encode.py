"""Encoder throughput vs SentenceTransformer.encode, and the accuracy cost of bf16/int8.

Same texts, batch size and thread count for every variant, interleaved over several rounds in
one run (median reported). Quality: STS-benchmark test Spearman ×100 per variant.

    .venv/bin/python bench/encode.py [--n 2000] [--rounds 3] [--threads 2]
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import machine, stsb_test, tatoeba_english  # noqa: E402


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman rank correlation (average ranks for ties) × 100."""

    def ranks(x: np.ndarray) -> np.ndarray:
        order = np.argsort(x, kind="mergesort")
        r = np.empty(len(x))
        r[order] = np.arange(len(x))
        for v in np.unique(x):
            idx = x == v
            r[idx] = r[idx].mean()
        return r

    ra, rb = ranks(np.asarray(a)), ranks(np.asarray(b))
    return float(np.corrcoef(ra, rb)[0, 1] * 100)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="sentences per timing")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    import torch
    from sentence_transformers import SentenceTransformer

    from xlsearch.engine import load_encoder

    torch.set_num_threads(args.threads)
    texts = tatoeba_english(args.n)
    st = SentenceTransformer(str(load_encoder("bundled:teacher").path), device="cpu")
    ours = {p: load_encoder("bundled:teacher", precision=p) for p in ("fp32", "bf16", "int8")}

    def st_encode(t: list[str]) -> np.ndarray:
        return st.encode(t, batch_size=args.batch_size, normalize_embeddings=True)

    variants = {"sentence-transformers": st_encode}
    for p, enc in ours.items():
        variants[f"xlsearch {p}"] = lambda t, enc=enc: enc.encode(t, batch_size=args.batch_size)
    for f in variants.values():  # warm-up
        f(texts[:64])
    rates: dict[str, list[float]] = {k: [] for k in variants}
    cpu_rates: dict[str, list[float]] = {k: [] for k in variants}
    names = list(variants)
    for r in range(args.rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            start, cpu = time.perf_counter(), time.process_time()
            variants[name](texts)
            rates[name].append(len(texts) / (time.perf_counter() - start))
            cpu_rates[name].append(len(texts) / (time.process_time() - cpu))
    ref = st_encode(texts)
    s1, s2, gold = stsb_test()
    rows = []
    base = statistics.median(rates["sentence-transformers"])
    cpu_base = statistics.median(cpu_rates["sentence-transformers"])
    for name, f in variants.items():
        vec = f(texts)
        a, b = f(s1), f(s2)
        sts = spearman((a * b).sum(axis=1), np.asarray(gold))
        med = statistics.median(rates[name])
        cpu = statistics.median(cpu_rates[name])
        diff = float(np.abs(vec - ref).max())
        rows.append((name, med, med / base, cpu, cpu / cpu_base, diff, sts))
    print(f"\nEncoder benchmark — {dt.date.today()} — {machine()}, torch threads {args.threads}")
    print(f"{len(texts)} Tatoeba English sentences, batch {args.batch_size}, bundled teacher,")
    print(f"median of {args.rounds} interleaved rounds; STSb test Spearman ×100\n")
    print(
        "| variant | sentences/s (wall) | × ST | sentences/CPU-s | × ST | max abs diff vs ST "
        "| STSb Spearman |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, med, ratio, cpu, cpu_ratio, diff, sts in rows:
        print(
            f"| {name} | {med:,.0f} | {ratio:.2f} | {cpu:,.0f} | {cpu_ratio:.2f} | {diff:.1e} "
            f"| {sts:.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
