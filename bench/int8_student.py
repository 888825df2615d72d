"""Does a static student lose accuracy when its teacher cache was built in int8 instead of fp32?

Two short static distillations on the same slice of ../shared/data/train (the first
``--pairs`` pairs of each language file given), identical but for ``teacher_precision``; each
in its own empty XLSEARCH_HOME, so each builds its cache (timed). Reported: cache build rate
and the dev translation accuracy (held-out pairs, both directions, student only — comparable
across the two runs).

    python bench/int8_student.py [--langs de,fr,ru,zh] [--pairs 1500] [--steps 400]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import data_dir, machine  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--langs", default="de,fr,ru,zh")
    ap.add_argument("--pairs", type=int, default=1500, help="pairs read per language")
    ap.add_argument("--dev", type=int, default=200, help="held-out dev pairs per language")
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()

    from xlsearch.engine.runtime.cpu import describe_cpu

    work = Path(tempfile.mkdtemp(prefix="xlsearch-int8-"))
    files = []
    for lang in args.langs.split(","):
        src = data_dir() / "train" / f"en-{lang}.tsv.gz"
        with gzip.open(src, "rt", encoding="utf-8") as fh:
            lines = [line for _, line in zip(range(args.pairs), fh, strict=False)]
        files.append(work / f"en-{lang}.tsv")
        files[-1].write_text("".join(lines), encoding="utf-8")

    rows = []
    for precision in ("fp32", "int8"):
        os.environ["XLSEARCH_HOME"] = str(work / f"home-{precision}")
        from xlsearch.engine.distill import DistillConfig, distill

        cfg = DistillConfig(
            train=[str(f) for f in files], student="static", out=str(work / f"s-{precision}"),
            vocab_size=8000, batch_size=256, max_steps=args.steps, eval_steps=0,
            ckpt_steps=0, dev_per_lang=args.dev, device="cpu", threads=args.threads,
            teacher_precision=precision,
        )  # fmt: skip
        t0 = time.perf_counter()
        res = distill(cfg)
        cache = next(
            r["teacher_cache"]
            for r in map(_json, (res.run_dir / "metrics.jsonl").read_text().splitlines())
            if "teacher_cache" in r
        )
        rows.append((precision, cache, res.metrics, time.perf_counter() - t0))
        print(precision, cache, {k: v for k, v in res.metrics.items() if k != "per_lang"})

    print(f"\nint8 vs fp32 teacher cache — {dt.date.today()} — {machine()} ({describe_cpu()})")
    print(f"langs {args.langs}, {args.pairs} pairs read per language ({args.dev} held out),")
    print(
        f"static student, vocab 8000, {args.steps} steps of 256 pairs, {args.threads} thread(s)\n"
    )
    print("| teacher cache | sentences | cache s | sentences/s | dev acc | per language |")
    print("|---|---:|---:|---:|---:|---|")
    for precision, cache, m, _ in rows:
        per = ", ".join(
            f"{k} {(v['acc_src2tgt'] + v['acc_tgt2src']) / 2:.1f}"
            for k, v in m.get("per_lang", {}).items()
        )
        print(
            f"| {precision} | {int(cache['encoded']):,} | {cache['seconds']:.0f} "
            f"| {cache['sent_per_s']:.0f} | {m.get('dev_acc', float('nan')):.1f} | {per} |"
        )
    return 0


def _json(line: str) -> dict:
    import json

    return json.loads(line)


if __name__ == "__main__":
    raise SystemExit(main())
