"""Margin scoring (Artetxe & Schwenk 2019) — the one implementation behind bitext mining
(``engine/search/mining.py``) and the evaluation suite (Tatoeba margin retrieval, BUCC-style F1).

For L2-normalised rows ``x`` and ``y``: ``fwd_mean[i]`` / ``bwd_mean[j]`` = mean cosine of
the ``k`` nearest neighbours of ``x_i`` in ``y`` / of ``y_j`` in ``x``, and
``score(i, j) = margin(cos(x_i, y_j), (fwd_mean[i] + bwd_mean[j]) / 2)`` with ``ratio`` a/b,
``distance`` a−b or ``absolute`` a. Retrieval from the k-NN lists: ``fwd`` (best target
per source), ``bwd`` (best source per target), ``intersect`` (both agree) or ``max`` (the
union, best first, each sentence used at most once — LASER's and BUCC's choice). Pure numpy:
the k-NN search itself is the caller's (FAISS in mining, numpy blocks in evaluation).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from xlsearch.engine.errors import ConfigError

MARGINS = ("ratio", "distance", "absolute")
RETRIEVALS = ("max", "fwd", "bwd", "intersect")
_EPS = 1e-12


def check(margin: str, retrieval: str = "max") -> None:
    """``ConfigError`` for an unknown margin or retrieval name."""
    if margin not in MARGINS:
        raise ConfigError(f"unknown margin {margin!r}; choose from {', '.join(MARGINS)}")
    if retrieval not in RETRIEVALS:
        raise ConfigError(f"unknown retrieval {retrieval!r}; choose from {', '.join(RETRIEVALS)}")


def margin_fn(a: np.ndarray, b: np.ndarray, margin: str = "ratio") -> np.ndarray:
    """``ratio``: a / b, ``distance``: a − b, ``absolute``: a (float64)."""
    check(margin)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if margin == "ratio":
        return a / np.where(np.abs(b) > _EPS, b, _EPS)
    if margin == "distance":
        return a - b
    return a.copy()


def margin_matrix(
    x: np.ndarray, y: np.ndarray, fwd_mean: np.ndarray, bwd_mean: np.ndarray, margin: str = "ratio"
) -> np.ndarray:
    """Dense ``(len(x), len(y))`` margin scores (for sets of a few thousand rows)."""
    sims = np.asarray(x, dtype=np.float32) @ np.asarray(y, dtype=np.float32).T
    return margin_fn(sims, (fwd_mean[:, None] + bwd_mean[None, :]) / 2.0, margin)


class Candidates(NamedTuple):
    """Chosen pairs: row numbers into x / y, margin score and cosine (parallel arrays)."""

    src: np.ndarray
    tgt: np.ndarray
    score: np.ndarray
    cosine: np.ndarray


def _best(
    sims: np.ndarray, idx: np.ndarray, own: np.ndarray, other: np.ndarray, margin: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the neighbour with the best margin (ties → lowest row index)."""
    scores = margin_fn(sims, (own[:, None] + other[idx]) / 2.0, margin)
    order = np.lexsort((idx, -scores), axis=-1)[:, :1]
    return (
        np.take_along_axis(idx, order, axis=1)[:, 0],
        np.take_along_axis(scores, order, axis=1)[:, 0],
        np.take_along_axis(sims, order, axis=1)[:, 0].astype(np.float64),
    )


def select(
    x2y_sim: np.ndarray,
    x2y_ind: np.ndarray,
    y2x_sim: np.ndarray,
    y2x_ind: np.ndarray,
    *,
    margin: str = "ratio",
    retrieval: str = "max",
) -> Candidates:
    """Pairs from both directions' k-NN lists (similarities and row indices), best first.

    Neighbours a search could not fill (index −1) count as absent (similarity −1).
    """
    check(margin, retrieval)
    x2y_sim, y2x_sim = x2y_sim.astype(np.float64), y2x_sim.astype(np.float64)
    x2y_ind, y2x_ind = x2y_ind.copy(), y2x_ind.copy()
    x2y_sim[x2y_ind < 0], y2x_sim[y2x_ind < 0] = -1.0, -1.0
    x2y_ind[x2y_ind < 0], y2x_ind[y2x_ind < 0] = 0, 0
    fwd_mean, bwd_mean = x2y_sim.mean(axis=1), y2x_sim.mean(axis=1)
    fwd_best, fwd_score, fwd_cos = _best(x2y_sim, x2y_ind, fwd_mean, bwd_mean, margin)
    bwd_best, bwd_score, bwd_cos = _best(y2x_sim, y2x_ind, bwd_mean, fwd_mean, margin)
    rx, ry = np.arange(len(x2y_sim)), np.arange(len(y2x_sim))
    if retrieval == "fwd":
        out = Candidates(rx, fwd_best, fwd_score, fwd_cos)
    elif retrieval == "bwd":
        out = Candidates(bwd_best, ry, bwd_score, bwd_cos)
    elif retrieval == "intersect":
        keep = bwd_best[fwd_best] == rx
        out = Candidates(rx[keep], fwd_best[keep], fwd_score[keep], fwd_cos[keep])
    else:  # max: union of both directions, best first, each sentence used once
        src = np.concatenate([rx, bwd_best])
        tgt = np.concatenate([fwd_best, ry])
        score = np.concatenate([fwd_score, bwd_score])
        cos = np.concatenate([fwd_cos, bwd_cos])
        seen_src = np.zeros(len(rx), bool)
        seen_tgt = np.zeros(len(ry), bool)
        keep_idx = []
        for i in np.argsort(-score, kind="stable"):
            s, t = src[i], tgt[i]
            if not seen_src[s] and not seen_tgt[t]:
                seen_src[s] = seen_tgt[t] = True
                keep_idx.append(i)
        sel = np.asarray(keep_idx, dtype=np.int64)
        out = Candidates(src[sel], tgt[sel], score[sel], cos[sel])
    order = np.argsort(-out.score, kind="stable")
    return Candidates(*(a[order] for a in out))
