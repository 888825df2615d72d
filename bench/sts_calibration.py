"""STS score calibration: fit on STS-benchmark train, measure on held-out STS sets.

Run: python bench/sts_calibration.py --models MODEL… [--eval-sets stsb-de-test …]
For each model: the isotonic calibration (engine/evaluation/sts_calibration.py) fitted on
``dev/stsbenchmark/sts-train.csv``, then on STSb test (English) and STSb-multi-MT test sets
(machine-translated; en×xx = sentence 1 English, sentence 2 in xx): mean absolute error
of the 0–5 score and the share of pairs within 1 point of gold, for the fallback
(5 × clip(cosine, 0, 1)) and the calibrated score. Nothing is written to the model cards.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from quality import data_dir  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", required=True)
    ap.add_argument("--cross", nargs="*", default=["de", "zh"], help="en×xx test sets")
    args = ap.parse_args()

    from xlsearch.engine import load_encoder
    from xlsearch.engine.evaluation import readers as R
    from xlsearch.engine.evaluation import sts_calibration as calibration
    from xlsearch.engine.evaluation.evaluators import STSEvaluator

    dev = data_dir() / "dev"
    train = dev / "stsbenchmark" / "sts-train.csv"
    sets = [R.read_stsb(dev / "stsbenchmark" / "sts-test.csv", name="stsb en test")]
    en = R.read_stsb_multi_mt(dev / "stsb-multi-mt" / "stsb-en-test.csv")
    for lang in args.cross:
        xx = R.read_stsb_multi_mt(dev / "stsb-multi-mt" / f"stsb-{lang}-test.csv")
        sets.append(R.cross_lingual(en, xx))
    print("| model | set | pairs | MAE 5×cos | MAE calibrated | ≤1 pt 5×cos | ≤1 pt calibrated |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for spec in args.models:
        enc = load_encoder(spec, device="cpu")
        cal = calibration.calibrate(enc, train, save=False)
        for s in sets:
            cos = STSEvaluator.from_set(s).cosines(enc)
            gold = np.asarray(s.scores, dtype=np.float64)
            fb = calibration.fallback_score(cos)
            ca = calibration.apply(cos, cal)
            print(
                f"| {Path(spec).name} | {s.name} | {len(gold)} "
                f"| {np.abs(fb - gold).mean():.2f} | {np.abs(ca - gold).mean():.2f} "
                f"| {100 * (np.abs(fb - gold) <= 1).mean():.0f} % "
                f"| {100 * (np.abs(ca - gold) <= 1).mean():.0f} % |"
            )
        pts = ", ".join(
            f"{x:.2f}→{y:.1f}" for x, y in zip(cal["x"][::9], cal["y"][::9], strict=False)
        )
        print(f"\n{Path(spec).name}: fit on {cal['pairs']} train pairs; cosine → score: {pts}\n")


if __name__ == "__main__":
    main()
