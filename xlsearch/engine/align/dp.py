"""Dynamic programming over beads inside a band of cells, and the coarse-to-fine band.

A bead ``(a, b)`` joins ``a`` consecutive source and ``b`` consecutive target sentences
(``(1, 0)``/``(0, 1)``: a deletion/insertion). ``band_dp`` finds the cheapest path from
``(0, 0)`` to ``(n, m)`` whose cells stay inside a band (per source row ``i``, the target
positions ``lo[i]..hi[i]``); with the full band it is the exact DP. Its cost per row is one
vectorised step per bead type, so time and memory are ``O(n · width)``.

``coarse_to_fine_band`` is Vecalign's approximation (Thompson & Koehn 2019): align copies of
both documents with pairs of sentences averaged together (recursively, until a full DP is
small), project that path onto the finer level and search only a band of ``±width`` cells
around it. Each level costs linear time, so the whole search is linear in length.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from xlsearch.engine.progress import CancelToken

BeadType = tuple[int, int]
CostFn = Callable[[int, int, int, np.ndarray], np.ndarray]
"""``cost(a, b, i, js)``: costs of beads ``(a, b)`` ending at source ``i`` and targets ``js``
(source run ``[i-a, i)``, target runs ``[j-b, j)``); ``a, b >= 1``."""


def bead_types(max_side: int = 4, max_total: int = 5) -> list[BeadType]:
    """``(1, 0)``, ``(0, 1)`` and every ``(a, b)`` with ``1 <= a, b <= max_side`` and
    ``a + b <= max_total``, smallest first."""
    types: list[BeadType] = [(1, 0), (0, 1)]
    pairs = [
        (a, b)
        for a in range(1, max_side + 1)
        for b in range(1, max_side + 1)
        if a + b <= max(2, max_total)
    ]
    return types + sorted(pairs, key=lambda t: (t[0] + t[1], t))


def full_band(n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The band of every cell (exact DP)."""
    return np.zeros(n + 1, dtype=np.int64), np.full(n + 1, m, dtype=np.int64)


def band_dp(
    n: int,
    m: int,
    types: Sequence[BeadType],
    cost: CostFn,
    del_cost: float,
    lo: np.ndarray,
    hi: np.ndarray,
    cancel: CancelToken | None = None,
) -> list[tuple[int, int, int, int, float]]:
    """The cheapest bead path inside the band: ``[(i0, i1, j0, j1, cost), …]`` in order
    (source ``[i0, i1)`` aligned with target ``[j0, j1)``)."""
    lo = np.asarray(lo, dtype=np.int64)
    hi = np.asarray(hi, dtype=np.int64)
    if lo[0] != 0 or hi[n] != m:
        raise ValueError("the band must contain (0, 0) and (n, m)")
    ins = types.index((0, 1)) if (0, 1) in types else -1
    rows: list[np.ndarray] = []
    back: list[np.ndarray] = []
    steps: list[np.ndarray] = []
    for i in range(n + 1):
        if cancel is not None and i % 256 == 0:
            cancel.raise_if_cancelled()
        lo_i, hi_i = int(lo[i]), int(hi[i])
        js = np.arange(lo_i, hi_i + 1)
        best = np.full(len(js), np.inf)
        arg = np.full(len(js), -1, dtype=np.int16)
        step = np.zeros(len(js))
        if i == 0 and lo_i == 0:
            best[0] = 0.0
        for t, (a, b) in enumerate(types):
            if a == 0 or a > i:
                continue
            prev_lo, prev_hi = int(lo[i - a]), int(hi[i - a])
            pj = js - b
            ok = (pj >= prev_lo) & (pj <= prev_hi)
            if not ok.any():
                continue
            sel = np.flatnonzero(ok)
            prev = rows[i - a][pj[sel] - prev_lo]
            fin = np.isfinite(prev)
            sel, prev = sel[fin], prev[fin]
            if not len(sel):
                continue
            c = np.full(len(sel), del_cost) if b == 0 else cost(a, b, i, js[sel])
            cand = prev + c
            better = cand < best[sel]
            upd = sel[better]
            best[upd] = cand[better]
            arg[upd] = t
            step[upd] = c[better]
        if ins >= 0 and len(js) > 1:  # runs of insertions within the row: a running minimum
            k = np.arange(len(js)) * del_cost
            scanned = np.minimum.accumulate(best - k) + k
            moved = scanned < best - 1e-12
            best = np.where(moved, scanned, best)
            arg[moved] = ins
            step[moved] = del_cost
        rows.append(best)
        back.append(arg)
        steps.append(step)
    if not np.isfinite(rows[n][m - int(lo[n])]):
        raise ValueError("no path inside the band")
    path = []
    i, j = n, m
    while i > 0 or j > 0:
        t = int(back[i][j - int(lo[i])])
        a, b = types[t]
        path.append((i - a, i, j - b, j, float(steps[i][j - int(lo[i])])))
        i, j = i - a, j - b
    return path[::-1]


def path_band(
    path: Sequence[tuple[int, int, int, int, float]],
    n: int,
    m: int,
    scale: tuple[float, float],
    width: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The band at a finer level: every cell of the coarse path's beads, scaled by
    ``scale`` (fine sentences per coarse one, per side), widened by ``width`` cells."""
    sx, sy = scale
    lo = np.full(n + 1, m, dtype=np.int64)
    hi = np.zeros(n + 1, dtype=np.int64)
    for i0, i1, j0, j1, _ in path:
        r0, r1 = int(i0 * sx), min(n, int(np.ceil(i1 * sx)))
        c0, c1 = int(j0 * sy), min(m, int(np.ceil(j1 * sy)))
        lo[r0 : r1 + 1] = np.minimum(lo[r0 : r1 + 1], c0)
        hi[r0 : r1 + 1] = np.maximum(hi[r0 : r1 + 1], c1)
    rows = np.arange(n + 1)
    # widen: a cell (i, j) is in the band if the path passes within `width` rows/columns
    lo_w = np.array([lo[max(0, r - width) : r + width + 1].min() for r in rows]) - width
    hi_w = np.array([hi[max(0, r - width) : r + width + 1].max() for r in rows]) + width
    lo_w = np.clip(lo_w, 0, m)
    hi_w = np.clip(hi_w, 0, m)
    lo_w[0], hi_w[n] = 0, m
    lo_w = np.minimum(lo_w, hi_w)
    return lo_w, hi_w


def downsample(vecs: np.ndarray) -> np.ndarray:
    """Pairs of consecutive rows averaged and re-normalised (the last row alone if odd)."""
    n = len(vecs)
    half = (n + 1) // 2
    out = np.zeros((half, vecs.shape[1]), dtype=np.float32)
    np.add.at(out, np.arange(n) // 2, vecs)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(norms, 1e-9)
