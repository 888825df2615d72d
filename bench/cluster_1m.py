"""1M sentences indexed in one process vs on a local Ray cluster, repeated and interleaved,
with the SQLite stores' figures at that size.

The sentences: both sides of every pair in ``train/`` and ``train-extra/`` in file order,
repeated from the start until ``--sentences`` segments (a real corpus repeats sentences too:
each distinct text is encoded once, every segment gets its own vector in the index).
Each build starts with no vector (empty cache, no part stores) and builds the ``auto`` kind
(IVF at 1M), in ``--order``: ``single`` is one process; ``cluster`` is ``cluster="local"``,
the index built where the data is (workers read their parts of the store, write part
stores, fill index shards; merged into one on-disk ``.ivfdata`` file). The local Ray
cluster is started once, before the first build (its start-up is reported apart), so every
build runs next to the same idle Ray processes. With each build: wall time, the CPU seconds
of this process and of all its descendants (the Ray workers: sampled every half second),
the whole machine's busy share (``/proc/stat``), the load average every 5 s, and when each
step started and ended. On a machine shared with other work, compare neighbours: the
ratio of every neighbouring (single, cluster) pair is reported, not only the mean. After
the first cluster build: recall@10 of the merged on-disk index against exact search over
every vector, and the part stores' figures; at the end the head's store (size, lookups).

    nice -n 10 .venv/bin/python bench/cluster_1m.py [--sentences 1000000] \
        [--order single,cluster,single,cluster] [--json bench/results/….json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from _data import data_dir, machine  # noqa: E402


def read_sides(n: int) -> list[str]:
    """``n`` sentences: both sides of train/ and train-extra/ pairs, repeated to reach n."""
    files = sorted((data_dir() / "train").glob("*.tsv.gz"))
    files += sorted((data_dir() / "train-extra").glob("*.tsv.gz"))
    out: list[str] = []
    for f in files:
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            for line in fh:
                out.extend(c.strip() for c in line.rstrip("\n").split("\t")[:2] if c.strip())
    base = len(out)
    while len(out) < n:
        out.extend(out[: min(base, n - len(out))])
    return out[:n]


def fill(store: object, texts: list[str], chunk: int = 50_000) -> float:
    """One document holding ``texts`` as segments, in transactions of ``chunk`` rows;
    returns the insert rate (segments/s)."""
    conn = store.conn  # type: ignore[attr-defined]
    t = time.perf_counter()
    with store.transaction():  # type: ignore[attr-defined]
        cid = store.ensure_collection("big")  # type: ignore[attr-defined]
        doc = conn.execute(
            "INSERT INTO documents (collection_id, path, format, sha256, imported_at, "
            "segment_count, languages) VALUES (?,?,?,?,?,?,?)",
            (cid, "big.txt", "test", "0" * 64, "2026-11-27T00:00:00", len(texts), "{}"),
        ).lastrowid
    for start in range(0, len(texts), chunk):
        with store.transaction():  # type: ignore[attr-defined]
            conn.executemany(
                "INSERT INTO segments (document_id, position, lang, text, text_hash, tu_id, "
                "meta) VALUES (?,?,?,?,?,?,?)",
                [
                    (doc, i, "xx", t, hashlib.sha256(t.encode()).hexdigest(), f"big#{i}", "{}")
                    for i, t in enumerate(texts[start : start + chunk], start)
                ],
            )
    with store.transaction():  # type: ignore[attr-defined]
        conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")
    return len(texts) / (time.perf_counter() - t)


def ivf_steps(dim: int = 384) -> dict[str, object]:
    """Per-CPU-second rates of the IVF steps a 1B-sentence build needs, on one thread:
    fill a shard (assign each vector to its list: cost grows with nlist; 31,623 lists is
    what ``auto`` picks at 1B) and merge shards on disk (the head node). Random unit
    vectors: these steps' cost does not depend on the values."""
    import faiss
    import numpy as np

    from xlsearch.engine.index.vectors import VectorIndex, merge_on_disk

    faiss.omp_set_num_threads(1)
    rng = np.random.default_rng(0)

    def unit(n: int) -> np.ndarray:
        x = rng.standard_normal((n, dim), dtype=np.float32)
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    out: dict[str, object] = {}
    for nlist, n in ((1000, 50_000), (31_623, 5_000)):
        vi = VectorIndex.create("ivf", dim, n, {"nlist": nlist})
        vi.index.quantizer.add(unit(nlist))  # centroids given, not trained: same add cost
        vi.index.is_trained = True
        x = unit(n)
        c = time.process_time()
        vi.add(np.arange(n, dtype=np.int64), x)
        out[f"fill_nlist{nlist}_per_cpu_s"] = round(n / (time.process_time() - c))
    tmp = Path(tempfile.mkdtemp(prefix="xlsearch-merge-"))
    trained = VectorIndex.create("ivf", dim, 1000, {"nlist": 1000})
    trained.index.quantizer.add(unit(1000))
    trained.index.is_trained = True
    files = []
    shard = 50_000
    for s in range(8):
        part = faiss.deserialize_index(faiss.serialize_index(trained.index))
        part.add_with_ids(unit(shard), np.arange(s * shard, (s + 1) * shard, dtype=np.int64))
        files.append(tmp / f"shard-{s}.faiss")
        faiss.write_index(part, str(files[-1]))
    c, t = time.process_time(), time.perf_counter()
    merge_on_disk(trained, files, tmp / "merged.ivfdata")
    out["merge_per_cpu_s"] = round(8 * shard / (time.process_time() - c))
    out["merge_per_wall_s"] = round(8 * shard / (time.perf_counter() - t))
    return out


def sqlite_figures(texts: list[str], dim: int = 384) -> dict[str, object]:
    """The SQLite store at this size without encoding (random vectors in the cache): insert
    rates, file size, lookups by id. A fresh store under ``XLSEARCH_HOME``."""
    import numpy as np

    from xlsearch.engine.index.cluster import _commit
    from xlsearch.engine.store import Store

    out: dict[str, object] = {}
    with Store() as store:
        db = store.db
        out["insert_segments_per_s"] = round(fill(store, texts))
        key = "bench#sqlite"
        hashes = [r[0] for r in db.execute("SELECT DISTINCT text_hash FROM segments")]
        rng = np.random.default_rng(0)
        t = time.perf_counter()
        for i in range(0, len(hashes), 20_000):
            part = hashes[i : i + 20_000]
            _commit(db, key, part, rng.standard_normal((len(part), dim), dtype=np.float32))
        out["insert_vectors_per_s"] = round(len(hashes) / (time.perf_counter() - t))
        out["vectors"] = len(hashes)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        page = db.execute("PRAGMA page_size").fetchone()[0]
        out["page_size"] = page
        out["store_bytes"] = pages * page
        out["store_bytes_per_segment"] = round(pages * page / len(texts))
        ids = [r[0] for r in db.execute("SELECT id FROM segments")]
        pick = [int(i) for i in rng.choice(ids, size=20_000, replace=False)]
        t = time.perf_counter()
        for i in pick:
            db.execute("SELECT text, text_hash FROM segments WHERE id = ?", [i]).fetchone()
        out["segment_by_id_us"] = round((time.perf_counter() - t) / len(pick) * 1e6, 1)
        t = time.perf_counter()
        for i in pick[:5000]:
            db.execute(
                "SELECT e.vector FROM segments s JOIN embeddings e ON e.model_id = ? AND "
                "e.text_hash = s.text_hash WHERE s.id = ?", [key, i],
            ).fetchone()  # fmt: skip
        out["vector_by_id_us"] = round((time.perf_counter() - t) / 5000 * 1e6, 1)
        t = time.perf_counter()
        db.execute("SELECT count(*) FROM segments").fetchone()
        out["count_segments_s"] = round(time.perf_counter() - t, 3)
        # the head node's plan of a build: every segment's id and text hash
        import tracemalloc

        from xlsearch.engine.index.cache import segment_rows

        t = time.perf_counter()
        rows = segment_rows(db, collection="big")
        out["plan_rows_s"] = round(time.perf_counter() - t, 2)
        del rows
        tracemalloc.start()
        rows = segment_rows(db, collection="big")
        out["plan_bytes_per_segment"] = round(tracemalloc.get_traced_memory()[1] / len(texts))
        tracemalloc.stop()
        del rows
    out.update(part_store_figures(len(texts), dim))
    return out


def part_store_figures(n: int, dim: int, shard: int = 20_000) -> dict[str, object]:
    """Part stores as the workers write them (the engine's schema; random vectors, each
    segment its own text): write rate on one core, bytes, a vector by segment id."""
    import sqlite3

    import numpy as np

    from xlsearch.engine.index.cluster import PARTS_SCHEMA

    folder = Path(tempfile.mkdtemp(prefix="xlsearch-parts-"))
    rng = np.random.default_rng(0)
    files = []
    spent = 0.0
    for p, lo in enumerate(range(0, n, shard)):
        ids = range(lo, min(n, lo + shard))
        vecs = rng.standard_normal((len(ids), dim), dtype=np.float32)
        t = time.perf_counter()
        db = sqlite3.connect(folder / f"part-{p:06d}.sqlite", isolation_level=None)
        db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + PARTS_SCHEMA)
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO segments VALUES (?, ?, ?, ?)", [(i, f"{i:064x}", i, p) for i in ids]
        )
        db.executemany(
            "INSERT INTO vectors VALUES (?, ?)",
            [(i, v.tobytes()) for i, v in zip(ids, vecs, strict=True)],
        )
        db.execute("COMMIT")
        db.close()
        spent += time.perf_counter() - t
        files.append(folder / f"part-{p:06d}.sqlite")
    out: dict[str, object] = {"part_write_per_s": round(n / spent)}
    out["parts_bytes_per_segment"] = round(sum(f.stat().st_size for f in files) / n)
    conns = [sqlite3.connect(f) for f in files]
    pick = rng.choice(n, size=20_000, replace=False)
    t = time.perf_counter()
    for i in pick:
        c = conns[int(i) // shard]
        v, part = c.execute(
            "SELECT vector_id, part FROM segments WHERE id = ?", [int(i)]
        ).fetchone()
        conns[part].execute("SELECT vector FROM vectors WHERE id = ?", [v]).fetchone()
    out["part_vector_by_id_us"] = round((time.perf_counter() - t) / len(pick) * 1e6, 1)
    for c in conns:
        c.close()
    import shutil

    shutil.rmtree(folder)
    return out


def part_vectors(folder: Path, ids: object) -> object:
    """Every vector of a cluster build, in ``ids`` order, read from its part stores."""
    import sqlite3

    import numpy as np

    (parts,) = folder.glob("parts-*")
    vec: dict[int, bytes] = {}
    vid: dict[int, int] = {}
    for f in sorted(parts.glob("part-*.sqlite")):
        with sqlite3.connect(f) as db:
            vec.update(db.execute("SELECT id, vector FROM vectors"))
            vid.update(db.execute("SELECT id, vector_id FROM segments"))
    return np.stack([np.frombuffer(vec[vid[int(i)]], np.float32) for i in ids])  # type: ignore[attr-defined]


def part_figures(folder: Path, ids: object, rng: object, n: int = 5000) -> dict[str, object]:
    """The part stores of a cluster build: count, bytes, a vector by segment id."""
    import sqlite3

    import numpy as np

    (parts,) = folder.glob("parts-*")
    files = sorted(parts.glob("part-*.sqlite"))
    out: dict[str, object] = {"parts": len(files)}
    out["parts_bytes"] = sum(f.stat().st_size for f in files)
    out["parts_bytes_per_segment"] = round(out["parts_bytes"] / len(ids))  # type: ignore[arg-type, operator]
    conns = [sqlite3.connect(f) for f in files]
    lo = np.array([c.execute("SELECT min(id) FROM segments").fetchone()[0] for c in conns])
    pick = rng.choice(ids, size=n, replace=False)  # type: ignore[attr-defined]
    t = time.perf_counter()
    for i in pick:
        c = conns[int(np.searchsorted(lo, i, side="right")) - 1]
        v, part = c.execute(
            "SELECT vector_id, part FROM segments WHERE id = ?", [int(i)]
        ).fetchone()
        conns[part].execute("SELECT vector FROM vectors WHERE id = ?", [v]).fetchone()
    out["part_vector_by_id_us"] = round((time.perf_counter() - t) / n * 1e6, 1)
    for c in conns:
        c.close()
    return out


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot (``/proc/stat``)."""
    fields = [float(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
    return (sum(fields[:8]) - idle) / hz, sum(fields[:8]) / hz


class Meter:
    """CPU seconds of this process and its descendants (Ray's workers), sampled every
    ``every`` seconds (a process that ends between two samples loses at most that much),
    and the 1-minute load average every 5 s, between ``start()`` and ``stop()``."""

    def __init__(self, every: float = 0.5) -> None:
        import threading

        import psutil

        self.psutil, self.every = psutil, every
        self.me = psutil.Process()
        self.seen: dict[tuple[int, float], float] = {}
        self.loads: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        procs = [self.me]
        try:
            procs += self.me.children(recursive=True)
        except self.psutil.Error:
            pass
        for p in procs:
            try:
                t = p.cpu_times()
                self.seen[(p.pid, p.create_time())] = t.user + t.system
            except self.psutil.Error:
                pass

    def _run(self) -> None:
        n = 0
        while not self._stop.wait(self.every):
            self._sample()
            n += 1
            if n % max(1, round(5 / self.every)) == 0:
                self.loads.append(os.getloadavg()[0])

    def start(self) -> None:
        self._sample()
        self.base = dict(self.seen)
        self.own0 = time.process_time()
        self.machine0 = machine_busy()
        self.loads = [os.getloadavg()[0]]
        self._thread.start()

    def stop(self) -> dict[str, object]:
        self._stop.set()
        self._thread.join()
        self._sample()
        busy, total = (b - a for a, b in zip(self.machine0, machine_busy(), strict=True))
        tree = sum(v - self.base.get(k, 0.0) for k, v in self.seen.items())
        self.loads.append(os.getloadavg()[0])
        return {
            "cpu_s_head": round(time.process_time() - self.own0, 1),
            "cpu_s_all": round(tree, 1),
            "machine_busy_share": round(busy / total, 3) if total else None,
            "our_share_of_busy": round(tree / busy, 3) if busy else None,
            "load_1min": {
                "min": round(min(self.loads), 2),
                "mean": round(sum(self.loads) / len(self.loads), 2),
                "max": round(max(self.loads), 2),
            },
        }


def pair_ratios(runs: list[tuple[str, dict]]) -> list[dict[str, object]]:
    """Every neighbouring (single, cluster) pair in run order: cluster / single for wall
    time and for CPU seconds."""
    out = []
    for (a, ra), (b, rb) in zip(runs, runs[1:], strict=False):
        if {a.split("-")[0], b.split("-")[0]} != {"single", "cluster"}:
            continue
        one, clu = (ra, rb) if a.startswith("single") else (rb, ra)
        out.append({
            "pair": f"{a} / {b}",
            "wall_ratio": round(float(clu["s"]) / float(one["s"]), 3),
            "cpu_ratio": round(float(clu["cpu_s_all"]) / float(one["cpu_s_all"]), 3),
        })  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--shard", type=int, default=20_000)
    ap.add_argument("--order", default="single,cluster,single,cluster")
    ap.add_argument("--model", default=str(HERE.parent / "assets/models/multilingual"))
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--ivf-steps", action="store_true", help="IVF fill and merge rates only")
    ap.add_argument("--sqlite", action="store_true", help="the SQLite store's figures only")
    args = ap.parse_args()
    if args.ivf_steps:
        print(json.dumps(ivf_steps(), indent=1))
        return
    if args.sqlite:
        os.environ["XLSEARCH_HOME"] = tempfile.mkdtemp(prefix="xlsearch-bench-sqlite-")
        out = {"sentences": args.sentences, "load_before": load()}
        out.update(sqlite_figures(read_sides(args.sentences)))
        out["load_after"] = load()
        print(json.dumps(out, indent=1))
        return
    os.environ["XLSEARCH_HOME"] = tempfile.mkdtemp(prefix="xlsearch-bench-1m-")
    import numpy as np
    import ray

    from xlsearch.engine.index.cache import model_key
    from xlsearch.engine.index.files import index_folder
    from xlsearch.engine.index.manager import build_index, open_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.progress import Progress
    from xlsearch.engine.store import Store

    texts = read_sides(args.sentences)
    enc = load_encoder(args.model)
    out: dict[str, object] = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine() + " (busy machine, shared with other agents)",
        "model": Path(args.model).name,
        "dim": int(enc.dim),
        "sentences": len(texts),
        "distinct": len(set(texts)),
        "workers": args.workers,
        "shard": args.shard,
        "command": "bench/cluster_1m.py " + " ".join(sys.argv[1:]),
    }
    print(json.dumps(out), flush=True)
    with Store() as store:
        out["sqlite_insert_per_s"] = round(fill(store, texts))
        db = store.db

        def empty_cache() -> None:
            with store.transaction() as conn:
                conn.execute("DELETE FROM embeddings")
            for old in index_folder("big", key).glob("parts-*"):
                shutil.rmtree(old)  # the cluster's part stores: its vectors

        key = model_key(enc)
        rng = np.random.default_rng(7)
        qtexts = [texts[i] for i in rng.choice(len(texts), size=200, replace=False)]
        q = np.asarray(enc.encode(qtexts), np.float32)
        runs: dict[str, object] = {}
        order = args.order.split(",")
        if "cluster" in order:  # once, up front: every build runs next to the same Ray
            t = time.perf_counter()
            ray.init(
                address="local", num_cpus=args.workers, include_dashboard=False,
                log_to_driver=False, _node_ip_address="127.0.0.1",
            )  # fmt: skip
            out["ray_start_s"] = round(time.perf_counter() - t, 2)
        recall_done = False
        for what in order:
            empty_cache()
            run: dict[str, object] = {"load_before": load()}
            stages: dict[str, list[float]] = {}
            meter = Meter()
            meter.start()
            t = time.perf_counter()

            def seen(p: Progress, t: float = t, stages: dict[str, list[float]] = stages) -> None:
                now = round(time.perf_counter() - t, 1)
                stages.setdefault(p.stage, [now, now])[1] = now

            oi = build_index(
                store, enc, "big", rebuild=True, shard=args.shard, on_progress=seen,
                cluster="local" if what == "cluster" else None,
            )  # fmt: skip
            run["s"] = round(time.perf_counter() - t, 2)
            run.update(meter.stop())
            run["load_after"] = load()
            run["stages_s"] = stages  # first and last progress event of each step
            run["kind"] = oi.vi.kind
            run["params"] = {k: oi.vi.params.get(k) for k in ("nlist", "nprobe")}
            run["ondisk"] = oi.meta.get("ivfdata") is not None
            files = [f for f in oi.folder.iterdir() if f.is_file()]
            run["index_bytes"] = sum(f.stat().st_size for f in files)
            if what == "cluster":
                run["cluster"] = {
                    k: v for k, v in oi.stats["cluster"].items() if isinstance(v, int | float)
                }
                run.update(part_figures(oi.folder, oi.keys["id"], rng))
            if what == "cluster" and not recall_done:
                recall_done = True
                # recall@10 of the merged on-disk index against exact search over every vector
                t = time.perf_counter()
                allv = part_vectors(oi.folder, oi.keys["id"])
                run["read_all_vectors_s"] = round(time.perf_counter() - t, 2)
                exact = np.sort(q @ allv.T, axis=1)[:, -10:]  # the 10 best scores per query
                del allv
                opened = open_index(store, enc, "big")
                got, _ = opened.vi.search(q, 10)
                # IVF-Flat scores are exact inner products: a hit is a true top-10 (ties count)
                hits = (got >= exact[:, :1] - 1e-5).sum(axis=1)
                run["recall_at_10"] = round(float(np.mean(np.minimum(hits, 10) / 10)), 4)
                run["recall_index"] = {"ondisk": opened.vi.ondisk is not None, **opened.vi.params}
            runs[f"{what}-{len(runs)}"] = run
            print(what, json.dumps(run), flush=True)
        out["runs"] = runs
        out["pairs"] = pair_ratios(list(runs.items()))  # type: ignore[arg-type]
        for p in out["pairs"]:  # type: ignore[attr-defined]
            print("pair", json.dumps(p), flush=True)
        if ray.is_initialized():
            ray.shutdown()
        ids = oi.keys["id"]
        # the head's store at this size (the sentences; the vector cache of the last build)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        out["store_bytes"] = pages * db.execute("PRAGMA page_size").fetchone()[0]
        out["store_bytes_per_segment"] = round(out["store_bytes"] / len(texts))  # type: ignore[operator]
        pick = [int(i) for i in rng.choice(ids, size=20_000, replace=False)]
        t = time.perf_counter()
        for i in pick:
            db.execute("SELECT text, text_hash FROM segments WHERE id = ?", [i]).fetchone()
        out["lookup_by_id_us"] = round((time.perf_counter() - t) / len(pick) * 1e6, 1)
    out["load_end"] = load()
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
