"""The Mine screen's notice keeps how many mined pairs to trust, whichever of its two jobs
(the languages check, the mining) ends last."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from xlsearch.tui.messages import JobDone
from xlsearch.tui.screens.mining import MiningScreen

pytestmark = pytest.mark.anyio


async def test_precision_notice_survives_a_late_language_check(app, settle) -> None:
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f7")
        await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MiningScreen)
        notice = screen.query_one("#mine-notice", Static)
        said = str(notice.render())
        assert "precision" in said, said
        screen.post_message(JobDone("mine-languages", None))  # the check ends after mining
        await settle(pilot)
        assert str(notice.render()) == said
        assert notice.display
