"""Import + index throughput with the bundled teacher vs pure encode throughput.

The same segments (real en–de pairs from ``train/en-de.tsv.gz``) are (a) encoded with
``Encoder.encode`` alone — the baseline — and (b) imported into a fresh store and indexed
with ``build_index`` (vector cache writes, FAISS add, atomic save included). (a) and (b)
alternate for several rounds (the vector cache emptied before each (b), so everything is
embedded) and the fastest run of each is compared; process CPU time is reported too (less
sensitive to other jobs on a shared machine).
Target: indexing overhead over pure encoding ≤ 10 %.

``bench_index`` is the index layer's part; ``bench_import`` (import alone) belongs to the store.

    .venv/bin/python bench/import_index.py [--pairs 1500] [--threads 2] [--batch-size 64]
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from _data import data_dir, machine  # noqa: E402


def read_pairs(n: int) -> list[tuple[str, str]]:
    """The first ``n`` clean en–de pairs of the training TSV."""
    out: list[tuple[str, str]] = []
    with gzip.open(data_dir() / "train" / "en-de.tsv.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 2 and cols[0].strip() and cols[1].strip():
                out.append((cols[0].strip(), cols[1].strip()))
                if len(out) >= n:
                    break
    return out


def _mixed_pairs(n: int) -> list[tuple[str, str, str]]:
    """``n`` (lang, en, xx) pairs, round-robin over de/fr/ru/zh/ja (real, varied scripts)."""
    langs = ["de", "fr", "ru", "zh", "ja"]
    readers = {
        lang: gzip.open(data_dir() / "train" / f"en-{lang}.tsv.gz", "rt", encoding="utf-8")
        for lang in langs
    }
    out: list[tuple[str, str, str]] = []
    try:
        while len(out) < n:
            for lang, fh in readers.items():
                line = fh.readline()
                cols = line.rstrip("\n").split("\t")
                if len(cols) >= 2 and cols[0].strip() and cols[1].strip():
                    out.append((lang, cols[0], cols[1]))
    finally:
        for fh in readers.values():
            fh.close()
    return out[:n]


def _write_corpus(folder: Path, pairs: list[tuple[str, str, str]]) -> dict[str, Path]:
    from xlsearch.engine.export.writer import ExportUnit, write_units

    tsv = folder / "pairs.tsv"  # the distillation format, languages given per file: use TMX
    tmx = folder / "pairs.tmx"
    nolang = folder / "nolang.tsv"
    # the exporter drops characters XML cannot carry (the real data has a few, e.g. \x08)
    write_units(tmx, (ExportUnit([("en", en), (lang, xx)]) for lang, en, xx in pairs), "tmx")
    de = [p for p in pairs if p[0] == "de"]
    tsv.write_text("en\tde\n" + "".join(f"{en}\t{xx}\n" for _, en, xx in de), encoding="utf-8")
    nolang.write_text("".join(f"{en}\t{xx}\n" for _, en, xx in de), encoding="utf-8")
    return {"tmx": tmx, "tsv": tsv, "nolang": nolang}


def bench_import(pairs: int = 100_000) -> list[dict[str, object]]:
    """Import throughput (segments/s) of a fresh store vs the importer alone and a raw read.

    Rows: TMX (5 language pairs), TSV with a language header (en–de only), the same TSV
    without languages (py3langid on every segment), re-import unchanged, re-import with 1 %
    of the units changed, and the peak Python heap while streaming TMX of two sizes.
    """
    import tracemalloc

    from xlsearch.engine.importers import ReadContext, detect_format, read_records
    from xlsearch.engine.store import Store

    work = Path(tempfile.mkdtemp(prefix="xlsearch-bench-import-"))
    os.environ["XLSEARCH_HOME"] = str(work / "home")
    files = _write_corpus(work, _mixed_pairs(pairs))
    rows: list[dict[str, object]] = []

    def timed(fn):  # type: ignore[no-untyped-def]
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        timed.cpu = time.process_time() - c  # type: ignore[attr-defined]
        return out, time.perf_counter() - t

    def raw_read(path: Path) -> int:
        n = 0
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                n += len(line.split("\t"))
        return n

    def parse_only(path: Path) -> int:
        return sum(1 for _ in read_records(ReadContext(path), detect_format(path)))

    from xlsearch.engine.lang.identify import identify

    identify(["warm-up: load the language-identification model once"])
    with Store(work / "store.db") as store:
        for label, key, opts in (
            ("TMX, 5 language pairs", "tmx", {}),
            ("TSV en-de, language header", "tsv", {}),
            ("TSV en-de, no languages (langid)", "nolang", {"langs": None}),
        ):
            path = files[key]
            n_raw, t_raw = timed(lambda path=path: raw_read(path))
            n_parse, t_parse = timed(lambda path=path: parse_only(path))
            report, t_imp = timed(
                lambda path=path, key=key, opts=opts: store.import_file(
                    path, f"bench-{key}", **opts
                )
            )
            rows.append(
                {
                    "case": label,
                    "segments": report.added,
                    "import_s": t_imp,
                    "import_seg_s": report.added / t_imp,
                    "cpu_s": timed.cpu,  # type: ignore[attr-defined]
                    "import_seg_cpu_s": report.added / timed.cpu,  # type: ignore[attr-defined]
                    "parse_seg_s": n_parse / t_parse,
                    "raw_read_seg_s": n_raw / t_raw if key != "tmx" else float("nan"),
                }
            )
        tmx = files["tmx"]
        report, t_same = timed(lambda: store.import_file(tmx, "bench-tmx"))
        rows.append(
            {
                "case": "re-import unchanged TMX",
                "segments": 0,
                "import_s": t_same,
                "cpu_s": timed.cpu,  # type: ignore[attr-defined]
            }
        )
        text = tmx.read_text(encoding="utf-8").splitlines(keepends=True)
        step = 100  # change 1 % of the units
        for i in range(1, len(text) - 1, step):
            text[i] = text[i].replace("</seg></tuv>", " (rev.)</seg></tuv>", 1)
        tmx.write_text("".join(text), encoding="utf-8")
        report, t_upd = timed(lambda: store.import_file(tmx, "bench-tmx"))
        rows.append(
            {
                "case": f"re-import TMX, 1 % units changed (+{report.added} -{report.removed})",
                "segments": report.added,
                "import_s": t_upd,
                "cpu_s": timed.cpu,  # type: ignore[attr-defined]
            }
        )
    # memory: peak Python heap while streaming TMX of two sizes (should not grow with size)
    (work / "small").mkdir()
    small = _write_corpus(work / "small", _mixed_pairs(pairs // 10))["tmx"]
    for label, path in (("small", small), ("full", files["tmx"])):
        tracemalloc.start()
        n = parse_only(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rows.append(
            {
                "case": f"peak heap streaming TMX ({label}, {n:,} segments)",
                "peak_mib": peak / 2**20,
                "segments": n,
            }
        )
    return rows


def print_import(rows: list[dict[str, object]]) -> None:
    """Markdown table of ``bench_import`` rows."""
    print(
        "| case | segments | import s | CPU s | import seg/s | import seg/CPU-s "
        "| parse-only seg/s | raw read seg/s | peak heap MiB |"
    )
    print("|---" * 9 + "|")
    for r in rows:

        def f(key: str, fmt: str, r: dict[str, object] = r) -> str:
            v = r.get(key)
            return "" if v is None or v != v else format(v, fmt)  # noqa: PLR0124 (NaN)

        print(
            f"| {r['case']} | {f('segments', ',')} | {f('import_s', '.2f')} | "
            f"{f('cpu_s', '.2f')} | "
            f"{f('import_seg_s', ',.0f')} | {f('import_seg_cpu_s', ',.0f')} | "
            f"{f('parse_seg_s', ',.0f')} | "
            f"{f('raw_read_seg_s', ',.0f')} | {f('peak_mib', '.1f')} |"
        )


def bench_index(
    pairs: int = 1500,
    threads: int = 2,
    batch_size: int = 64,
    rounds: int = 3,
    model: str = "bundled:teacher",
) -> dict[str, float]:
    """Seconds for pure encode and for build_index (min of interleaved rounds), import."""
    os.environ["XLSEARCH_HOME"] = tempfile.mkdtemp(prefix="xlsearch-bench-")
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    rows = read_pairs(pairs)
    tsv = Path(os.environ["XLSEARCH_HOME"]) / "en-de.tsv"
    tsv.write_text(
        "en\tde\n" + "".join(f"{a}\t{b}\n" for a, b in rows), encoding="utf-8"
    )  # header of language codes
    enc = load_encoder(model, batch_size=batch_size, threads=threads)
    enc.encode(["warm-up sentence"] * 8)
    with Store() as store:
        t = time.perf_counter()
        store.import_file(tsv, "bench")
        t_import = time.perf_counter() - t
        texts = [r["text"] for batch in store.iter_segments("bench") for r in batch]
        unique = list(dict.fromkeys(texts))
        enc_t, enc_c, idx_t, idx_c = [], [], [], []
        for _ in range(rounds):  # interleaved; min of each (least disturbed by other jobs)
            t, c = time.perf_counter(), time.process_time()
            enc.encode(unique)
            enc_t.append(time.perf_counter() - t)
            enc_c.append(time.process_time() - c)
            with store.transaction() as conn:  # cold vector cache: everything is embedded
                conn.execute("DELETE FROM embeddings")
            t, c = time.perf_counter(), time.process_time()
            oi = build_index(store, enc, "bench", rebuild=True)
            idx_t.append(time.perf_counter() - t)
            idx_c.append(time.process_time() - c)
    return {
        "segments": float(len(texts)),
        "unique": float(len(unique)),
        "vectors": float(oi.count),
        "encode_s": min(enc_t),
        "encode_runs": "/".join(f"{x:.1f}" for x in enc_t),  # type: ignore[dict-item]
        "index_runs": "/".join(f"{x:.1f}" for x in idx_t),  # type: ignore[dict-item]
        "import_s": t_import,
        "index_s": min(idx_t),
        "encode_cpu": min(enc_c),
        "index_cpu": min(idx_c),
        "load": os.getloadavg()[0],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=1500)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--import-pairs", type=int, default=100_000, help="pairs for bench_import")
    ap.add_argument("--import-only", action="store_true", help="run bench_import only")
    ap.add_argument("--index-only", action="store_true", help="run bench_index only")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds for bench_index")
    ap.add_argument("--model", default="bundled:teacher", help="model for bench_index")
    args = ap.parse_args()
    if not args.index_only:
        print(f"# bench/import_index.py — {dt.date.today()} — {machine()}")
        print(f"## import ({args.import_pairs:,} pairs; load avg {os.getloadavg()[0]:.1f})")
        print_import(bench_import(args.import_pairs))
    if args.import_only:
        return 0
    r = bench_index(args.pairs, args.threads, args.batch_size, args.rounds, args.model)
    print(f"# bench/import_index.py — {dt.date.today()} — {machine()} — {args.threads} threads")
    print(f"# model {args.model}, batch {args.batch_size}, en–de pairs")
    print(
        "| segments | encode s (runs) | encode seg/s | index s (runs) | index seg/s "
        "| index overhead | CPU-time overhead | import s | import+index seg/s "
        "| import+index overhead | load avg |"
    )
    print("|---" * 11 + "|")
    n, enc_s, idx_s, imp_s = r["segments"], r["encode_s"], r["index_s"], r["import_s"]
    print(
        f"| {n:,.0f} | {enc_s:.1f} ({r['encode_runs']}) | {n / enc_s:,.0f} | "
        f"{idx_s:.1f} ({r['index_runs']}) | "
        f"{n / idx_s:,.0f} | {100 * (idx_s / enc_s - 1):+.1f}% | "
        f"{100 * (r['index_cpu'] / r['encode_cpu'] - 1):+.1f}% | {imp_s:.2f} | "
        f"{n / (imp_s + idx_s):,.0f} | {100 * ((imp_s + idx_s) / enc_s - 1):+.1f}% | "
        f"{r['load']:.1f} |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
