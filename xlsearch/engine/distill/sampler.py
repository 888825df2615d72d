"""A deterministic, resumable stream of training pairs drawn roughly equally from each group.

Each round takes ``weight`` pairs from every group (file × translation column) in turn —
smaller groups are repeated, as in Reimers & Gurevych 2020 — each group walking through
its own seeded permutation, reshuffled on every pass. Example ``e`` of the stream is a pure
function of (seed, e), so resuming at step ``s`` replays exactly the same data order.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


class PairStream:
    """Maps global example numbers to (group, index-in-group)."""

    def __init__(self, sizes: list[int], weights: list[int], seed: int = 0) -> None:
        if not sizes or min(sizes) < 1:
            raise ValueError("every group needs at least one pair")
        self.sizes = np.asarray(sizes, dtype=np.int64)
        self.weights = np.asarray(weights, dtype=np.int64)
        self.seed = seed
        self.round = int(self.weights.sum())
        self._slot_group = np.repeat(np.arange(len(sizes)), self.weights)
        self._slot_start = np.concatenate([[0], np.cumsum(self.weights)[:-1]])
        self._perm = lru_cache(maxsize=256)(self._permutation)

    def _permutation(self, group: int, pass_no: int) -> np.ndarray:
        rng = np.random.default_rng([self.seed, group, pass_no])
        return rng.permutation(int(self.sizes[group]))

    def epoch_of(self, examples: int) -> float:
        """Passes made over the least-visited group (the largest relative to its weight)."""
        rounds = examples / self.round
        return float((rounds * self.weights / self.sizes).min())

    def take(self, start: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """(groups, indices) of examples ``start … start+count-1``."""
        e = np.arange(start, start + count, dtype=np.int64)
        rnd, slot = np.divmod(e, self.round)
        groups = self._slot_group[slot]
        k = rnd * self.weights[groups] + (slot - self._slot_start[groups])
        pass_no, pos = np.divmod(k, self.sizes[groups])
        idx = np.empty(count, dtype=np.int64)
        for g, p in set(zip(groups.tolist(), pass_no.tolist(), strict=True)):
            sel = (groups == g) & (pass_no == p)
            idx[sel] = self._perm(g, p)[pos[sel]]
        return groups, idx
