"""The distillation wizard offers "your memory on top of the shipped multilingual student"
first where xlsearch ships one, and its run continues that student (``--init shipped``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Select

pytestmark = pytest.mark.anyio
SIZE = (100, 30)


async def test_wizard_offers_the_shipped_student_first(
    app, settle, tiny_static_model: Path, tsv_file: Path, monkeypatch: pytest.MonkeyPatch
):  # type: ignore[no-untyped-def]
    from xlsearch.engine.models.shrink import shrink_static

    stand_in = shrink_static(tiny_static_model, tiny_static_model.parent / "multilingual")
    monkeypatch.setenv("XLSEARCH_SHIPPED_MODEL", str(stand_in))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        student = screen.query_one("#student", Select)
        assert student.value == "shipped"
        screen.files = [str(tsv_file)]
        config = screen.build_config()
        assert (config.student, config.start_from) == ("static", "shipped")
        student.value = "static"  # a new student, as before
        assert screen.build_config().start_from == ""


async def test_without_a_shipped_student_the_wizard_is_unchanged(app, settle):  # type: ignore[no-untyped-def]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        student = app.screen.query_one("#student", Select)
        assert student.value == "static"
        assert "shipped" not in [value for _, value in student._options]
