"""The distillation wizard before Start: the STS calibration option and the device line's
thread count (the time estimate and a calibrated run: tests/tui/test_screens.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input

pytestmark = pytest.mark.anyio
SIZE = (100, 30)


async def test_the_sts_option_names_a_missing_file(app, settle, tsv_file: Path):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        screen.files = [str(tsv_file)]
        screen.query_one("#calibrate", Checkbox).value = True
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert "name the STS file" in str(list(app._notifications)[-1].message)
        screen.query_one("#sts-file", Input).value = "no-such-sts.csv"
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert "STS file not found: no-such-sts.csv" in str(list(app._notifications)[-1].message)
        assert screen.result is None and not screen.job_running()


def test_the_device_line_says_how_many_cores_and_why(monkeypatch: pytest.MonkeyPatch) -> None:
    from xlsearch.engine.models import encoder
    from xlsearch.engine.runtime import cpu

    monkeypatch.setattr(cpu, "cpu_count", lambda *a: 2)
    policy = cpu.configure_threads()
    monkeypatch.setattr(policy, "source", "auto")
    assert encoder.cpu_threads_description(1) == (
        "CPU, 1 of 2 cores (1 busy elsewhere; follows the load)"
    )
    assert encoder.cpu_threads_description(2) == "CPU, 2 cores"
    monkeypatch.setattr(policy, "source", "setting")
    assert encoder.cpu_threads_description(1) == (
        "CPU, 1 thread of 2 cores (set by the threads setting or --threads)"
    )
