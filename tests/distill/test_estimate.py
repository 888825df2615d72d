"""The distillation time estimate: the data's size times this machine's stored rates (the
reference figures before any run), per kind of run."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlsearch.engine.distill import DistillConfig
from xlsearch.engine.distill import estimate as est


@pytest.fixture()
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "en-de.tsv"
    path.write_text("".join(f"the house {i}\tdas Haus {i}\n" for i in range(300)), "utf-8")
    return path


def test_rates_are_kept_per_kind_and_said_where_they_come_from(pairs: Path) -> None:
    new = DistillConfig(train=[str(pairs)], student="static", teacher="bundled:teacher")
    first = est.estimate_run(new, probe=3000.0)
    assert (first.source, first.pairs) == ("reference", 300)
    ref = est.REFERENCE["cpu:static"]  # measured where the probe read ref.probe: scaled
    assert first.parts["building the student"] == pytest.approx(
        300 * ref.build_s_per_pair * ref.probe / 3000.0
    )
    assert "rough: no run here yet" in first.describe()
    # a continued student builds no vocabulary: its own rates, not a new student's
    shipped = est.estimate_run(DistillConfig(train=[str(pairs)], start_from="shipped"), probe=3e3)
    cont = est.REFERENCE["cpu:continue"]
    assert cont.build_s_per_pair == 0.0
    assert shipped.parts["building the student"] == pytest.approx(cont.build_s * cont.probe / 3e3)
    measured = est.Rates(build_s_per_pair=0.01, build_s=0.0, probe=3e3, source="measured", date="D")
    est.store_rates("cpu", "static", measured)
    again = est.estimate_run(new, probe=6000.0)  # twice as fast a machine now
    assert again.source == "measured" and "from the last run here (D), ±30%" in again.describe()
    assert again.parts["building the student"] == pytest.approx(300 * 0.01 / 2)
    assert again.low == pytest.approx(again.seconds * 0.7)
    still = est.estimate_run(DistillConfig(train=[str(pairs)], start_from="shipped"), probe=3e3)
    assert still.source == "reference"


def test_a_time_limit_caps_the_training_part(pairs: Path) -> None:
    cfg = DistillConfig(train=[str(pairs)], student="static", max_steps=10**6, time_limit_min=1)
    capped = est.estimate_run(cfg, probe=3000.0)
    assert capped.capped and "capped by the time limit" in capped.describe()
    assert capped.parts["training"] < 60 + 10**6


def test_a_busy_neighbour_slows_the_parallel_parts(
    pairs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rates came from a run on 2 threads; with one core left free (a busy neighbour the
    single-thread probe does not see) the teacher and the training take twice as long."""
    cfg = DistillConfig(train=[str(pairs)], student="static", teacher="bundled:teacher")
    monkeypatch.setattr(est, "run_threads", lambda: 2)
    idle = est.estimate_run(cfg, probe=3000.0)
    monkeypatch.setattr(est, "run_threads", lambda: 1)
    busy = est.estimate_run(cfg, probe=3000.0)
    for part in ("teacher embeddings", "training"):
        assert busy.parts[part] == pytest.approx(2 * idle.parts[part])
    assert busy.parts["building the student"] == pytest.approx(idle.parts["building the student"])
