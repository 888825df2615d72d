"""STS scores people can read: cosine → 0–5, calibrated per model on human-labelled pairs.

A model's cosines are not on the STS scale (a static student gives 0.6 to unrelated
sentences, a transformer 0.1), so ``5 × cosine`` means different things per model. The
calibration is an isotonic regression (scikit-learn) of the gold 0–5 scores on the model's
cosines of an STS training set (STS-benchmark train: 5,749 English pairs), stored as a
monotone piecewise-linear curve (≤ ``KNOTS`` knots) in the model card under
``sts_calibration`` — or, for the bundled teacher, whose folder belongs to an installed
package, in ``<data>/eval/teacher.json``. Between knots the score is interpolated; outside
them it is the end value. Without a calibration the documented fallback is
``5 × clip(cosine, 0, 1)`` (flagged ``calibrated=False``).
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import DataError
from xlsearch.engine.progress import CancelToken, ProgressCallback

KEY = "sts_calibration"
KNOTS = 64


def fallback_score(cosine: float | np.ndarray) -> Any:
    """The uncalibrated mapping: ``5 × clip(cosine, 0, 1)``."""
    return 5.0 * np.clip(cosine, 0.0, 1.0)


def fit(cosines: np.ndarray, gold: np.ndarray, *, knots: int = KNOTS) -> dict[str, Any]:
    """Isotonic fit of ``gold`` on ``cosines``, as ``{"x": [...], "y": [...]}`` knots.

    Knots sit at quantiles of the cosines, so the curve is detailed where the data are.
    """
    from sklearn.isotonic import IsotonicRegression

    cos = np.asarray(cosines, dtype=np.float64)
    gold = np.asarray(gold, dtype=np.float64)
    if len(cos) < 2 or len(cos) != len(gold) or np.ptp(cos) <= 0:
        raise DataError("STS calibration needs at least 2 pairs with different cosines")
    iso = IsotonicRegression(y_min=0.0, y_max=5.0, out_of_bounds="clip").fit(cos, gold)
    xs = np.unique(np.quantile(cos, np.linspace(0.0, 1.0, knots)))
    ys = np.maximum.accumulate(np.clip(iso.predict(xs), 0.0, 5.0))
    return {"x": [round(float(v), 5) for v in xs], "y": [round(float(v), 4) for v in ys]}


def apply(cosine: float | np.ndarray, calibration: dict[str, Any] | None) -> Any:
    """0–5 score(s) for ``cosine``: the calibration curve, else the fallback."""
    if not calibration or not calibration.get("x"):
        return fallback_score(cosine)
    return np.clip(np.interp(cosine, calibration["x"], calibration["y"]), 0.0, 5.0)


def load(encoder: Any) -> dict[str, Any] | None:
    """The calibration stored for ``encoder`` (card, or the bundled teacher's file), if any."""
    from xlsearch.engine.models.cards import BUNDLED_TEACHER, read_teacher_entry

    if getattr(encoder, "id", "") == BUNDLED_TEACHER:
        cal = read_teacher_entry(KEY)
    else:
        cal = (getattr(encoder, "card", None) or {}).get(KEY)
    return cal if isinstance(cal, dict) and cal.get("x") else None


def score(encoder: Any, cosine: float) -> tuple[float, bool]:
    """``(0–5 score, calibrated?)`` for one cosine with ``encoder``'s calibration."""
    cal = load(encoder)
    return round(float(apply(cosine, cal)), 3), cal is not None


def calibrate(
    encoder: Any,
    sts_file: str | os.PathLike[str],
    *,
    save: bool = True,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Fit ``encoder``'s calibration on an STS file and (``save``) store it with the model.

    Returns the calibration: knots, the file, pair count, Spearman×100 and the mean absolute
    error (0–5 scale, on the calibration data) of the fallback and of the calibrated score.
    """
    from xlsearch.engine.evaluation import metrics as M
    from xlsearch.engine.evaluation.evaluators import STSEvaluator
    from xlsearch.engine.evaluation.readers import read_sts

    data = read_sts(Path(sts_file))
    cos = STSEvaluator.from_set(data).cosines(encoder, on_progress, cancel)
    gold = np.asarray(data.scores, dtype=np.float64)
    cal = fit(cos, gold)
    cal.update(
        data=Path(sts_file).name,
        pairs=len(gold),
        spearman=round(100.0 * M.spearman(cos, gold), 2),
        mae_fallback=round(float(np.abs(fallback_score(cos) - gold).mean()), 3),
        mae=round(float(np.abs(apply(cos, cal) - gold).mean()), 3),
        date=_dt.date.today().isoformat(),
    )
    if save:
        store(encoder, cal)
    return cal


def store(encoder: Any, cal: dict[str, Any]) -> Path:
    """Write ``cal`` into the model card (or the bundled teacher's results file)."""
    from xlsearch.engine.models.cards import store_model_entry

    written, card = store_model_entry(
        getattr(encoder, "id", ""), getattr(encoder, "path", None), KEY, cal
    )
    if card is not None and hasattr(encoder, "card"):
        encoder.card = card
    return written


@dataclass(frozen=True)
class StsResult:
    """Cosine similarity and its 0–5 STS score.

    ``calibrated``: the score comes from the model's own curve fitted on human-labelled
    pairs (``fit``: ``xlsearch eval MODEL --calibrate-sts FILE``);
    otherwise it is the fallback ``5 × clip(cosine, 0, 1)``.
    """

    cosine: float
    score: float
    calibrated: bool = False


def sts(a: str, b: str, encoder: Any) -> StsResult:
    """Semantic similarity of two texts (any languages) with ``encoder``."""
    va, vb = np.asarray(encoder.encode([a, b]), dtype=np.float32)
    cos = float(np.clip(va @ vb / max(np.linalg.norm(va) * np.linalg.norm(vb), 1e-12), -1, 1))
    score_, calibrated = score(encoder, cos)
    return StsResult(cos, score_, calibrated)
