"""Bead costs: embeddings normalised against random pairs (Vecalign), or sentence lengths
(Gale & Church 1993) as a baseline.

Embedding cost of a bead joining source run ``x`` (``a`` sentences) and target run ``y``
(``b`` sentences), with ``x``, ``y`` the embeddings of the runs (Thompson & Koehn 2019)::

    cost(x, y) = s(a, b) * ((1 - cos(x, y)) / ((r(x) + r(y)) / 2) + w * GC(x, y))
                 - w_num * agree(x, y)

where ``r(x)`` is the mean of ``1 - cos(x, y')`` over the other document's sentences ``y'``
(random pairs; the mean of cosines is one dot product with the mean vector, so every
sentence counts and nothing is sampled). A sentence that resembles everything (a hub, a
number, a title) gets a small ``r`` and so a large cost. ``GC`` is the Gale–Church cost of
the bead (length ratio and bead-type prior), weighted by ``length_weight`` (given sentence
lengths; lengths and meaning err differently, and without the prior the size scaling alone
lets runs grow). ``s(a, b)`` keeps runs from swallowing neighbours: Vecalign uses ``a * b``;
the default ``(a + b) / 2`` lifts strict F1 on the Bleualign dev document from 0.80 to 0.85
(static student) and 0.77 to 0.81 (teacher) — ``a * b`` makes a 2–2 bead cost four 1–1
beads, so crossing translations get split. A deletion/insertion costs ``del_penalty``, by
default a low quantile of the costs of random 1–1 pairs of the two documents (Vecalign's
deletion knob) plus the weighted Gale–Church deletion cost, so it adapts to the model; a
deletion/insertion that continues a run of them costs ``gap_extend`` times that (affine
gaps: a block of captions the other document lacks is one run, not a string of separate
deletions each dearer than being swallowed by a neighbour).
Beads whose meaning cost per sentence pair is above another quantile of random pairs,
beads with an edge sentence that lowers their cosine, beads that another pairing nearly
ties with and beads a number or name crosses into are flagged (``confidence.py``).
``agree`` is the overlap of the numbers in the two runs (``numbers.py``; 0 without numbers).
Paragraphs, where both documents have them, add ``para_penalty`` to a bead that ends a
paragraph on one side only or spans a boundary on either side.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from xlsearch.engine.align.numbers import agreement, run_masks

DEFAULT_QUANTILE_COST = 0.85
"""Deletion/flag cost for documents too short to sample random pairs (the 5 % quantile
measured on the Bleualign dev document: 0.85 static student, 0.83 teacher)."""


@dataclass
class AlignConfig:
    """How the aligner searches and scores (defaults tuned on the Bleualign dev document)."""

    max_side: int = 4
    """Most sentences on one side of a bead (and the longest run that is embedded)."""
    max_total: int = 5
    """Most sentences in a bead, both sides together."""
    del_penalty: float | None = None
    """Cost of leaving one sentence unaligned; None: ``del_quantile`` of random 1–1 costs."""
    del_quantile: float = 0.02
    """Quantile of the costs of random sentence pairs that a deletion costs (0.02: Bleualign
    dev strict F1 0.836 -> 0.854 with the default 128k student, 0.854 -> 0.856 with the 64k
    one, teacher unchanged; synthetic F1 +0.003 — docs/benchmarks.md)."""
    gap_extend: float = 0.7
    """A deletion (insertion) right after another one costs this fraction of a first one
    (affine gaps, as in sequence alignment): what one document has and the other lacks
    comes in runs — photo captions, OCR debris, a footnote block — and with every
    deletion at full price the neighbouring beads swallowed such runs as 1–3/1–4 beads.
    Bleualign dev strict F1 +0.011…0.029 on all four students/teacher, lax 0.982 -> 0.991
    (docs/benchmarks.md); 1.0 = linear gaps. Below ~0.5 runs of gaps undercut real beads."""
    size_penalty: float = 0.02
    """Extra cost per sentence beyond a 1–1 bead."""
    para_penalty: float = 0.5
    """Cost of a bead that disagrees with paragraph boundaries (both documents have them)."""
    size_scale: str = "mean"
    """Multiply a bead's normalised cost by ``(a + b) / 2`` (``mean``), by ``a * b``
    (``product``: Vecalign's scaling, which splits 2–2 and 2–3 beads) or by 1 (``none``)."""
    width: int = 10
    """Half-width of the search band around the coarse path (Vecalign's ``width_over2``)."""
    full_dp_max: int = 300
    """A full (exact) DP when both documents have at most this many sentences."""
    flag_cost: float | None = None
    """Beads costing more than this per sentence pair are flagged; None: the
    ``flag_quantile`` of random 1–1 costs."""
    flag_quantile: float = 0.8
    """Calibrated on Bleualign dev (``bench/align_flags.py``, three models): a bead is flagged
    by its cost only when it costs more than 80 % of random pairs (an unrelated pair); at
    the 5 % quantile the cost flags were no more often wrong than unflagged beads."""
    flag_deletions: bool = False
    """Flag every sentence left unaligned (a deletion or insertion); False (calibrated: on
    Bleualign dev 83–88 % of them were right): only those in a near-tie (``flag_margin``)."""
    flag_alternative: float | None = 0.1
    """A bead is flagged when the cheapest alignment without it that pairs some sentence
    differently (a shifted boundary, a sentence given to the other neighbour or to a
    sentence left unaligned; not a mere merge of neighbouring beads) costs less than this
    much more than the chosen one (``confidence.alternative_margins``; in the cost's units:
    about 1 for a random pair). Calibrated with ``flag_anchors`` and ``flag_gain`` on
    Bleualign dev (``bench/align_flags.py``): flags were right at least half the time and
    found most wrong beads from 0.05 to 0.15 with three models; None: off."""
    flag_anchors: bool = True
    """Flag both beads of a boundary that a number or name crosses (on one side of a bead,
    missing from its other side, and unexplained on the neighbour's other side;
    ``confidence.crossing_anchors``; needs the sentences). On Bleualign dev 77–82 % of
    these beads were wrong."""
    flag_margin: float | None = None
    """Beads are flagged where the search's best and second-best ways to reach the cell
    where they end differ by less than this (a near-tie: a merge or a shifted boundary
    nearly as cheap); None: off. The flag that carries the most information: on Bleualign
    dev about half the near-tie beads are wrong (a sixth of all beads are)."""
    tie_floor: float = 0.3
    """A near-tie flags only beads whose meaning cost is above this share of the flag
    threshold (a near-certain bead ties with its merge into a neighbour: two perfect 1–1
    beads and their 2–2 merge cost the same). On Bleualign dev 0 would flag 3–4 more
    wrong beads and 1–2 right ones per model; kept so a perfect alignment has no flags."""
    flag_gain: float = -0.1
    """A bead of three or more sentences is flagged when dropping its first or last
    sentence on one side would lose less than this much cosine (``EmbeddingCost.edge_gain``;
    below 0: the bead's cosine rises without it — a swallowed unrelated sentence).
    Calibrated on Bleualign dev with ``flag_alternative``: at 0 only a sixth to a quarter
    of these flags were wrong beads."""
    number_weight: float = 0.15
    """Numbers as evidence (given the sentences): a bead whose two sides hold the same
    numbers costs this much less, one whose numbers differ (or appear on one side only) this
    much more, in between by their overlap; beads without numbers are unchanged
    (``numbers.py``). Added after the size scaling: a bead gains nothing by taking in a
    neighbour without numbers. Bleualign dev strict F1 +0.004…0.019 on all four models,
    synthetic F1 unchanged or higher (docs/benchmarks.md); 0 = off."""
    length_weight: float = 0.05
    """Weight of the Gale–Church length cost added to the embedding cost (Bertalign-style
    length penalty; needs sentence lengths). 0 = embeddings only."""
    short_chars: int = 0
    """Sentences shorter than this (characters) cost proportionally less to leave unaligned
    (stray page numbers, OCR debris, captions); 0 = off."""
    runs: str = "average"
    """``average``: a run's vector is the normalised sum of its sentences' embeddings (one
    encoding per sentence); ``encode``: embed each run of sentences as one text (Vecalign;
    ``max_side`` times the encoding work, and no better on the Bleualign dev document)."""


def run_vectors(singles: np.ndarray, max_side: int) -> dict[int, np.ndarray]:
    """Normalised sums of ``a`` consecutive rows for a = 1…max_side (``[a][i]``: rows
    ``i..i+a-1``)."""
    out = {1: singles}
    csum = np.concatenate([np.zeros((1, singles.shape[1])), np.cumsum(singles, axis=0)])
    for a in range(2, max_side + 1):
        if len(singles) < a:
            break
        run = (csum[a:] - csum[:-a]).astype(np.float32)
        out[a] = run / np.maximum(np.linalg.norm(run, axis=1, keepdims=True), 1e-9)
    return out


def boundaries(paragraphs: Sequence[int] | None, n: int) -> np.ndarray | None:
    """``ends[i]``: sentence ``i-1`` ends a paragraph (i = 0…n); None without paragraphs."""
    if paragraphs is None or len(paragraphs) != n or n == 0 or paragraphs[0] == paragraphs[-1]:
        return None
    p = np.asarray(paragraphs)
    ends = np.zeros(n + 1, dtype=bool)
    ends[0] = ends[n] = True
    ends[1:n] = p[1:] != p[:-1]
    return ends


class EmbeddingCost:
    """The normalised embedding cost over runs of sentences of both documents."""

    def __init__(
        self,
        src: dict[int, np.ndarray],
        tgt: dict[int, np.ndarray],
        config: AlignConfig,
        src_ends: np.ndarray | None = None,
        tgt_ends: np.ndarray | None = None,
        src_lengths: Sequence[int] | None = None,
        tgt_lengths: Sequence[int] | None = None,
        src_numbers: np.ndarray | None = None,
        tgt_numbers: np.ndarray | None = None,
    ) -> None:
        self.src, self.tgt, self.config = src, tgt, config
        self.numbers: tuple[dict[int, np.ndarray], dict[int, np.ndarray]] | None = None
        if config.number_weight and src_numbers is not None and tgt_numbers is not None:
            self.numbers = (
                run_masks(src_numbers, config.max_side),
                run_masks(tgt_numbers, config.max_side),
            )
        self.n, self.m = len(src[1]), len(tgt[1])
        src_mean = src[1].mean(axis=0) if self.n else np.zeros(src[1].shape[1])
        tgt_mean = tgt[1].mean(axis=0) if self.m else np.zeros(tgt[1].shape[1])
        self.src_r = {a: 1.0 - v @ tgt_mean for a, v in src.items()}
        self.tgt_r = {b: 1.0 - v @ src_mean for b, v in tgt.items()}
        sample = self._random_costs()
        q = (
            np.quantile(sample, [config.del_quantile, config.flag_quantile])
            if len(sample)
            else [DEFAULT_QUANTILE_COST, DEFAULT_QUANTILE_COST]
        )
        base = config.del_penalty if config.del_penalty is not None else float(q[0])
        self.lengths: LengthCost | None = None
        if config.length_weight > 0 and src_lengths is not None and tgt_lengths is not None:
            self.lengths = LengthCost(src_lengths, tgt_lengths)
            base += config.length_weight * self.lengths.del_cost
        self.del_cost: float | tuple[np.ndarray, np.ndarray] = base
        if config.short_chars > 0 and src_lengths is not None and tgt_lengths is not None:
            self.del_cost = (
                base * np.clip(np.asarray(src_lengths) / config.short_chars, 0.1, 1.0),
                base * np.clip(np.asarray(tgt_lengths) / config.short_chars, 0.1, 1.0),
            )
        self.ext_cost: float | tuple[np.ndarray, np.ndarray] = (
            tuple(d * config.gap_extend for d in self.del_cost)  # type: ignore[assignment]
            if isinstance(self.del_cost, tuple)
            else self.del_cost * config.gap_extend
        )
        self.flag_cost = config.flag_cost if config.flag_cost is not None else float(q[1])
        both = src_ends is not None and tgt_ends is not None
        self.src_ends = src_ends if both else None
        self.tgt_ends = tgt_ends if both else None
        if src_ends is not None and tgt_ends is not None:
            self.src_csum = np.concatenate([[0], np.cumsum(src_ends[1:])])  # ends[1..k]
            self.tgt_csum = np.concatenate([[0], np.cumsum(tgt_ends[1:])])

    def _random_costs(self, size: int = 4000) -> np.ndarray:
        """Costs of random 1–1 pairs far from the diagonal (so almost surely not
        translations of each other); empty for documents too short to have enough of them.
        A fixed seed: the same documents always align the same way."""
        if self.n * self.m < 400:
            return np.zeros(0)
        rng = np.random.default_rng(0)
        i = rng.integers(0, self.n, size)
        j = rng.integers(0, self.m, size)
        far = np.abs(i / self.n - j / self.m) >= 0.2
        i, j = i[far], j[far]
        if len(i) < 100:
            return np.zeros(0)
        sim = np.einsum("kd,kd->k", self.src[1][i], self.tgt[1][j])
        norm = np.maximum((self.src_r[1][i] + self.tgt_r[1][j]) / 2.0, 1e-3)
        return (1.0 - sim) / norm

    def scale(self, a: int, b: int) -> float:
        """The factor a bead's normalised cost is multiplied by (``size_scale``)."""
        kind = self.config.size_scale
        if kind == "mean":
            return (a + b) / 2.0
        if kind == "product":
            return float(a * b)
        return 1.0

    def meaning_cost(self, a: int, b: int, i: int, j: int) -> float:
        """The normalised embedding cost of one bead, per sentence pair: ``(1 - cos) / norm``
        without the length term or the size scaling (what the flag threshold, a quantile of
        random 1–1 pairs' costs, compares)."""
        norm = (self.src_r[a][i - a] + self.tgt_r[b][j - b]) / 2.0
        return float((1.0 - self.similarity(a, b, i, j)) / max(norm, 1e-3))

    def edge_gain(self, a: int, b: int, i: int, j: int) -> float:
        """How much the bead's weakest edge sentence adds to its cosine: the cosine of source
        run ``[i-a, i)`` with target run ``[j-b, j)`` minus that of the bead without its
        first or last sentence on a side of two or more (the smallest difference; ``inf``
        for a 1–1 bead). Below ``config.flag_gain``: a sentence the bead may have
        swallowed."""
        full = self.similarity(a, b, i, j)
        gains = []
        if a > 1:
            gains += [
                full - self.similarity(a - 1, b, i, j),
                full - self.similarity(a - 1, b, i - 1, j),
            ]
        if b > 1:
            gains += [
                full - self.similarity(a, b - 1, i, j),
                full - self.similarity(a, b - 1, i, j - 1),
            ]
        return min(gains, default=math.inf)

    def similarity(self, a: int, b: int, i: int, j: int) -> float:
        """Cosine of source run ``[i-a, i)`` with target run ``[j-b, j)``."""
        return float(self.tgt[b][j - b] @ self.src[a][i - a])

    def __call__(self, a: int, b: int, i0: int, i1: int, j0: int, j1: int) -> np.ndarray:
        """Costs of beads ``(a, b)`` ending at rows ``i0..i1-1`` and columns ``j0..j1-1``."""
        out = np.full((i1 - i0, j1 - j0), np.inf)
        ri, cj = max(i0, a), max(j0, b)
        if ri >= i1 or cj >= j1 or a not in self.src or b not in self.tgt:
            return out  # no such run (a document shorter than the bead)
        x, y = self.src[a][ri - a : i1 - a], self.tgt[b][cj - b : j1 - b]
        norm = (self.src_r[a][ri - a : i1 - a, None] + self.tgt_r[b][None, cj - b : j1 - b]) / 2
        cost = (1.0 - x @ y.T) / np.maximum(norm, 1e-3)
        if self.lengths is not None:
            cost += self.config.length_weight * self.lengths(a, b, ri, i1, cj, j1)
        cost *= self.scale(a, b)  # meaning and length both: a run's evidence, per sentence
        if self.numbers is not None:
            xs, ys = self.numbers[0][a][ri - a : i1 - a], self.numbers[1][b][cj - b : j1 - b]
            cost -= self.config.number_weight * agreement(xs, ys)
        cost += self.config.size_penalty * (a + b - 2)
        if self.src_ends is not None and self.tgt_ends is not None:
            rows, cols = np.arange(ri, i1), np.arange(cj, j1)
            mismatch = self.src_ends[rows, None] != self.tgt_ends[None, cols]
            spans = (
                self._spans(self.src_csum, rows - a, rows)[:, None]
                | self._spans(self.tgt_csum, cols - b, cols)[None, :]
            )
            cost += self.config.para_penalty * (mismatch | spans)
        out[ri - i0 :, cj - j0 :] = cost
        return out

    @staticmethod
    def _spans(csum: np.ndarray, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
        """Whether each run ``[start, stop)`` contains a paragraph boundary."""
        return (csum[np.maximum(stops - 1, 0)] - csum[starts]) > 0

    def coarser(self) -> EmbeddingCost:
        """The same cost on documents with every two sentences averaged into one."""
        from xlsearch.engine.align.dp import downsample

        side = self.config.max_side
        return EmbeddingCost(
            run_vectors(downsample(self.src[1]), side),
            run_vectors(downsample(self.tgt[1]), side),
            self.config,
        )


class LengthCost:
    """Gale & Church (1993): character lengths only, a Gaussian model of the length ratio."""

    PRIORS = {(1, 1): 0.89, (1, 0): 0.0099 / 2, (0, 1): 0.0099 / 2, (2, 1): 0.089 / 2}
    VARIANCE = 6.8
    flag_cost = 6.0
    """-log probability above which a bead is flagged."""

    def __init__(self, src_lengths: Sequence[int], tgt_lengths: Sequence[int]) -> None:
        self.src = np.concatenate([[0], np.cumsum(src_lengths)]).astype(np.float64)
        self.tgt = np.concatenate([[0], np.cumsum(tgt_lengths)]).astype(np.float64)
        self.ratio = (self.tgt[-1] / self.src[-1]) if self.src[-1] else 1.0
        self.n, self.m = len(src_lengths), len(tgt_lengths)
        self.del_cost = -math.log(self.PRIORS[(1, 0)])

    def coarser(self) -> LengthCost:
        """Every two sentences counted as one (for the coarse-to-fine search)."""
        src, tgt = np.diff(self.src), np.diff(self.tgt)
        return LengthCost(_pairs(src), _pairs(tgt))

    def prior(self, a: int, b: int) -> float:
        """Prior probability of a bead type (1–2 as 2–1; rarer types decay 10× per size)."""
        key = (max(a, b), min(a, b))
        if key in self.PRIORS:
            return self.PRIORS[key]
        return 0.011 / 10 ** max(0, a + b - 4)

    def __call__(self, a: int, b: int, i0: int, i1: int, j0: int, j1: int) -> np.ndarray:
        """-log P(length ratio) - log P(bead type) for beads ending in the block."""
        out = np.full((i1 - i0, j1 - j0), np.inf)
        ri, cj = max(i0, a), max(j0, b)
        if ri >= i1 or cj >= j1:
            return out
        rows, cols = np.arange(ri, i1), np.arange(cj, j1)
        l1 = (self.src[rows] - self.src[rows - a])[:, None]
        l2 = (self.tgt[cols] - self.tgt[cols - b])[None, :]
        mean = (l1 + l2 / self.ratio) / 2.0
        delta = (l1 * self.ratio - l2) / np.sqrt(np.maximum(mean, 1e-3) * self.VARIANCE)
        # -log P(|Z| >= |delta|) for a standard normal Z = -log erfc(|delta| / sqrt 2)
        neg_log_tail = _neg_log_erfc(np.abs(delta) / math.sqrt(2.0))
        out[ri - i0 :, cj - j0 :] = neg_log_tail - math.log(self.prior(a, b))
        return out


_ERFC_COEF = (
    -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
    0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277,
)  # fmt: skip


def _neg_log_erfc(z: np.ndarray) -> np.ndarray:
    """-log erfc(z) for z >= 0, vectorised, without underflow (the Chebyshev fit of
    Press et al., Numerical Recipes §6.2: relative error < 1.2e-7)."""
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.zeros_like(t)
    for c in reversed(_ERFC_COEF):
        poly = poly * t + c
    return -np.log(t) + z * z - poly


def _pairs(lengths: np.ndarray) -> list[int]:
    padded = np.append(lengths, 0) if len(lengths) % 2 else lengths
    return [int(x) for x in padded.reshape(-1, 2).sum(axis=1)]
