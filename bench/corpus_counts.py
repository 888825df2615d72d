"""The collections list and the Corpus screen's counts at a million units: the counts each
document recorded at import against counting every segment (what they did before), same
run, same store.

The store is built with SQL (a real import of 1M units takes many minutes): one small real
import for the schema, then documents of 100k units (an en and a fr segment each) with
their counts recorded as ``import`` records them.

    .venv/bin/python bench/corpus_counts.py [--units 1000000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _data import machine  # noqa: E402

OLD_SEGMENTS = (
    "SELECT d.collection_id, s.lang, COUNT(*) FROM segments s "
    "JOIN documents d ON d.id = s.document_id GROUP BY d.collection_id, s.lang"
)
OLD_UNITS = (
    "SELECT d.collection_id, COUNT(DISTINCT s.tu_id) FROM segments s "
    "JOIN documents d ON d.id = s.document_id GROUP BY d.collection_id"
)


def build(units: int, per_doc: int = 100_000) -> None:
    from xlsearch.engine.store import Store

    seed = Path(tempfile.mkdtemp()) / "seed.tsv"
    seed.write_text("en\tfr\nOpen the file\tOuvrir le fichier\n", encoding="utf-8")
    with Store() as store:
        store.import_file(seed, "big")
        conn = store.conn
        cid = conn.execute("SELECT id FROM collections WHERE name='big'").fetchone()[0]
        conn.execute("DROP TRIGGER segments_ai")  # full-text rows are not what is measured
        for first in range(0, units, per_doc):
            n = min(per_doc, units - first)
            doc = conn.execute(
                "INSERT INTO documents (collection_id, path, format, sha256, imported_at, "
                "segment_count, languages, unit_count) VALUES (?, ?, 'tsv', '', 'now', ?, ?, ?)",
                (
                    cid,
                    f"/data/part{first // per_doc}.tsv",
                    2 * n,
                    json.dumps({"en": n, "fr": n}),
                    n,
                ),
            ).lastrowid
            rows = (
                (
                    doc,
                    2 * i + k,
                    lang,
                    f"{lang} text {first + i}",
                    f"h{lang}{first + i}",
                    f"{doc}:{i}",
                )
                for i in range(n)
                for k, lang in enumerate(("en", "fr"))
            )
            conn.executemany(
                "INSERT INTO segments (document_id, position, lang, text, text_hash, tu_id) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )
            conn.commit()


def timed(fn: object, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=1_000_000)
    args = parser.parse_args()
    os.environ["XLSEARCH_HOME"] = tempfile.mkdtemp(prefix="xl-counts-")
    from xlsearch.engine.store import Store
    from xlsearch.service.local import LocalEngine

    start = time.perf_counter()
    build(args.units)
    built = time.perf_counter() - start
    with Store() as store:
        old = timed(lambda: (store.conn.execute(OLD_SEGMENTS).fetchall(),
                             store.conn.execute(OLD_UNITS).fetchall()))  # fmt: skip
        new = timed(store.collections)
        listed = store.collections()
    engine = LocalEngine()
    screen = timed(engine.collections)
    big = next(c for c in listed if c["name"] == "big")
    result = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "units": args.units + 1,
        "segments": big["segments"],
        "units_listed": big["units"],
        "build_s": round(built, 1),
        "count_every_segment_s": round(old, 3),
        "recorded_counts_s": round(new, 4),
        "corpus_screen_s": round(screen, 4),
        "speedup": round(old / max(new, 1e-6)),
    }
    print(json.dumps(result, indent=1))
    out = HERE / "results" / f"corpus_counts-{dt.date.today()}.json"
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
