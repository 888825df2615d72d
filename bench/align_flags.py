"""How much the aligner's low-confidence flags are worth reading, on Bleualign's de–fr dev.

    python bench/align_flags.py --model PATH [--model bundled:teacher] [--cache DIR]

For each model: the beads of ``align_vectors`` with the default ``AlignConfig``, each marked
wrong when it is not a gold bead (strict, Vecalign's scoring); then the precision (share of
flagged beads that are wrong) and recall (share of wrong beads that are flagged) of

* the default flags, and of each of their parts (deletions/insertions, meaning cost above
  the flag cost, near-ties, swallowed edge sentences);
* flag rules calibrated on the document itself, two-fold: a threshold fitted on one half of
  the beads (the most precise rule that still flags half of that half's wrong beads) and
  measured on the other half, both ways — the figures a new document can expect:

  - ``near-tie``: the search's margin at the bead's end cell, or at a neighbour's, below
    ``t × flag_cost`` (the model's own cost scale);
  - ``logistic``: scikit-learn's logistic regression on the bead's margin, its
    neighbours', its meaning cost over the flag cost, its size, whether it or a neighbour
    is a deletion, its edge gain and cosine; flagged at a fitted probability.

Settings are ``(flag_quantile, flag_margin, tie_floor, flag_deletions)`` of ``AlignConfig``
(the first of ``SHOWN``: the defaults; the second: the defaults before calibration).
Embeddings are cached per model (``--cache``), as in ``bench/align_tune.py``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _data import data_dir, machine  # noqa: E402
from align_tune import sentence_vectors  # noqa: E402

CAP = 2.0  # margins outside the search band are infinite: capped for the features
QUANTILES = (0.05, 0.2, 0.5, 0.8, 0.95, 0.99)
MARGINS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5)
FLOORS = (0.0, 0.3, 0.6)
SHOWN = [
    (0.8, 0.1, 0.3, False),
    (0.05, 0.1, 0.3, True),
    (0.05, 0.1, 0.3, False),
    (0.8, 0.1, 0.0, True),
    (0.8, 0.1, 0.0, False),
    (0.8, 0.1, 0.6, False),
    (0.8, 0.2, 0.0, False),
    (0.95, 0.1, 0.0, False),
    (0.99, 0.1, 0.0, False),
]
"""Settings printed for every model (the first: the defaults)."""


def bead_table(spec: str, cache: Path) -> dict[str, Any]:
    """Per-bead features and labels of one model's alignment of the dev document."""
    from xlsearch.engine.align import AlignConfig, core, read_beads
    from xlsearch.engine.align.cost import run_vectors
    from xlsearch.engine.importers.document import read_document

    folder = data_dir() / "dev" / "bleualign"
    src = read_document(folder / "dev.de", "de", presplit=True)
    tgt = read_document(folder / "dev.fr", "fr", presplit=True)
    gold = {(b.src, b.tgt) for b in read_beads(folder / "dev.defr")}
    v = sentence_vectors(spec, [*src.sentences, *tgt.sentences], cache)
    config = AlignConfig()
    seen: dict[str, Any] = {}
    original = core.beads_from_path

    def spy(path: Any, cost: Any, cfg: Any, margins: Any = None) -> Any:
        seen.update(path=path, cost=cost, margins=margins)
        return original(path, cost, cfg, margins)

    core.beads_from_path = spy
    try:
        beads = core.align_vectors(
            run_vectors(v[: len(src)], config.max_side),
            run_vectors(v[len(src) :], config.max_side),
            config,
            src_lengths=[len(s) for s in src.sentences],
            tgt_lengths=[len(t) for t in tgt.sentences],
            src_texts=src.sentences,
            tgt_texts=tgt.sentences,
        )
    finally:
        core.beads_from_path = original
    cost, margins = seen["cost"], seen["margins"]
    random_costs = cost._random_costs()
    variants = {}
    for q in QUANTILES:  # the flags only: the path stays the default search's
        cost.flag_cost = float(np.quantile(random_costs, q))
        for fm in MARGINS:
            for floor in FLOORS:
                for dels in (True, False):
                    cfg = AlignConfig(
                        flag_margin=fm, tie_floor=floor, flag_quantile=q, flag_deletions=dels
                    )
                    got = original(seen["path"], cost, cfg, margins)
                    variants[(q, fm, floor, dels)] = np.array([b.flagged for b in got], bool)
    cost.flag_cost = float(np.quantile(random_costs, config.flag_quantile))
    rows = []
    for b, (_i0, i1, _j0, j1, _c) in zip(beads, seen["path"], strict=True):
        a, n = len(b.src), len(b.tgt)
        both = bool(a and n)
        unit = cost.meaning_cost(a, n, i1, j1) if both else 0.0
        gain = cost.edge_gain(a, n, i1, j1) if both and a + n > 2 else 1.0
        rows.append(
            {
                "deletion": not both,
                "size": a + n,
                "rel": unit / cost.flag_cost,
                "margin": min(core.cell_margin(margins, i1, j1), CAP),
                "gain": min(gain, 1.0),
                "score": b.score,
                "flagged": b.flagged,
                "over_cost": both and unit > cost.flag_cost,
                "wrong": (b.src, b.tgt) not in gold,
            }
        )
    n = len(rows)
    mg = np.array([r["margin"] for r in rows])
    near = np.array([min(mg[max(i - 1, 0) : i + 2]) for i in range(n)])
    dele = np.array([r["deletion"] for r in rows])
    nb_del = np.array([dele[max(i - 1, 0) : i + 2].any() for i in range(n)])
    return {
        "flag_cost": float(cost.flag_cost),
        "wrong": np.array([r["wrong"] for r in rows]),
        "flagged": np.array([r["flagged"] for r in rows]),
        "deletion": dele,
        "over_cost": np.array([r["over_cost"] for r in rows]),
        "near_tie": near / cost.flag_cost,
        "variants": variants,
        "features": np.column_stack(
            [
                mg / cost.flag_cost,
                near / cost.flag_cost,
                [r["rel"] for r in rows],
                [r["size"] for r in rows],
                dele,
                nb_del,
                [r["gain"] for r in rows],
                [r["score"] for r in rows],
            ]
        ).astype(float),
    }


def pr(flag: np.ndarray, wrong: np.ndarray) -> tuple[int, float, float]:
    hit = int((flag & wrong).sum())
    return int(flag.sum()), hit / max(int(flag.sum()), 1), hit / max(int(wrong.sum()), 1)


def fit_threshold(score: np.ndarray, wrong: np.ndarray, min_recall: float = 0.5) -> float:
    """The threshold (flag where ``score ≥ t``) with the best precision among those that
    flag at least ``min_recall`` of the wrong beads."""
    best, best_p = float(np.max(score)) + 1, -1.0
    for t in np.unique(score):
        _, p, r = pr(score >= t, wrong)
        if r >= min_recall and p > best_p:
            best, best_p = float(t), p
    return best


def two_fold(score_fn: Any, t: dict[str, Any]) -> tuple[int, float, float]:
    """Flags of a rule fitted on one half of the beads and applied to the other, both ways."""
    n = len(t["wrong"])
    halves = [np.arange(n) < n // 2, np.arange(n) >= n // 2]
    flag = np.zeros(n, bool)
    for fit_on, apply_to in (halves, halves[::-1]):
        score = score_fn(fit_on, apply_to)
        thr = fit_threshold(score[fit_on], t["wrong"][fit_on])
        flag[apply_to] = score[apply_to] >= thr
    return pr(flag, t["wrong"])


def main() -> None:
    from sklearn.linear_model import LogisticRegression

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", action="append", required=True, help="model (repeatable)")
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "align-tune")
    args = p.parse_args()
    print(f"Bleualign dev de-fr, strict gold beads; {machine()}\n")
    print("| model | rule | flagged | precision | recall |")
    print("|---|---|---:|---:|---:|")
    for spec in args.model:
        t = bead_table(spec, args.cache)
        name = Path(spec).name
        w = t["wrong"]
        print(f"| {name} | all beads ({int(w.sum())} of {len(w)} wrong) | {len(w)} | "
              f"{w.mean():.2f} | 1.00 |")  # fmt: skip
        parts = [
            ("default flags", t["flagged"]),
            ("… deletions/insertions", t["deletion"]),
            ("… meaning cost > flag cost", t["over_cost"]),
            ("… flagged, neither of those", t["flagged"] & ~t["deletion"] & ~t["over_cost"]),
        ]
        for rule, flag in parts:
            n, prec, rec = pr(flag, w)
            print(f"| {name} | {rule} | {n} | {prec:.2f} | {rec:.2f} |")
        n, prec, rec = two_fold(lambda _f, _a, t=t: -t["near_tie"], t)
        print(f"| {name} | near-tie, calibrated (2-fold) | {n} | {prec:.2f} | {rec:.2f} |")
        x = t["features"]

        def logistic(
            fit_on: np.ndarray, _apply: np.ndarray, x: np.ndarray = x, w: np.ndarray = w
        ) -> np.ndarray:
            clf = LogisticRegression(max_iter=5000).fit(x[fit_on], w[fit_on])
            return clf.predict_proba(x)[:, 1]

        n, prec, rec = two_fold(logistic, t)
        print(f"| {name} | logistic, calibrated (2-fold) | {n} | {prec:.2f} | {rec:.2f} |")
        n, prec, rec, chosen = settings_two_fold(t)
        print(
            f"| {name} | AlignConfig flag settings, calibrated (2-fold; chosen {chosen}) | "
            f"{n} | {prec:.2f} | {rec:.2f} |"
        )
        for key in SHOWN:
            n, prec, rec = pr(t["variants"][key], w)
            print(f"| {name} | settings {key} | {n} | {prec:.2f} | {rec:.2f} |")
        key, (n, prec, rec) = best_setting(t, np.ones(len(w), bool))
        print(
            f"| {name} | AlignConfig flag settings, best on the whole document "
            f"{key} | {n} | {prec:.2f} | {rec:.2f} |"
        )


def best_setting(
    t: dict[str, Any], on: np.ndarray, min_recall: float = 0.5
) -> tuple[tuple, tuple[int, float, float]]:
    """The engine flag settings with the best precision that flag ≥ ``min_recall`` of the
    wrong beads among ``on`` (the most recall when none does)."""
    scored = []
    for key, flag in t["variants"].items():
        n, p, r = pr(flag[on], t["wrong"][on])
        scored.append(((r >= min_recall, p if r >= min_recall else r), key, (n, p, r)))
    scored.sort(key=lambda x: x[0], reverse=True)
    return scored[0][1], scored[0][2]


def settings_two_fold(t: dict[str, Any]) -> tuple[int, float, float, list[tuple]]:
    n = len(t["wrong"])
    halves = [np.arange(n) < n // 2, np.arange(n) >= n // 2]
    flag = np.zeros(n, bool)
    chosen = []
    for fit_on, apply_to in (halves, halves[::-1]):
        key, _ = best_setting(t, fit_on)
        chosen.append(key)
        flag[apply_to] = t["variants"][key][apply_to]
    return (*pr(flag, t["wrong"]), chosen)


if __name__ == "__main__":
    main()
