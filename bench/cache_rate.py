"""Teacher-cache build rate (sentences/s) per precision and thread count, and int8's STS cost.

A seeded random sample of English sentences from ../shared/data/train is encoded into a fresh
``TeacherCache`` (the code path of ``distill``'s first stage) by each variant; variants and
thread counts are interleaved over ``--rounds`` (median, min–max). ``--quality`` adds the
teacher's STS-benchmark test Spearman ×100 per precision.

    python bench/cache_rate.py [--n 3000] [--threads 1,2] [--rounds 2] [--quality]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import data_dir, machine, stsb_test  # noqa: E402
from encode import spearman  # noqa: E402


def train_english(n: int, seed: int = 0) -> tuple[list[str], int]:
    """A random sample of ``n`` distinct English sentences of train/, and how many there are."""
    seen: dict[str, None] = {}
    for path in sorted((data_dir() / "train").glob("en-*.tsv.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                en = line.split("\t", 1)[0].strip()
                if en:
                    seen.setdefault(en, None)
    texts = list(seen)
    return random.Random(seed).sample(texts, min(n, len(texts))), len(texts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--variants", default="fp32:128,int8:128,int8:32")
    ap.add_argument("--quality", action="store_true")
    args = ap.parse_args()

    import torch

    from xlsearch.engine import load_encoder
    from xlsearch.engine.distill.teacher_cache import TeacherCache
    from xlsearch.engine.runtime.cpu import cpu_flags, describe_cpu

    texts, total = train_english(args.n)
    variants = [(p, int(b)) for p, b in (v.split(":") for v in args.variants.split(","))]
    encoders = {p: load_encoder("bundled:teacher", precision=p) for p, _ in variants}
    threads = [int(t) for t in args.threads.split(",")]
    for enc in encoders.values():
        enc.encode(texts[:32])
    combos = [(v, t) for t in threads for v in variants]
    rates: dict[tuple, list[float]] = {c: [] for c in combos}
    cpu_rates: dict[tuple, list[float]] = {c: [] for c in combos}
    for r in range(args.rounds):
        shift = r % len(combos)
        for (prec, bs), t in combos[shift:] + combos[:shift]:
            torch.set_num_threads(t)
            enc = encoders[prec]
            enc.batch_size = bs
            with tempfile.TemporaryDirectory() as tmp:
                cache = TeacherCache(Path(tmp), enc.dim, enc.id)
                wall, cpu = time.perf_counter(), time.process_time()
                cache.ensure(texts, enc)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            rates[((prec, bs), t)].append(len(texts) / wall)
            cpu_rates[((prec, bs), t)].append(len(texts) / cpu)
            print(f"  {prec} batch {bs} threads {t}: {len(texts) / wall:.0f}/s", flush=True)

    flags = cpu_flags()
    print(f"\nTeacher-cache build rate — {dt.date.today()} — {machine()} ({describe_cpu(flags)})")
    print(f"{len(texts):,} random English sentences of train/ ({total:,} distinct in all);")
    print(f"median [min–max] of {args.rounds} interleaved rounds\n")
    print("| precision | batch | threads | sentences/s | sent./CPU-s | × fp32 | all of train/ |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for t in threads:
        base = statistics.median(rates[(variants[0], t)])
        for v in variants:
            vals = rates[(v, t)]
            med = statistics.median(vals)
            cpu_med = statistics.median(cpu_rates[(v, t)])
            print(
                f"| {v[0]} | {v[1]} | {t} | {med:,.0f} [{min(vals):,.0f}–{max(vals):,.0f}] "
                f"| {cpu_med:,.0f} | {med / base:.2f} | {total / med / 60:.0f} min |"
            )
    if args.quality:
        s1, s2, gold = stsb_test()
        torch.set_num_threads(max(threads))
        ref = None
        print("\n| precision | STSb test Spearman ×100 | mean cosine to fp32 |")
        print("|---|---:|---:|")
        for prec in dict.fromkeys(p for p, _ in variants):
            vec = encoders[prec].encode(s1 + s2)
            ref = vec if ref is None else ref
            a, b = vec[: len(s1)], vec[len(s1) :]
            sts = spearman((a * b).sum(axis=1), np.asarray(gold))
            print(f"| {prec} | {sts:.2f} | {float((vec * ref).sum(axis=1).mean()):.4f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
