"""A deterministic concept encoder and synthetic sentences for the alignment tests."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence

import numpy as np


class ConceptEncoder:
    """Deterministic tiny encoder: a word and its translation (``de:word``) share a random
    vector; a text is the normalised sum of its words' vectors."""

    id = "test:concepts"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.calls = 0

    @functools.cache  # noqa: B019 - a test helper
    def vector(self, word: str) -> np.ndarray:
        concept = word.split(":", 1)[-1].strip(".").lower()
        seed = int(hashlib.md5(concept.encode()).hexdigest()[:8], 16)
        return np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)

    def encode(self, texts: Sequence[str], *, on_progress=None, cancel=None) -> np.ndarray:  # type: ignore[no-untyped-def]
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for k, text in enumerate(texts):
            if cancel is not None:
                cancel.raise_if_cancelled()
            for word in text.split():
                out[k] += self.vector(word)
            out[k] /= max(float(np.linalg.norm(out[k])), 1e-9)
        return out


def sentence(k: int, words: int = 5) -> str:
    return " ".join(f"w{k}x{i}" for i in range(words)) + "."


def translate(text: str) -> str:
    return " ".join(f"de:{w}" for w in text.split())


def table_cost(table: np.ndarray):  # type: ignore[no-untyped-def]
    """A ``CostFn`` reading bead costs from ``table[a, b, i, j]`` (``inf`` before the start)."""

    def cost(a: int, b: int, i0: int, i1: int, j0: int, j1: int) -> np.ndarray:
        out = table[a, b, i0:i1, j0:j1].copy()
        rows, cols = np.arange(i0, i1), np.arange(j0, j1)
        out[(rows < a)[:, None] | (cols < b)[None, :]] = np.inf
        return out

    return cost
