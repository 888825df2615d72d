"""Dynamic programming over beads inside a band of cells, and the coarse-to-fine band.

A bead ``(a, b)`` joins ``a`` consecutive source and ``b`` consecutive target sentences
(``(1, 0)``/``(0, 1)``: a deletion/insertion). ``band_dp`` finds the cheapest path from
``(0, 0)`` to ``(n, m)`` whose cells stay inside a band (per source row ``i``, the target
positions ``lo[i]..hi[i]``); with the full band it is the exact DP. Each row is a few
vectorised steps over every bead type at once, so time and memory are ``O(n · width)``.

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
    ``(0, 0)`` and ``(n, m)``, one contiguous run of cells per row.

    Rows go by blocks of ``BLOCK``: the block's cells live in one dense table (its rows and
    the ``max_side`` rows before it, its columns and ``max_side`` before them) and each row
    is one gather of every bead type's predecessor (a ``(types, columns)`` fancy index),
    one ``argmin``, and a running minimum for runs of insertions — a few numpy calls per
    row whatever the number of bead types."""
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
    steps = [t for t, (a, _) in enumerate(types) if a >= 1]  # every type but insertion
    step_a = np.array([types[t][0] for t in steps], dtype=np.int64)
    step_b = np.array([types[t][1] for t in steps], dtype=np.int64)
    step_code = np.array(steps, dtype=np.int8)
    pad_r, pad_c = int(step_a.max(initial=1)), int(step_b.max(initial=0))
    # per block: first column, bead type and step cost of every cell (rows, columns)
    backs: list[tuple[int, np.ndarray, np.ndarray]] = []
    tail = np.full((pad_r, 1), np.inf)  # the rows before the block, from column tail_c0
    tail_c0 = 0
    final = np.inf
    for r0 in range(0, n + 1, BLOCK):
        if cancel is not None:
            cancel.raise_if_cancelled()
        r1 = min(n + 1, r0 + BLOCK)
        c0, c1 = int(lo[r0:r1].min()), int(hi[r0:r1].max()) + 1
        width = c1 - c0
        # table[pad_r + r, pad_c + c]: cell (r0 + r, c0 + c); earlier rows/columns above/left
        table = np.full((pad_r + r1 - r0, pad_c + width), np.inf)
        left = c0 - pad_c  # absolute column of table column 0
        a0, a1 = max(left, tail_c0), min(c1, tail_c0 + tail.shape[1])
        if a1 > a0:
            table[:pad_r, a0 - left : a1 - left] = tail[:, a0 - tail_c0 : a1 - tail_c0]
        costs = np.empty((len(steps), r1 - r0, width))
        for k, t in enumerate(steps):
            a, b = types[t]
            if b == 0:
                rows = np.arange(r0, r1)
                costs[k] = np.where(rows >= 1, del_src[np.maximum(rows - 1, 0)], np.inf)[:, None]
            else:
                costs[k] = cost(a, b, r0, r1, c0, c1)
        # flat offsets of every type's predecessor for row 0 of the block
        stride = table.shape[1]
        gather = (pad_r - step_a)[:, None] * stride + (
            pad_c + np.arange(width)[None, :] - step_b[:, None]
        )
        flat = table.reshape(-1)
        back = np.empty((r1 - r0, width), dtype=np.int8)
        paid = np.empty((r1 - r0, width), dtype=np.float64)
        columns = np.arange(width)
        for r in range(r1 - r0):
            i = r0 + r
            cand = flat[gather + r * stride] + costs[:, r, :]
            pick = cand.argmin(axis=0)
            best = cand[pick, columns]
            arg = step_code[pick]
            paid[r] = costs[pick, r, columns]
            if i == 0:
                best[0 - c0], arg[0 - c0] = 0.0, -1
            lo_i, hi_i = int(lo[i]) - c0, int(hi[i]) - c0
            best[:lo_i] = np.inf
            best[hi_i + 1 :] = np.inf
            if ins >= 0 and hi_i > lo_i:  # runs of insertions within the row: a running min
                seg = best[lo_i : hi_i + 1]
                k = ins_csum[lo_i + c0 : hi_i + c0 + 1]
                scanned = np.minimum.accumulate(seg - k) + k
                moved = scanned < seg - 1e-12
                seg[moved] = scanned[moved]
                arg[lo_i : hi_i + 1][moved] = ins
                paid[r, lo_i : hi_i + 1][moved] = del_tgt[np.arange(lo_i, hi_i + 1)[moved] + c0 - 1]
            table[pad_r + r, pad_c:] = best
            back[r] = arg
        backs.append((c0, back, paid))
        tail, tail_c0 = table[-pad_r:].copy(), left
        if r1 == n + 1:
            final = float(table[-1, pad_c + m - c0])
    if not np.isfinite(final):
        raise ValueError("no path inside the band")
    path = []
    i, j = n, m
    while i > 0 or j > 0:
        c0, back, paid = backs[i // BLOCK]
        a, b = types[int(back[i % BLOCK, j - c0])]
        path.append((i - a, i, j - b, j, float(paid[i % BLOCK, j - c0])))
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
    out = vecs[: n - n % 2].reshape(n // 2, 2, -1).sum(axis=1, dtype=np.float32)
    if n % 2:
        out = np.concatenate([out, vecs[-1:].astype(np.float32)])
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(norms, 1e-9)
