"""Pure numpy metrics shared by distillation (dev evaluation) and the evaluation suite."""

from __future__ import annotations

import numpy as np


def mse_x100(student: np.ndarray, teacher: np.ndarray) -> float:
    """Mean squared error × 100 (the sentence-transformers MSEEvaluator convention)."""
    student = np.asarray(student, dtype=np.float64)
    teacher = np.asarray(teacher, dtype=np.float64)
    return float(((student - teacher) ** 2).mean() * 100.0)


def translation_accuracy(
    src: np.ndarray, tgt: np.ndarray, *, block: int = 4096
) -> tuple[float, float]:
    """Accuracy (0–100) of cosine nearest-neighbour retrieval, src→tgt and tgt→src.

    Row i of ``src`` is the translation of row i of ``tgt``; rows must be L2-normalised.
    Computed in blocks so memory stays bounded for large sets.
    """
    src = np.asarray(src, dtype=np.float32)
    tgt = np.asarray(tgt, dtype=np.float32)
    if src.shape != tgt.shape:
        raise ValueError(f"shape mismatch {src.shape} vs {tgt.shape}")
    n = src.shape[0]
    if n == 0:
        return 0.0, 0.0

    def _acc(a: np.ndarray, b: np.ndarray) -> float:
        hits = 0
        for start in range(0, n, block):
            sims = a[start : start + block] @ b.T
            hits += int((sims.argmax(axis=1) == np.arange(start, start + sims.shape[0])).sum())
        return 100.0 * hits / n

    return _acc(src, tgt), _acc(tgt, src)


def rankdata(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given their average rank (``scipy.stats.rankdata`` 'average')."""
    values = np.asarray(values, dtype=np.float64).ravel()
    order = np.argsort(values, kind="mergesort")
    sorted_vals = values[order]
    n = len(values)
    # boundaries of runs of equal values in sorted order
    starts = np.r_[0, np.flatnonzero(sorted_vals[1:] != sorted_vals[:-1]) + 1]
    ends = np.r_[starts[1:], n]
    avg = (starts + ends + 1) / 2.0  # mean of 1-based ranks start+1 .. end
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.repeat(avg, ends - starts)
    return ranks


def pearson(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation of two equal-length vectors (0.0 when either is constant)."""
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"length mismatch {a.shape} vs {b.shape}")
    if len(a) < 2:
        return 0.0
    a = a - a.mean()
    b = b - b.mean()
    denom = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / denom) if denom > 0 else 0.0


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman rank correlation (Pearson of average-tie ranks), as ``scipy.stats.spearmanr``."""
    return pearson(rankdata(a), rankdata(b))


def pairwise_cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine of two equally shaped matrices (rows need not be normalised)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    na = np.linalg.norm(a, axis=1)
    nb = np.linalg.norm(b, axis=1)
    denom = np.where(na * nb > 0, na * nb, 1.0)
    return (a * b).sum(axis=1) / denom


def knn(
    queries: np.ndarray, keys: np.ndarray, k: int, *, block: int = 2048
) -> tuple[np.ndarray, np.ndarray]:
    """Cosine of each query row to its ``k`` nearest key rows, and their indices (unsorted).

    Rows must be L2-normalised; computed in blocks of queries so memory stays bounded.
    """
    queries = np.asarray(queries, dtype=np.float32)
    keys = np.asarray(keys, dtype=np.float32)
    k = max(1, min(k, keys.shape[0]))
    vals = np.empty((queries.shape[0], k), dtype=np.float32)
    idx = np.empty((queries.shape[0], k), dtype=np.int64)
    for start in range(0, queries.shape[0], block):
        sims = queries[start : start + block] @ keys.T
        top = np.argpartition(sims, sims.shape[1] - k, axis=1)[:, -k:]
        idx[start : start + sims.shape[0]] = top
        vals[start : start + sims.shape[0]] = np.take_along_axis(sims, top, axis=1)
    return vals, idx


def knn_mean_sim(queries: np.ndarray, keys: np.ndarray, k: int, *, block: int = 2048) -> np.ndarray:
    """Mean cosine of each query row to its ``k`` nearest key rows (rows L2-normalised)."""
    return knn(queries, keys, k, block=block)[0].astype(np.float64).mean(axis=1)


def margin_matrix(
    x: np.ndarray,
    y: np.ndarray,
    *,
    k: int = 4,
    x_knn: np.ndarray | None = None,
    y_knn: np.ndarray | None = None,
) -> np.ndarray:
    """Ratio-margin scores (Artetxe & Schwenk 2019) between every row of ``x`` and ``y``.

    ``margin(x, y) = cos(x, y) / (mean_k_nn(x in Y)/2 + mean_k_nn(y in X)/2)`` — computed by
    ``engine/search/margin.py``, shared with bitext mining. Rows must be L2-normalised. Returns an
    ``(len(x), len(y))`` matrix; meant for sets of a few thousand.
    """
    from xlsearch.engine.search.margin import margin_matrix as dense

    x = np.asarray(x, dtype=np.float32)
    y = np.asarray(y, dtype=np.float32)
    fx = knn_mean_sim(x, y, k) if x_knn is None else x_knn
    fy = knn_mean_sim(y, x, k) if y_knn is None else y_knn
    return dense(x, y, fx, fy, "ratio")


def margin_translation_accuracy(
    src: np.ndarray, tgt: np.ndarray, *, k: int = 4
) -> tuple[float, float]:
    """Like ``translation_accuracy`` but retrieving by ratio margin (k nearest neighbours)."""
    src = np.asarray(src, dtype=np.float32)
    tgt = np.asarray(tgt, dtype=np.float32)
    if src.shape != tgt.shape:
        raise ValueError(f"shape mismatch {src.shape} vs {tgt.shape}")
    n = src.shape[0]
    if n == 0:
        return 0.0, 0.0
    scores = margin_matrix(src, tgt, k=k)
    gold = np.arange(n)
    fwd = 100.0 * float((scores.argmax(axis=1) == gold).mean())
    bwd = 100.0 * float((scores.argmax(axis=0) == gold).mean())
    return fwd, bwd


def best_f1_threshold(
    scores: np.ndarray, correct: np.ndarray, n_gold: int
) -> tuple[float, float, float, float]:
    """Threshold maximising F1 when predicting every candidate scoring ≥ threshold.

    ``scores``/``correct`` describe candidate pairs; ``n_gold`` is the number of gold pairs.
    Returns ``(threshold, f1, precision, recall)`` (F1 etc. as fractions in 0–1). The
    threshold is halfway between the last accepted and the first rejected score.
    """
    scores = np.asarray(scores, dtype=np.float64)
    correct = np.asarray(correct, dtype=bool)
    if len(scores) == 0 or n_gold == 0:
        return float("inf"), 0.0, 0.0, 0.0
    order = np.argsort(-scores, kind="stable")
    s = scores[order]
    tp = np.cumsum(correct[order])
    predicted = np.arange(1, len(s) + 1)
    # only cut where the score changes (ties are accepted or rejected together)
    last_of_run = np.r_[s[1:] != s[:-1], True]
    precision = tp / predicted
    recall = tp / n_gold
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(tp > 0, 2 * precision * recall / (precision + recall), 0.0)
    f1 = np.where(last_of_run, f1, -1.0)
    best = int(np.argmax(f1))
    if f1[best] <= 0:
        return float("inf"), 0.0, 0.0, 0.0
    threshold = (s[best] + s[best + 1]) / 2.0 if best + 1 < len(s) else s[best]
    return float(threshold), float(f1[best]), float(precision[best]), float(recall[best])


def prf(predicted: set[tuple[str, str]], gold: set[tuple[str, str]]) -> tuple[float, float, float]:
    """Precision, recall and F1 (fractions in 0–1) of predicted pairs against gold pairs."""
    tp = len(predicted & gold)
    p = tp / len(predicted) if predicted else 0.0
    r = tp / len(gold) if gold else 0.0
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return p, r, f


def pca_2d(x: np.ndarray) -> np.ndarray:
    """First two principal-component coordinates of the rows of ``x`` (numpy SVD)."""
    x = np.asarray(x, dtype=np.float64)
    if x.shape[0] == 0:
        return np.zeros((0, 2))
    centred = x - x.mean(axis=0, keepdims=True)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    coords = u[:, :2] * s[:2]
    if coords.shape[1] < 2:
        coords = np.pad(coords, ((0, 0), (0, 2 - coords.shape[1])))
    # deterministic sign: largest-magnitude coordinate of each component positive
    for j in range(2):
        col = coords[:, j]
        if col.size and col[np.argmax(np.abs(col))] < 0:
            coords[:, j] = -col
    return coords
