"""Benchmark (c): sentences/s of building the teacher-embedding cache for ../shared/data/train.

Run: XLSEARCH_HOME=/work/xlhome-bench python bench/distill_cache.py [--teacher bundled:teacher]
The cache lands under $XLSEARCH_HOME/cache/teacher/ and is reused by bench/distill_quality.py.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path


def data_root() -> Path:
    here = Path(__file__).resolve().parent.parent
    return (here / os.environ.get("XLSEARCH_BENCH_DATA", "../shared/data")).resolve()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--teacher", default="bundled:teacher")
    ap.add_argument("--limit", type=int, default=0, help="only the first N unique sentences")
    ap.add_argument(
        "--sample", type=int, default=0, help="a random sample of N sentences (a rate estimate)"
    )
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--slice", type=int, default=16384, help="sentences per ensure() call")
    args = ap.parse_args()

    from xlsearch.engine import load_encoder
    from xlsearch.engine.distill.data import load_parallel
    from xlsearch.engine.distill.setup import token_filter
    from xlsearch.engine.distill.teacher_cache import TeacherCache

    files = sorted((data_root() / "train").glob("*.tsv*"))
    enc = load_encoder(args.teacher, device="auto", batch_size=args.batch_size)
    t0 = time.perf_counter()
    # the same filter as training (pairs over 128 teacher tokens are dropped, never encoded)
    data = load_parallel(files, too_long=token_filter(enc, 128))
    texts = data.source_texts()
    if args.sample:
        import random

        texts = random.Random(0).sample(texts, min(args.sample, len(texts)))
    if args.limit:
        texts = texts[: args.limit]
    t_read = time.perf_counter() - t0
    cache = TeacherCache.for_encoder(enc)
    before = len(cache)
    last = [0.0]

    def show(p: object) -> None:
        now = time.perf_counter()
        if now - last[0] > 30:
            last[0] = now
            print(f"  {p.done:,}/{p.total:,} {p.metrics}", flush=True)  # type: ignore[attr-defined]

    # shortest first, in slices: on a busy machine the cache is useful long before it is full
    texts.sort(key=len)
    stats = {"encoded": 0.0, "seconds": 0.0}
    for start in range(0, len(texts), args.slice):
        part = cache.ensure(texts[start : start + args.slice], enc, on_progress=show)
        stats["encoded"] += part["encoded"]
        stats["seconds"] += part["seconds"]
        print(f"  slice {start:,}: {part}", flush=True)
    stats["sent_per_s"] = stats["encoded"] / max(stats["seconds"], 1e-9)
    print(
        "| files | pairs | unique source sentences | read s | already cached | encoded "
        "| encode s | sentences/s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    print(
        f"| {len(files)} | {data.n_pairs:,} | {len(texts):,} | {t_read:.1f} | {before:,} "
        f"| {int(stats['encoded']):,} | {stats['seconds']:.0f} "
        f"| {stats.get('sent_per_s', float('nan')):.0f} |"
    )
    print(f"cache: {cache.folder} ({len(cache):,} rows)")


if __name__ == "__main__":
    main()
