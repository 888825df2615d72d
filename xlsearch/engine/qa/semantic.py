"""Semantic checks calibrated on the file at hand: mistranslation, omission/addition.

No fixed cosine: each threshold is measured per model and language pair on the units being
checked. The file's own pairs are compared with the same sources paired with shuffled
targets (what a target pasted from another unit looks like) and with their own targets cut
in half (what a dropped half looks like); a threshold catches the shuffled/cut pairs and the
share of the file's own pairs beyond it says whether the model tells them apart. A model
that cannot (its own pairs overlap the shuffled ones) says so and flags nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xlsearch.engine.progress import CancelToken, ProgressCallback, no_progress
from xlsearch.engine.qa.units import Flag, QaUnit

MIN_UNITS = 40
"""Fewer units than this cannot calibrate a threshold: no semantic flags."""
SHUFFLED_RECALL = 0.97
"""The mistranslation threshold lets this share of shuffled pairs fall below it."""
MAX_OWN_BELOW = 0.12
"""When more of the file's own pairs than this fall below that threshold, the model cannot
tell this pair's translations from unrelated text: it says so and does not flag."""
CALIBRATION_SAMPLE = 2000
"""Shuffled pairs (and own pairs) the thresholds are measured on."""
OWN_Z = 2.5
"""A pair is a mistranslation when its robust z-score among the file's own pairs (the
model's margin, averaged with the file's word evidence where it has some) is below minus
this, and the margin is among the shuffled pairs' (``SHUFFLED_RECALL``): on 10,000 human
en-de news pairs about 1 in 100 right pairs, and about 2 in 3 lines shifted from 7 lines
further down ..."""
OWN_Z_ERROR = 4.0
"""... below minus this, an error."""
HALF_SHORT_Z = 1.5
"""A target that matches the source's first half better is an omission only when its length
is this many robust standard deviations below the file's usual ratio (``length_z``)."""
NEAR_DUPLICATE = 0.9
"""Sources this similar are one source written twice: neither competes with the other."""
_MARKUP = re.compile(r"</?[A-Za-z][^<>]*>")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


@dataclass
class Calibration:
    """What was measured on the file: thresholds and whether the model supports the pair."""

    pair: str
    units: int
    supported: bool
    note: str = ""
    thresholds: dict[str, float] = field(default_factory=dict)
    shuffled_caught: float = 0.0
    own_below: float = 0.0


def _clean(text: str, marker: str) -> str:
    text = _MARKUP.sub(" ", text)
    if marker:
        text = text.replace(marker, "")
    return " ".join(text.split())


def _half(text: str) -> str:
    """The first half of ``text``: by words, or by characters in a text written without
    spaces (Japanese, Chinese)."""
    words = text.split()
    if len(words) >= 4:
        return " ".join(words[: math.ceil(len(words) / 2)])
    if _CJK.search(text) and len(text) >= 8:
        return text[: math.ceil(len(text) / 2)]
    return ""


def _robust_z(x: np.ndarray) -> np.ndarray:
    """How far each value is from the median, in robust standard deviations (MAD)."""
    med = float(np.median(x))
    mad = float(np.median(np.abs(x - med))) * 1.4826
    return (x - med) / max(mad, 1e-6)


def _derangement(n: int, rng: np.random.Generator) -> np.ndarray:
    perm = rng.permutation(n)
    fixed = np.nonzero(perm == np.arange(n))[0]
    for i in fixed:  # swap each fixed point with its neighbour
        j = (i + 1) % n
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def _unique_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``x`` and, per row, its index among them (one source written
    twice is one competitor)."""
    seen: dict[bytes, int] = {}
    index = np.fromiter(
        (seen.setdefault(row.tobytes(), len(seen)) for row in x), dtype=np.int64, count=len(x)
    )
    first = np.zeros(len(seen), dtype=np.int64)
    first[index[::-1]] = np.arange(len(x))[::-1]
    return x[first], index


def _best_competitor(
    es: np.ndarray, et: np.ndarray, rows: np.ndarray, tcols: np.ndarray, chunk: int = 2048
) -> np.ndarray:
    """For each ``i`` in ``rows``: the highest similarity of target ``tcols[i]`` to a source
    that is not a near duplicate of source ``rows[i]`` (sources written twice compared
    once; the row's own source left out before the first pass)."""
    us, col = _unique_rows(es)
    out = np.empty(len(rows), dtype=np.float32)
    for a in range(0, len(rows), chunk):
        r = rows[a : a + chunk]
        sims = et[tcols[a : a + chunk]] @ us.T
        sims[np.arange(len(r)), col[r]] = -1.0  # its own source: a near duplicate of itself
        pending = np.arange(len(r))
        best = np.full(len(r), -1.0, dtype=np.float32)
        for _ in range(8):  # drop near duplicates of the row's source, best first
            idx = (sims if len(pending) == len(r) else sims[pending]).argmax(axis=1)
            dup = np.einsum("bd,bd->b", es[r[pending]], us[idx]) >= NEAR_DUPLICATE
            best[pending[~dup]] = sims[pending[~dup], idx[~dup]]
            pending, idx = pending[dup], idx[dup]
            if not len(pending):
                break
            sims[pending, idx] = -1.0
        out[a : a + chunk] = best
    return out


def encode_pairs(
    units: Sequence[QaUnit],
    encoder: Any,
    marker: str = "",
    *,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[np.ndarray, ...]:
    """The sources' and the targets' vectors (float32 rows); a text written more than once
    is encoded once. An encoder that embeds whole-word prefixes as it reads the text
    (``encode_prefixes``: a static model) also gives the vectors of their first halves
    (``_half``), returned as two more arrays (zeros where a text has no half by words):
    ``semantic_flags`` then need not encode the halves again."""
    texts = [_clean(u.source, marker) for u in units] + [_clean(u.target, marker) for u in units]
    index: dict[str, int] = {}
    at = np.fromiter((index.setdefault(t, len(index)) for t in texts), np.int64, len(texts))
    n = len(units)
    prefixes = getattr(encoder, "encode_prefixes", None)
    if prefixes is not None:
        unique = list(index)
        cuts = [len(_half(t)) if len(t.split()) >= 4 else 0 for t in unique]
        full, part = prefixes(unique, cuts, on_progress=on_progress, cancel=cancel)
        vecs = np.asarray(full, dtype=np.float32)[at]
        halves = np.asarray(part, dtype=np.float32)[at]
        return vecs[:n], vecs[n:], halves[:n], halves[n:]
    vecs = np.asarray(encoder.encode(list(index), on_progress=on_progress, cancel=cancel))
    vecs = vecs.astype(np.float32)[at]
    return vecs[:n], vecs[n:]


class Margins:
    """Per file, each unit's margin (its target's similarity to its source less the best
    similarity to another unit's source) and the same for a sample of shuffled pairs
    (sources paired with other units' targets): what the semantic checks calibrate on,
    computed once for the lexical evidence and the semantic flags."""

    def __init__(self, es: np.ndarray, et: np.ndarray, sample: int = CALIBRATION_SAMPLE) -> None:
        n = len(es)
        self.es, self.et = es, et
        rng = np.random.default_rng(0)
        self.perm = _derangement(n, rng)
        self.sample = np.sort(rng.choice(n, size=min(n, sample), replace=False))
        self.own_cos = np.einsum("ij,ij->i", es, et)
        self.shuffled_cos = np.einsum("ij,ij->i", es[self.sample], et[self.perm[self.sample]])
        self.shuffled = self.shuffled_cos - _best_competitor(
            es, et, self.sample, self.perm[self.sample]
        )
        # A unit written twice (the same source and target) has one margin.
        _, ucol = _unique_rows(es)
        _, tcol = _unique_rows(et)
        _, firsts, at = np.unique(
            ucol * (int(tcol.max(initial=0)) + 1) + tcol, return_index=True, return_inverse=True
        )
        own = self.own_cos[firsts] - _best_competitor(es, et, firsts, firsts)
        self.own = own[at.reshape(-1)]


EVIDENCE_BINS = 10
EVIDENCE_CLIP = 3.0
"""The most (natural log) the model's margin says for or against a pair: a model that
cannot tell this pair's translations apart says little either way."""


class EmbeddingEvidence:
    """How much the model's margin (``Margins``) says that a target belongs to another
    unit: the log ratio of how often shuffled pairs and the file's own pairs have that
    margin, measured on the file (histogram over quantile bins, counts smoothed)."""

    def __init__(self, margins: Margins) -> None:
        self.m = margins
        own = margins.own[margins.sample]
        shuffled = margins.shuffled
        self.edges = np.quantile(
            np.concatenate([own, shuffled]), np.linspace(0, 1, EVIDENCE_BINS + 1)[1:-1]
        )
        c_own = np.bincount(np.searchsorted(self.edges, own), minlength=EVIDENCE_BINS) + 1.0
        c_sh = np.bincount(np.searchsorted(self.edges, shuffled), minlength=EVIDENCE_BINS) + 1.0
        self.llr = np.clip(
            np.log((c_sh / c_sh.sum()) / (c_own / c_own.sum())), -EVIDENCE_CLIP, EVIDENCE_CLIP
        )

    def __call__(self, rows: Sequence[int]) -> np.ndarray:
        """Log odds, per unit in ``rows``, that its target belongs to another unit."""
        if not len(rows):
            return np.zeros(0)
        return self.llr[np.searchsorted(self.edges, self.m.own[np.asarray(rows)])]


def semantic_flags(
    units: Sequence[QaUnit],
    encoder: Any,
    pair: str,
    *,
    marker: str = "",
    skip: Sequence[bool] | None = None,
    vectors: tuple[np.ndarray, ...] | None = None,
    margins: Margins | None = None,
    lexical: np.ndarray | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[list[Flag], Calibration]:
    """Mistranslation and omission/addition flags of ``units`` (one language pair), and the
    calibration they came from. ``skip``: units already flagged as having no translation to
    compare (empty, the source copied); ``vectors``: the sources' and targets' vectors when
    already encoded (``encode_pairs``); ``margins``: their ``Margins`` when measured;
    ``lexical``: per unit, the file's word evidence that its target translates its source
    (``Lexicon.score``, the pair left out; NaN where not scored)."""
    on_progress = on_progress or no_progress
    n = len(units)
    cal = Calibration(pair, n, False)
    if n < MIN_UNITS:
        cal.note = (
            f"{n} units are too few to measure what the model gives {pair} (need {MIN_UNITS})"
        )
        return [], cal
    src = [_clean(u.source, marker) for u in units]
    tgt = [_clean(u.target, marker) for u in units]
    halves_s = [_half(s) for s in src]
    halves_t = [_half(t) for t in tgt]
    cut = [i for i in range(n) if halves_s[i] and halves_t[i]]
    if vectors is None:
        vectors = encode_pairs(units, encoder, marker, on_progress=on_progress, cancel=cancel)
    es, et = vectors[0], vectors[1]
    m = margins or Margins(es, et)
    own, sample, margin_sh = m.own_cos, m.sample, m.shuffled
    margin = m.own
    # Pairs whose competitor is the target's true source are the shuffled ones; one
    # threshold on each measure (margin, cosine) catches SHUFFLED_RECALL of them.
    tau_m = float(np.quantile(margin_sh, SHUFFLED_RECALL))
    own_below = float(np.mean(margin[sample] < tau_m))
    cal.shuffled_caught = float(np.mean(margin_sh < tau_m))
    cal.own_below = own_below
    cal.thresholds = {"margin": round(tau_m, 4)}
    if own_below > MAX_OWN_BELOW:
        cal.note = (
            f"the model cannot tell {pair} translations from unrelated text "
            f"({own_below:.0%} of this file's pairs look like shuffled ones): no flags from its "
            "similarities (the file's own word translations still flag); use a model "
            "distilled for this language pair"
        )
        return [], cal
    cal.supported = True
    skip = skip or [False] * n
    flags: list[Flag] = []
    # The file's own pairs set the bar: a pair is flagged when it is far below the file's
    # usual pairs (robust z-scores: median and spread of the file's own margins and, where
    # the file teaches word translations, of its pairs' word evidence), and the model
    # places it among the shuffled pairs. A bar on the shuffled pairs alone flagged one
    # right sentence pair in ten on news text: near neighbours are the rule there.
    z = _robust_z(margin)
    words = np.isfinite(lexical) if lexical is not None else np.zeros(n, dtype=bool)
    if lexical is not None and words.sum() >= MIN_UNITS:
        zl = np.zeros(n)
        zl[words] = _robust_z(lexical[words])
        z = np.where(words, (z + zl) / math.sqrt(2.0), z)
    cal.thresholds["z"] = -OWN_Z
    for i in np.nonzero((z < -OWN_Z) & (margin < tau_m))[0].tolist():
        if skip[i]:
            continue
        u = units[i]
        severity = "error" if z[i] < -OWN_Z_ERROR else "warning"
        flags.append(
            Flag(
                u.file, u.key, u.source, u.target, "mistranslation", severity,
                f"the target does not translate the source (similarity {own[i]:.2f}, far "
                "below this file's other pairs"
                + (f"; another unit's source fits it better by {-margin[i]:.2f})"
                   if margin[i] < 0 else ")"),
                line=u.line, score=float(margin[i]),
            )
        )  # fmt: skip
    flagged = {f.key for f in flags}
    # Omission: the target is closer to the source's first half than to the whole source.
    if cut:
        ci = np.asarray(cut)
        ehs = np.zeros((len(cut), es.shape[1]), dtype=np.float32)
        eht = np.zeros_like(ehs)
        # Halves by words come with the vectors (a static model); the others are encoded.
        have = (
            (np.einsum("ij,ij->i", vectors[2][ci], vectors[2][ci]) > 0)
            & (np.einsum("ij,ij->i", vectors[3][ci], vectors[3][ci]) > 0)
            if len(vectors) == 4
            else np.zeros(len(cut), dtype=bool)
        )
        if have.any():
            ehs[have], eht[have] = vectors[2][ci[have]], vectors[3][ci[have]]
        rest = np.nonzero(~have)[0]
        if len(rest):
            halves = [halves_s[cut[k]] for k in rest] + [halves_t[cut[k]] for k in rest]
            hv = np.asarray(encoder.encode(halves, cancel=cancel), dtype=np.float32)
            ehs[rest], eht[rest] = hv[: len(rest)], hv[len(rest) :]
        d_own = np.einsum("ij,ij->i", et[ci], ehs) - own[ci]
        d_cut = np.einsum("ij,ij->i", eht, ehs) - np.einsum("ij,ij->i", eht, es[ci])
        tau_o = max(float(np.quantile(d_own, 0.985)), float(np.quantile(d_cut, 0.4)), 0.0)
        cal.thresholds["half"] = round(tau_o, 4)
        # ... and the target is shorter than the file's translations usually are (a right
        # translation that happens to match the first half better is not).
        short = length_z(units)[ci] < -HALF_SHORT_Z
        for k in np.nonzero((d_own > tau_o) & short)[0].tolist():
            i = int(ci[k])
            u = units[i]
            if skip[i] or u.key in flagged:
                continue
            flags.append(
                Flag(
                    u.file, u.key, u.source, u.target, "omission", "warning",
                    f"the target says only part of the source (it matches the source's first "
                    f"half better, by {d_own[k]:.2f})",
                    line=u.line, score=float(d_own[k]),
                )
            )  # fmt: skip
            flagged.add(u.key)
    return flags, cal


LENGTH_MIN_LIMIT = 0.45
"""A target is flagged for its length only when it is at least this far (natural log of the
length ratio, ×1.6) from the pair's usual ratio, however regular the file."""


def length_z(units: Sequence[QaUnit]) -> np.ndarray:
    """Per unit, how far its target's length is from what this file's translations of that
    length usually are: the log length ratio's distance from the median in robust standard
    deviations (median absolute deviation), measured per length band on the file itself."""
    src = [_clean(u.source, "_") for u in units]
    tgt = [_clean(u.target, "_") for u in units]
    ls = np.array([len(s) for s in src], dtype=np.float64)
    lt = np.array([len(t) for t in tgt], dtype=np.float64)
    resid = np.log((lt + 4) / (ls + 4))
    z = np.zeros(len(units))
    if not len(units):
        return z
    whole = float(np.median(np.abs(resid - np.median(resid)))) * 1.4826
    for lo, hi in ((0, 30), (30, 80), (80, 10**9)):
        sel = (ls >= lo) & (ls < hi)
        if not sel.any():
            continue
        band = resid[sel] if sel.sum() >= MIN_UNITS else resid
        mad = (
            float(np.median(np.abs(band - np.median(band)))) * 1.4826
            if sel.sum() >= MIN_UNITS
            else whole
        )
        z[sel] = (resid[sel] - np.median(band)) / max(mad, 0.05)
    return z


def length_flags(
    units: Sequence[QaUnit], skip: Sequence[bool], flagged: set[str] | None = None
) -> list[Flag]:
    """Omission/addition by length: the target far shorter or longer than this file's
    translations of that length usually are (the log ratio's spread measured per length
    band on the file itself). No model needed."""
    flags: list[Flag] = []
    flagged = set(flagged or ())
    if len(units) < MIN_UNITS:
        return flags
    src = [_clean(u.source, "_") for u in units]
    tgt = [_clean(u.target, "_") for u in units]
    # Length: the target far shorter/longer than this pair's ratio for its length.
    ls = np.array([len(s) for s in src], dtype=np.float64)
    lt = np.array([len(t) for t in tgt], dtype=np.float64)
    ratio = np.log((lt + 4) / (ls + 4))
    resid = ratio - np.median(ratio)
    for lo, hi in ((0, 30), (30, 80), (80, 10**9)):
        sel = (ls >= lo) & (ls < hi)
        if sel.sum() < MIN_UNITS:
            continue
        mad = float(np.median(np.abs(resid[sel] - np.median(resid[sel])))) * 1.4826
        short = hi <= 30  # a short UI string's translation may well be twice as long
        low = max(4.0 * mad, LENGTH_MIN_LIMIT + (0.15 if short else 0.0))
        high = max(4.0 * mad, LENGTH_MIN_LIMIT + (0.55 if short else 0.15))
        for i in np.nonzero(sel & ((resid < -low) | (resid > high)))[0].tolist():
            u = units[i]
            if skip[i] or u.key in flagged:
                continue
            kind = "omission" if resid[i] < 0 else "addition"
            what = "shorter" if resid[i] < 0 else "longer"
            flags.append(
                Flag(
                    u.file, u.key, u.source, u.target, kind, "warning",
                    f"the target is {math.exp(abs(resid[i])):.1f}× {what} than this pair's "
                    "translations of that length usually are",
                    line=u.line, score=float(resid[i]),
                )
            )  # fmt: skip
            flagged.add(u.key)
    return flags
