"""When a semantic match may be written into a file: a calibrated precision of 95 %.

A cosine means different things per model and per language pair (a toy static student gives
0.85 to unrelated sentences), so no single cosine can decide what is written. Each model
carries, per language pair it knows, a **fill calibration**: the probability that a stored
target translates the segment, as a function of the cosine between the segment and that
target. It is fitted on held-out translation pairs (a student's dev split, or pairs the
user names) with scikit-learn's isotonic regression: positives are the true pairs, negatives
the nearest wrong candidates from the same held-out pool (the best wrong target for each
source and the best wrong source for each target, ``NEGATIVES`` of each). The pair's fill
threshold is the lowest cosine from which the precision is at least ``PRECISION`` *with
``CONFIDENCE``*: each step of the isotonic fit is a count (k right of n held-out candidates),
and the threshold starts the lowest step whose exact binomial (Clopper–Pearson) lower bound,
not its point estimate k/n, reaches ``PRECISION`` (the steps above are at least as precise:
the fit is monotone). A step of 41 right of 42 (0.976) does not (its bound is 0.89);
measured, such a step let one wrong fill through on unrelated text.
With fewer than ``MIN_PAIRS`` held-out pairs, or when no cosine qualifies, the pair has no
threshold and nothing is written for it: semantic matches stay suggestions. A model
that saw fewer than ``TOY_PAIRS`` training pairs writes nothing whatever its calibration
says: a toy's calibration does not carry over to other text (measured).

Calibrations live in the model card under ``fill_calibration`` (the bundled teacher's in
``<data>/eval/teacher.json``), as ``{"pairs": {"de-en": {...}}, "data": ..., "date": ...}``
with language pairs keyed by their sorted primary subtags.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import DataError

KEY = "fill_calibration"
PRECISION = 0.95
"""Calibrated precision a semantic match needs to be written into a file."""
CONFIDENCE = 0.95
"""Confidence that the precision is at least ``PRECISION`` (one-sided exact binomial bound)."""
METHOD = "isotonic; Clopper-Pearson lower bound 0.95"
"""How thresholds are derived; a stored calibration made another way is not used."""
MIN_PAIRS = 500
"""Held-out pairs a language pair needs for a calibration."""
MAX_PAIRS = 2000
"""Held-out pairs used per language pair (more add little and cost encoding time)."""
NEGATIVES = 2
"""Hard negatives per positive and direction (nearest wrong candidates)."""
TOY_PAIRS = 5000
"""A model that saw fewer training pairs is a toy outside the data it was built on."""


def pair_key(a: str, b: str) -> str:
    """``de-en`` for (``en-GB``, ``de``): sorted primary subtags, lower case."""
    x, y = (str(t or "").split("-")[0].split("_")[0].lower() for t in (a, b))
    return "-".join(sorted((x, y)))


def fit_pair(
    src: np.ndarray, tgt: np.ndarray, *, negatives: int = NEGATIVES, precision: float = PRECISION
) -> dict[str, Any]:
    """The calibration of one language pair from L2-normalised embeddings of held-out
    translation pairs (row *i* of ``src`` translates row *i* of ``tgt``).

    Returns knots ``x``/``y`` (cosine → probability), ``threshold`` (None when no cosine
    reaches ``precision``), and the precision/recall of that threshold on these data.
    """
    from sklearn.isotonic import IsotonicRegression

    n = len(src)
    if n < 2 or len(tgt) != n:
        raise DataError("a fill calibration needs at least 2 translation pairs")
    sims = np.asarray(src, np.float32) @ np.asarray(tgt, np.float32).T
    pos = np.diag(sims).astype(np.float64)
    wrong = sims.copy()
    np.fill_diagonal(wrong, -np.inf)
    k = max(1, min(negatives, n - 1))
    rows = -np.sort(-wrong, axis=1)[:, :k]  # best wrong targets per source
    cols = -np.sort(-wrong, axis=0)[:k, :].T  # best wrong sources per target
    neg = np.concatenate([rows.ravel(), cols.ravel()]).astype(np.float64)
    x = np.concatenate([pos, neg])
    y = np.concatenate([np.ones(len(pos)), np.zeros(len(neg))])
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(x, y)
    # the fit's own corners: interpolating them is exactly what the fit predicts
    knots = np.asarray(iso.X_thresholds_, np.float64)
    probs = np.maximum.accumulate(np.clip(iso.y_thresholds_, 0.0, 1.0))
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    # the lowest step whose own bound reaches the precision: the steps above it are at least
    # as precise (the fit is monotone), however few candidates they hold
    ok = np.flatnonzero(_step_bounds(iso.predict(xs), ys) >= precision)
    threshold = float(xs[ok[0]]) if len(ok) else None
    out: dict[str, Any] = {
        "x": [round(float(v), 5) for v in knots],
        "y": [round(float(v), 4) for v in probs],
        "threshold": None if threshold is None else round(threshold, 5),
        "held_out": n,
        "negatives": len(neg),
    }
    if threshold is not None:
        hit_pos = int((pos >= threshold).sum())
        hit_neg = int((neg >= threshold).sum())
        out["precision"] = round(hit_pos / max(1, hit_pos + hit_neg), 4)
        out["recall"] = round(hit_pos / n, 4)
    return out


def _step_bounds(pred: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Per sorted candidate: the one-sided ``CONFIDENCE`` lower bound of the precision of the
    isotonic step it falls in (``pred``: the fit's values, constant along a step)."""
    from scipy.stats import beta

    out = np.zeros(len(pred))
    starts = np.flatnonzero(np.r_[True, pred[1:] != pred[:-1]])
    for lo, hi in zip(starts, [*starts[1:], len(pred)], strict=True):
        k, n = float(truth[lo:hi].sum()), hi - lo
        out[lo:hi] = beta.ppf(1.0 - CONFIDENCE, k, n - k + 1) if k > 0 else 0.0
    return out


def fit(
    groups: dict[str, tuple[list[str], list[str]]],
    encode: Any,
    *,
    data: str,
    min_pairs: int | None = None,
    max_pairs: int = MAX_PAIRS,
) -> dict[str, Any]:
    """Fill calibrations for every language pair of ``groups`` (``{"de-en": (sources,
    targets)}``) with ``encode(texts) → normalised vectors``. A pair with fewer than
    ``min_pairs`` (``MIN_PAIRS``) held-out pairs gets ``threshold: None`` and the reason."""
    min_pairs = MIN_PAIRS if min_pairs is None else min_pairs
    pairs: dict[str, Any] = {}
    for key, (s, t) in sorted(groups.items()):
        uniq = list(dict.fromkeys(zip(s, t, strict=True)))[:max_pairs]
        if len(uniq) < min_pairs:
            pairs[key] = {
                "threshold": None,
                "held_out": len(uniq),
                "why": f"{len(uniq):,} held-out pairs ({min_pairs:,} needed)",
            }
            continue
        sv = np.asarray(encode([a for a, _ in uniq]), np.float32)
        tv = np.asarray(encode([b for _, b in uniq]), np.float32)
        cal = fit_pair(sv, tv)
        if cal["threshold"] is None:
            cal["why"] = (
                f"no cosine reaches {PRECISION:.0%} precision with {CONFIDENCE:.0%} confidence"
            )
        pairs[key] = cal
    return {
        "pairs": pairs,
        "data": data,
        "date": _dt.date.today().isoformat(),
        "method": METHOD,
    }


def groups_from_parallel(dev: Sequence[Any], teacher_lang: str = "en") -> dict[str, Any]:
    """``{pair: (sources, targets)}`` from distillation dev groups (``Group``: src, tgt,
    lang); groups of the same pair are joined."""
    out: dict[str, tuple[list[str], list[str]]] = {}
    for g in dev:
        if getattr(g, "mono", False):
            continue
        key = pair_key(teacher_lang, g.lang)
        if key.split("-")[0] == key.split("-")[-1]:
            continue
        s, t = out.setdefault(key, ([], []))
        s.extend(g.src)
        t.extend(g.tgt)
    return out


# -- storing and reading -------------------------------------------------------------------------
def store(model: str, path: str | Path | None, cal: dict[str, Any]) -> Path:
    """Write ``cal`` into the model's card (the bundled teacher's: its results file)."""
    from xlsearch.engine.models.cards import store_model_entry

    return store_model_entry(model, path, KEY, cal)[0]


def load(model: str, card: dict[str, Any] | None) -> dict[str, Any] | None:
    """The fill calibration stored for a model (its card, or the teacher's results file)."""
    from xlsearch.engine.models.cards import BUNDLED_TEACHER, read_teacher_entry

    cal = read_teacher_entry(KEY) if model == BUNDLED_TEACHER else (card or {}).get(KEY)
    return cal if isinstance(cal, dict) and isinstance(cal.get("pairs"), dict) else None


def probability(cosine: float | np.ndarray, pair: dict[str, Any]) -> Any:
    """Calibrated probability that a target at ``cosine`` translates the segment."""
    if not pair.get("x"):
        return np.zeros_like(np.asarray(cosine, np.float64))
    return np.clip(np.interp(cosine, pair["x"], pair["y"]), 0.0, 1.0)


def is_demo(card: dict[str, Any]) -> bool:
    """True for the demo student (``xlsearch demo`` marks its card), not a user's own model."""
    return bool(card.get("demo"))


def small_model_label(card: dict[str, Any]) -> str:
    """What a model that saw fewer than ``TOY_PAIRS`` pairs is: the demo, or the user's own
    student trained on little data (never "a demo model": it is theirs)."""
    if is_demo(card):
        return "the demo model"
    return f"your own student; reliable scores need {TOY_PAIRS:,}+ pairs"


def trained_pairs(card: dict[str, Any]) -> int | None:
    """How many translation pairs a distilled model saw (None: not a distilled student),
    with those of the student it continued (``distill --init``: the shipped model's)."""
    data = card.get("data")
    if not isinstance(data, list) or not data:
        return None
    own = sum(int(d.get("pairs", 0) or 0) for d in data if not d.get("mono"))
    start = card.get("student_info")
    return own + (int(start.get("start_pairs") or 0) if isinstance(start, dict) else 0)


# -- the decision ---------------------------------------------------------------------------------
@dataclass
class FillPolicy:
    """What a model may write for one language pair."""

    model: str
    pair: str
    threshold: float | None
    """Lowest cosine (segment × stored target) written; None: nothing is written."""
    why: str = ""
    calibration: dict[str, Any] | None = None
    notice: str | None = None
    """The toy-model notice (``toy_notice``), when it applies."""
    memory: Any = None
    """``tm.calibration.memory.MemoryCalibration``: the evidence of the user's own memory,
    which every semantic fill needs."""
    direction: str = ""
    """The job's ``src → tgt`` as reports print it (``pair`` is the calibration's key)."""

    def describe(self) -> str:
        """One line for reports: who fills what, at which threshold."""
        if self.memory is not None:
            return f"semantic fills by {self.model}: {self.memory.describe()}"
        pair = self.direction or self.pair
        if self.threshold is None:
            return (
                f"semantic matches are suggestions only: {self.model} writes no {pair} "
                f"fills ({self.why or 'not calibrated'})"
            )
        return (
            f"semantic fills by {self.model}: {pair} cosine (segment × stored target) "
            f"≥ {self.threshold:.3f}, calibrated precision ≥ {PRECISION:.0%} "
            f"({CONFIDENCE:.0%} confidence)"
        )

    def report_lines(self, semantic: Sequence[Any]) -> list[str]:
        """Markdown lines for an analysis report: the notice, and what was written."""
        lines = ["", f"notice: {self.notice}"] if self.notice else []
        if semantic and self.model:
            n = sum(bool(getattr(s, "fill", False)) for s in semantic)
            lines += ["", f"{self.describe()}: {n} may be written, the rest are suggestions."]
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "pair": self.pair,
            "threshold": self.threshold,
            "precision": PRECISION,
            "why": self.why,
            "notice": self.notice,
            "memory_calibration": self.memory.to_dict() if self.memory is not None else None,
        }


def policy_for(encoder: Any, src: str, tgt: str) -> FillPolicy:
    """The fill policy of ``encoder`` for translating ``src`` into ``tgt``."""
    from xlsearch.engine.lang.tags import direction

    policy = _policy_for(encoder, src, tgt)
    policy.direction = direction(src, tgt)
    return policy


def _policy_for(encoder: Any, src: str, tgt: str) -> FillPolicy:
    model = str(getattr(encoder, "id", "") or getattr(encoder, "path", "") or "")
    name = model.rsplit("/", 1)[-1]
    key = pair_key(src, tgt)
    card = getattr(encoder, "card", None) or {}
    seen = trained_pairs(card)
    if seen is not None and seen < TOY_PAIRS:
        # measured: the demo student, calibrated on 2,000 unseen pairs per language, still
        # wrote wrong fills on unrelated text at its "95 %" threshold
        why = (
            f"the demo model: it saw only {seen:,} pairs"
            if is_demo(card)
            else f"your own student, trained on only {seen:,} pairs (fewer than {TOY_PAIRS:,})"
        )
        return FillPolicy(name, key, None, why)
    cal = load(model, card)
    if cal is None:
        return FillPolicy(name, key, None, "not calibrated")
    if cal.get("method") != METHOD:
        return FillPolicy(
            name,
            key,
            None,
            "calibrated by an older xlsearch: xlsearch eval "
            f"{getattr(encoder, 'path', None) or model} --calibrate",
        )
    pair = cal["pairs"].get(key)
    if not isinstance(pair, dict):
        return FillPolicy(name, key, None, "pair not in its held-out data")
    thr = pair.get("threshold")
    return FillPolicy(
        name, key, None if thr is None else float(thr), str(pair.get("why", "")), pair
    )


def judge(
    encoder: Any, src: str, tgt: str, segments: Sequence[str], targets: Sequence[str]
) -> tuple[FillPolicy, list[tuple[float, float, bool]]]:
    """For each (segment, stored target): ``(cosine, calibrated probability, write?)``."""
    policy = policy_for(encoder, src, tgt)
    if not segments or encoder is None:
        return policy, []
    a = np.asarray(encoder.encode(list(segments)), np.float32)
    b = np.asarray(encoder.encode(list(targets)), np.float32)
    a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b /= np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    cos = (a * b).sum(axis=1)
    cal = policy.calibration or {}
    probs = probability(cos, cal) if cal.get("x") else np.zeros(len(cos))
    thr = policy.threshold
    return policy, [
        (round(float(c), 4), round(float(p), 4), thr is not None and float(c) >= thr)
        for c, p in zip(cos, probs, strict=True)
    ]


def _dev_accuracy(card: dict[str, Any], src: str, tgt: str) -> float | None:
    """The model's held-out translation accuracy (both directions) for an English–xx pair,
    from its card's dev metrics (None: not English–xx or not measured)."""
    a, b = (str(t or "").split("-")[0].split("_")[0].lower() for t in (src, tgt))
    other = b if a == "en" else a if b == "en" else ""
    per_lang = (card.get("metrics") or {}).get("per_lang") or {}
    row = per_lang.get(other) if other else None
    if not isinstance(row, dict) or "acc_src2tgt" not in row:
        return None
    forward = float(row["acc_src2tgt"])
    backward = float(row.get("acc_tgt2src") or forward)
    return (forward + backward) / 2


MINING_SAMPLE = 1000
"""Mined pairs encoded again to estimate their precision (a sample of a big run)."""


def mining_precision(
    encoder: Any, src: str, tgt: str, pairs: Sequence[tuple[str, str]]
) -> tuple[float | None, str]:
    """The expected share of right pairs among mined ``(source, target)`` pairs, and one line
    saying so and on what it rests.

    The estimate is the mean calibrated probability (this model's fill calibration for the
    language pair: held-out translations against their nearest wrong candidates) at each
    pair's cosine — a mined pair is a sentence's best match, as a calibration candidate is.
    A model that saw fewer than ``TOY_PAIRS`` pairs gets no number (its calibration does not
    carry over); a pair without a calibration is said to be unknown. ``(None, "")``: no
    pairs."""
    if not pairs:
        return None, ""
    model = str(getattr(encoder, "id", "") or getattr(encoder, "path", "") or "")
    name = model.rsplit("/", 1)[-1]
    card = getattr(encoder, "card", None) or {}
    from xlsearch.engine.lang.tags import direction

    key = pair_key(src, tgt)
    said = direction(src, tgt)  # the user's direction, as typed (the key is sorted)
    seen = trained_pairs(card)
    if seen is not None and seen < TOY_PAIRS:
        return None, (
            f"{name} saw only {seen:,} translation pairs ({small_model_label(card)}): expect "
            "many of these pairs to be wrong; check a sample before training on them"
        )
    cal = load(model, card)
    pair = (cal or {}).get("pairs", {}).get(key) if cal else None
    if not isinstance(pair, dict) or not pair.get("x"):
        dev = _dev_accuracy(card, src, tgt)
        if dev is not None:
            return None, (
                f"precision unknown: {name}'s best match is the right translation for "
                f"{dev:.0f} % of its held-out {said} sentences when every sentence has one "
                "(dev split); where many have none, as in unaligned text, pairs near the "
                "threshold are often wrong: raise it and check a sample before training on "
                f"them (xlsearch eval {name} --calibrate measures a precision)"
            )
        return None, (
            f"precision unknown: {name} has no calibration for {said} (xlsearch eval "
            f"{name} --calibrate); check a sample before training on these pairs"
        )
    step = max(1, len(pairs) // MINING_SAMPLE)
    sample = list(pairs)[::step][:MINING_SAMPLE]
    a = np.asarray(encoder.encode([x for x, _ in sample]), np.float32)
    b = np.asarray(encoder.encode([y for _, y in sample]), np.float32)
    a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b /= np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    expected = float(np.mean(probability((a * b).sum(axis=1), pair)))
    held = int(pair.get("held_out", 0) or 0)
    basis = f"{held:,} held-out {said} pairs" if held else f"held-out {said} pairs"
    return expected, (
        f"expected precision ≈ {expected:.0%} (the mean calibrated probability of "
        f"{len(sample):,} mined pairs; {name}'s calibration on {basis}); a higher "
        "threshold gives fewer, surer pairs"
    )


__all__ = [
    "KEY",
    "MIN_PAIRS",
    "PRECISION",
    "TOY_PAIRS",
    "FillPolicy",
    "fit",
    "fit_pair",
    "groups_from_parallel",
    "is_demo",
    "judge",
    "load",
    "mining_precision",
    "pair_key",
    "policy_for",
    "probability",
    "small_model_label",
    "store",
    "trained_pairs",
]
