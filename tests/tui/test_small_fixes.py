"""Small things a user meets: escape cancels a running job as ctrl+x does; letters typed while
the results table has focus go to the query, not to the table's shortcuts; filter fields
whose placeholder does not read as an active filter; the teacher is "teacher" everywhere;
ctrl+c in the app and the README agree."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from xlsearch.engine.errors import CancelledError

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]


async def test_escape_cancels_a_running_job(app, settle):  # type: ignore[no-untyped-def]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f7")
        await settle(pilot)
        screen = app.screen
        stopped: list[bool] = []

        def slow(_p, cancel):  # type: ignore[no-untyped-def]
            for _ in range(500):
                if cancel.cancelled:
                    stopped.append(True)
                    raise CancelledError("stopped")
                time.sleep(0.01)

        screen.run_job("mine", slow)
        await pilot.pause(0.1)
        assert screen.job_running()
        await pilot.press("escape")
        await settle(pilot)
        assert stopped == [True] and not screen.job_running()
        await pilot.press("escape")  # nothing running: escape is not taken from the screen
        assert not [n for n in app._notifications if n.title == "Cancelling"][1:]


async def test_typing_in_the_results_table_goes_to_the_query(app, settle):  # type: ignore[no-untyped-def]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press(*"Zug", "enter")
        await settle(pilot)
        await pilot.press("down")
        assert isinstance(screen.focused, DataTable)
        await pilot.press(*" nach")  # space marks the hit, as the footer says
        assert screen.query_one("#query", Input).value == "Zugnach"
        assert isinstance(screen.focused, Input)
        assert not [n for n in app._notifications if "Nothing" in n.title]
        # a word that starts with a shortcut letter (c copies, e exports) is typed too
        screen.query_one("#query", Input).value = ""
        screen.query_one("#results", DataTable).focus()
        clipboard = app.clipboard
        await pilot.press(*"copy")
        await pilot.pause(0.5)
        assert screen.query_one("#query", Input).value == "copy"
        assert app.clipboard == clipboard and not app.screen.query("#export-path")


async def test_filter_placeholders_do_not_read_as_filters(app, settle):  # type: ignore[no-untyped-def]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        langs = app.screen.query_one("#langs", Input).placeholder
        meta = app.screen.query_one("#where", Input).placeholder
        assert langs.startswith("all languages") and meta.startswith("any metadata")


def test_the_teacher_resolves_by_the_name_it_is_listed_under(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from xlsearch.cli import main
    from xlsearch.engine.models.cards import bundled_teacher_path, resolve_model_path

    assert resolve_model_path("teacher") == bundled_teacher_path()
    assert main(["models", "--use", "teacher"]) == 0
    capsys.readouterr()
    assert main(["eval", "--compare", "teacher"]) != 0  # nothing stored yet, but found
    assert "model folder not found" not in capsys.readouterr().err


async def test_ctrl_c_and_the_readme_agree(app, settle):  # type: ignore[no-untyped-def]
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "in the app ctrl+q quits" in readme
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.screen.query_one("#results", DataTable).focus()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        assert any("ctrl+q" in str(n.message) for n in app._notifications)


async def test_a_50x16_terminal_still_shows_result_rows(app, settle):  # type: ignore[no-untyped-def]
    async with app.run_test(size=(50, 16)) as pilot:
        await settle(pilot)
        await pilot.press(*"Zug", "enter")
        await settle(pilot)
        table = app.screen.query_one("#results", DataTable)
        assert table.row_count >= 4
        assert table.scrollable_content_region.height - 1 >= 4  # four rows under the header


def test_search_screen_50x16(snap_compare, seeded_model: Path, _tmp_home: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    """The layout at 50x16: query, filters, result rows and a short preview."""
    from helpers.spy import PictureEngine
    from helpers.tui import settle as settled

    from xlsearch.tui.app import make_app

    engine = PictureEngine({str(_tmp_home): "<home>", str(tmp_path): "<test>"})

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settled(pilot)
        for widget in pilot.app.screen.query("Input"):
            widget.cursor_blink = False
        await pilot.pause()

    app = make_app(engine=engine, query="Zug", theme="textual-dark")
    assert snap_compare(app, terminal_size=(50, 16), run_before=run_before)


async def test_the_wizard_shows_the_presets_values(app, settle):  # type: ignore[no-untyped-def]
    from textual.widgets import Select

    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen

        def shown() -> list[str]:
            return [
                screen.query_one(f, Input).placeholder for f in ("#epochs", "#batch", "#minutes")
            ]

        assert shown() == ["epochs 2", "batch 512", "≤ 15 min"]  # quick, static
        screen.query_one("#preset", Select).value = "full"
        await pilot.pause()
        assert shown() == ["epochs 20", "batch 1024", "no time limit"]


async def test_the_wizard_fits_80x24_with_its_data_chosen(app, settle, tsv_file: Path):  # type: ignore[no-untyped-def]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        screen.set_files([str(tsv_file)])
        await settle(pilot)
        form = screen.query_one("#distill-form")
        for selector in ("#teacher", "#preset", "#sts-file", "#start", "#estimate"):
            widget = screen.query_one(selector)
            assert form.region.contains_region(widget.region), selector  # not scrolled off
