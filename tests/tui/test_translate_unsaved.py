"""Translate screen: ctrl+q does not silently drop a translation the translator typed or
confirmed; it says so once, ctrl+s saves, and a second ctrl+q quits without saving."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.tui import OpenTranslate, settle
from textual.widgets import TextArea

pytestmark = pytest.mark.anyio

CAT = Path(__file__).parent.parent / "fixtures" / "cat"


def _warned(pilot: object) -> bool:
    return any("Unsaved" in (n.title or "") for n in pilot.app._notifications)  # type: ignore[attr-defined]


async def test_quit_with_a_typed_target_warns_then_quits(
    tmp_path: Path, translate: OpenTranslate
) -> None:
    job = Path(shutil.copy(CAT / "nc_cms_job.xlf", tmp_path / "job.xlf"))
    async with translate(job) as (pilot, screen):
        screen.goto(1)
        await settle(pilot, 3)
        screen.query_one("#tr-target", TextArea).text = "Drücken Sie die Taste zehn Sekunden."
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert _warned(pilot) and pilot.app.is_running  # the typed text is not lost
        assert "zehn Sekunden" in screen.doc.segments[1].target
        await pilot.press("ctrl+q")  # a second ctrl+q: the translator chose to leave
        await pilot.pause()
        assert not pilot.app.is_running


async def test_quit_after_saving_or_without_changes_does_not_ask(
    tmp_path: Path, translate: OpenTranslate
) -> None:
    job = Path(shutil.copy(CAT / "nc_cms_job.xlf", tmp_path / "job.xlf"))
    async with translate(job) as (pilot, screen):
        assert screen.unsaved_document() is None  # opened, nothing changed
        screen.goto(1)
        await settle(pilot, 3)
        screen.query_one("#tr-target", TextArea).text = "Drücken Sie die Taste."
        assert screen.unsaved_document() == "job.xlf"
        await pilot.press("ctrl+s")
        await settle(pilot, 3)
        assert screen.unsaved_document() is None
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not _warned(pilot) and not pilot.app.is_running
