"""Shared evaluation for the distillation benchmarks: Tatoeba accuracy and STSb Spearman.

A small self-contained loop (``translation_accuracy`` from the evaluation metrics) so that
the distillation benchmarks do not depend on the full evaluation suite.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

import numpy as np

TRAINED = [
    "ara",
    "ces",
    "deu",
    "spa",
    "fra",
    "ita",
    "jpn",
    "kor",
    "nld",
    "pol",
    "por",
    "rus",
    "tur",
    "cmn",
]  # the 14 main languages of ../shared/data/train (isl has 1k pairs only)
UNTRAINED = ["isl", "afr", "swe", "dan", "ukr"]
STS_CROSS = [("en", "de"), ("en", "es"), ("en", "fr"), ("en", "zh"), ("de", "fr")]
STS_MONO = ["en", "de", "zh"]
MT_LANGS = "de es fr it ja nl pl pt ru zh".split()
"""STSb-multi-MT languages: the issue-15 targets are means over these (as bench/quality.py)."""


def data_root() -> Path:
    here = Path(__file__).resolve().parent.parent
    return (here / os.environ.get("XLSEARCH_BENCH_DATA", "../shared/data")).resolve()


def tatoeba(encoder: Any, langs: list[str]) -> dict[str, float]:
    """Mean of both directions' nearest-neighbour accuracy per language (0–100)."""
    from xlsearch.engine.evaluation.metrics import translation_accuracy

    folder = data_root() / "dev" / "tatoeba"
    out = {}
    for lang in langs:
        a = (folder / f"tatoeba.{lang}-eng.{lang}").read_text("utf-8").splitlines()
        b = (folder / f"tatoeba.{lang}-eng.eng").read_text("utf-8").splitlines()
        x, y = encoder.encode(a), encoder.encode(b)
        s2t, t2s = translation_accuracy(x, y)
        out[lang] = (s2t + t2s) / 2
    return out


def _stsb(lang: str) -> tuple[list[str], list[str], np.ndarray]:
    path = data_root() / "dev" / "stsb-multi-mt" / f"stsb-{lang}-test.csv"
    with open(path, encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.reader(fh) if len(r) == 3]
    return [r[0] for r in rows], [r[1] for r in rows], np.array([float(r[2]) for r in rows])


def sts(encoder: Any) -> dict[str, float]:
    """Spearman ρ×100 on STSb-multi-MT test (machine-translated): mono and cross-lingual."""
    from scipy.stats import spearmanr

    sets = {lang: _stsb(lang) for lang in {"en", *MT_LANGS}}
    emb = {lang: (encoder.encode(s[0]), encoder.encode(s[1])) for lang, s in sets.items()}
    out = {}
    for lang in ["en", *MT_LANGS]:
        a, b = emb[lang]
        out[f"{lang}-{lang}"] = 100 * spearmanr((a * b).sum(1), sets[lang][2]).statistic
    pairs = STS_CROSS + [("en", x) for x in MT_LANGS if ("en", x) not in STS_CROSS]
    for x, y in pairs:
        sim = (emb[x][0] * emb[y][1]).sum(1)
        out[f"{x}-{y}"] = 100 * spearmanr(sim, sets[x][2]).statistic
    return out


def summary(tat: dict[str, float], st: dict[str, float] | None = None) -> dict[str, float]:
    res = {"tatoeba_mean14": float(np.mean([tat[x] for x in TRAINED if x in tat]))}
    un = [tat[x] for x in UNTRAINED if x in tat]
    if un:
        res["tatoeba_untrained"] = float(np.mean(un))
    if st:
        res["sts_cross_mean"] = float(np.mean([st[f"{x}-{y}"] for x, y in STS_CROSS]))
        res["sts_enxx_mean10"] = float(np.mean([st[f"en-{x}"] for x in MT_LANGS]))
        res["sts_mono_mean10"] = float(np.mean([st[f"{x}-{x}"] for x in MT_LANGS]))
        res["tatoeba_min14"] = float(min(tat[x] for x in TRAINED if x in tat))
    return res
