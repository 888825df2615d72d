"""Hand corrections of an alignment: merge, split and shift beads (the Align screen's keys).

Every operation returns a new bead list that still covers both documents in order, each
sentence exactly once; an edited bead is marked as checked (not flagged) and loses its
model score. An operation that does not apply returns the list unchanged.
"""

from __future__ import annotations

from xlsearch.engine.align.beads import Bead


def _bead(src: tuple[int, ...], tgt: tuple[int, ...]) -> Bead:
    return Bead(src, tgt, 0.0, 0.0, flagged=not (src and tgt))


def merge(beads: list[Bead], k: int) -> list[Bead]:
    """Join bead ``k`` with bead ``k + 1``."""
    if not 0 <= k < len(beads) - 1:
        return beads
    a, b = beads[k], beads[k + 1]
    return [*beads[:k], _bead(a.src + b.src, a.tgt + b.tgt), *beads[k + 2 :]]


def split(beads: list[Bead], k: int) -> list[Bead]:
    """Split bead ``k`` after its first sentence on each side (a 1–1 then the rest; a 1–1
    becomes a deletion and an insertion)."""
    if not 0 <= k < len(beads):
        return beads
    bead = beads[k]
    if len(bead.src) + len(bead.tgt) < 2:
        return beads
    if len(bead.src) == 1 and len(bead.tgt) == 1:
        parts = [_bead(bead.src, ()), _bead((), bead.tgt)]
    else:
        first = (bead.src[:1], bead.tgt[:1])
        rest = (bead.src[1:], bead.tgt[1:])
        parts = [_bead(*first), _bead(*rest)]
    return [*beads[:k], *(p for p in parts if p.src or p.tgt), *beads[k + 1 :]]


def shift(beads: list[Bead], k: int, side: str, direction: int) -> list[Bead]:
    """Move one sentence of ``side`` (``src``/``tgt``) across the border of bead ``k``:
    ``direction`` +1 moves its last sentence to the next bead, -1 pulls the next bead's
    first sentence into bead ``k``. A bead left with no sentences disappears."""
    if not 0 <= k < len(beads) - 1 or side not in ("src", "tgt") or direction not in (1, -1):
        return beads
    here, there = beads[k], beads[k + 1]
    mine, theirs = getattr(here, side), getattr(there, side)
    if direction == 1:
        if not mine:
            return beads
        mine, theirs = mine[:-1], (mine[-1], *theirs)
    else:
        if not theirs:
            return beads
        mine, theirs = (*mine, theirs[0]), theirs[1:]
    if side == "src":
        new = [_bead(mine, here.tgt), _bead(theirs, there.tgt)]
    else:
        new = [_bead(here.src, mine), _bead(there.src, theirs)]
    return [*beads[:k], *(b for b in new if b.src or b.tgt), *beads[k + 2 :]]


def accept(beads: list[Bead], k: int) -> list[Bead]:
    """Mark bead ``k`` as checked (clears its low-confidence flag)."""
    if not 0 <= k < len(beads):
        return beads
    b = beads[k]
    return [*beads[:k], Bead(b.src, b.tgt, b.cost, b.score, False), *beads[k + 1 :]]
