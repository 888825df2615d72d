"""Translate screen: a placeholder inside a memoQ code is shown in the source pane."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.tui import OpenTranslate
from textual.widgets import Static

pytestmark = pytest.mark.anyio

CAT = Path(__file__).parent.parent / "fixtures" / "cat"


async def test_the_source_pane_shows_the_placeholder_of_a_memoq_code(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
) -> None:
    from xlsearch.engine.models.catalog import set_active_model

    set_active_model(str(tiny_static_model))
    job = Path(shutil.copy(CAT / "nc_ui_strings.mqxliff", tmp_path / "ui.mqxliff"))
    async with translate(job, size=(140, 36)) as (pilot, screen):
        screen.goto(1)
        await pilot.pause()
        shown = str(screen.query_one("#tr-source", Static).render())
        assert "The password must contain at least {{min}} characters." in shown
        screen.goto(next(i for i, s in enumerate(screen.doc.segments) if "larger" in s.source))
        await pilot.pause()
        shown = str(screen.query_one("#tr-source", Static).render())
        assert "larger than %{max_size} MB." in shown
