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
