"""``run_suite``: evaluate one model on the chosen benchmarks → ``Report``; store and compare."""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import ConfigError, ModelError
from xlsearch.engine.evaluation import readers as R
from xlsearch.engine.evaluation.evaluators import (
    CachingEncoder,
    Evaluator,
    LanguageBiasEvaluator,
    MiningEvaluator,
    MSEEvaluator,
    STSEvaluator,
    TranslationEvaluator,
)
from xlsearch.engine.evaluation.report import Report, Table, compare_table
from xlsearch.engine.evaluation.synthetic import build_bucc_style
from xlsearch.engine.models.cards import BUNDLED_TEACHER, model_id, read_card, resolve_model_path
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback
from xlsearch.engine.runtime import locations
from xlsearch.engine.runtime.atomic import write_json

PCA_ROWS = 100
"""Parallel rows per language used for the language-bias PCA plot."""


def run_suite(
    model: Any = BUNDLED_TEACHER,
    *,
    tatoeba_dir: str | os.PathLike[str] | None = None,
    langs: Sequence[str] | None = None,
    margin: bool = False,
    sts_files: Iterable[str | os.PathLike[str]] = (),
    sts_sets: Iterable[R.StsSet] = (),
    sts_cross: bool = False,
    sts17_dir: str | os.PathLike[str] | None = None,
    bucc_dir: str | os.PathLike[str] | None = None,
    bucc_synthetic: bool = False,
    mse_file: str | os.PathLike[str] | None = None,
    mse_limit: int = 2000,
    teacher: Any = BUNDLED_TEACHER,
    bias: bool = False,
    parallel_sets: Sequence[R.ParallelSet] = (),
    parallel_key: str = "dev-split",
    device: str = "auto",
    quantize: bool = False,
    batch_size: int = 32,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Report:
    """Run every requested benchmark on ``model`` (a spec, a folder, or an encoder object).

    ``sts_cross`` adds cross-lingual sets (sentence1 from English, sentence2 from each other
    language of the same row-aligned family, e.g. stsb-multi-mt). ``bias`` adds language
    bias over the largest row-aligned family of STS sets (else over all of them) and a PCA
    of its row-aligned sentences. ``parallel_sets`` (e.g. ``builtin.demo_heldout_sets()``)
    add translation accuracy under table ``parallel_key`` (``demo-heldout``, ``dev-split``).
    Every distinct sentence is encoded once per run.
    ``bucc_synthetic`` hides Tatoeba pairs among unrelated sentences ("BUCC-style").
    """
    t0 = time.monotonic()
    encoder, name = _encoder(model, device=device, quantize=quantize, batch_size=batch_size)
    encoder = CachingEncoder(encoder)
    plan: list[tuple[str, str, Evaluator]] = []  # (table key, row label, evaluator)

    tatoeba = R.read_tatoeba(tatoeba_dir, langs) if tatoeba_dir else []
    key = "tatoeba-margin" if margin else "tatoeba"
    for s in tatoeba:
        plan.append(
            (key, s.name, TranslationEvaluator.from_set(s, name=f"tatoeba {s.name}", margin=margin))
        )

    for s in parallel_sets:
        plan.append((parallel_key, s.name, TranslationEvaluator.from_set(s, name=s.name)))

    sts = [R.read_sts(f) for f in sts_files] + list(sts_sets)
    if sts17_dir:
        sts += R.read_sts17(sts17_dir)
    if sts_cross:
        sts += _cross_sets(sts)
    for st in sts:
        plan.append(("sts", st.name, STSEvaluator.from_set(st)))
    if bias:
        if len(sts) < 2:
            raise ConfigError("language bias needs at least two STS sets (e.g. several languages)")
        pool = _bias_pool(sts)
        plan.append(("bias", "all sets", LanguageBiasEvaluator(pool, _parallel_rows(pool))))

    tasks = R.read_bucc(bucc_dir) if bucc_dir else []
    if bucc_synthetic:
        if not tatoeba:
            raise ConfigError("the BUCC-style synthetic task needs --tatoeba")
        tasks += [build_bucc_style(s) for s in tatoeba]
    for task in tasks:
        plan.append(("bucc", task.name, MiningEvaluator(task)))

    if mse_file:
        teacher_enc, _ = _encoder(teacher, device=device, quantize=False, batch_size=batch_size)
        for s in R.read_parallel_tsv(mse_file, limit=mse_limit):
            plan.append(("mse", s.name, MSEEvaluator(s.src, s.tgt, teacher_enc, name=s.name)))

    if not plan:
        raise ConfigError("nothing to evaluate: give --tatoeba, --sts, --sts17, --bucc or --mse")

    results: list[tuple[str, str, Evaluator, dict[str, float]]] = []
    for i, (tkey, label, ev) in enumerate(plan):
        if cancel is not None:
            cancel.raise_if_cancelled()
        scores = ev(encoder, on_progress=on_progress, cancel=cancel)
        results.append((tkey, label, ev, scores))
        if on_progress is not None:
            primary = {ev.primary_metric: round(scores[ev.primary_metric], 1)}
            on_progress(Progress("evaluate", i + 1, len(plan), ev.name, primary))
    report = Report(name, meta={
        "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "quantized": bool(getattr(encoder.encoder, "quantized", False)),
        "seconds": round(time.monotonic() - t0, 1),
    })  # fmt: skip
    _build_tables(report, results)
    if "bias" not in report.details:  # no STS family: plot the parallel sentences instead
        pca = _parallel_pca(encoder, list(parallel_sets) or tatoeba)
        if pca:
            report.details["bias"] = {"parallel sentences": {"pca": pca}}
    return report


def _parallel_pca(encoder: Any, sets: Sequence[R.ParallelSet]) -> dict[str, list[Any]]:
    """A 2-D PCA of translations (up to ``PCA_ROWS`` a set: each set's source side, and the
    shared side once), for the language-bias plot when no STS family gives one. The
    sentences were encoded for the translation tables already (``CachingEncoder``)."""
    texts: dict[str, list[str]] = {}
    for s in sets:
        if s.src_lang and s.src_lang not in texts:
            texts[s.src_lang] = s.src[:PCA_ROWS]
        if s.tgt_lang and s.tgt_lang not in texts:
            texts[s.tgt_lang] = s.tgt[:PCA_ROWS]
    if len(texts) < 2:
        return {}
    from xlsearch.engine.evaluation import metrics as M

    flat = [t for lang_texts in texts.values() for t in lang_texts]
    coords = M.pca_2d(np.asarray(encoder.encode(flat), dtype=np.float32))
    labels = [lang for lang, lang_texts in texts.items() for _ in lang_texts]
    return {
        "lang": labels,
        "x": [float(v) for v in coords[:, 0]],
        "y": [float(v) for v in coords[:, 1]],
    }


_TATOEBA_COLS = (["xx→en", "en→xx", "mean"], ["src2tgt", "tgt2src", "mean"])
TABLES: dict[str, tuple[str, list[str], list[str]]] = {
    "tatoeba": ("Tatoeba accuracy (%)", *_TATOEBA_COLS),
    "tatoeba-margin": ("Tatoeba accuracy, margin retrieval (%)", *_TATOEBA_COLS),
    "demo-heldout": ("Demo held-out translation accuracy (%)", *_TATOEBA_COLS),
    "dev-split": ("Dev-split translation accuracy (%)", *_TATOEBA_COLS),
    "sts": ("STS (cosine vs gold, ×100)", ["spearman", "pearson"], ["spearman", "pearson"]),
    "bias": (
        "Language bias (Spearman ×100)",
        ["pooled", "mean per set", "bias"],
        ["pooled", "mean_per_set", "bias"],
    ),
    "bucc": (
        "Bitext mining (margin, threshold tuned on train; ×100)",
        ["F1", "precision", "recall"],
        ["f1", "precision", "recall"],
    ),
    "mse": ("MSE to teacher (×100)", ["mse"], ["mse"]),
}
"""Table key → (title, printed columns, evaluator metric names)."""


def _build_tables(
    report: Report, results: list[tuple[str, str, Evaluator, dict[str, float]]]
) -> None:
    by_key: dict[str, list[tuple[str, Evaluator, dict[str, float]]]] = {}
    for tkey, label, ev, scores in results:
        by_key.setdefault(tkey, []).append((label, ev, scores))
    for tkey, (title, columns, names) in TABLES.items():
        if tkey not in by_key:
            continue
        table = Table(tkey, title, columns)
        for label, ev, scores in by_key[tkey]:
            table.add(label, [scores[n] for n in names])
            if ev.details:
                report.details.setdefault(tkey, {})[label] = ev.details
        if tkey.startswith(("tatoeba", "demo-heldout", "dev-split")) and len(table.rows) > 1:
            table.add_mean_row()
        if tkey == "bucc":
            labels = {ev.details.get("label", "BUCC") for _, ev, _ in by_key[tkey]}
            table.note = (
                "BUCC-style, synthetic" if labels == {"BUCC-style"} else ", ".join(sorted(labels))
            )
        if tkey == "sts" and any(
            "multi-mt" in ev.name or "stsb-" in ev.name for _, ev, _ in by_key[tkey]
        ):
            table.note = "stsb-multi-mt sets are machine-translated"
        report.tables.append(table)


def _cross_sets(sets: list[R.StsSet]) -> list[R.StsSet]:
    out = []
    for en in sets:
        if en.lang1 != "en" or not en.family:
            continue
        for other in sets:
            if other is not en and other.family == en.family and other.lang1 not in ("", "en"):
                out.append(R.cross_lingual(en, other))
    return out


def _bias_pool(sets: list[R.StsSet]) -> list[R.StsSet]:
    """The largest row-aligned family (mono + cross-lingual sets) if any, else every set."""
    families: dict[str, list[R.StsSet]] = {}
    for s in sets:
        if s.family:
            families.setdefault(s.family, []).append(s)
    best = max(families.values(), key=len, default=[])
    return best if len(best) >= 2 else sets


def _parallel_rows(sets: list[R.StsSet]) -> dict[str, list[str]]:
    """sentence1 of the first rows of each monolingual set in the largest row-aligned family."""
    families: dict[str, dict[str, R.StsSet]] = {}
    for s in sets:
        if s.family and s.lang1 == s.lang2 and s.lang1:
            families.setdefault(s.family, {}).setdefault(s.lang1, s)
    if not families:
        return {}
    best = max(families.values(), key=len)
    if len(best) < 2:
        return {}
    return {lang: s.s1[:PCA_ROWS] for lang, s in best.items()}


def _encoder(model: Any, *, device: str, quantize: bool, batch_size: int) -> tuple[Any, str]:
    if not isinstance(model, str | os.PathLike) and hasattr(model, "encode"):
        return model, str(getattr(model, "id", type(model).__name__))
    from xlsearch.engine.models.encoder import load_encoder

    enc = load_encoder(model, device=device, quantize=quantize, batch_size=batch_size)
    return enc, enc.id


# --------------------------------------------------------------------------- storing results


def teacher_results_path() -> Path:
    """Where the bundled teacher's results live (its folder is inside an installed package)."""
    return locations.data_dir() / "eval" / "teacher.json"


def save_results(report: Report, model: str | os.PathLike[str] | None = None) -> Path:
    """Merge the report's metrics into the model's card, or the teacher's results file."""
    spec = str(model) if model is not None else report.model
    metrics = report.metrics()
    if spec == BUNDLED_TEACHER or model_id(resolve_model_path(spec)) == BUNDLED_TEACHER:
        path = teacher_results_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        old = _read_json(path).get("metrics", {})
        data = {
            "model": BUNDLED_TEACHER,
            "evaluated": report.meta.get("date"),
            "metrics": {**old, **metrics},
        }
        return write_json(path, data)
    from xlsearch.engine.models.cards import update_card

    folder = resolve_model_path(spec)
    update_card(folder, metrics=metrics, evaluated=report.meta.get("date"))
    return folder / "xlsearch.json"


def stored_metrics(model: str | os.PathLike[str]) -> dict[str, float]:
    """Numeric metrics saved for a model (card, or the teacher's results file)."""
    spec = str(model)
    if spec == BUNDLED_TEACHER:
        raw = _read_json(teacher_results_path()).get("metrics", {})
    else:
        raw = read_card(resolve_model_path(spec)).get("metrics", {})
    if not isinstance(raw, dict):
        return {}
    return {
        k: float(v)
        for k, v in raw.items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }


def compare(models: Sequence[str], reports: Sequence[Report] | None = None) -> Table:
    """Models side by side, from fresh ``reports`` (same order) or from stored results."""
    results: dict[str, dict[str, float]] = {}
    for i, spec in enumerate(models):
        label = _short_name(spec)
        while label in results:
            label += "'"
        results[label] = reports[i].metrics() if reports else stored_metrics(spec)
    if not any(results.values()):
        raise ModelError(
            "no stored evaluation results for these models",
            hint="run `xlsearch eval MODEL --tatoeba DIR …` first, or give benchmarks to --compare",
        )
    return compare_table(results)


def _short_name(spec: str) -> str:
    return "teacher" if spec == BUNDLED_TEACHER else Path(spec).name or spec


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
