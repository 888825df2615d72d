"""Dynamic programming over beads inside a band of cells, and the coarse-to-fine band.

A bead ``(a, b)`` joins ``a`` consecutive source and ``b`` consecutive target sentences
(``(1, 0)``/``(0, 1)``: a deletion/insertion). ``band_dp`` finds the cheapest path from
``(0, 0)`` to ``(n, m)`` whose cells stay inside a band (per source row ``i``, the target
positions ``lo[i]..hi[i]``); with the full band it is the exact DP. Deletions and
insertions may cost less when they continue a run of them (affine gaps: three states per
cell). Each row is a few vectorised steps over every bead type at once, so time and memory
are ``O(n · width)``.

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
    extend: float | tuple[np.ndarray, np.ndarray] | None = None,
    margins: list[tuple[int, np.ndarray]] | None = None,
    totals: list[tuple[int, np.ndarray]] | None = None,
) -> list[tuple[int, int, int, int, float]]:
    """The cheapest bead path inside the band: ``[(i0, i1, j0, j1, cost), …]`` in order
    (source ``[i0, i1)`` aligned with target ``[j0, j1)``). ``del_cost``: one cost for every
    deletion/insertion, or per sentence (an array for each side). ``extend``: the cost of a
    deletion (insertion) that directly follows another one, in the same forms — affine gaps
    as in sequence alignment, so a block of captions or a footnote the other document lacks
    costs one opening and cheaper extensions; None: every one costs ``del_cost``. The band
    must contain ``(0, 0)`` and ``(n, m)``, one contiguous run of cells per row.

    Three states per cell (Gotoh 1982): the path ends with a bead of both sides (``M``), a
    deletion (``X``) or an insertion (``Y``). Rows go by blocks of ``BLOCK``: the block's
    cells live in one dense table of ``min(M, X, Y)`` (its rows and the ``max_side`` rows
    before it, its columns and ``max_side`` before them) and each row is one gather of every
    bead type's predecessor (a ``(types, columns)`` fancy index), one ``argmin``, the
    deletions from the row above, and a running minimum for runs of insertions — a few numpy
    calls per row whatever the number of bead types.

    ``margins``: a list that receives, per block of rows, ``(first column, margin table)``:
    at every cell, how much more than the best the second-best way to reach it costs (another
    last bead, or a gap instead of a bead) — small where two paths nearly tie
    (``cell_margin``). ``totals``: a list that receives, per block of rows, ``(first column,
    table)``: the cost of the cheapest way to reach each cell (``inf`` outside the band)."""
    del_src, del_tgt = _per_sentence(del_cost, n, m)
    ext_src, ext_tgt = (del_src, del_tgt) if extend is None else _per_sentence(extend, n, m)
    # ext_csum[j]: cost of extending an insertion run over target sentences 0..j-1
    ext_csum = np.concatenate([[0.0], np.cumsum(ext_tgt)])
    lo = np.asarray(lo, dtype=np.int64)
    hi = np.asarray(hi, dtype=np.int64)
    if lo[0] != 0 or hi[n] != m:
        raise ValueError("the band must contain (0, 0) and (n, m)")
    steps = [t for t, (a, b) in enumerate(types) if a >= 1 and b >= 1]
    step_a = np.array([types[t][0] for t in steps], dtype=np.int64)
    step_b = np.array([types[t][1] for t in steps], dtype=np.int64)
    step_code = np.array(steps, dtype=np.int8)
    gaps = (1, 0) in types, (0, 1) in types
    pad_r, pad_c = int(step_a.max(initial=1)), int(step_b.max(initial=1))
    # per block: first column, then per cell: the best state (0 M, 1 X, 2 Y), M's bead
    # type, how X and Y were reached (0: opened after M, 1: opened after Y/X, 2: extended)
    # and M's step cost
    backs: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    tail = np.full((pad_r, 1), np.inf)  # min(M, X, Y) of the rows before the block
    tail_c0 = 0
    # the row above (absolute columns from above_c0): min(M, Y), whether Y was lower, X
    above_c0, above_open, above_from_y, above_x = 0, np.full(1, np.inf), np.zeros(1, bool), None
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
            costs[k] = cost(a, b, r0, r1, c0, c1)
        # flat offsets of every type's predecessor for row 0 of the block
        stride = table.shape[1]
        gather = (pad_r - step_a)[:, None] * stride + (
            pad_c + np.arange(width)[None, :] - step_b[:, None]
        )
        flat = table.reshape(-1)
        shape = (r1 - r0, width)
        state, back = np.zeros(shape, dtype=np.int8), np.zeros(shape, dtype=np.int8)
        how_x, how_y = np.zeros(shape, dtype=np.int8), np.zeros(shape, dtype=np.int8)
        paid = np.zeros(shape, dtype=np.float64)
        margin = np.full(shape, np.inf, dtype=np.float32) if margins is not None else None
        columns = np.arange(width)
        open_t = del_tgt[np.minimum(np.arange(c0, c1), max(m - 1, 0))] if m else np.zeros(width)
        above = _shift(above_open, above_c0, c0, width), _shift(above_x, above_c0, c0, width)
        from_y = _shift(above_from_y.astype(float), above_c0, c0, width) > 0.5
        for r in range(r1 - r0):
            i = r0 + r
            lo_i, hi_i = int(lo[i]) - c0, int(hi[i]) - c0
            if len(steps):
                cand = flat[gather + r * stride] + costs[:, r, :]
                pick = cand.argmin(axis=0)
                mm = cand[pick, columns]
                back[r] = step_code[pick]
                paid[r] = costs[pick, r, columns]
            else:
                mm = np.full(width, np.inf)
            if i == 0:
                mm[0 - c0] = 0.0
            xx = np.full(width, np.inf)
            if i >= 1 and gaps[0]:  # a deletion of source sentence i-1 from the row above
                opened = above[0] + del_src[i - 1]
                extended = above[1] + ext_src[i - 1]
                xx = np.minimum(opened, extended)
                how_x[r] = np.where(extended < opened, 2, from_y.astype(np.int8))
            mm[:lo_i], mm[hi_i + 1 :] = np.inf, np.inf
            xx[:lo_i], xx[hi_i + 1 :] = np.inf, np.inf
            yy = np.full(width, np.inf)
            no_y = np.minimum(mm, xx)
            if gaps[1] and hi_i > lo_i:  # runs of insertions within the row: a running min
                seg = slice(lo_i, hi_i + 1)
                csum = ext_csum[lo_i + c0 : hi_i + c0 + 1]
                # a run from column j' to j: open at j', extend over j'+1 … j-1
                start = no_y[seg] + open_t[seg] - np.append(csum[1:], csum[-1])
                run = np.minimum.accumulate(start)
                yy[lo_i + 1 : hi_i + 1] = run[:-1] + csum[1:]
                prev = slice(lo_i, hi_i)
                opened = no_y[prev] + open_t[prev]
                extended = yy[prev] + ext_tgt[np.arange(lo_i, hi_i) + c0]
                how_y[r, lo_i + 1 : hi_i + 1] = np.where(
                    extended < opened, 2, (xx[prev] < mm[prev]).astype(np.int8)
                )
            best = np.minimum(no_y, yy)
            if margin is not None:
                options = (
                    np.vstack([cand, xx[None], yy[None]]) if len(steps) else np.vstack([xx, yy])
                )
                with np.errstate(invalid="ignore"):  # inf - inf outside the band
                    margin[r] = np.partition(options, 1, axis=0)[1] - best
            state[r] = np.where(yy < no_y, 2, (xx < mm).astype(np.int8))
            table[pad_r + r, pad_c:] = best
            above = np.minimum(mm, yy), xx
            from_y = yy < mm
        backs.append((c0, state, back, how_x, how_y, paid))
        if margins is not None and margin is not None:
            margins.append((c0, margin))
        if totals is not None:
            totals.append((c0, table[pad_r:, pad_c:].copy()))
        tail, tail_c0 = table[-pad_r:].copy(), left
        above_c0, above_open, above_from_y, above_x = c0, above[0], from_y, above[1]
        if r1 == n + 1:
            final = float(table[-1, pad_c + m - c0])
    if not np.isfinite(final):
        raise ValueError("no path inside the band")
    return _backtrace(n, m, types, backs, (del_src, del_tgt), (ext_src, ext_tgt))


def cell_margin(margins: list[tuple[int, np.ndarray]], i: int, j: int) -> float:
    """The margin ``band_dp`` recorded at cell ``(i, j)`` (``inf`` outside the band)."""
    c0, table = margins[i // BLOCK]
    c = j - c0
    return float(table[i % BLOCK, c]) if 0 <= c < table.shape[1] else float("inf")


def _per_sentence(
    value: float | tuple[np.ndarray, np.ndarray], n: int, m: int
) -> tuple[np.ndarray, np.ndarray]:
    """One cost for every sentence, or one per sentence of each side, as two arrays."""
    if isinstance(value, tuple):
        return np.asarray(value[0], dtype=np.float64), np.asarray(value[1], dtype=np.float64)
    return np.full(n, float(value)), np.full(m, float(value))


def _shift(values: np.ndarray | None, c0: int, new_c0: int, width: int) -> np.ndarray:
    """``values`` (columns from ``c0``) on the columns ``new_c0 … new_c0 + width - 1``
    (``inf`` where it has none)."""
    out = np.full(width, np.inf)
    if values is None:
        return out
    a0, a1 = max(c0, new_c0), min(c0 + len(values), new_c0 + width)
    if a1 > a0:
        out[a0 - new_c0 : a1 - new_c0] = values[a0 - c0 : a1 - c0]
    return out


def _backtrace(
    n: int,
    m: int,
    types: Sequence[BeadType],
    backs: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
    opens: tuple[np.ndarray, np.ndarray],
    extends: tuple[np.ndarray, np.ndarray],
) -> list[tuple[int, int, int, int, float]]:
    """The path back from ``(n, m)`` through the stored states and choices."""
    path = []
    i, j = n, m
    c0, states, *_ = backs[i // BLOCK]
    now = int(states[i % BLOCK, j - c0])
    while i > 0 or j > 0:
        c0, states, back, how_x, how_y, paid = backs[i // BLOCK]
        r, c = i % BLOCK, j - c0
        if now == 0:
            a, b = types[int(back[r, c])]
            path.append((i - a, i, j - b, j, float(paid[r, c])))
            i, j = i - a, j - b
            c0, states, *_ = backs[i // BLOCK]
            now = int(states[i % BLOCK, j - c0])
        elif now == 1:
            how = int(how_x[r, c])
            path.append((i - 1, i, j, j, float((extends if how == 2 else opens)[0][i - 1])))
            i -= 1
            now = 1 if how == 2 else 2 * how  # opened after M (0) or after Y (1 -> state 2)
        else:
            how = int(how_y[r, c])
            path.append((i, i, j - 1, j, float((extends if how == 2 else opens)[1][j - 1])))
            j -= 1
            now = 2 if how == 2 else how  # opened after M (0) or after X (1)
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
