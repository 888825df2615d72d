"""Bitext mining with margin scoring, as LASER's ``mine_bitexts.py`` (Artetxe & Schwenk 2019).

For source rows ``x`` and target rows ``y`` (L2-normalised): k nearest neighbours both ways
(FAISS, batched, so memory stays bounded), ``fwd_mean[i]`` / ``bwd_mean[j]`` = mean similarity
of the k neighbours, and for each candidate pair ``score = margin(cos(x_i, y_j),
(fwd_mean[i] + bwd_mean[j]) / 2)`` with ``ratio`` a/b, ``distance`` a−b or ``absolute`` a.
Retrieval: ``fwd`` (best target per source), ``bwd`` (best source per target), ``intersect``
(both agree) or ``max`` (union sorted by score, each sentence used at most once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import ConfigError
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress

MARGINS = ("ratio", "distance", "absolute")
ANN_MIN = 50_000
"""With ``exact=False``, sides larger than this are searched with an IVF index."""
RETRIEVALS = ("max", "fwd", "bwd", "intersect")


@dataclass(frozen=True)
class MinedPair:
    """One mined pair: margin score and row numbers into the source / target arrays."""

    score: float
    src: int
    tgt: int
    cosine: float = 0.0


def margin_fn(a: np.ndarray, b: np.ndarray, margin: str) -> np.ndarray:
    """``ratio``: a / b, ``distance``: a − b, ``absolute``: a."""
    if margin == "ratio":
        return a / np.maximum(b, 1e-9)
    if margin == "distance":
        return a - b
    if margin == "absolute":
        return a.copy()
    raise ConfigError(f"unknown margin {margin!r}; choose from {', '.join(MARGINS)}")


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
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[MinedPair]:
    """Mine pairs between rows of ``x`` and ``y``; best first; ``score >= threshold`` kept."""
    if retrieval not in RETRIEVALS:
        raise ConfigError(f"unknown retrieval {retrieval!r}; choose from {', '.join(RETRIEVALS)}")
    margin_fn(np.zeros(1), np.ones(1), margin)  # validates the name early
    if len(x) == 0 or len(y) == 0:
        return []
    kw = {"batch": batch, "exact": exact, "on_progress": on_progress, "cancel": cancel}
    x2y_sim, x2y_ind = knn(x, y, k, stage="mine fwd", **kw)
    y2x_sim, y2x_ind = knn(y, x, k, stage="mine bwd", **kw)
    # neighbours an approximate search could not fill (id -1) count as absent
    x2y_sim[x2y_ind < 0], y2x_sim[y2x_ind < 0] = -1.0, -1.0
    x2y_ind[x2y_ind < 0], y2x_ind[y2x_ind < 0] = 0, 0
    fwd_mean = x2y_sim.mean(axis=1)
    bwd_mean = y2x_sim.mean(axis=1)
    # candidate scores: the k-NN similarity is exactly cos(x_i, y_j) for a flat index
    fwd_scores = margin_fn(x2y_sim, (fwd_mean[:, None] + bwd_mean[x2y_ind]) / 2, margin)
    bwd_scores = margin_fn(y2x_sim, (bwd_mean[:, None] + fwd_mean[y2x_ind]) / 2, margin)
    fwd_arg = fwd_scores.argmax(axis=1)
    bwd_arg = bwd_scores.argmax(axis=1)
    rx, ry = np.arange(len(x)), np.arange(len(y))
    fwd_best, fwd_score, fwd_cos = (
        x2y_ind[rx, fwd_arg],
        fwd_scores[rx, fwd_arg],
        x2y_sim[rx, fwd_arg],
    )
    bwd_best, bwd_score, bwd_cos = (
        y2x_ind[ry, bwd_arg],
        bwd_scores[ry, bwd_arg],
        y2x_sim[ry, bwd_arg],
    )

    if retrieval == "fwd":
        src, tgt, score, cos = rx, fwd_best, fwd_score, fwd_cos
    elif retrieval == "bwd":
        src, tgt, score, cos = bwd_best, ry, bwd_score, bwd_cos
    elif retrieval == "intersect":
        keep = bwd_best[fwd_best] == rx
        src, tgt, score, cos = rx[keep], fwd_best[keep], fwd_score[keep], fwd_cos[keep]
    else:  # max: union of both directions, best first, each sentence used once
        src = np.concatenate([rx, bwd_best])
        tgt = np.concatenate([fwd_best, ry])
        score = np.concatenate([fwd_score, bwd_score])
        cos = np.concatenate([fwd_cos, bwd_cos])
        seen_src = np.zeros(len(x), bool)
        seen_tgt = np.zeros(len(y), bool)
        keep_idx = []
        for i in np.argsort(-score, kind="stable"):
            s, t = src[i], tgt[i]
            if not seen_src[s] and not seen_tgt[t]:
                seen_src[s] = seen_tgt[t] = True
                keep_idx.append(i)
        sel = np.asarray(keep_idx, dtype=np.int64)
        src, tgt, score, cos = src[sel], tgt[sel], score[sel], cos[sel]
    if threshold is not None:
        keep = score >= threshold
        src, tgt, score, cos = src[keep], tgt[keep], score[keep], cos[keep]
    order = np.argsort(-score, kind="stable")
    return [MinedPair(float(score[i]), int(src[i]), int(tgt[i]), float(cos[i])) for i in order]


@dataclass
class MinedBitext:
    """Mined pairs with their texts, ready to review or export."""

    src_lang: str
    tgt_lang: str
    pairs: list[dict[str, Any]] = field(default_factory=list)
    """Each: score, cosine, src_id, tgt_id, src_text, tgt_text."""
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
    threshold: float | None = 1.06,
    exact: bool = True,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> MinedBitext:
    """Mine ``src_lang`` → ``tgt_lang`` segments of a collection (or two collections).

    Vectors come from the store's vector cache (embedding only texts not cached yet);
    identical texts are mined once. ``exact=False`` uses IVF k-NN for sides over 50k.
    """
    from xlsearch.engine.index.cache import ensure_vectors, model_key, segment_rows

    on_progress = on_progress or no_progress
    key = model_key(encoder)
    tgt_coll = tgt_collection if tgt_collection is not None else collection
    sides = []
    for lang, coll in ((src_lang, collection), (tgt_lang, tgt_coll)):
        rows = segment_rows(store.db, collection=coll, langs=[lang])
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
            {
                "score": p.score,
                "cosine": p.cosine,
                "src_id": sid,
                "tgt_id": tid,
                "src_text": texts.get(sid, ""),
                "tgt_text": texts.get(tid, ""),
                # the segments' own tags (``src_lang`` en selects en-GB and en-US alike)
                "src_lang": segs[sid]["lang"] if sid in segs else src_lang,
                "tgt_lang": segs[tid]["lang"] if tid in segs else tgt_lang,
            }
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
    pairs: Sequence[tuple[str, str]] | Sequence[dict[str, Any]],
    path: str | Path,
    src_lang: str,
    tgt_lang: str,
) -> Path:
    """Write pairs as TMX 1.4 (``.tmx``), XLIFF 1.2 (``.xlf``) or TSV ``src<TAB>tgt`` (valid
    distillation input).

    Pairs are ``(src, tgt)`` tuples or mined-pair dicts (their score goes into TMX ``x-score``).
    """
    from xlsearch.engine import export

    rows = [
        (
            p["src_text"],
            p["tgt_text"],
            p["score"],
            p.get("src_lang", src_lang),
            p.get("tgt_lang", tgt_lang),
        )
        if isinstance(p, dict)
        else tuple(p)
        for p in pairs
    ]
    export.write_pairs(path, rows, src_lang, tgt_lang)
    return Path(path)


def write_hits(hits: Sequence[Any], path: str | Path, langs: Sequence[str] | None = None) -> Path:
    """Write search hits, each with its aligned translations, as TSV, TMX or XLIFF 1.2.

    TSV (every hit): a header ``rank, score, <languages>, collection, document``, one row per
    hit; the language columns are ``langs`` (the languages searched), else every language of
    the hits (most frequent first); a cell is empty where the hit's unit lacks that language.
    TMX: one unit per hit with all its segments and its score (``x-score``). XLIFF: the first
    two of those languages are source and target (hits lacking either are left out).
    """
    from collections import Counter

    from xlsearch.engine import export
    from xlsearch.engine.langtags import tag_matches

    fmt = export.export_format(path)
    if not langs:
        counts = Counter(
            lang for h in hits for lang in [h.lang, *(t["lang"] for t in h.translations)]
        )
        langs = [lang for lang, _ in counts.most_common()]
    if fmt != "tsv":
        units = [
            export.ExportUnit(
                [(h.lang, h.text)] + [(t["lang"], t["text"]) for t in h.translations],
                {"x-score": f"{h.score:.4f}", "x-tu": str(h.tu_id)},
            )
            for h in hits
        ]
        export.write_units(path, units, fmt, list(langs)[:2] if fmt == "xliff" else None)
        return Path(path)
    header = ["rank", "score", *langs, "collection", "document"]
    rows = []
    for rank, h in enumerate(hits, 1):
        texts: dict[str, str] = {}
        for t in h.translations:
            texts.setdefault(t["lang"], t["text"])
        texts[h.lang] = h.text
        cells = [  # --lang values are BCP 47 prefixes: "en" fills from "en-US"
            texts.get(lang) or next((t for tag, t in texts.items() if tag_matches(lang, tag)), "")
            for lang in langs
        ]
        rows.append([str(rank), f"{h.score:.4f}", *cells, h.collection, Path(h.path).name])
    export.write_tsv(path, header, rows)
    return Path(path)
