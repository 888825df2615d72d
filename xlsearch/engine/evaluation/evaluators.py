"""Evaluators: one contract (encoder → dict of metrics) for each measure the literature uses.

An encoder is anything with ``.encode(list[str]) -> np.ndarray`` returning L2-normalised rows.
Each evaluator encodes every distinct sentence once, reports progress and honours cancel.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from xlsearch.engine.evaluation import metrics as M
from xlsearch.engine.evaluation.readers import MiningSplit, MiningTask, ParallelSet, StsSet
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback


def encode_unique(
    encoder: Any,
    texts: Sequence[str],
    *,
    stage: str = "encode",
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> np.ndarray:
    """Embed ``texts`` encoding each distinct string once; rows follow ``texts``."""
    if cancel is not None:
        cancel.raise_if_cancelled()
    index: dict[str, int] = {}
    rows = np.fromiter((index.setdefault(t, len(index)) for t in texts), dtype=np.int64)
    unique = list(index)
    if not unique:
        return np.zeros((0, int(getattr(encoder, "dim", 0))), dtype=np.float32)
    kwargs: dict[str, Any] = {}
    params = _encode_params(encoder)
    if "on_progress" in params and on_progress is not None:

        def relay(ev: Progress) -> None:
            on_progress(Progress(stage, ev.done, ev.total, "encoding", ev.metrics))

        kwargs["on_progress"] = relay
    if "cancel" in params:
        kwargs["cancel"] = cancel
    emb = np.asarray(encoder.encode(unique, **kwargs), dtype=np.float32)
    if on_progress is not None and "on_progress" not in params:
        on_progress(Progress(stage, len(unique), len(unique), "encoding"))
    if cancel is not None:
        cancel.raise_if_cancelled()
    return emb[rows]


def _encode_params(encoder: Any) -> set[str]:
    try:
        sig = inspect.signature(encoder.encode)
    except (TypeError, ValueError):
        return set()
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return {"on_progress", "cancel"}
    return set(sig.parameters)


class CachingEncoder:
    """Wraps an encoder so a suite of evaluators encodes each distinct sentence only once."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder
        self.cache: dict[str, np.ndarray] = {}
        self._params = _encode_params(encoder)

    @property
    def dim(self) -> int:
        return int(getattr(self.encoder, "dim", 0))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.encoder, name)

    def encode(
        self,
        texts: Sequence[str],
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> np.ndarray:
        """Rows for ``texts``; only sentences not seen before reach the wrapped encoder."""
        todo = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if todo:
            kwargs: dict[str, Any] = {}
            if "on_progress" in self._params and on_progress is not None:
                kwargs["on_progress"] = on_progress
            if "cancel" in self._params:
                kwargs["cancel"] = cancel
            emb = np.asarray(self.encoder.encode(todo, **kwargs), dtype=np.float32)
            self.cache.update(zip(todo, emb, strict=True))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.cache[t] for t in texts])


class Evaluator:
    """Base contract: ``evaluator(encoder, on_progress=None, cancel=None) -> {metric: value}``.

    ``primary_metric`` names the headline figure; ``greater_is_better`` says which way is
    good. After a call, ``details`` holds extra data (per-pair tables, plot coordinates).
    """

    name: str = "evaluator"
    primary_metric: str = "score"
    greater_is_better: bool = True

    def __init__(self) -> None:
        self.details: dict[str, Any] = {}

    def __call__(
        self,
        encoder: Any,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> dict[str, float]:
        raise NotImplementedError

    def _encode(
        self,
        encoder: Any,
        texts: Sequence[str],
        on_progress: ProgressCallback | None,
        cancel: CancelToken | None,
    ) -> np.ndarray:
        return encode_unique(
            encoder, texts, stage=self.name, on_progress=on_progress, cancel=cancel
        )


class MSEEvaluator(Evaluator):
    """MSE ×100 between the student's embeddings of ``targets`` and the teacher's of ``sources``.

    ``teacher`` is an encoder or precomputed teacher embeddings of ``sources``.
    """

    primary_metric = "mse"
    greater_is_better = False

    def __init__(
        self, sources: Sequence[str], targets: Sequence[str], teacher: Any, name: str = "mse"
    ) -> None:
        super().__init__()
        if len(sources) != len(targets):
            raise ValueError("sources and targets must have the same length")
        self.name = name
        self.sources, self.targets = list(sources), list(targets)
        self.teacher = teacher
        self._teacher_emb: np.ndarray | None = (
            np.asarray(teacher, dtype=np.float32) if isinstance(teacher, np.ndarray) else None
        )

    def __call__(
        self,
        encoder: Any,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> dict[str, float]:  # noqa: D102
        if self._teacher_emb is None:
            self._teacher_emb = encode_unique(
                self.teacher, self.sources, stage=f"{self.name} teacher",
                on_progress=on_progress, cancel=cancel,
            )  # fmt: skip
        student = self._encode(encoder, self.targets, on_progress, cancel)
        return {"mse": M.mse_x100(student, self._teacher_emb)}


class TranslationEvaluator(Evaluator):
    """Translation retrieval accuracy (0–100): src→tgt, tgt→src and their mean.

    ``margin=True`` retrieves by ratio margin over ``k`` nearest neighbours instead of cosine.
    """

    primary_metric = "mean"

    def __init__(
        self,
        src: Sequence[str],
        tgt: Sequence[str],
        name: str = "translation",
        *,
        margin: bool = False,
        k: int = 4,
    ) -> None:
        super().__init__()
        if len(src) != len(tgt):
            raise ValueError("src and tgt must have the same length")
        self.src, self.tgt, self.name, self.margin, self.k = list(src), list(tgt), name, margin, k

    @classmethod
    def from_set(cls, data: ParallelSet, **kw: Any) -> TranslationEvaluator:
        return cls(data.src, data.tgt, kw.pop("name", data.name), **kw)

    def __call__(
        self,
        encoder: Any,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> dict[str, float]:  # noqa: D102
        emb = self._encode(encoder, self.src + self.tgt, on_progress, cancel)
        a, b = emb[: len(self.src)], emb[len(self.src) :]
        if self.margin:
            fwd, bwd = M.margin_translation_accuracy(a, b, k=self.k)
        else:
            fwd, bwd = M.translation_accuracy(a, b)
        return {"src2tgt": fwd, "tgt2src": bwd, "mean": (fwd + bwd) / 2.0}


class STSEvaluator(Evaluator):
    """Spearman ×100 (primary) and Pearson ×100 of cosine similarity against gold scores."""

    primary_metric = "spearman"

    def __init__(
        self, s1: Sequence[str], s2: Sequence[str], scores: Sequence[float], name: str = "sts"
    ) -> None:
        super().__init__()
        if not (len(s1) == len(s2) == len(scores)):
            raise ValueError("s1, s2 and scores must have the same length")
        self.s1, self.s2, self.name = list(s1), list(s2), name
        self.scores = np.asarray(scores, dtype=np.float64)

    @classmethod
    def from_set(cls, data: StsSet, **kw: Any) -> STSEvaluator:
        return cls(data.s1, data.s2, data.scores, kw.pop("name", data.name), **kw)

    def cosines(
        self,
        encoder: Any,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> np.ndarray:
        """Cosine similarity of each pair."""
        emb = self._encode(encoder, self.s1 + self.s2, on_progress, cancel)
        return M.pairwise_cosine(emb[: len(self.s1)], emb[len(self.s1) :])

    def __call__(
        self,
        encoder: Any,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> dict[str, float]:  # noqa: D102
        cos = self.cosines(encoder, on_progress, cancel)
        return {
            "spearman": 100.0 * M.spearman(cos, self.scores),
            "pearson": 100.0 * M.pearson(cos, self.scores),
        }


def mine_candidates(
    src: np.ndarray, tgt: np.ndarray, *, k: int = 4
) -> list[tuple[int, int, float]]:
    """Candidate pairs by ratio margin: each source's best target and each target's best source.

    The best partner is searched among the ``k`` nearest neighbours (memory stays bounded).
    Returns ``(src_row, tgt_row, score)`` sorted by score, greedily one-to-one (a row is
    used at most once on each side), as in the BUCC mining recipe — the scoring and
    retrieval of ``engine/search/margin.py``, the same as ``xlsearch mine --retrieval max``.
    """
    from xlsearch.engine.search.margin import select

    if len(src) == 0 or len(tgt) == 0:
        return []
    fwd_sim, fwd_idx = M.knn(src, tgt, k)
    bwd_sim, bwd_idx = M.knn(tgt, src, k)
    c = select(fwd_sim, fwd_idx, bwd_sim, bwd_idx, margin="ratio", retrieval="max")
    return [(int(i), int(j), float(s)) for i, j, s in zip(c.src, c.tgt, c.score, strict=True)]


class MiningEvaluator(Evaluator):
    """Bitext mining: threshold tuned for F1 on ``train``; F1, precision, recall (×100) on test."""

    primary_metric = "f1"

    def __init__(self, task: MiningTask, name: str | None = None, *, k: int = 4) -> None:
        super().__init__()
        self.task, self.name, self.k = task, name or task.name, k

    def _candidates(
        self, split: MiningSplit, encoder: Any, on_progress: Any, cancel: Any
    ) -> list[tuple[str, str, float]]:
        sids, tids = list(split.src), list(split.tgt)
        emb = self._encode(
            encoder, [split.src[i] for i in sids] + [split.tgt[i] for i in tids],
            on_progress, cancel,
        )  # fmt: skip
        cand = mine_candidates(emb[: len(sids)], emb[len(sids) :], k=self.k)
        return [(sids[i], tids[j], s) for i, j, s in cand]

    def __call__(
        self,
        encoder: Any,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> dict[str, float]:  # noqa: D102
        train = self._candidates(self.task.train, encoder, on_progress, cancel)
        gold = self.task.train.gold
        threshold, f1_train, _, _ = M.best_f1_threshold(
            np.array([c[2] for c in train]),
            np.array([(c[0], c[1]) in gold for c in train], dtype=bool),
            len(gold),
        )
        test = self._candidates(self.task.test, encoder, on_progress, cancel)
        predicted = {(a, b) for a, b, s in test if s >= threshold}
        p, r, f = M.prf(predicted, self.task.test.gold)
        self.details = {
            "threshold": threshold,
            "train_f1": 100.0 * f1_train,
            "label": self.task.label,
        }
        return {"f1": 100.0 * f, "precision": 100.0 * p, "recall": 100.0 * r}


class LanguageBiasEvaluator(Evaluator):
    """Language bias (Reimers & Gurevych 2020, §7) and a 2-D PCA of parallel sentences.

    ``pooled``: Spearman ×100 over all STS sets joined in one pool; ``mean_per_set``: mean of
    the per-set Spearmans; ``bias`` = mean_per_set − pooled (≈0: no preference for pairs of
    the same language). ``parallel`` maps a language to row-aligned translations; their PCA
    coordinates go to ``details["pca"]`` (``lang``, ``x``, ``y`` lists) for plotting.
    """

    primary_metric = "bias"
    greater_is_better = False

    def __init__(
        self,
        sets: Sequence[StsSet],
        parallel: Mapping[str, Sequence[str]] | None = None,
        name: str = "language bias",
    ) -> None:
        super().__init__()
        if not sets:
            raise ValueError("language bias needs at least one STS set")
        self.sets, self.parallel, self.name = list(sets), dict(parallel or {}), name

    def __call__(
        self,
        encoder: Any,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> dict[str, float]:  # noqa: D102
        texts: list[str] = []
        for s in self.sets:
            texts += s.s1 + s.s2
        par_langs = list(self.parallel)
        for lang in par_langs:
            texts += list(self.parallel[lang])
        emb = self._encode(encoder, texts, on_progress, cancel)
        pos, cos_all, gold_all, per_set = 0, [], [], {}
        for s in self.sets:
            n = len(s)
            cos = M.pairwise_cosine(emb[pos : pos + n], emb[pos + n : pos + 2 * n])
            pos += 2 * n
            per_set[s.name] = 100.0 * M.spearman(cos, np.asarray(s.scores, dtype=np.float64))
            cos_all.append(cos)
            gold_all.append(np.asarray(s.scores, dtype=np.float64))
        pooled = 100.0 * M.spearman(np.concatenate(cos_all), np.concatenate(gold_all))
        mean = float(np.mean(list(per_set.values())))
        self.details = {"per_set": per_set}
        if par_langs:
            par = emb[pos:]
            coords = M.pca_2d(par)
            labels = [lang for lang in par_langs for _ in self.parallel[lang]]
            self.details["pca"] = {
                "lang": labels,
                "x": [float(v) for v in coords[:, 0]],
                "y": [float(v) for v in coords[:, 1]],
            }
        return {"pooled": pooled, "mean_per_set": mean, "bias": mean - pooled}
