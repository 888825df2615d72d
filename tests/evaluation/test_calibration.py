"""STS calibration: isotonic cosine → 0–5 curve, stored in the card, used by sts/Compare/CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from xlsearch.engine import load_encoder
from xlsearch.engine.errors import DataError
from xlsearch.engine.evaluation import sts_calibration as calibration

WORDS = "the dog cat sleeps runs red house big tree small green a on in".split()


def test_fit_is_monotone_and_recovers_a_known_curve() -> None:
    rng = np.random.default_rng(0)
    cos = rng.uniform(0.4, 1.0, 2000)
    gold = np.clip((cos - 0.4) / 0.6 * 5 + rng.normal(0, 0.3, len(cos)), 0, 5)
    cal = calibration.fit(cos, gold)
    assert len(cal["x"]) <= calibration.KNOTS
    assert np.all(np.diff(cal["x"]) > 0) and np.all(np.diff(cal["y"]) >= 0)
    # a static student's cosine 0.7 is "half similar" here, not 3.5/5
    assert calibration.apply(0.7, cal) == pytest.approx(2.5, abs=0.3)
    assert calibration.apply(0.1, cal) == pytest.approx(cal["y"][0])  # clamped below the data
    assert 0.0 <= calibration.apply(-1.0, cal) <= calibration.apply(1.0, cal) <= 5.0
    assert calibration.apply(0.7, None) == pytest.approx(3.5)  # documented fallback
    assert calibration.apply(-0.2, None) == 0.0
    with pytest.raises(DataError):
        calibration.fit(np.ones(5), np.arange(5.0))


def _sts_file(path: Path, n: int = 60) -> Path:
    """STS-benchmark layout (genre, source, year, id, score, s1, s2), 0–5 gold."""
    rng = np.random.default_rng(1)
    rows = []
    for i in range(n):
        a = rng.choice(WORDS, 5)
        keep = int(rng.integers(0, 6))
        b = np.concatenate([a[:keep], rng.choice(WORDS, 5 - keep)])
        rows.append(f"main-news\tsrc\t2012\t{i:04d}\t{keep:.1f}\t{' '.join(a)}\t{' '.join(b)}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_calibrate_cli_stores_curve_and_sts_uses_it(
    tiny_static_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main
    from xlsearch.engine.evaluation.sts_calibration import sts

    model = str(tiny_static_model)
    before = sts("the dog sleeps", "a red house", load_encoder(model))
    assert not before.calibrated
    assert before.score == pytest.approx(round(5 * max(0.0, before.cosine), 3))
    train = _sts_file(tmp_path / "sts-train.csv")
    assert main(["eval", model, "--calibrate-sts", str(train)]) == 0
    out = capsys.readouterr().out
    assert "STS calibration on sts-train.csv (60 pairs" in out and "mean absolute error" in out
    card = json.loads((tiny_static_model / "xlsearch.json").read_text("utf-8"))
    cal = card["sts_calibration"]
    assert cal["pairs"] == 60 and cal["data"] == "sts-train.csv"
    assert cal["mae"] <= cal["mae_fallback"]  # the fit is at least as good on its own data
    enc = load_encoder(model)
    after = sts("the dog sleeps", "a red house", enc)
    assert after.calibrated and after.cosine == pytest.approx(before.cosine)
    assert after.score == pytest.approx(float(calibration.apply(after.cosine, cal)), abs=1e-3)
    assert main(["sts", "the dog", "a red house", "--model", model, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["calibrated"] is True and 0.0 <= row["score"] <= 5.0
    # the facade (Compare screen) scores with the same curve
    from xlsearch.service.local import LocalEngine

    eng = LocalEngine()
    eng.set_active_model(model)
    (hit,) = eng.sts("the dog sleeps", ["a red house"])
    assert hit.calibrated and hit.score == pytest.approx(round(after.score, 2), abs=0.01)


def test_calibrate_bad_file_is_one_line_error(
    tiny_static_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main

    bad = tmp_path / "bad.tsv"
    bad.write_text("only one column\n", encoding="utf-8")
    assert main(["eval", str(tiny_static_model), "--calibrate-sts", str(bad)]) != 0
    err = capsys.readouterr().err
    assert "bad.tsv" in err and "Traceback" not in err
    assert "sts_calibration" not in (tiny_static_model / "xlsearch.json").read_text("utf-8")
