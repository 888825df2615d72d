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
CostFn = Callable[[int, int, int, int, int, int], np.ndarray]
"""``cost(a, b, i0, i1, j0, j1)``: the ``(i1 - i0, j1 - j0)`` costs of beads ``(a, b)`` (both
``>= 1``) ending at source ``i`` and target ``j`` for every ``i0 <= i < i1``, ``j0 <= j < j1``
(source run ``[i-a, i)``, target run ``[j-b, j)``); ``inf`` where a run would start before 0."""
BLOCK = 64
"""Source rows whose costs are computed together (one matrix product per bead type)."""


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
    del_cost: float | tuple[np.ndarray, np.ndarray],
    lo: np.ndarray,
    hi: np.ndarray,
    cancel: CancelToken | None = None,
) -> list[tuple[int, int, int, int, float]]:
    """The cheapest bead path inside the band: ``[(i0, i1, j0, j1, cost), …]`` in order
    (source ``[i0, i1)`` aligned with target ``[j0, j1)``). ``del_cost``: one cost for every
    deletion/insertion, or per sentence (an array for each side). The band must contain
    ``(0, 0)`` and ``(n, m)``, one contiguous run of cells per row."""
    if isinstance(del_cost, tuple):
        del_src, del_tgt = (np.asarray(d, dtype=np.float64) for d in del_cost)
    else:
        del_src, del_tgt = np.full(n, float(del_cost)), np.full(m, float(del_cost))
    # ins_csum[j]: cost of inserting target sentences 0..j-1
    ins_csum = np.concatenate([[0.0], np.cumsum(del_tgt)])
    lo = np.asarray(lo, dtype=np.int64)
    hi = np.asarray(hi, dtype=np.int64)
    if lo[0] != 0 or hi[n] != m:
        raise ValueError("the band must contain (0, 0) and (n, m)")
    ins = types.index((0, 1)) if (0, 1) in types else -1
    rows: list[np.ndarray] = []
    back: list[np.ndarray] = []
    for r0 in range(0, n + 1, BLOCK):
        if cancel is not None:
            cancel.raise_if_cancelled()
        r1 = min(n + 1, r0 + BLOCK)
        c0, c1 = int(lo[r0:r1].min()), int(hi[r0:r1].max()) + 1
        blocks = {t: cost(a, b, r0, r1, c0, c1) for t, (a, b) in enumerate(types) if a and b}
        for i in range(r0, r1):
            lo_i, hi_i = int(lo[i]), int(hi[i])
            best = np.full(hi_i - lo_i + 1, np.inf)
            arg = np.full(hi_i - lo_i + 1, -1, dtype=np.int8)
            if i == 0:
                best[0] = 0.0
            for t, (a, b) in enumerate(types):
                if a == 0 or a > i:
                    continue
                prev_lo, prev_hi = int(lo[i - a]), int(hi[i - a])
                j0, j1 = max(lo_i, prev_lo + b), min(hi_i, prev_hi + b)
                if j0 > j1:
                    continue
                prev = rows[i - a][j0 - b - prev_lo : j1 - b - prev_lo + 1]
                if b == 0:
                    cand = prev + del_src[i - 1]
                else:
                    cand = prev + blocks[t][i - r0, j0 - c0 : j1 - c0 + 1]
                cur = best[j0 - lo_i : j1 - lo_i + 1]
                better = cand < cur
                cur[better] = cand[better]
                arg[j0 - lo_i : j1 - lo_i + 1][better] = t
            if ins >= 0 and len(best) > 1:  # runs of insertions within the row: a running min
                k = ins_csum[lo_i : hi_i + 1]
                scanned = np.minimum.accumulate(best - k) + k
                moved = scanned < best - 1e-12
                best[moved] = scanned[moved]
                arg[moved] = ins
            rows.append(best)
            back.append(arg)
    if not np.isfinite(rows[n][m - int(lo[n])]):
        raise ValueError("no path inside the band")
    path = []
    i, j = n, m
    while i > 0 or j > 0:
        a, b = types[int(back[i][j - int(lo[i])])]
        if b == 0:
            step = float(del_src[i - 1])
        elif a == 0:
            step = float(del_tgt[j - 1])
        else:
            step = float(cost(a, b, i, i + 1, j, j + 1)[0, 0])
        path.append((i - a, i, j - b, j, step))
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
    # widen: a cell (i, j) is in the band if the path passes within `width` rows/columns
    windows = np.lib.stride_tricks.sliding_window_view
    lo_pad = np.pad(lo, width, constant_values=m)
    hi_pad = np.pad(hi, width, constant_values=0)
    lo_w = windows(lo_pad, 2 * width + 1).min(axis=1) - width
    hi_w = windows(hi_pad, 2 * width + 1).max(axis=1) + width
    lo_w = np.clip(lo_w, 0, m)
    hi_w = np.clip(hi_w, 0, m)
    lo_w[0], hi_w[n] = 0, m
    lo_w = np.minimum.accumulate(lo_w[::-1])[::-1]  # monotone: lo never decreases
    hi_w = np.maximum.accumulate(hi_w)
    return lo_w, hi_w


def downsample(vecs: np.ndarray) -> np.ndarray:
    """Pairs of consecutive rows averaged and re-normalised (the last row alone if odd)."""
    n = len(vecs)
    half = (n + 1) // 2
    out = np.zeros((half, vecs.shape[1]), dtype=np.float32)
    np.add.at(out, np.arange(n) // 2, vecs)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(norms, 1e-9)
