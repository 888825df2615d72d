"""How sure the search is of each bead: the cost of the cheapest alignment without it.

For every bead of the chosen path, the *alternative margin* is how much more the cheapest
alignment that does not contain the bead costs (a min-marginal: forward costs to every cell,
backward costs from every cell, so every bead ``p → q`` of the band gets the cost of the
best alignment through it, ``F(p) + cost + B(q)``). Only alternatives that pass through a
cell the chosen path does not visit count — those that pair some sentence differently
(a shifted boundary, a sentence given to the other neighbour, a split of a merged bead).
Merging neighbouring beads of the path is always nearly as cheap when both are right
(two good 1–1 beads and their 2–2 merge cost about the same), so it says little; a merge
that gives a sentence the path leaves unaligned a partner does count.

A small margin means another way to pair these sentences is nearly as good: the bead is
worth a translator's look. The backward costs come from the same banded search run on
both documents reversed.

A second opinion that does not come from the model: *crossing anchors*. Numbers and names
(capitalised words) are written the same in both languages; one that a bead's source (or
target) has, that its own other side lacks and that the neighbouring bead's other side has
unexplained (the neighbour's own side lacks it) says the boundary between the two beads is
in the wrong place — the cognate cue of early aligners (Simard, Foster & Isabelle 1992).
Both beads are flagged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from xlsearch.engine.align.beads import Bead
from xlsearch.engine.align.dp import BLOCK, band_dp
from xlsearch.engine.align.numbers import numbers_in
from xlsearch.engine.progress import CancelToken

BeadPath = list[tuple[int, int, int, int, float]]
"""A search path: ``(i0, i1, j0, j1, cost)`` per bead."""


class _Reversed:
    """A bead cost on both documents read backwards (the backward pass of the search)."""

    def __init__(self, cost: Any) -> None:
        self.cost, self.n, self.m = cost, cost.n, cost.m

    def __call__(self, a: int, b: int, i0: int, i1: int, j0: int, j1: int) -> np.ndarray:
        # reversed bead (a, b) ending at (i, j) = original bead ending at (n - i + a, m - j + b)
        out = np.full((i1 - i0, j1 - j0), np.inf)
        ri, cj = max(i0, a), max(j0, b)
        if ri >= i1 or cj >= j1:
            return out
        n, m = self.n, self.m
        block = self.cost(a, b, n - i1 + 1 + a, n - ri + 1 + a, m - j1 + 1 + b, m - cj + 1 + b)
        out[ri - i0 :, cj - j0 :] = block[::-1, ::-1]
        return out


def _reverse(value: Any) -> Any:
    """Per-sentence costs (two arrays) read backwards; one number stays as it is."""
    if isinstance(value, tuple):
        return tuple(np.asarray(v)[::-1] for v in value)
    return value


class _Band:
    """Values on the band's cells, row by row (``lo[i] … hi[i]``), looked up by cell."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray) -> None:
        self.lo, self.hi = lo, hi
        self.start = np.concatenate([[0], np.cumsum(hi - lo + 1)])
        self.values = np.full(int(self.start[-1]), np.inf)

    def fill(self, blocks: list[tuple[int, np.ndarray]], reversed_: bool = False) -> None:
        """Copy ``band_dp``'s per-block tables in (``reversed_``: those of the reversed
        documents, cell ``(n - i, m - j)`` giving cell ``(i, j)``)."""
        n = len(self.lo) - 1
        m = int(self.hi[n])
        for k, (c0, table) in enumerate(blocks):
            for r in range(table.shape[0]):
                i = k * BLOCK + r
                row = n - i if reversed_ else i
                lo, hi = int(self.lo[row]), int(self.hi[row])
                if reversed_:  # reversed columns m - hi … m - lo hold columns hi … lo
                    vals = table[r, m - hi - c0 : m - lo - c0 + 1][::-1]
                else:
                    vals = table[r, lo - c0 : hi - c0 + 1]
                self.values[self.start[row] : self.start[row] + len(vals)] = vals

    def at(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Values at cells ``(i, j)`` (``inf`` outside the document or the band)."""
        i, j = np.asarray(i), np.asarray(j)
        out = np.full(i.shape, np.inf)
        n = len(self.lo) - 1
        ok = (i >= 0) & (i <= n)
        ok[ok] &= (j[ok] >= self.lo[i[ok]]) & (j[ok] <= self.hi[i[ok]])
        out[ok] = self.values[self.start[i[ok]] + j[ok] - self.lo[i[ok]]]
        return out


def alternative_margins(
    path: BeadPath,
    cost: Any,
    types: Sequence[tuple[int, int]],
    lo: np.ndarray,
    hi: np.ndarray,
    forward: list[tuple[int, np.ndarray]],
    cap: float,
    cancel: CancelToken | None = None,
) -> np.ndarray:
    """Per bead of ``path``: how much more the cheapest alignment without it costs, among
    alignments that pair some sentence differently (through a cell ``path`` does not
    visit, or giving a sentence it leaves unaligned a partner); ``inf`` where that is
    ``cap`` or more. ``forward``: ``band_dp``'s ``totals`` of the search that found
    ``path`` inside the band ``lo``/``hi``. Exact for beads with both sides; a deletion or
    insertion off the path is priced as one that opens a gap."""
    n, m = cost.n, cost.m
    out = np.full(len(path), np.inf)
    if not path:
        return out
    backward: list[tuple[int, np.ndarray]] = []
    band_dp(
        n,
        m,
        types,
        _Reversed(cost),
        _reverse(cost.del_cost),
        m - hi[::-1],
        m - lo[::-1],
        cancel,
        _reverse(getattr(cost, "ext_cost", None)),
        totals=backward,
    )
    f, b = _Band(lo, hi), _Band(lo, hi)
    f.fill(forward)
    b.fill(backward, reversed_=True)
    best = float(f.at(np.array([n]), np.array([m]))[0])
    slack = f.values + b.values - best  # the cheapest alignment through each cell
    rows = np.repeat(np.arange(n + 1), hi - lo + 1)
    cols = np.arange(len(f.values)) - f.start[rows] + lo[rows]
    near = slack < cap
    qi, qj = rows[near], cols[near]  # the only cells an alternative under the cap visits
    starts = np.array([(p[0], p[2]) for p in path] + [(n, m)])
    keys = starts[:, 0].astype(np.int64) * (m + 1) + starts[:, 1]
    del_src, del_tgt = _per_side(cost.del_cost, n, m)
    edges: list[np.ndarray] = []  # rows of (i0, j0, i1, j1, through-cost - best)
    for a, bb in types:
        pi, pj = qi - a, qj - bb
        fp = f.at(pi, pj)
        keep = np.isfinite(fp) & (fp + b.at(pi, pj) - best < cap)
        if not keep.any():
            continue
        ei, ej, fp = qi[keep], qj[keep], fp[keep]
        if a and bb:
            c = _costs_at(cost, a, bb, ei, ej)
        elif a:
            c = del_src[ei - 1]
        else:
            c = del_tgt[ej - 1]
        through = fp + c + b.at(ei, ej) - best
        ok = through < cap
        edges.append(np.column_stack([ei[ok] - a, ej[ok] - bb, ei[ok], ej[ok], through[ok]]))
    if not edges:
        return out
    e = np.concatenate(edges)
    # a bead joining path beads that all pair sentences already only merges them; one that
    # takes in a sentence the path leaves unaligned pairs it: an alternative
    pos = {int(k): x for x, k in enumerate(keys)}
    merge = np.zeros(len(e), bool)
    gap = np.array([not (p[1] - p[0] and p[3] - p[2]) for p in path] + [False])
    gaps_before = np.concatenate([[0], np.cumsum(gap)])
    for x, (i0, j0, i1, j1, _) in enumerate(e):
        k0 = pos.get(int(i0) * (m + 1) + int(j0))
        k1 = pos.get(int(i1) * (m + 1) + int(j1))
        if k0 is not None and k1 is not None:
            merge[x] = k1 == k0 + 1 or gaps_before[k1] == gaps_before[k0]  # or the bead itself
    e = e[~merge]
    # bead k conflicts with edge p → q unless q <= its start or p >= its end (both sides)
    si, sj = starts[:-1, 0], starts[:-1, 1]
    ti = np.array([p[1] for p in path])
    tj = np.array([p[3] for p in path])
    first = np.maximum(
        np.searchsorted(si, e[:, 2], side="left"), np.searchsorted(sj, e[:, 3], side="left")
    )  # beads from here on start at or after q
    last = np.minimum(
        np.searchsorted(ti, e[:, 0], side="right"), np.searchsorted(tj, e[:, 1], side="right")
    )  # beads before this end at or before p
    for lo_k, hi_k, v in zip(last, first, e[:, 4], strict=True):
        if hi_k > lo_k:
            out[lo_k:hi_k] = np.minimum(out[lo_k:hi_k], v)
    return out


def _per_side(value: Any, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(value, tuple):
        return np.asarray(value[0], dtype=np.float64), np.asarray(value[1], dtype=np.float64)
    return np.full(n, float(value)), np.full(m, float(value))


def _costs_at(cost: Any, a: int, b: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Costs of beads ``(a, b)`` ending at cells ``(i, j)``, a block of rows at a time."""
    out = np.empty(len(i))
    block = i // BLOCK
    for k in np.unique(block):
        sel = block == k
        bi, bj = i[sel], j[sel]
        r0, c0 = int(bi.min()), int(bj.min())
        table = cost(a, b, r0, int(bi.max()) + 1, c0, int(bj.max()) + 1)
        out[sel] = table[bi - r0, bj - c0]
    return out


_WORD = re.compile(r"\w+")


def anchors(text: str) -> set[str]:
    """Tokens written the same in any language: numbers (read as ``numbers.py`` reads them:
    ``8 848`` = ``8848``) and capitalised words of three letters or more (names)."""
    found = {"#" + number for number in numbers_in(text)}
    for word in _WORD.findall(text):
        if len(word) >= 3 and word[0].isupper():
            found.add(word)
    return found


def crossing_anchors(
    beads: Sequence[Bead], src_texts: Sequence[str], tgt_texts: Sequence[str]
) -> np.ndarray:
    """Per bead: whether an anchor ties it to its neighbour across their boundary (a
    number or name on one side of this bead, missing from its other side, and on the
    neighbour's other side without being on the neighbour's own side), in either
    direction. Both beads of such a boundary are marked."""
    src = [anchors(t) for t in src_texts]
    tgt = [anchors(t) for t in tgt_texts]
    sides = [
        (
            set().union(*(src[i] for i in b.src)),
            set().union(*(tgt[j] for j in b.tgt)),
        )
        for b in beads
    ]
    out = np.zeros(len(beads), bool)
    for k in range(len(beads) - 1):
        (s1, t1), (s2, t2) = sides[k], sides[k + 1]
        if (
            ((s1 - t1 - s2) & t2)
            or ((s2 - t2 - s1) & t1)
            or ((t1 - s1 - t2) & s2)
            or ((t2 - s2 - t1) & s1)
        ):
            out[k] = out[k + 1] = True
    return out
