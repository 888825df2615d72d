"""When a semantic match may be written into a file: a calibrated precision of 95 %.

A cosine means different things per model and per language pair (a toy static student gives
0.85 to unrelated sentences), so no single cosine can decide what is written. Each model
carries, per language pair it knows, a **fill calibration**: the probability that a stored
target translates the segment, as a function of the cosine between the segment and that
target. It is fitted on held-out translation pairs (a student's dev split, or pairs the
user names) with scikit-learn's isotonic regression: positives are the true pairs, negatives
the nearest wrong candidates from the same held-out pool (the best wrong target for each
source and the best wrong source for each target, ``NEGATIVES`` of each). The pair's fill
threshold is the lowest cosine from which the precision is at least ``PRECISION`` *with
``CONFIDENCE``*: each step of the isotonic fit is a count (k right of n held-out candidates),
and the threshold starts the lowest step whose exact binomial (Clopper–Pearson) lower bound,
not its point estimate k/n, reaches ``PRECISION`` (the steps above are at least as precise:
the fit is monotone). A step of 41 right of 42 (0.976) does not (its bound is 0.89);
measured, such a step let one wrong fill through on unrelated text.
With fewer than ``MIN_PAIRS`` held-out pairs, or when no cosine qualifies, the pair has no
threshold and nothing is written for it: semantic matches stay suggestions. A model
that saw fewer than ``TOY_PAIRS`` training pairs writes nothing whatever its calibration
says: a toy's calibration does not carry over to other text (measured).

Calibrations live in the model card under ``fill_calibration`` (the bundled teacher's in
``<data>/eval/teacher.json``), as ``{"pairs": {"de-en": {...}}, "data": ..., "date": ...}``
with language pairs keyed by their sorted primary subtags.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import DataError

KEY = "fill_calibration"
PRECISION = 0.95
"""Calibrated precision a semantic match needs to be written into a file."""
CONFIDENCE = 0.95
"""Confidence that the precision is at least ``PRECISION`` (one-sided exact binomial bound)."""
METHOD = "isotonic; Clopper-Pearson lower bound 0.95"
"""How thresholds are derived; a stored calibration made another way is not used."""
MIN_PAIRS = 500
"""Held-out pairs a language pair needs for a calibration."""
MAX_PAIRS = 2000
"""Held-out pairs used per language pair (more add little and cost encoding time)."""
NEGATIVES = 2
"""Hard negatives per positive and direction (nearest wrong candidates)."""
TOY_PAIRS = 5000
"""A model that saw fewer training pairs is a toy outside the data it was built on."""


def pair_key(a: str, b: str) -> str:
    """``de-en`` for (``en-GB``, ``de``): sorted primary subtags, lower case."""
    x, y = (str(t or "").split("-")[0].split("_")[0].lower() for t in (a, b))
    return "-".join(sorted((x, y)))


def fit_pair(
    src: np.ndarray, tgt: np.ndarray, *, negatives: int = NEGATIVES, precision: float = PRECISION
) -> dict[str, Any]:
    """The calibration of one language pair from L2-normalised embeddings of held-out
    translation pairs (row *i* of ``src`` translates row *i* of ``tgt``).

    Returns knots ``x``/``y`` (cosine → probability), ``threshold`` (None when no cosine
    reaches ``precision``), and the precision/recall of that threshold on these data.
    """
    from sklearn.isotonic import IsotonicRegression

    n = len(src)
    if n < 2 or len(tgt) != n:
        raise DataError("a fill calibration needs at least 2 translation pairs")
    sims = np.asarray(src, np.float32) @ np.asarray(tgt, np.float32).T
    pos = np.diag(sims).astype(np.float64)
    wrong = sims.copy()
    np.fill_diagonal(wrong, -np.inf)
    k = max(1, min(negatives, n - 1))
    rows = -np.sort(-wrong, axis=1)[:, :k]  # best wrong targets per source
    cols = -np.sort(-wrong, axis=0)[:k, :].T  # best wrong sources per target
    neg = np.concatenate([rows.ravel(), cols.ravel()]).astype(np.float64)
    x = np.concatenate([pos, neg])
    y = np.concatenate([np.ones(len(pos)), np.zeros(len(neg))])
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(x, y)
    # the fit's own corners: interpolating them is exactly what the fit predicts
    knots = np.asarray(iso.X_thresholds_, np.float64)
    probs = np.maximum.accumulate(np.clip(iso.y_thresholds_, 0.0, 1.0))
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    # the lowest step whose own bound reaches the precision: the steps above it are at least
    # as precise (the fit is monotone), however few candidates they hold
    ok = np.flatnonzero(_step_bounds(iso.predict(xs), ys) >= precision)
    threshold = float(xs[ok[0]]) if len(ok) else None
    out: dict[str, Any] = {
        "x": [round(float(v), 5) for v in knots],
        "y": [round(float(v), 4) for v in probs],
        "threshold": None if threshold is None else round(threshold, 5),
        "held_out": n,
        "negatives": len(neg),
    }
    if threshold is not None:
        hit_pos = int((pos >= threshold).sum())
        hit_neg = int((neg >= threshold).sum())
        out["precision"] = round(hit_pos / max(1, hit_pos + hit_neg), 4)
        out["recall"] = round(hit_pos / n, 4)
    return out


def _step_bounds(pred: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Per sorted candidate: the one-sided ``CONFIDENCE`` lower bound of the precision of the
    isotonic step it falls in (``pred``: the fit's values, constant along a step)."""
    from scipy.stats import beta

    out = np.zeros(len(pred))
    starts = np.flatnonzero(np.r_[True, pred[1:] != pred[:-1]])
    for lo, hi in zip(starts, [*starts[1:], len(pred)], strict=True):
        k, n = float(truth[lo:hi].sum()), hi - lo
        out[lo:hi] = beta.ppf(1.0 - CONFIDENCE, k, n - k + 1) if k > 0 else 0.0
    return out


def fit(
    groups: dict[str, tuple[list[str], list[str]]],
    encode: Any,
    *,
    data: str,
    min_pairs: int | None = None,
    max_pairs: int = MAX_PAIRS,
) -> dict[str, Any]:
    """Fill calibrations for every language pair of ``groups`` (``{"de-en": (sources,
    targets)}``) with ``encode(texts) → normalised vectors``. A pair with fewer than
    ``min_pairs`` (``MIN_PAIRS``) held-out pairs gets ``threshold: None`` and the reason."""
    min_pairs = MIN_PAIRS if min_pairs is None else min_pairs
    pairs: dict[str, Any] = {}
    for key, (s, t) in sorted(groups.items()):
        uniq = list(dict.fromkeys(zip(s, t, strict=True)))[:max_pairs]
        if len(uniq) < min_pairs:
            pairs[key] = {
                "threshold": None,
                "held_out": len(uniq),
                "why": f"{len(uniq):,} held-out pairs ({min_pairs:,} needed)",
            }
            continue
        sv = np.asarray(encode([a for a, _ in uniq]), np.float32)
        tv = np.asarray(encode([b for _, b in uniq]), np.float32)
        cal = fit_pair(sv, tv)
        if cal["threshold"] is None:
            cal["why"] = (
                f"no cosine reaches {PRECISION:.0%} precision with {CONFIDENCE:.0%} confidence"
            )
        pairs[key] = cal
    return {
        "pairs": pairs,
        "data": data,
        "date": _dt.date.today().isoformat(),
        "method": METHOD,
    }


def groups_from_parallel(dev: Sequence[Any], teacher_lang: str = "en") -> dict[str, Any]:
    """``{pair: (sources, targets)}`` from distillation dev groups (``Group``: src, tgt,
    lang); groups of the same pair are joined."""
    out: dict[str, tuple[list[str], list[str]]] = {}
    for g in dev:
        if getattr(g, "mono", False):
            continue
        key = pair_key(teacher_lang, g.lang)
        if key.split("-")[0] == key.split("-")[-1]:
            continue
        s, t = out.setdefault(key, ([], []))
        s.extend(g.src)
        t.extend(g.tgt)
    return out


def groups_from_files(paths: Sequence[str | Path]) -> dict[str, Any]:
    """``{pair: (sources, targets)}`` from translation TSVs (column 1 the source language,
    further columns translations; languages as for distillation: from a name like
    ``en-de.tsv``, else guessed)."""
    from xlsearch.engine.distill.data import TrainFile, read_tsv

    out: dict[str, tuple[list[str], list[str]]] = {}
    for i, p in enumerate(paths):
        groups, _ = read_tsv(TrainFile.parse(p), i)
        for g in groups:
            key = pair_key("en", g.lang)
            s, t = out.setdefault(key, ([], []))
            s.extend(g.src)
            t.extend(g.tgt)
    return out


def dev_groups(model_path: str | Path) -> dict[str, Any]:
    """The held-out pairs of a distilled student, re-read from its training files with the
    split its run made (same files, seed and filters). DataError when they are gone."""
    from xlsearch.engine.distill.config import DistillConfig
    from xlsearch.engine.distill.setup import read_data
    from xlsearch.engine.models.cards import read_card
    from xlsearch.engine.models.encoder import load_encoder

    card = read_card(model_path)
    conf = card.get("config")
    files = [d for d in card.get("data", []) if not d.get("mono")]
    if not isinstance(conf, dict) or not files:
        raise DataError(
            f"{model_path}: the model card does not name its training data, so it has no "
            "held-out split to calibrate on",
            hint="name held-out translation pairs: --calibrate-pairs pairs.tsv",
        )
    cfg = DistillConfig.from_dict({**conf, "mono": []})
    cfg.train = [f"{d['path']}:{d.get('weight', 1)}" for d in files]
    missing = [d["path"] for d in files if not Path(d["path"]).is_file()]
    if cfg.dev and not Path(cfg.dev).is_file():
        missing.append(cfg.dev)
    if missing:
        raise DataError(
            f"{missing[0]}: training file of {Path(model_path).name} not found, so its "
            "held-out split cannot be rebuilt",
            hint="name held-out translation pairs: --calibrate-pairs pairs.tsv",
        )
    teacher = load_encoder(card.get("teacher") or "bundled:teacher")
    return groups_from_parallel(read_data(cfg, teacher).dev)


# -- storing and reading -------------------------------------------------------------------------
def _teacher_file() -> Path:
    from xlsearch.engine.runtime import locations

    return locations.data_dir() / "eval" / "teacher.json"


def _is_bundled(model: str) -> bool:
    from xlsearch.engine.models.cards import BUNDLED_TEACHER

    return model == BUNDLED_TEACHER


def store(model: str, path: str | Path | None, cal: dict[str, Any]) -> Path:
    """Write ``cal`` into the model's card (the bundled teacher's: its results file)."""
    if _is_bundled(model):
        target = _teacher_file()
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            data = json.loads(target.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        data[KEY] = cal
        tmp = target.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
        tmp.replace(target)
        return target
    from xlsearch.engine.models.cards import CARD_NAME, update_card

    if path is None:
        raise DataError("an in-memory model has no card to store a calibration in")
    update_card(path, **{KEY: cal})
    return Path(path) / CARD_NAME


def load(model: str, card: dict[str, Any] | None) -> dict[str, Any] | None:
    """The fill calibration stored for a model (its card, or the teacher's results file)."""
    if _is_bundled(model):
        try:
            cal = json.loads(_teacher_file().read_text(encoding="utf-8")).get(KEY)
        except (OSError, ValueError, AttributeError):
            return None
    else:
        cal = (card or {}).get(KEY)
    return cal if isinstance(cal, dict) and isinstance(cal.get("pairs"), dict) else None


def probability(cosine: float | np.ndarray, pair: dict[str, Any]) -> Any:
    """Calibrated probability that a target at ``cosine`` translates the segment."""
    if not pair.get("x"):
        return np.zeros_like(np.asarray(cosine, np.float64))
    return np.clip(np.interp(cosine, pair["x"], pair["y"]), 0.0, 1.0)


# -- the decision ---------------------------------------------------------------------------------
@dataclass
class FillPolicy:
    """What a model may write for one language pair."""

    model: str
    pair: str
    threshold: float | None
    """Lowest cosine (segment × stored target) written; None: nothing is written."""
    why: str = ""
    calibration: dict[str, Any] | None = None
    notice: str | None = None
    """The toy-model notice (``toy_notice``), when it applies."""
    memory: Any = None
    """``memory_calibration.MemoryCalibration``: the evidence of the user's own memory,
    which every semantic fill needs."""

    def describe(self) -> str:
        """One line for reports: who fills what, at which threshold."""
        if self.memory is not None:
            return f"semantic fills by {self.model}: {self.memory.describe()}"
        if self.threshold is None:
            return (
                f"semantic matches are suggestions only: {self.model} writes no {self.pair} "
                f"fills ({self.why or 'not calibrated'})"
            )
        return (
            f"semantic fills by {self.model}: {self.pair} cosine (segment × stored target) "
            f"≥ {self.threshold:.3f}, calibrated precision ≥ {PRECISION:.0%} "
            f"({CONFIDENCE:.0%} confidence)"
        )

    def report_lines(self, semantic: Sequence[Any]) -> list[str]:
        """Markdown lines for an analysis report: the notice, and what was written."""
        lines = ["", f"notice: {self.notice}"] if self.notice else []
        if semantic and self.model:
            n = sum(bool(getattr(s, "fill", False)) for s in semantic)
            lines += ["", f"{self.describe()}: {n} may be written, the rest are suggestions."]
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "pair": self.pair,
            "threshold": self.threshold,
            "precision": PRECISION,
            "why": self.why,
            "notice": self.notice,
            "memory_calibration": self.memory.to_dict() if self.memory is not None else None,
        }


def policy_for(encoder: Any, src: str, tgt: str) -> FillPolicy:
    """The fill policy of ``encoder`` for translating ``src`` into ``tgt``."""
    model = str(getattr(encoder, "id", "") or getattr(encoder, "path", "") or "")
    name = model.rsplit("/", 1)[-1]
    key = pair_key(src, tgt)
    card = getattr(encoder, "card", None) or {}
    seen = trained_pairs(card)
    if seen is not None and seen < TOY_PAIRS:
        # measured: the demo student, calibrated on 2,000 unseen pairs per language, still
        # wrote wrong fills on unrelated text at its "95 %" threshold
        return FillPolicy(name, key, None, f"a demo model: it saw only {seen:,} pairs")
    cal = load(model, card)
    if cal is None:
        return FillPolicy(name, key, None, "not calibrated")
    if cal.get("method") != METHOD:
        return FillPolicy(
            name,
            key,
            None,
            "calibrated by an older xlsearch: xlsearch eval "
            f"{getattr(encoder, 'path', None) or model} --calibrate",
        )
    pair = cal["pairs"].get(key)
    if not isinstance(pair, dict):
        return FillPolicy(name, key, None, "pair not in its held-out data")
    thr = pair.get("threshold")
    return FillPolicy(
        name, key, None if thr is None else float(thr), str(pair.get("why", "")), pair
    )


def judge(
    encoder: Any, src: str, tgt: str, segments: Sequence[str], targets: Sequence[str]
) -> tuple[FillPolicy, list[tuple[float, float, bool]]]:
    """For each (segment, stored target): ``(cosine, calibrated probability, write?)``."""
    policy = policy_for(encoder, src, tgt)
    if not segments or encoder is None:
        return policy, []
    a = np.asarray(encoder.encode(list(segments)), np.float32)
    b = np.asarray(encoder.encode(list(targets)), np.float32)
    a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b /= np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    cos = (a * b).sum(axis=1)
    cal = policy.calibration or {}
    probs = probability(cos, cal) if cal.get("x") else np.zeros(len(cos))
    thr = policy.threshold
    return policy, [
        (round(float(c), 4), round(float(p), 4), thr is not None and float(c) >= thr)
        for c, p in zip(cos, probs, strict=True)
    ]


def apply_to_analysis(
    results: Sequence[Any], lookup: Any, src: str, tgt: str, threshold: float = 0.8
) -> FillPolicy:
    """Decide which semantic-band segments of an analysis may be written: sets ``fill``,
    ``fill_probability`` (the model's prior) and ``fill_evidence`` on each result with a
    semantic match. A fill needs the evidence of the user's own memory
    (``memory_calibration``): the dev-split calibration alone never writes."""
    todo = [r for r in results if r.semantic is not None and r.semantic.target]
    encoder = lookup.searcher.encoder if getattr(lookup, "semantic", False) else None
    if encoder is None:
        return FillPolicy("", pair_key(src, tgt), None, "no model")
    policy, verdicts = judge(
        encoder, src, tgt, [r.source for r in todo], [r.semantic.target for r in todo]
    )
    seen = trained_pairs(getattr(encoder, "card", None) or {})
    toy = seen is not None and seen < TOY_PAIRS
    mem = None
    if todo and not toy:
        from xlsearch.engine.tm.memory_calibration import calibrate

        mem = calibrate(lookup, src, tgt, threshold)
    policy.memory = mem
    for r, (_cos, p, _ok) in zip(todo, verdicts, strict=True):
        ev = mem.evidence(r.source, float(r.semantic.semantic or 0.0)) if mem else None
        r.fill, r.fill_probability, r.fill_evidence = ev is not None, p, ev or ""
    if seen is not None and seen < TOY_PAIRS:  # the store is asked only for a toy
        names = searched_collections(lookup)
        langs = _memory_languages(lookup, names, src, tgt)
        store = getattr(lookup, "store", None)
        paired = english_pairs(store, names, langs) if store is not None else None
        exclude = str(getattr(encoder, "id", ""))
        policy.notice = toy_notice(
            encoder, names, langs, paired=paired, covering=covering_model(langs, exclude)
        )
    return policy


def _memory_languages(lookup: Any, names: Sequence[str], src: str, tgt: str) -> list[str]:
    """The job's languages, then the searched memory's (most segments first)."""
    store = getattr(lookup, "store", None)
    found = memory_languages(store, names) if store is not None else []
    return [x for x in (tgt, src) if x] + found


def memory_languages(store: Any, names: Sequence[str]) -> list[str]:
    """The languages of the collections ``names`` (the demo collection left out), most
    segments first, as each document recorded them at import (no segment is counted)."""
    from xlsearch.engine.models.catalog import DEMO_COLLECTION

    counts: dict[str, int] = {}
    for name in names:
        if name != DEMO_COLLECTION:
            for lang, n in store.recorded_languages(name).items():
                counts[lang] = counts.get(lang, 0) + n
    return sorted(counts, key=lambda x: -counts[x])


def searched_collections(lookup: Any) -> list[str]:
    """The collections a lookup searches: its own, else every one in the store."""
    if getattr(lookup, "collection", None):
        return [lookup.collection]
    try:
        return list(lookup.store.nonempty_collections())
    except (AttributeError, KeyError, TypeError):
        return []


# -- the toy-model notice ------------------------------------------------------------------------
def trained_pairs(card: dict[str, Any]) -> int | None:
    """How many translation pairs a distilled model saw (None: not a distilled student)."""
    data = card.get("data")
    if not isinstance(data, list) or not data:
        return None
    return sum(int(d.get("pairs", 0) or 0) for d in data if not d.get("mono"))


def _export_langs(langs: Sequence[str]) -> str:
    """``--lang`` for exporting distillation data: English first, then up to three other
    languages (most frequent first), each once by its primary subtag (a prefix: ``de``
    exports ``de-DE`` and ``de-AT`` too); ``en,de`` when there are none."""
    from xlsearch.engine.lang.tags import primary

    others: list[str] = []
    for tag in langs:
        lang = primary(tag)
        if lang and lang != "en" and lang not in others:
            others.append(lang)
    return ",".join(["en", *(others[:3] or ["de"])])


def english_pairs(store: Any, names: Sequence[str], langs: Sequence[str]) -> list[str]:
    """The languages among ``langs`` (primary subtags, in order) that share a translation
    unit with English in the collections ``names`` (the demo collection left out): what an
    export can turn into distillation pairs. Monolingual files give none. One indexed look-up
    per language, stopping at the first unit found."""
    from xlsearch.engine.lang.tags import primary
    from xlsearch.engine.models.catalog import DEMO_COLLECTION

    ids = [store.collection_id(n) for n in names if n != DEMO_COLLECTION]
    ids = [i for i in ids if i is not None]
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    sql = (
        "SELECT 1 FROM segments a JOIN documents d ON d.id = a.document_id "
        "JOIN segments b ON b.tu_id = a.tu_id AND b.id != a.id "
        f"WHERE d.collection_id IN ({marks}) AND (a.lang = 'en' OR a.lang LIKE 'en-%') "
        "AND (b.lang = ? OR b.lang LIKE ?) LIMIT 1"
    )
    out: list[str] = []
    for tag in langs:
        lang = primary(tag)
        if not lang or lang == "en" or lang in out:
            continue
        if store.conn.execute(sql, (*ids, lang, f"{lang}-%")).fetchone():
            out.append(lang)
    return out


def covering_model(langs: Sequence[str], exclude: str = "") -> str | None:
    """The name of an installed, finished model that is no toy and whose card covers every
    language of ``langs`` (None: there is none)."""
    from xlsearch.engine.lang.tags import primary
    from xlsearch.engine.models.cards import BUNDLED_TEACHER, trained_languages
    from xlsearch.engine.models.catalog import list_models

    want = {primary(t) for t in langs if primary(t)}
    if not want:
        return None
    for info in list_models():
        seen = trained_pairs(info.card)
        if info.spec == exclude or (seen is not None and seen < TOY_PAIRS):
            continue
        known = trained_languages(info.spec, info.card)
        if known is not None and want <= known:
            return "bundled:teacher" if info.spec == BUNDLED_TEACHER else info.path.name
    return None


def toy_notice(
    encoder_or_card: Any,
    collections: Sequence[str] | None = None,
    languages: Sequence[str] = (),
    *,
    paired: Sequence[str] | None = None,
    covering: str | None = None,
) -> str | None:
    """A one-line notice when a model that saw fewer than ``TOY_PAIRS`` pairs is used on
    anything but the demo collection (it was built for it), with advice that works for the
    memory at hand: ``covering``, an installed model that knows its languages, first; else
    the commands that make a real student from the memory's units with English and another
    language (``paired``: those languages; None: not looked up, the memory's ``languages``
    are used); else, for a memory without such units (monolingual files), where the pairs
    must come from. None when nothing needs saying."""
    from xlsearch.engine.models.catalog import DEMO_COLLECTION as DEMO

    card = (
        encoder_or_card
        if isinstance(encoder_or_card, dict)
        else (getattr(encoder_or_card, "card", None) or {})
    )
    n = trained_pairs(card)
    if n is None or n >= TOY_PAIRS:
        return None
    if collections is not None and list(collections) and set(collections) <= {DEMO}:
        return None
    head = (
        f"this model saw only {n:,} translation pairs (a demo model): its semantic scores are rough"
    )
    if covering:
        return f"{head}; {covering} knows your memory's languages: xlsearch models --use {covering}"
    langs = list(languages) or [x for x in card.get("languages", []) if isinstance(x, str)]
    own = [c for c in collections or [] if c != DEMO]
    name = own[0] if len(own) == 1 else "YOUR-MEMORY"
    if paired is not None and not paired:
        others = _export_langs(langs).split(",")[1:]
        first = others[0]
        return (
            f"{head}; your memory holds no units with English and {', '.join(others)} to learn "
            f"from (monolingual files): distil a student from English–{first} sentence pairs "
            f"(xlsearch distill --train en-{first}.tsv --name my-student; see "
            f"docs/distill.md), then mine your files for more pairs with it (xlsearch mine "
            f"--src {first} --tgt en --model my-student --out pairs.tsv)"
        )
    lang_arg = _export_langs(list(paired) if paired else langs)
    return (
        f"{head}; make a real student from your own memory: xlsearch export --collection "
        f"{name} --lang {lang_arg} tm.tsv && xlsearch distill --train tm.tsv "
        "--name my-student"
    )


__all__ = [
    "KEY",
    "MIN_PAIRS",
    "PRECISION",
    "TOY_PAIRS",
    "FillPolicy",
    "apply_to_analysis",
    "fit",
    "fit_pair",
    "judge",
    "load",
    "memory_languages",
    "pair_key",
    "policy_for",
    "probability",
    "store",
    "toy_notice",
    "english_pairs",
    "covering_model",
]
