"""Index throughput on one process vs on a local Ray cluster (``xlsearch index --cluster``).

Real sentences (en and de sides of ``train/en-de.tsv.gz``) go into a fresh store; the index
is built from scratch (vector cache emptied first) (a) in one process and (b) with
``cluster="local"`` on a Ray cluster of ``--workers`` CPUs started here. Reported: wall time
and texts/s of each, Ray start-up, the per-worker encode rate, the IVF add rate and the
IVF index's recall@10 against exact (flat) search on held-in queries.

    .venv/bin/python bench/cluster.py [--sentences 200000] [--workers 2] [--shard 20000]
    .venv/bin/python bench/cluster.py --steps   # per-step rates: encode, commit, build
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from _data import data_dir, machine  # noqa: E402


def read_sentences(n: int) -> list[str]:
    """``n`` distinct sentences: both sides of the en–de training pairs."""
    out: dict[str, None] = {}
    with gzip.open(data_dir() / "train" / "en-de.tsv.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            for col in line.rstrip("\n").split("\t")[:2]:
                if col.strip():
                    out[col.strip()] = None
            if len(out) >= n:
                break
    return list(out)[:n]


def fill(store: object, texts: list[str]) -> None:
    """One document holding ``texts`` as segments (plain SQL: the importers are not timed)."""
    conn = store.conn  # type: ignore[attr-defined]
    with store.transaction():  # type: ignore[attr-defined]
        cid = store.ensure_collection("big")  # type: ignore[attr-defined]
        doc = conn.execute(
            "INSERT INTO documents (collection_id, path, format, sha256, imported_at, "
            "segment_count, languages) VALUES (?,?,?,?,?,?,?)",
            (cid, "big.txt", "test", "0" * 64, "2026-11-27T00:00:00", len(texts), "{}"),
        ).lastrowid
        conn.executemany(
            "INSERT INTO segments (document_id, position, lang, text, text_hash, tu_id, meta) "
            "VALUES (?,?,?,?,?,?,?)",
            [
                (doc, i, "en", t, hashlib.sha256(t.encode()).hexdigest(), f"big#{i}", "{}")
                for i, t in enumerate(texts)
            ],
        )
        conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")


def steps(model: str, n: int) -> dict[str, object]:
    """Rates of each step alone, in sentences per CPU-second: encode on one thread (a
    worker), commit shards of 10,000 vectors to the cache and build the index from a full
    cache (the head node)."""
    import numpy as np

    from xlsearch.engine.index.cache import model_key, register_model
    from xlsearch.engine.index.cluster import _commit
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    texts = read_sentences(n)
    enc = load_encoder(model, threads=1)
    out: dict[str, object] = {}
    sub = texts[:20000]
    c = time.process_time()
    enc.encode(sub)
    out["encode_1thread_per_cpu_s"] = round(len(sub) / (time.process_time() - c))
    with Store() as store:
        fill(store, texts)
        key = model_key(enc)
        register_model(store.db, key, enc)
        hashes = [r[0] for r in store.db.execute("SELECT text_hash FROM segments ORDER BY id")]
        vecs = np.random.default_rng(0).standard_normal((len(hashes), enc.dim), np.float32)
        c = time.process_time()
        for i in range(0, len(hashes), 10000):
            _commit(store.db, key, hashes[i : i + 10000], vecs[i : i + 10000])
        out["head_commit_per_cpu_s"] = round(len(hashes) / (time.process_time() - c))
        for kind in ("flat", "ivf"):
            c = time.process_time()
            build_index(store, enc, "big", kind=kind, rebuild=True)
            out[f"head_{kind}_build_per_cpu_s"] = round(len(hashes) / (time.process_time() - c))
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        size = pages * store.db.execute("PRAGMA page_size").fetchone()[0]
        out["store_bytes_per_sentence"] = round(size / len(hashes))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=200_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--shard", type=int, default=20_000)
    ap.add_argument("--model", default=str(HERE.parent / "assets/models/multilingual"))
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--steps", action="store_true", help="per-step rates instead")
    args = ap.parse_args()
    os.environ["XLSEARCH_HOME"] = tempfile.mkdtemp(prefix="xlsearch-bench-cluster-")
    if args.steps:
        print(json.dumps(steps(args.model, args.sentences), indent=1))
        return
    import numpy as np
    import ray

    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    texts = read_sentences(args.sentences)
    enc = load_encoder(args.model)
    out: dict[str, object] = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine() + " (busy machine, shared with other agents)",
        "model": Path(args.model).name,
        "dim": int(enc.dim),
        "sentences": len(texts),
        "workers": args.workers,
        "shard": args.shard,
        "command": "bench/cluster.py " + " ".join(sys.argv[1:]),
    }
    with Store() as store:
        fill(store, texts)

        def empty_cache() -> None:
            with store.transaction() as conn:
                conn.execute("DELETE FROM embeddings")

        empty_cache()
        t = time.perf_counter()
        flat = build_index(store, enc, "big", kind="flat", rebuild=True)
        out["single_s"] = round(time.perf_counter() - t, 2)
        t = time.perf_counter()
        ray.init(
            address="local",
            num_cpus=args.workers,
            include_dashboard=False,
            log_to_driver=False,
            _node_ip_address="127.0.0.1",
        )
        out["ray_start_s"] = round(time.perf_counter() - t, 2)
        empty_cache()
        t = time.perf_counter()
        dist = build_index(
            store, enc, "big", kind="flat", rebuild=True, cluster="local", shard=args.shard
        )
        out["cluster_s"] = round(time.perf_counter() - t, 2)
        ray.shutdown()
        out["cluster_over_single"] = round(out["cluster_s"] / out["single_s"], 3)  # type: ignore[operator]
        out["single_texts_per_s"] = round(len(texts) / out["single_s"])  # type: ignore[operator]
        out["cluster_texts_per_s"] = round(len(texts) / out["cluster_s"])  # type: ignore[operator]
        out["cluster_per_worker_texts_per_s"] = round(
            len(texts) / out["cluster_s"] / args.workers  # type: ignore[operator]
        )
        assert dist.vi.ntotal == flat.vi.ntotal == len(texts)
        # IVF from the (now full) cache: add rate and recall@10 against exact search
        t = time.perf_counter()
        ivf = build_index(store, enc, "big", kind="ivf", rebuild=True)
        out["ivf_build_s"] = round(time.perf_counter() - t, 2)
        out["ivf_params"] = {k: ivf.vi.params[k] for k in ("nlist", "nprobe") if k in ivf.vi.params}
        rng = np.random.default_rng(7)
        qtexts = [texts[i] for i in rng.choice(len(texts), size=200, replace=False)]
        q = enc.encode(qtexts)
        _, truth = flat.vi.search(q, 10)
        _, got = ivf.vi.search(q, 10)
        out["ivf_recall_at_10"] = round(
            float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(truth, got, strict=True)])), 4
        )
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
