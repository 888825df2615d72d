"""Aligning two documents: embed sentences and runs of sentences, then search beads.

``align_documents`` is the one long job (``on_progress`` + cancel token). Encoding is the
expensive part: it is checkpointed chunk by chunk under the cache folder, keyed by the model
and the texts, so a cancelled alignment resumes where it stopped; the search itself takes
seconds (``dp``).
"""

from __future__ import annotations

import hashlib
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from xlsearch.engine.align.beads import Bead
from xlsearch.engine.align.confidence import alternative_margins, crossing_anchors
from xlsearch.engine.align.cost import (
    AlignConfig,
    EmbeddingCost,
    LengthCost,
    boundaries,
    run_vectors,
)
from xlsearch.engine.align.dp import band_dp, bead_types, cell_margin, full_band, path_band
from xlsearch.engine.align.numbers import number_masks
from xlsearch.engine.errors import ConfigError
from xlsearch.engine.importers.document import SentenceDocument
from xlsearch.engine.models.cards import unseen_languages
from xlsearch.engine.progress import (
    CancelToken,
    Progress,
    ProgressCallback,
    ensure_token,
    no_progress,
)
from xlsearch.engine.runtime.cpu import one_blas_thread

CHUNK = 4096
"""Texts encoded between two checkpoints."""


class TextEncoder(Protocol):
    """What the aligner needs from a model (``engine.encoder.Encoder`` fits)."""

    id: str

    def encode(
        self,
        texts: Sequence[str],
        *,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> np.ndarray: ...


@dataclass
class Alignment:
    """Two documents and the beads that align them."""

    src: SentenceDocument
    tgt: SentenceDocument
    beads: list[Bead]
    model: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    """Wall-clock seconds per stage (encode, search)."""
    anchors: bool = False
    """Whether paragraph boundaries were used as anchors."""
    warnings: list[str] = field(default_factory=list)
    """What the user should know about this alignment (a model that never saw a language)."""

    def texts(self, bead: Bead) -> tuple[str, str]:
        """(source text, target text) of a bead, sentences joined with spaces."""
        return (
            " ".join(self.src.sentences[i] for i in bead.src),
            " ".join(self.tgt.sentences[j] for j in bead.tgt),
        )

    def pairs(self, include_flagged: bool = True) -> list[tuple[str, str, float]]:
        """(source, target, score) of every bead with both sides (memory/TSV rows)."""
        return [
            (*self.texts(b), b.score)
            for b in self.beads
            if b.src and b.tgt and (include_flagged or not b.flagged)
        ]

    @property
    def flagged(self) -> int:
        return sum(b.flagged for b in self.beads)


def run_texts(sentences: Sequence[str], max_side: int) -> list[str]:
    """Every run of 1…max_side consecutive sentences, joined with spaces (runs of size 1
    first, then 2 …)."""
    out: list[str] = []
    for a in range(1, max_side + 1):
        out += [" ".join(sentences[i : i + a]) for i in range(len(sentences) - a + 1)]
    return out


def encode_checkpointed(
    encoder: TextEncoder,
    texts: Sequence[str],
    folder: Path | None,
    on_progress: ProgressCallback,
    cancel: CancelToken,
) -> np.ndarray:
    """Encode unique texts in chunks; each finished chunk is saved in ``folder`` (when
    given) and reused by the next call with the same model and texts."""
    unique = list(dict.fromkeys(texts))
    where = {t: k for k, t in enumerate(unique)}
    parts: list[np.ndarray] = []
    total = len(unique)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    for c, start in enumerate(range(0, total, CHUNK)):
        cancel.raise_if_cancelled()
        chunk = unique[start : start + CHUNK]
        saved = folder / f"{c:05d}.npy" if folder is not None else None
        if saved is not None and saved.is_file():
            try:
                vecs = np.load(saved)
                if len(vecs) == len(chunk):
                    parts.append(vecs)
                    on_progress(Progress("encode", start + len(chunk), total, "resumed"))
                    continue
            except (OSError, ValueError):
                pass  # a chunk cut short by a crash: encode it again

        def progress(p: Progress, base: int = start) -> None:
            on_progress(Progress("encode", base + p.done, total))

        vecs = np.asarray(
            encoder.encode(chunk, on_progress=progress, cancel=cancel), dtype=np.float32
        )
        if saved is not None:
            tmp = saved.with_suffix(".tmp.npy")
            np.save(tmp, vecs)
            tmp.replace(saved)
        parts.append(vecs)
        on_progress(Progress("encode", start + len(chunk), total))
    if not parts:
        return np.zeros((len(texts), 1), dtype=np.float32)
    table = np.concatenate(parts)
    return table[[where[t] for t in texts]]


def checkpoint_folder(
    model: str, src: Sequence[str], tgt: Sequence[str], max_side: int, runs: str = "average"
) -> Path:
    """The cache folder of one alignment's encoded texts (sentences, or runs of them)."""
    from xlsearch.engine.runtime.locations import cache_dir

    digest = hashlib.blake2b(digest_size=12)
    key = str(max_side) if runs == "encode" else "sentences"
    for part in (model, key, *src, "\x00", *tgt):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\n")
    return cache_dir() / "align" / digest.hexdigest()


def search(
    cost: Any,
    config: AlignConfig,
    cancel: CancelToken | None = None,
    coarse_level: bool = False,
    margins: list[Any] | None = None,
    totals: list[Any] | None = None,
    band: list[Any] | None = None,
) -> list[Any]:
    """The bead path for ``cost`` (an ``EmbeddingCost``/``LengthCost``): exact DP for short
    documents, else coarse-to-fine within a band (linear time and memory). ``totals``:
    ``band_dp``'s cheapest cost into each cell; ``band``: receives the band's ``lo``, ``hi``
    and bead types."""
    n, m = cost.n, cost.m
    types = bead_types(config.max_side, config.max_total)
    if coarse_level:  # the coarse path only places the band: small beads suffice
        types = bead_types(min(2, config.max_side), min(3, config.max_total))
    del_cost = cost.del_cost
    coarse_ok = hasattr(cost, "coarser") and min(n, m) >= 8
    if max(n, m) <= config.full_dp_max or not coarse_ok:
        lo, hi = full_band(n, m)
    else:
        coarse = cost.coarser()
        coarse_path = search(coarse, config, cancel, coarse_level=True)
        lo, hi = path_band(
            coarse_path, n, m, (n / max(coarse.n, 1), m / max(coarse.m, 1)), config.width
        )
    ext = getattr(cost, "ext_cost", None)
    if band is not None:
        band += [lo, hi, types]
    return band_dp(n, m, types, cost, del_cost, lo, hi, cancel, ext, margins, totals)


def beads_from_path(
    path: list[Any],
    cost: Any,
    config: AlignConfig,
    margins: list[Any] | None = None,
    alternatives: np.ndarray | None = None,
) -> list[Bead]:
    """Beads with cost, cosine score and the low-confidence flag (``alternatives``: each
    bead's ``alternative_margins``)."""
    beads = []
    tie = [False] * len(path)
    if margins and config.flag_margin is not None:  # a near-tie where paths rejoin: both beads
        for k, (_, i1, _, j1, _) in enumerate(path):
            if cell_margin(margins, i1, j1) < config.flag_margin:
                tie[k] = True
                if k:
                    tie[k - 1] = True
    for k, (i0, i1, j0, j1, c) in enumerate(path):
        a, b = i1 - i0, j1 - j0
        score, swallowed, unit = 0.0, False, c
        if a and b and isinstance(cost, EmbeddingCost):
            score = cost.similarity(a, b, i1, j1)
            swallowed = a + b > 2 and cost.edge_gain(a, b, i1, j1) < config.flag_gain
            unit = cost.meaning_cost(a, b, i1, j1)
        # a near-tie counts for beads that are not near-certain on their own (two perfect
        # 1-1 beads and their merge into a 2-2 cost the same: no doubt worth a flag)
        doubt = tie[k] and unit > config.tie_floor * cost.flag_cost
        if alternatives is not None and config.flag_alternative is not None:
            doubt = doubt or bool(alternatives[k] < config.flag_alternative)
        if a and b:
            flagged = unit > cost.flag_cost or swallowed or doubt
        else:  # a sentence left unaligned: flagged when asked, or in a near-tie
            flagged = config.flag_deletions or doubt
        beads.append(Bead(tuple(range(i0, i1)), tuple(range(j0, j1)), c, score, flagged))
    return beads


def align_vectors(
    src: dict[int, np.ndarray],
    tgt: dict[int, np.ndarray],
    config: AlignConfig | None = None,
    src_paragraphs: Sequence[int] | None = None,
    tgt_paragraphs: Sequence[int] | None = None,
    cancel: CancelToken | None = None,
    src_lengths: Sequence[int] | None = None,
    tgt_lengths: Sequence[int] | None = None,
    src_texts: Sequence[str] | None = None,
    tgt_texts: Sequence[str] | None = None,
) -> list[Bead]:
    """Beads aligning two documents given the embeddings of their runs of sentences
    (sentence lengths in characters: the length cost and ``AlignConfig.short_chars``; the
    sentences themselves: their numbers, ``AlignConfig.number_weight``)."""
    config = config or AlignConfig()
    n, m = len(src[1]), len(tgt[1])
    if n == 0 or m == 0:
        return [Bead((i,), ()) for i in range(n)] + [Bead((), (j,)) for j in range(m)]
    numbers = (
        number_masks(src_texts, tgt_texts)
        if src_texts is not None and tgt_texts is not None and config.number_weight
        else (None, None)
    )
    cost = EmbeddingCost(
        src,
        tgt,
        config,
        boundaries(src_paragraphs, n),
        boundaries(tgt_paragraphs, m),
        src_lengths,
        tgt_lengths,
        *numbers,
    )
    margins: list[Any] | None = [] if config.flag_margin is not None else None  # near-ties
    totals: list[Any] | None = [] if config.flag_alternative is not None else None
    band: list[Any] = []
    with one_blas_thread():
        path = search(cost, config, cancel, margins=margins, totals=totals, band=band)
        alternatives = None
        if totals is not None and config.flag_alternative is not None:
            alternatives = alternative_margins(
                path, cost, band[2], band[0], band[1], totals, config.flag_alternative, cancel
            )
        beads = beads_from_path(path, cost, config, margins, alternatives)
    if config.flag_anchors and src_texts is not None and tgt_texts is not None:
        _flag_anchors(beads, src_texts, tgt_texts)
    return beads


def _flag_anchors(beads: list[Bead], src: Sequence[str], tgt: Sequence[str]) -> None:
    """Flag the beads a number or name crosses into a neighbour (``crossing_anchors``)."""
    for bead, crossed in zip(beads, crossing_anchors(beads, src, tgt), strict=True):
        bead.flagged = bead.flagged or bool(crossed)


def align_lengths(
    src: Sequence[str], tgt: Sequence[str], config: AlignConfig | None = None
) -> list[Bead]:
    """Gale–Church: beads from character lengths alone (a baseline; no model)."""
    config = config or AlignConfig()
    if not src or not tgt:
        return [Bead((i,), ()) for i in range(len(src))] + [Bead((), (j,)) for j in range(len(tgt))]
    cost = LengthCost([len(s) for s in src], [len(t) for t in tgt])
    with one_blas_thread():
        beads = beads_from_path(search(cost, config), cost, config)
    if config.flag_anchors:
        _flag_anchors(beads, src, tgt)
    return beads


def align_documents(
    src: SentenceDocument,
    tgt: SentenceDocument,
    encoder: TextEncoder,
    config: AlignConfig | None = None,
    *,
    checkpoint: bool = True,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Alignment:
    """Align two sentence-split documents with ``encoder``; resumable after a cancel."""
    config = config or AlignConfig()
    if config.max_side < 1 or config.max_total < 2:
        raise ConfigError("beads need max_side >= 1 and max_total >= 2")
    if config.size_scale not in ("mean", "product", "none"):
        raise ConfigError(f"size_scale is mean, product or none, not {config.size_scale!r}")
    if not config.gap_extend > 0:
        raise ConfigError(f"gap_extend is a positive factor, not {config.gap_extend!r}")
    if config.runs not in ("average", "encode"):
        raise ConfigError(f"runs is average or encode, not {config.runs!r}")
    on_progress = on_progress or no_progress
    cancel = ensure_token(cancel)
    folder = (
        checkpoint_folder(encoder.id, src.sentences, tgt.sentences, config.max_side, config.runs)
        if checkpoint
        else None
    )
    start = time.monotonic()
    both = _embed_both(encoder, src, tgt, config, folder, on_progress, cancel)
    encoded = time.monotonic()
    on_progress(Progress("align", 0, 1, "searching"))
    beads = align_vectors(
        *both,
        config,
        src.paragraphs,
        tgt.paragraphs,
        cancel,
        [len(s) for s in src.sentences],
        [len(t) for t in tgt.sentences],
        src.sentences,
        tgt.sentences,
    )
    on_progress(Progress("align", 1, 1, f"{len(beads):,} beads"))
    anchors = boundaries(src.paragraphs, len(src)) is not None and (
        boundaries(tgt.paragraphs, len(tgt)) is not None
    )
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
    unseen = unseen_languages(encoder.id, getattr(encoder, "card", {}), [src.lang, tgt.lang])
    warnings = (
        [
            f"model {encoder.id} was not trained on {', '.join(unseen)}: beads rest mostly on "
            "sentence lengths and shared words; distil a student on your languages (README: "
            "'Your own data') and align with it"
        ]
        if unseen
        else []
    )
    return Alignment(
        src,
        tgt,
        beads,
        encoder.id,
        {"encode": encoded - start, "search": time.monotonic() - encoded},
        anchors,
        warnings,
    )


def _embed_both(
    encoder: TextEncoder,
    src: SentenceDocument,
    tgt: SentenceDocument,
    config: AlignConfig,
    folder: Path | None,
    on_progress: ProgressCallback,
    cancel: CancelToken,
) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """Runs of both documents, encoded in one checkpointed pass."""
    if config.runs == "average":
        texts = [*src.sentences, *tgt.sentences]
    else:
        texts = [
            *run_texts(src.sentences, config.max_side),
            *run_texts(tgt.sentences, config.max_side),
        ]
    vecs = encode_checkpointed(encoder, texts, folder, on_progress, cancel)
    if config.runs == "average":
        return (
            run_vectors(vecs[: len(src)], config.max_side),
            run_vectors(vecs[len(src) :], config.max_side),
        )
    split = len(run_texts(src.sentences, config.max_side))
    return _runs(vecs[:split], len(src), config.max_side), _runs(
        vecs[split:], len(tgt), config.max_side
    )


def _runs(vecs: np.ndarray, n: int, max_side: int) -> dict[int, np.ndarray]:
    out: dict[int, np.ndarray] = {}
    start = 0
    for a in range(1, max_side + 1):
        count = max(0, n - a + 1)
        if count == 0:
            break
        out[a] = vecs[start : start + count]
        start += count
    if 1 not in out:
        out[1] = np.zeros((0, vecs.shape[1] if vecs.ndim == 2 else 1), dtype=np.float32)
    return out
