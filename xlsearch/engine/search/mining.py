"""Bitext mining with margin scoring, as LASER's ``mine_bitexts.py`` (Artetxe & Schwenk 2019).

For source rows ``x`` and target rows ``y`` (L2-normalised): k nearest neighbours both ways
(FAISS, batched, so memory stays bounded), then margin scores and retrieval (``fwd``,
``bwd``, ``intersect``, ``max``) from ``engine/search/margin.py`` — the same code the evaluation
suite's BUCC-style task and Tatoeba margin retrieval use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import ConfigError
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress
from xlsearch.engine.search import DEFAULT_THRESHOLD
from xlsearch.engine.search import margin as margins
from xlsearch.engine.search.pairs import MinedPair

ANN_MIN = 50_000
"""With ``exact=False``, sides larger than this are searched with an IVF index."""


@dataclass(frozen=True)
class MarginPair:
    """Two rows, of the source and the target arrays, paired by margin score."""

    score: float
    src: int
    tgt: int
    cosine: float = 0.0


def knn(
    queries: np.ndarray,
    base: np.ndarray,
    k: int,
    *,
    batch: int = 8192,
    exact: bool = True,
    stage: str = "knn",
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Inner-product k-NN of every query row in ``base`` (FAISS, in query batches).

    ``exact``: flat index (LASER's choice); otherwise, for bases over ``ANN_MIN`` rows, an
    IVF index with nprobe tuned to recall@10 ≥ 0.97 (similarities of the neighbours found
    are still exact). Memory: the base (+ IVF lists) plus ``batch × k`` results.
    """
    import faiss

    on_progress = on_progress or no_progress
    k = min(k, len(base))
    base = np.ascontiguousarray(base, dtype=np.float32)
    if exact or len(base) <= ANN_MIN:
        index = faiss.IndexFlatIP(base.shape[1])
        index.add(base)
    else:
        from xlsearch.engine.index.vectors import VectorIndex, tune_nprobe

        vi = VectorIndex.create("ivf", base.shape[1], len(base))
        rng = np.random.default_rng(0)
        vi.train(base[rng.choice(len(base), min(len(base), 50 * vi.params["nlist"]), False)])
        ids = np.arange(len(base), dtype=np.int64)
        vi.add(ids, base)
        pick = rng.choice(len(base), 200, replace=False)
        tune_nprobe(vi, base[pick], ids[pick])
        index = vi.index
    n = len(queries)
    sims = np.zeros((n, k), dtype=np.float32)
    inds = np.zeros((n, k), dtype=np.int64)
    for start in range(0, n, batch):
        if cancel is not None:
            cancel.raise_if_cancelled()
        q = np.ascontiguousarray(queries[start : start + batch], dtype=np.float32)
        sims[start : start + len(q)], inds[start : start + len(q)] = index.search(q, k)
        on_progress(Progress(stage, min(start + batch, n), n))
    return sims, inds


def mine_vectors(
    x: np.ndarray,
    y: np.ndarray,
    *,
    k: int = 4,
    margin: str = "ratio",
    retrieval: str = "max",
    threshold: float | None = None,
    batch: int = 8192,
    exact: bool = True,
    cluster: str | None = None,
    shard: int | None = None,
    keep: Path | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[MarginPair]:
    """Mine pairs between rows of ``x`` and ``y``; best first; ``score >= threshold`` kept.

    ``cluster`` (a Ray address): both k-NN searches run as exact k-NN per shard pair
    (``shard`` rows a side) on the cluster, merged into global neighbour lists here, so
    the margins (hence the pairs) are those of one machine's exact search. With ``keep`` (a
    folder) finished shard pairs are kept there until both searches are done, so a stopped
    run resumes without computing them again."""
    margins.check(margin, retrieval)
    if len(x) == 0 or len(y) == 0:
        return []
    if cluster:
        import shutil

        from xlsearch.engine.index.cluster import MINE_SHARD, knn_on_cluster, pairs_folder

        rows = shard or MINE_SHARD
        fwd = pairs_folder(keep, x, y, k, rows) if keep is not None else None
        bwd = pairs_folder(keep, y, x, k, rows) if keep is not None else None
        x2y_sim, x2y_ind = knn_on_cluster(
            x, y, k, address=cluster, shard=rows, stage="mine fwd", keep=fwd,
            on_progress=on_progress, cancel=cancel,
        )  # fmt: skip
        y2x_sim, y2x_ind = knn_on_cluster(
            y, x, k, address=cluster, shard=rows, stage="mine bwd", keep=bwd,
            on_progress=on_progress, cancel=cancel,
        )  # fmt: skip
        for done in (fwd, bwd):
            if done is not None:
                shutil.rmtree(done, ignore_errors=True)
    else:
        x2y_sim, x2y_ind = knn(
            x, y, k, batch=batch, exact=exact, stage="mine fwd",
            on_progress=on_progress, cancel=cancel,
        )  # fmt: skip
        y2x_sim, y2x_ind = knn(
            y, x, k, batch=batch, exact=exact, stage="mine bwd",
            on_progress=on_progress, cancel=cancel,
        )  # fmt: skip
    # the k-NN similarity is exactly cos(x_i, y_j) for a flat index
    c = margins.select(x2y_sim, x2y_ind, y2x_sim, y2x_ind, margin=margin, retrieval=retrieval)
    above = np.ones(len(c.score), bool) if threshold is None else c.score >= threshold
    return [
        MarginPair(float(c.score[i]), int(c.src[i]), int(c.tgt[i]), float(c.cosine[i]))
        for i in np.flatnonzero(above)
    ]


@dataclass
class MinedBitext:
    """Mined pairs with their texts, ready to review or export."""

    src_lang: str
    tgt_lang: str
    pairs: list[MinedPair] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)


def mine_store(
    store: Any,
    encoder: Any,
    src_lang: str,
    tgt_lang: str,
    *,
    collection: str | None = None,
    tgt_collection: str | None = None,
    k: int = 4,
    margin: str = "ratio",
    retrieval: str = "max",
    threshold: float | None = DEFAULT_THRESHOLD,
    exact: bool = True,
    cluster: str | None = None,
    shard: int | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> MinedBitext:
    """Mine ``src_lang`` → ``tgt_lang`` segments of a collection (or two collections).

    Vectors come from the store's vector cache (embedding only texts not cached yet);
    identical texts are mined once. ``exact=False`` uses IVF k-NN for sides over 50k.
    ``cluster`` (``local``, ``auto`` or a Ray address): uncached texts of the collection(s)
    are first encoded on a Ray cluster (same vectors), then the k-NN of both sides runs
    per shard pair (``shard`` rows a side) on it with the global margin (the same pairs);
    finished shard pairs are kept in ``mining/`` beside the store until the run ends, so a
    stopped run resumes by shard pair.
    """
    from xlsearch.engine.index.cache import ensure_vectors, model_key, segment_rows

    on_progress = on_progress or no_progress
    key = model_key(encoder)
    tgt_coll = tgt_collection if tgt_collection is not None else collection
    if cluster:
        from xlsearch.engine.index.cluster import encode_on_cluster

        for coll in dict.fromkeys((collection, tgt_coll)):
            encode_on_cluster(
                store, encoder, key, coll, address=cluster, on_progress=on_progress, cancel=cancel
            )
    sides = []
    for side, lang, coll in (("source", src_lang, collection), ("target", tgt_lang, tgt_coll)):
        rows = segment_rows(store.db, collection=coll, langs=[lang])
        if not len(rows["id"]):  # a typo or the wrong collection, not "0 pairs from 0 × n"
            have = ", ".join(store.languages(coll)) or "nothing (import first)"
            where = f"collection {coll}" if coll else "the store"
            raise ConfigError(
                f"{where} has no segment in language {lang!r} (the {side} side)",
                hint=f"{where} has: {have}",
            )
        _, first = np.unique(rows["text_hash"], return_index=True)
        first.sort()
        ids = rows["id"][first]
        vecs = ensure_vectors(store.db, encoder, key, ids, on_progress=on_progress, cancel=cancel)
        sides.append((ids, vecs))
    (sids, x), (tids, y) = sides
    pairs = mine_vectors(
        x,
        y,
        k=k,
        margin=margin,
        retrieval=retrieval,
        threshold=threshold,
        exact=exact,
        cluster=cluster,
        shard=shard,
        keep=Path(store.path).parent / "mining" if cluster else None,
        on_progress=on_progress,
        cancel=cancel,
    )
    segs = {
        s["id"]: s
        for s in store.segments(
            [int(sids[p.src]) for p in pairs] + [int(tids[p.tgt]) for p in pairs]
        )
    }
    texts = {i: s["text"] for i, s in segs.items()}
    out = MinedBitext(src_lang, tgt_lang)
    for p in pairs:
        sid, tid = int(sids[p.src]), int(tids[p.tgt])
        out.pairs.append(
            MinedPair(
                sid,
                tid,
                texts.get(sid, ""),
                texts.get(tid, ""),
                # the segments' own tags (``src_lang`` en selects en-GB and en-US alike)
                segs[sid]["lang"] if sid in segs else src_lang,
                segs[tid]["lang"] if tid in segs else tgt_lang,
                p.score,
                p.cosine,
            )
        )
    out.stats = {
        "src": len(sids),
        "tgt": len(tids),
        "pairs": len(pairs),
        "k": k,
        "margin": margin,
        "retrieval": retrieval,
        "threshold": threshold,
    }
    on_progress(Progress("mine", len(pairs), len(pairs), f"{len(pairs)} pairs"))
    return out


def write_pairs(
    pairs: Sequence[tuple[str, str]] | Sequence[MinedPair],
    path: str | Path,
    src_lang: str,
    tgt_lang: str,
) -> Path:
    """Write pairs as TMX 1.4 (``.tmx``), XLIFF 1.2 (``.xlf``) or TSV ``src<TAB>tgt`` (valid
    distillation input).

    Pairs are ``(src, tgt)`` tuples or mined pairs (their score goes into TMX ``x-score``).
    """
    from xlsearch.engine.export import writer as export

    rows = [
        (p.src_text, p.tgt_text, p.score, p.src_lang, p.tgt_lang)
        if isinstance(p, MinedPair)
        else tuple(p)
        for p in pairs
    ]
    export.write_pairs(path, rows, src_lang, tgt_lang)
    return Path(path)
