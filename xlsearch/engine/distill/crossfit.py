"""``distill --clean thorough``: misaligned pairs found by cross-fitted quick students.

The rule checks (``qa.clean``) judge a pair by the word translations the pairs teach; a
shifted line whose words are few or shared with its neighbour ("Tom made some coffee." →
"Tom machte Seifenblasen.") passes them. A model judges such pairs, but a student trained on
the very pairs learns them as translations. So the pairs are split in two halves at random;
a quick static student (small vocabulary, a few passes, the teacher vectors the distillation
caches anyway) is trained on each half and scores the *other* half's pairs by a margin, as
LASER filtering does (Artetxe & Schwenk 2019): the pair's cosine less the mean of the best
cosine of its source with another target and of its target with another source (the
difference found more shifted lines than LASER's ratio for as many clean pairs dropped).
The lowest ``MAX_SHARE`` of the pairs are dropped, those below ``MARGIN`` only (their sides
sit closer to other pairs than to each other).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress
from xlsearch.engine.search.margin import margin_fn

MIN_PAIRS = 2000
"""Fewer pairs than this (per language) teach the quick students too little: no check."""
VOCAB_SIZE = 4000
"""Pieces of each quick student's vocabulary."""
STEPS = 120
"""Optimizer steps of each quick student (batch ``BATCH``: ~6 passes over 10,000 pairs)."""
BATCH = 512
MARGIN = 0.0
"""A pair whose margin is below this is misaligned ..."""
MAX_SHARE = 0.0075
"""... at most this share of the pairs, the lowest margins first (a quick student ranks
loose translations low too: measured, the lowest 0.75 % of 17,373 rule-cleaned pairs held
35 of their 98 shifted lines and 95 clean pairs)."""
_CHUNK = 4096


@dataclass
class CrossFitResult:
    """The pairs the cross-fitted students drop (index → why), every pair's margin and the
    seconds it took."""

    why: dict[int, str]
    margin: np.ndarray
    seconds: float


def quick_student(
    src: Sequence[str],
    tgt: Sequence[str],
    vectors: np.ndarray,
    workdir: Path,
    *,
    vocab_size: int = VOCAB_SIZE,
    steps: int = STEPS,
    batch: int = BATCH,
    seed: int = 0,
    cancel: CancelToken | None = None,
) -> Any:
    """A static student trained for ``steps`` on these pairs: both sides towards the teacher
    vector of the source (``vectors``), plus the in-batch contrastive term of the quick
    preset; sparse Adam on the table, AdamW on the head."""
    import torch

    from xlsearch.engine.distill.losses import info_nce
    from xlsearch.engine.distill.students import build_static

    dim = int(vectors.shape[1])
    model = build_static(
        [*src, *tgt], workdir, dim=dim, vocab_size=vocab_size, head="mlp", init="pairs",
        pairs=(list(src), list(tgt), vectors), seed=seed,
    )  # fmt: skip
    model.train()
    table = model.body.embedding.weight
    model.body.embedding.sparse = True
    rest = [p for p in model.parameters() if p is not table]
    opts = [torch.optim.SparseAdam([table], lr=0.005), torch.optim.AdamW(rest, lr=3e-3)]
    rng = np.random.default_rng(seed)
    n = len(src)
    for _ in range(steps):
        if cancel is not None:
            cancel.raise_if_cancelled()
        idx = rng.choice(n, size=min(batch, n), replace=False)
        s = [src[i] for i in idx]
        t = [tgt[i] for i in idx]
        emb = model(model.tokenize(s + t)).float()
        goal = torch.from_numpy(np.asarray(vectors[idx], dtype=np.float32))
        f = torch.nn.functional
        loss = f.mse_loss(emb[: len(s)], goal) + f.mse_loss(emb[len(s) :], goal)
        loss = loss + 0.01 * info_nce(emb[len(s) :], emb[: len(s)], s, 20.0)
        loss.backward()
        for o in opts:
            o.step()
            o.zero_grad(set_to_none=True)
    model.eval()
    return model


def _encode(model: Any, texts: Sequence[str]) -> np.ndarray:
    import torch

    out = []
    with torch.no_grad():
        for start in range(0, len(texts), 1024):
            out.append(model(model.tokenize(list(texts[start : start + 1024]))).float().numpy())
    return np.concatenate(out) if out else np.zeros((0, model.dim), dtype=np.float32)


def pair_margin(s: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Per pair (row i of ``s`` and ``t``, unit vectors): cos(s_i, t_i) less the mean of
    max_{j≠i} cos(s_i, t_j) and max_{j≠i} cos(s_j, t_i)."""
    n = len(s)
    own = np.einsum("ij,ij->i", s, t)
    best_t = np.full(n, -1.0, dtype=np.float32)
    best_s = np.full(n, -1.0, dtype=np.float32)
    for start in range(0, n, _CHUNK):
        sim = s[start : start + _CHUNK] @ t.T  # rows: sources of the chunk, columns: targets
        rows = np.arange(sim.shape[0])
        sim[rows, rows + start] = -1.0
        best_t[start : start + _CHUNK] = sim.max(axis=1)
        np.maximum(best_s, sim.max(axis=0), out=best_s)
    return margin_fn(own, (best_t + best_s) / 2, "distance").astype(np.float32)


def crossfit_drops(
    src: Sequence[str],
    tgt: Sequence[str],
    vectors: np.ndarray,
    workdir: Path,
    *,
    seed: int = 0,
    margin: float | None = None,
    max_share: float | None = None,
    steps: int | None = None,
    vocab_size: int | None = None,
    min_pairs: int | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> CrossFitResult:
    """The misaligned pairs two cross-fitted quick students find (``vectors``: the teacher
    vectors of ``src``); nothing below ``min_pairs`` pairs. Settings left None are the
    module's (``MARGIN``, ``MAX_SHARE``, ``STEPS``, ``VOCAB_SIZE``, ``MIN_PAIRS``)."""
    import time

    t0 = time.perf_counter()
    on_progress = on_progress or no_progress
    n = len(src)
    marg = np.full(n, np.inf, dtype=np.float32)
    margin = MARGIN if margin is None else margin
    max_share = MAX_SHARE if max_share is None else max_share
    if n < (MIN_PAIRS if min_pairs is None else min_pairs):
        return CrossFitResult({}, marg, 0.0)
    order = np.random.default_rng(seed).permutation(n)
    halves = [np.sort(order[: n // 2]), np.sort(order[n // 2 :])]
    for k, (train, score) in enumerate([(halves[0], halves[1]), (halves[1], halves[0])]):
        on_progress(Progress("clean", k, 2, f"cross-fitted student {k + 1} of 2"))
        model = quick_student(
            [src[i] for i in train], [tgt[i] for i in train], np.asarray(vectors[train]),
            workdir / f"half-{k}", vocab_size=vocab_size or VOCAB_SIZE, steps=steps or STEPS,
            seed=seed + k,
            cancel=cancel,
        )  # fmt: skip
        s = _encode(model, [src[i] for i in score])
        t = _encode(model, [tgt[i] for i in score])
        marg[score] = pair_margin(s, t)
    on_progress(Progress("clean", 2, 2, "cross-fitted students"))
    cap = int(math.floor(max_share * n))
    low = [int(i) for i in np.argsort(marg, kind="stable")[:cap] if marg[i] < margin]
    why = {
        i: f"a student trained on the other half of the pairs finds the target closer to "
        f"other pairs than to its source (cosine {marg[i]:+.2f} against the best other pair)"
        for i in low
    }
    return CrossFitResult(why, marg, time.perf_counter() - t0)
