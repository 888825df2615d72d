"""Calibration on the user's own memory: may a semantic match write into the file?

A cosine calibrated on news and everyday sentences does not hold on a user's UI strings
(measured on real catalogues: of 174 fills at a "95 %" dev-split threshold, 66 were
wrong). So before a semantic match may write, the model's precision is measured on the
memory itself, the way the analysis makes its semantic matches:

1. every memory unit (up to ``HELD_OUT``, a fixed random sample beyond) is looked up
   against the rest of the memory — same lookup, model, language pair, threshold and
   same-shape rule as ``analyze`` — and those that land in the semantic band (no fuzzy
   match ≥ 75 %, a semantic match ≥ the threshold) are kept as evidence (a unit whose
   nearest vectors are all under the threshold cannot land there and is not looked up);
2. such a match is **right** when its stored target is the held-out unit's own target
   (compared without mnemonic, trailing punctuation, case and spacing);
3. the evidence is split into ``CELLS`` by what makes a match fragile — its ``group`` (a
   short segment of at most ``SHORT_WORDS`` words, a mnemonic or a placeholder — or none
   of these) and the fuzzy % of the semantic match's own source (``FUZZY_BANDS``: a match
   that shares most of the segment's words is another thing than one that shares none) —
   and per cell the fill threshold is the lowest cosine from which the **exact one-sided
   Clopper–Pearson lower bound** of the precision (k right of n at or above it, n ≥
   ``MIN_EVIDENCE``) reaches ``PRECISION``, at a confidence that holds for all the cells
   together (Bonferroni: ``CONFIDENCE`` split among them). Where no cosine reaches it, the
   cell writes nothing: its semantic matches are suggestions.

Measured on real software catalogues (``bench/fill_regions.py``), no cell of any size is
right that often — a UI string's nearest neighbour in meaning is another UI string — so
nothing is written there; on a memory whose translations recur with reworded sources it is
(``bench/semantic_fills.py --shared``).

A calibration is cached per store, collection, model and direction (in the cache
folder, written atomically) and redone when the memory grew or shrank by more than
``REDO_CHANGE``. The report names the evidence for every fill.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

HELD_OUT = 5000
"""Memory units looked up against the rest: all of them up to this many (a fixed random
sample beyond)."""
PRECISION = 0.95
CONFIDENCE = 0.95
"""For all the cells together; each cell's bound is taken at ``1 − (1 − CONFIDENCE) /
len(CELLS)``."""
MIN_EVIDENCE = 100
"""Held-out semantic matches a cell needs at or above its threshold."""
SHORT_WORDS = 3
REDO_CHANGE = 0.10
VERSION = 2
GROUPS = ("fragile", "plain")
FUZZY_BANDS = ((0, 49), (50, 74))
"""The fuzzy % of the semantic match's own source (under 75: the semantic band)."""
CELLS = tuple((g, b) for g in GROUPS for b in FUZZY_BANDS)
CELL_CONFIDENCE = 1.0 - (1.0 - CONFIDENCE) / len(CELLS)


def group(segment: str) -> str:
    """``fragile``: few words, a mnemonic or a placeholder (a near neighbour in meaning is
    most often another UI string: *Undo* for *Redo*); ``plain`` otherwise."""
    from xlsearch.engine.importers.placeholders import placeholders
    from xlsearch.engine.tm.matching.fuzzy import words

    if words(segment) <= SHORT_WORDS or re.search(r"[_&][^\W_]", segment):
        return "fragile"
    return "fragile" if placeholders(segment) else "plain"


def same_translation(a: str, b: str) -> bool:
    """Targets equal but for mnemonic, trailing punctuation, case and spacing."""
    from xlsearch.engine.tm.matching.repair import parse

    return parse(a).core.lower() == parse(b).core.lower()


def band(fuzzy: float) -> tuple[int, int]:
    """The ``FUZZY_BANDS`` band of a semantic match's fuzzy %."""
    return next((b for b in FUZZY_BANDS if fuzzy <= b[1]), FUZZY_BANDS[-1])


def cell_name(cell: tuple[str, tuple[int, int]]) -> str:
    """``plain, fuzzy 50–74 %``: a cell as reports and the cache name it."""
    g, (lo, hi) = cell
    return f"{g}, fuzzy {lo}–{hi} %"


def lower_bound(k: int, n: int, confidence: float = CONFIDENCE) -> float:
    """One-sided Clopper–Pearson lower bound (at ``confidence``) of a precision of k in n."""
    from scipy.stats import beta

    return float(beta.ppf(1.0 - confidence, k, n - k + 1)) if k > 0 else 0.0


def fit_group(
    evidence: list[tuple[float, bool]], confidence: float = CONFIDENCE, min_n: int = 1
) -> dict[str, Any]:
    """The lowest cosine from which the bound (at ``confidence``, on at least ``min_n``
    matches) reaches ``PRECISION`` (None when none does), with its counts."""
    ranked = sorted(evidence, key=lambda e: -e[0])
    best: dict[str, Any] = {"threshold": None, "right": 0, "n": 0, "bound": 0.0}
    k = 0
    for n, (cos, ok) in enumerate(ranked, 1):
        k += ok
        if n < len(ranked) and ranked[n][0] == cos:
            continue  # a threshold falls between cosines
        bound = lower_bound(k, n, confidence)
        if bound >= PRECISION and n >= min_n:
            best = {"threshold": round(cos, 5), "right": k, "n": n, "bound": round(bound, 4)}
    out = dict(best)
    out["evidence"] = len(ranked)
    out["right_all"] = sum(ok for _, ok in ranked)
    return out


def fit_cells(evidence: list[tuple[str, float, float, bool]]) -> dict[str, dict[str, Any]]:
    """Per cell (``cell_name``), ``fit_group`` of the evidence ``(segment's group, cosine,
    the match's fuzzy %, right)`` at ``CELL_CONFIDENCE`` and ``MIN_EVIDENCE``."""
    per: dict[tuple[str, tuple[int, int]], list[tuple[float, bool]]] = {c: [] for c in CELLS}
    for g, cos, fuzzy, ok in evidence:
        per[(g, band(fuzzy))].append((cos, ok))
    return {cell_name(c): fit_group(per[c], CELL_CONFIDENCE, MIN_EVIDENCE) for c in CELLS}


@dataclass
class MemoryCalibration:
    """Per cell (``CELLS``): the fill threshold on the memory's own evidence."""

    pair: str
    model: str
    units: int
    """Memory units (source language) when it was made."""
    held_out: int
    cells: dict[str, dict[str, Any]] = field(default_factory=dict)
    """By ``cell_name``: ``fit_group``'s threshold and counts."""
    direction: str = ""
    """The job's ``src → tgt`` as reports print it (``pair`` is the cache's key)."""

    def evidence(self, segment: str, cosine: float, fuzzy: float = 0) -> str | None:
        """Why a semantic match at ``cosine`` whose source is a ``fuzzy`` % match of
        ``segment`` may write (None: it may not)."""
        g, b = group(segment), band(fuzzy)
        c = self.cells.get(cell_name((g, b))) or {}
        thr = c.get("threshold")
        if thr is None or round(cosine, 4) < thr:
            return None
        return (
            f"your memory: {c['right']} of {c['n']} held-out {g} semantic matches with a "
            f"{b[0]}–{b[1]} % fuzzy source at cosine ≥ {thr:.3f} were right (precision ≥ "
            f"{c['bound']:.1%}, 95 % confidence over the {len(CELLS)} kinds of match)"
        )

    def describe(self) -> str:
        parts = []
        for name in GROUPS:
            cells = [(b, self.cells.get(cell_name((name, b))) or {}) for b in FUZZY_BANDS]
            open_ = [(b, c) for b, c in cells if c.get("threshold") is not None]
            if not open_:
                right = sum(c.get("right_all", 0) for _, c in cells)
                seen = sum(c.get("evidence", 0) for _, c in cells)
                parts.append(
                    f"{name}: no fills ({right} of {seen} held-out semantic matches right)"
                )
                continue
            parts.append(
                f"{name}: "
                + ", ".join(
                    f"fuzzy {b[0]}–{b[1]} % at cosine ≥ {c['threshold']:.3f} "
                    f"({c['right']}/{c['n']})"
                    if c.get("threshold") is not None
                    else f"fuzzy {b[0]}–{b[1]} % no fills ({c.get('right_all', 0)} of "
                    f"{c.get('evidence', 0)} right)"
                    for b, c in cells
                )
            )
        pair = self.direction or self.pair
        return (
            f"calibrated on your memory ({self.held_out:,} held-out units, {pair}): "
            + "; ".join(parts)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "pair": self.pair,
            "model": self.model,
            "units": self.units,
            "held_out": self.held_out,
            "confidence": CONFIDENCE,
            "cell_confidence": round(CELL_CONFIDENCE, 6),
            "min_evidence": MIN_EVIDENCE,
            "cells": self.cells,
        }


def _cache_file(lookup: Any, model: str, pair: str) -> Any:
    from xlsearch.engine.runtime import locations

    key = "|".join([str(getattr(lookup.store, "path", "")), lookup.collection or "*", model, pair])
    name = hashlib.blake2b(key.encode("utf-8"), digest_size=10).hexdigest()
    return locations.cache_dir() / "memory-calibration" / f"{name}.json"


def _units(lookup: Any, src: str) -> list[tuple[str, str]]:
    """(tu id, text) of the memory's source-language segments."""
    from xlsearch.engine.lang.tags import primary

    where, params = lookup.store._filters(lookup.collection, [primary(src)] if src else None)
    return [
        (str(r[0]), str(r[1]))
        for r in lookup.store.conn.execute(
            f"SELECT s.tu_id, s.text FROM segments s{where} ORDER BY s.id", params
        )
    ]


HeldOut = tuple[str, str, str, frozenset[int]]
"""A held-out unit: its id, source text, own target and its segments' ids."""


def held_out_jobs(lookup: Any, sample: list[tuple[str, str]], tgt: str) -> list[HeldOut]:
    """The sampled units that have a ``tgt`` side, as ``HeldOut``."""
    rows: dict[str, list[dict[str, Any]]] = {}
    lookup._load_units(rows, [tu for tu, _ in sample])
    jobs = []
    for tu, text in sample:
        side = lookup._target(next(r for r in rows[tu] if r["text"] == text), rows, tgt)[1]
        if side is not None:
            ids = frozenset(r["id"] for r in rows[tu])
            jobs.append((tu, " ".join(text.split()), side["text"], ids))
    return jobs


def held_out_matches(
    lookup: Any,
    jobs: list[HeldOut],
    src: str,
    tgt: str,
    threshold: float,
    report: Any = None,
) -> Iterator[tuple[str, str, Any, int]]:
    """Each held-out unit looked up against the rest of the memory as the analysis looks up;
    ``(source text, own target, top semantic match, best fuzzy %)`` for those that land in
    the semantic band (no fuzzy match ≥ 75 %, a same-shape semantic match ≥ ``threshold``
    with a target). ``report(n)`` is called every 25 units."""
    from xlsearch.engine.tm.matching.shape import same_shape

    qvecs = lookup.encode([t for _, t, _, _ in jobs])
    hits = lookup._semantic_many(qvecs)
    for n, ((tu, text, own, mine), qv, h) in enumerate(zip(jobs, qvecs, hits, strict=True)):
        if report is not None and n % 25 == 0:
            report(n)
        if max((c for i, c in h if i not in mine), default=0.0) < threshold:
            continue  # no neighbour in the semantic band: no evidence either way
        lookup.held_out = tu
        try:
            res = lookup._one(text, qv, h, src, tgt, 5, 2, True, 0, False, 1)
        finally:
            lookup.held_out = None
        fuzzy = max((m.fuzzy for m in res.matches), default=0)
        pool = [m for m in [*res.matches, *res.cross] if m.semantic is not None]
        pool = same_shape(pool, text, src)
        if not pool or fuzzy >= 75:
            continue
        top = max(pool, key=lambda m: m.semantic or 0.0)
        if (top.semantic or 0.0) < threshold or not top.target:
            continue
        yield text, own, top, fuzzy


def calibrate(
    lookup: Any,
    src: str,
    tgt: str,
    threshold: float,
    *,
    held_out: int = HELD_OUT,
    on_progress: Any = None,
    cancel: Any = None,
) -> MemoryCalibration | None:
    """The memory calibration of ``lookup``'s model for ``src`` → ``tgt`` (cached); None
    without a model or a target language. Measuring it reports ``calibrate`` progress (what
    the wait is for, before it starts) and stops at ``cancel``."""
    from xlsearch.engine.calibration.fill import pair_key
    from xlsearch.engine.lang.tags import direction, primary
    from xlsearch.engine.progress import Progress
    from xlsearch.engine.runtime.atomic import write_json

    if not getattr(lookup, "semantic", False) or not tgt:
        return None
    from xlsearch.engine.index.cache import model_key

    enc = lookup.searcher.encoder
    model = str(getattr(enc, "id", "") or getattr(enc, "path", "") or "")
    pair = pair_key(src, tgt)
    units = _units(lookup, src)
    # keyed by the model's weights too: a model rebuilt in the same folder is measured again
    # per direction: the evidence is src-language units looked up for their tgt translation
    path = _cache_file(lookup, model_key(enc), f"{pair}:{primary(src)}>{primary(tgt)}")
    try:
        cached = json.loads(path.read_text(encoding="utf-8"))
        if (
            cached.get("version") == VERSION
            and abs(cached.get("units", 0) - len(units)) <= REDO_CHANGE * max(1, len(units))
            and cached.get("threshold") == threshold
        ):
            return MemoryCalibration(
                pair,
                model,
                cached["units"],
                cached["held_out"],
                cached["cells"],
                direction(src, tgt),
            )
    except (OSError, ValueError, KeyError, TypeError):
        pass
    sample = random.Random(0).sample(units, min(held_out, len(units)))
    jobs = held_out_jobs(lookup, sample, tgt)
    evidence: list[tuple[str, float, float, bool]] = []

    def report(done: int) -> None:
        if cancel is not None:
            cancel.raise_if_cancelled()
        if on_progress is not None:
            on_progress(Progress("calibrate", done, len(jobs), what))

    what = (
        f"calibrating semantic fills on your memory: {len(jobs):,} held-out units looked up "
        "(once per memory, model and language pair)"
    )
    if jobs:
        report(0)
        for text, own, top, _fuzzy in held_out_matches(lookup, jobs, src, tgt, threshold, report):
            cos = round(float(top.semantic or 0.0), 4)
            evidence.append((group(text), cos, top.fuzzy, same_translation(top.target, own)))
        report(len(jobs))
    cal = MemoryCalibration(
        pair,
        model,
        len(units),
        len(jobs),
        fit_cells(evidence),
        direction(src, tgt),
    )
    try:
        write_json(path, {**cal.to_dict(), "threshold": threshold})
    except OSError:
        pass  # a cache: the calibration is redone next time
    return cal


def fit_from_arrays(cos: np.ndarray, right: np.ndarray) -> dict[str, Any]:
    """``fit_group`` over arrays (for tests and benchmarks)."""
    return fit_group([(float(c), bool(r)) for c, r in zip(cos, right, strict=True)])


__all__ = [
    "CELLS",
    "HELD_OUT",
    "band",
    "cell_name",
    "fit_cells",
    "MemoryCalibration",
    "calibrate",
    "fit_group",
    "group",
    "held_out_jobs",
    "held_out_matches",
    "lower_bound",
    "same_translation",
]
