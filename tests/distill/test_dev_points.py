"""A run evaluates on its dev split often enough to draw a curve: at least ~10 points, even
when the preset's interval (500 steps) is longer than the run; the app's two plots share
one x-axis (step 0 to the run's planned steps) and the loss plot says why an early rising
loss is normal."""

from __future__ import annotations

from pathlib import Path

from helpers.distill import DE, FR, config, log_lines, write_pairs

from xlsearch.engine.distill import distill
from xlsearch.engine.distill.setup import dev_interval


def test_dev_interval() -> None:
    assert dev_interval(500, 486) == 48  # was one dot for a 486-step run
    assert dev_interval(500, 20_000) == 500  # long runs keep the preset's interval
    assert dev_interval(0, 486) == 0  # only at the end, as asked
    assert dev_interval(500, 5) == 1


def test_a_short_run_draws_a_dev_curve(tmp_path: Path, tiny_st_model: Path) -> None:
    corpus = {
        "de": write_pairs(tmp_path / "de.tsv", DE, 200),
        "fr": write_pairs(tmp_path / "fr.tsv", FR, 200, seed=1),
    }
    cfg = config(corpus, tiny_st_model, tmp_path / "out", max_steps=40, eval_steps=500)
    result = distill(cfg)
    assert not result.cancelled
    run = tmp_path / "out.run"
    points = [m for m in log_lines(run) if "dev_acc" in m]
    assert len(points) >= 10


def test_an_early_rising_loss_is_explained() -> None:
    from xlsearch.tui.screens.distill import rising_early

    assert rising_early([(1, 1.0), (10, 1.3), (20, 1.2)], total=486)
    assert not rising_early([(1, 1.0), (10, 0.8)], total=486)
    assert not rising_early([(1, 1.0), (300, 1.3)], total=486)  # late: not the warm-up
