"""Query latency (p50/p95, encoding excluded) and recall@10 of the ANN index vs exact search.

Synthetic, clustered, L2-normalised vectors (see ``Corpus``: hierarchical topics in a
low-rank latent space plus isotropic noise, so nearest-neighbour cosines look like sentence
embeddings: ~0.6–0.8 for neighbours, ~0 for random pairs). The index is built exactly as
``xlsearch index`` builds it (``VectorIndex``, auto kind and parameters, nprobe tuned at
build time); queries are
held-out points, one at a time, as in interactive search. The baseline is exact flat search
over the same vectors in the same run.

    .venv/bin/python bench/query.py [--sizes 100000 1000000] [--queries 500] [--threads 2]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _data import machine  # noqa: E402


class Corpus:
    """Synthetic sentence-embedding-like vectors: hierarchical topics in a low-rank latent
    space (sentence embeddings have a low intrinsic dimension), projected to ``dim`` and
    blurred with isotropic noise. Neighbour cosines ≈ 0.6–0.8, random pairs ≈ 0."""

    def __init__(self, dim: int, rng: np.random.Generator, latent: int = 48) -> None:
        self.rng = rng
        self.proj = np.linalg.qr(rng.standard_normal((dim, latent)))[0].T.astype(np.float32)
        self.topics = rng.standard_normal((200, latent)).astype(np.float32)
        self.subs = self.topics[rng.integers(0, 200, 20_000)] + 0.7 * rng.standard_normal(
            (20_000, latent)
        ).astype(np.float32)
        self.dim, self.latent = dim, latent

    def sample(self, n: int) -> np.ndarray:
        rng = self.rng
        pop = 1.0 / np.arange(1, len(self.subs) + 1) ** 0.7  # Zipf-like topic popularity
        pick = rng.choice(len(self.subs), size=n, p=pop / pop.sum())
        out = np.empty((n, self.dim), np.float32)
        for s in range(0, n, 100_000):
            e = min(n, s + 100_000)
            z = self.subs[pick[s:e]] + 0.6 * rng.standard_normal((e - s, self.latent)).astype(
                np.float32
            )
            z /= np.linalg.norm(z, axis=1, keepdims=True)
            block = z @ self.proj
            block += rng.standard_normal(block.shape, dtype=np.float32) * (0.35 / np.sqrt(self.dim))
            out[s:e] = block / np.linalg.norm(block, axis=1, keepdims=True)
        return out


def percentile_ms(times: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(times) * 1000, q))


def run(n: int, dim: int, nq: int, kind: str, seed: int = 0) -> dict:
    import faiss

    from xlsearch.engine.index.vectors import VectorIndex, choose_kind, tune_nprobe

    rng = np.random.default_rng(seed)
    corpus = Corpus(dim, rng)
    x = corpus.sample(n)
    q = corpus.sample(nq)
    ids = np.arange(n, dtype=np.int64) + 1
    kind = choose_kind(n, dim) if kind == "auto" else kind
    t0 = time.perf_counter()
    vi = VectorIndex.create(kind, dim, n)
    if not vi.is_trained:
        nlist = int(vi.params["nlist"])
        sample = x[rng.choice(n, size=min(n, 50 * nlist), replace=False)]
        vi.train(sample)
    for s in range(0, n, 200_000):
        vi.add(ids[s : s + 200_000], x[s : s + 200_000])
    if vi.ivf is not None:
        pick = rng.choice(n, size=200, replace=False)
        tune_nprobe(vi, x[pick], ids[pick])
    build_s = time.perf_counter() - t0

    flat = faiss.IndexFlatIP(dim)
    flat.add(x)
    _, truth = flat.search(q, 10)  # exact reference (row numbers; ids = rows + 1)
    truth = truth + 1

    cpu: dict[str, list[float]] = {}

    def timed(fn, name: str = "") -> list[float]:  # noqa: ANN001
        out, used = [], []
        for i in range(nq):
            t, c = time.perf_counter(), time.process_time()
            fn(q[i : i + 1])
            out.append(time.perf_counter() - t)
            used.append(time.process_time() - c)
        cpu[name] = used
        return out

    got = np.vstack([vi.search(q[i : i + 1], 10)[1] for i in range(nq)])
    recall = float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(truth, got, strict=True)]))
    ann_t = timed(lambda v: vi.search(v, 10), "ann")
    exact_t = timed(lambda v: flat.search(v, 10))
    # a 10% language filter applied before ranking (IDSelector)
    allowed = np.sort(rng.choice(ids, size=n // 10, replace=False))
    filt_t = timed(lambda v: vi.search(v, 10, allowed=allowed))
    rows = np.ascontiguousarray(allowed - 1)  # flat index: row = id - 1; must outlive `sel`
    sel = faiss.IDSelectorBatch(len(rows), faiss.swig_ptr(rows))
    _, ftruth = flat.search(q, 10, params=faiss.SearchParameters(sel=sel))
    fgot = np.vstack([vi.search(q[i : i + 1], 10, allowed=allowed)[1] for i in range(nq)])
    frecall = float(
        np.mean([len(set(a + 1) & set(b)) / 10 for a, b in zip(ftruth, fgot, strict=True)])
    )
    return {
        "n": n,
        "kind": vi.kind,
        "params": {k: v for k, v in vi.params.items() if k in ("nlist", "nprobe", "M", "m")},
        "build_s": build_s,
        "recall": recall,
        "p50": percentile_ms(ann_t, 50),
        "p95": percentile_ms(ann_t, 95),
        "filt_p50": percentile_ms(filt_t, 50),
        "filt_recall": frecall,
        "filt_p95": percentile_ms(filt_t, 95),
        "cpu_p50": percentile_ms(cpu["ann"], 50),
        "cpu_p95": percentile_ms(cpu["ann"], 95),
        "load": os.getloadavg()[0],
        "exact_p50": percentile_ms(exact_t, 50),
        "exact_p95": percentile_ms(exact_t, 95),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--kind", default="auto", help="auto, ivf, hnsw, sq8, ivfpq, flat")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    import faiss

    faiss.omp_set_num_threads(args.threads)
    print(f"# bench/query.py — {dt.date.today()} — {machine()} — {args.threads} FAISS threads")
    print(f"# {args.dim}-d clustered synthetic vectors, {args.queries} held-out queries, k=10")
    head = (
        "| segments | index | params | build s | recall@10 | p50 ms | p95 ms "
        "| CPU p50/p95 ms | 10% filter: p95 ms, recall | exact p50 ms | exact p95 ms "
        "| speed-up p95 | load avg |"
    )
    print(head)
    print("|---" * 13 + "|")
    for n in args.sizes:
        r = run(n, args.dim, args.queries, args.kind)
        print(
            f"| {r['n']:,} | {r['kind']} | {r['params']} | {r['build_s']:.1f} | "
            f"{r['recall']:.3f} | {r['p50']:.2f} | {r['p95']:.2f} | "
            f"{r['cpu_p50']:.2f}/{r['cpu_p95']:.2f} | "
            f"{r['filt_p95']:.2f}, {r['filt_recall']:.3f} | "
            f"{r['exact_p50']:.2f} | {r['exact_p95']:.2f} | {r['exact_p95'] / r['p95']:.1f}× | "
            f"{r['load']:.1f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
