"""Snapshot tests (pytest-textual-snapshot): every screen at 80×24 and 120×35, over the
real engine (the concept model and the seed memory, see ``tests/helpers/concepts.py``).

Update after an intended UI change with ``pytest tests/tui/test_snapshots.py
--snapshot-update`` and review the SVGs in ``__snapshots__``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.spy import PictureEngine
from helpers.tui import settle
from textual.widgets import Input, TextArea

from xlsearch.tui.app import make_app

SIZE = (120, 35)
SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=["80x24", "120x35"])


async def _freeze(pilot) -> None:  # type: ignore[no-untyped-def]
    """Stop cursor blinking so the picture does not depend on timing."""
    await settle(pilot)
    for widget in pilot.app.screen.query("Input, TextArea"):
        if isinstance(widget, Input | TextArea):
            widget.cursor_blink = False
    await pilot.pause()


@pytest.fixture()
def _app(seeded_model: Path, _tmp_home: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    """The app over the real engine; the temporary folders, clock and CPU as fixed text."""
    engine = PictureEngine({str(_tmp_home): "<home>", str(tmp_path): "<test>"})

    def build(query: str = "", theme: str = "textual-dark"):  # type: ignore[no-untyped-def]
        return make_app(engine=engine, query=query, theme=theme)

    return build


def test_search_screen(_app, snap_compare):
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("down")  # into the results: the preview shows the hit in context
        await _freeze(pilot)

    assert snap_compare(_app("train"), terminal_size=SIZE, run_before=run_before)


def test_search_screen_light_80x24(_app, snap_compare):
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _freeze(pilot)

    app = _app("Zug", theme="textual-light")
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@SIZES
def test_compare_screen(_app, snap_compare, size: tuple[int, int]):
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("f3")
        await settle(pilot)
        screen = pilot.app.screen
        screen.query_one("#sts-a", Input).value = "the train to Berlin"
        screen.query_one("#sts-b", TextArea).text = "the train to Berlin leaves\nsunny weather"
        await pilot.press("ctrl+r")
        await _freeze(pilot)

    assert snap_compare(_app(), terminal_size=size, run_before=run_before)


@SIZES
@pytest.mark.parametrize("key", ["f4", "f8", "f1"])
def test_corpus_models_help_screens(_app, snap_compare, key: str, size: tuple[int, int]):
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press(key)
        await _freeze(pilot)

    assert snap_compare(_app(), terminal_size=size, run_before=run_before)


@SIZES
def test_distill_screen_after_a_run(
    _app, snap_compare, teacher: str, tmp_path: Path, size: tuple[int, int]
):
    data = tmp_path / "en-de.tsv"
    data.write_text("the dog\tder Hund\nbad line\na house\tein Haus\n", encoding="utf-8")

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("f5")
        await settle(pilot)
        pilot.app.screen.set_files([str(data)])
        pilot.app.screen.query_one("#teacher", Input).value = teacher
        await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        await pilot.press("n")  # the offer to switch to the new student: not now
        await _freeze(pilot)

    assert snap_compare(_app(), terminal_size=size, run_before=run_before)


def test_distill_offers_the_new_student(_app, snap_compare, teacher: str, tmp_path: Path):
    data = tmp_path / "en-de.tsv"
    data.write_text("the dog\tder Hund\na house\tein Haus\n", encoding="utf-8")

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("f5")
        await settle(pilot)
        pilot.app.screen.set_files([str(data)])
        pilot.app.screen.query_one("#teacher", Input).value = teacher
        await settle(pilot)
        await pilot.press("ctrl+r")
        await _freeze(pilot)

    assert snap_compare(_app(), terminal_size=(80, 24), run_before=run_before)


@SIZES
@pytest.mark.parametrize("key", ["f6", "f7"])
def test_evaluate_and_mining_screens_after_a_run(
    _app, snap_compare, key: str, size: tuple[int, int]
):
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press(key)
        await settle(pilot)
        await pilot.press("ctrl+r")
        await _freeze(pilot)

    assert snap_compare(_app(), terminal_size=size, run_before=run_before)
