"""Pilot tests of the search screen over the real engine (the concept model, the seed memory)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Label, Select, Static

from xlsearch.service.api import HIT_COLUMNS
from xlsearch.tui.screens.search import SearchScreen, highlight, pick_translation, query_terms

SIZE = (100, 30)

pytestmark = pytest.mark.anyio


def cell(table: DataTable, row: int, column: str) -> str:
    return str(table.get_cell_at((row, table.get_column_index(column))))


async def test_search_as_you_type_is_debounced_and_shows_translations(app, engine, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"Zug Berlin")
        await settle(pilot)
        await pilot.pause(0.4)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        searches = [c for c in engine.calls if c.startswith("search:")]
        assert searches == ["search:semantic:Zug Berlin"]  # one call for ten key presses
        table = screen.query_one("#results", DataTable)
        assert table.row_count == len(screen.hits) > 0
        assert screen.hits[0].text == "Der Zug nach Berlin fährt um neun ab."
        assert cell(table, 0, "lang") == "de"
        assert cell(table, 0, "translation") == "en: The train to Berlin leaves at nine."
        assert str(screen.query_one("#search-status", Label).content).startswith(
            f"{len(screen.hits)} hits"
        )
        assert "JobDone('search')" in screen.message_log


async def test_enter_searches_at_once_and_preview_shows_context(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        screen.query_one("#query", Input).value = "train to Berlin"
        await pilot.press("enter")
        await settle(pilot)
        assert screen.hits
        await pilot.press("down")  # from the query into the results
        await settle(pilot)
        assert isinstance(app.focused, DataTable)
        preview = screen.query_one("#preview", Static).content
        text = preview.plain
        assert "▶ The train to Berlin leaves at nine." in text
        assert "Where is the nearest pharmacy?" in text  # the next segment
        assert "de: Der Zug nach Berlin" in text
        styled = {text[s.start : s.end] for s in preview.spans if "reverse" in str(s.style)}
        assert "train" in styled  # the query's word is highlighted


async def test_language_filter_collection_and_mode(app, engine, settle):
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot)
        screen.query_one("#langs", Input).value = "ru"
        screen.query_one("#query", Input).value = "train"
        await pilot.press("enter")
        await settle(pilot)
        assert screen.hits and {h.lang for h in screen.hits} == {"ru"}
        assert screen.query_one("#collection", Select).value == "*"
        assert "demo" in [
            value for _label, value in screen.query_one("#collection", Select)._options
        ]
        # the filters need names and tags only: no per-segment counts at start-up (seconds
        # on a million-unit memory, next to the first search)
        assert "collections" not in engine.calls and screen.stored == (
            ["demo"],
            ["de", "en", "ru", "zh"],
        )
        screen.query_one("#mode", Select).value = "lexical"
        await pilot.pause(0.4)
        await settle(pilot)
        assert engine.calls[-1] == "search:lexical:train"


async def test_no_hits_says_why_a_language_filter_found_nothing(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot)
        screen.query_one("#langs", Input).value = "jp"  # a typo for ja
        screen.query_one("#query", Input).value = "train"
        await pilot.press("enter")
        await settle(pilot)
        assert not screen.hits
        assert str(screen.query_one("#preview", Static).content) == (
            "No matches. No segment is in jp; stored: de, en, ru, zh."
        )


async def test_bad_regex_shows_the_error_not_a_traceback(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        screen.query_one("#mode", Select).value = "regex"
        screen.query_one("#query", Input).value = "Zug("
        await pilot.press("enter")
        await settle(pilot)
        assert "Configuration error" in str(screen.query_one("#search-status", Label).content)
        assert any("invalid regular expression" in n.message for n in app._notifications)
        assert any(n.title == "Configuration error" for n in app._notifications)


async def test_copy_mark_and_export(app, settle, tmp_path: Path):
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        screen.query_one("#query", Input).value = "train to Berlin"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("down")
        await settle(pilot)
        await pilot.press("c")
        await pilot.pause(0.5)  # a shortcut letter acts unless more letters follow it
        assert app.clipboard == "The train to Berlin leaves at nine."
        await pilot.press("t")
        await pilot.pause(0.5)
        assert app.clipboard == "Der Zug nach Berlin fährt um neun ab."
        # one hit per translation unit: the six units (not their 24 segments)
        assert len(screen.hits) == 6 and len({h.text for h in screen.hits}) == 6
        await pilot.press("space", "down", "space", "up", "space", "space")
        assert screen.marked == {0, 1}
        await pilot.press("e")
        await pilot.pause(0.5)
        out = tmp_path / "hits.tsv"
        app.screen.query_one("#export-path", Input).value = str(out)
        await pilot.press("enter")
        await settle(pilot)
        rows = out.read_text(encoding="utf-8").splitlines()
        assert len(rows) == 3  # header + the two marked hits
        assert rows[0].split("\t") == list(HIT_COLUMNS)
        assert "The train to Berlin leaves at nine." in rows[1]
        assert any(n.title == "Exported" for n in app._notifications)
        # unmarked, "→ ru" chosen: every row, with exactly the translation the screen shows
        await pilot.press("up", "space", "down", "space")
        assert not screen.marked
        screen.query_one("#target").value = "ru"
        await settle(pilot)
        table = screen.query_one("#results", DataTable)
        await pilot.press("e")
        await pilot.pause(0.5)
        out = tmp_path / "all.tsv"
        app.screen.query_one("#export-path", Input).value = str(out)
        await pilot.press("enter")
        await settle(pilot)
        rows = [r.split("\t") for r in out.read_text(encoding="utf-8").splitlines()]
        assert len(rows) == 1 + len(screen.hits) == 1 + table.row_count
        for r, row in enumerate(rows[1:]):
            shown = cell(table, r, "translation")
            assert shown == (f"{row[4]}: {row[5]}" if row[4] else "")
            assert row[2:4] == [cell(table, r, "lang"), cell(table, r, "text")]
        assert all(row[4] == "ru" for row in rows[1:] if row[2] != "ru")


async def test_phrase_mode_and_long_text_ends_in_an_ellipsis(app, settle):
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert "phrase" in [v for _l, v in screen.query_one("#mode")._options]
        screen.query_one("#mode").value = "phrase"
        screen.query_one("#query", Input).value = "the train to"
        await pilot.press("enter")
        await settle(pilot)
        assert screen.hits and all("the train to" in h.text.lower() for h in screen.hits)
        table = screen.query_one("#results", DataTable)
        width = table.ordered_columns[table.get_column_index("text")].width
        hit = next(h for h in screen.hits if len(h.text) > width)
        row = screen.hits.index(hit)
        line = table.render_line(row + 1).text  # row 0 of the strip is the header
        assert "…" in line
        table.move_cursor(row=row)
        await settle(pilot)
        assert hit.text in screen.query_one("#preview").content.plain  # all of it


def test_helpers():
    assert query_terms("The train, 去柏林") == ["the", "train", "去", "柏", "林"]
    text = highlight("There is the train", ["the"])
    assert [text.plain[s.start : s.end] for s in text.spans] == ["the"]  # whole words only
    from xlsearch.service.api import Hit

    hit = Hit(1, 0.5, "de", "Hund", translations={"ru": "собака", "en": "dog"})
    assert pick_translation(hit, "*") == ("en", "dog")
    assert pick_translation(hit, "ru") == ("ru", "собака")
    assert pick_translation(hit, "*", query_lang="ru") == ("ru", "собака")  # the query's language
    assert pick_translation(hit, "*", query_lang="de") == ("en", "dog")  # not the hit's own


async def test_a_toy_model_says_so_once_outside_the_demo_collection(
    app, engine, settle, tmp_path: Path
):
    toy = {"data": [{"path": "demo-train.tsv", "pairs": 3830}], "languages": ["de", "fr"]}
    engine.model_card = lambda spec: toy  # the active model saw 3,830 pairs
    seen: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.notify = lambda message, **kw: seen.append(str(message))  # type: ignore[method-assign]
        await pilot.press(*"Zug", "enter")
        await settle(pilot)
        assert not [s for s in seen if "saw only" in s]  # the demo collection: what it is for
        tm = tmp_path / "tm.tmx"
        tm.write_text(
            '<?xml version="1.0" encoding="UTF-8"?><tmx version="1.4"><header srclang="en" '
            'datatype="plaintext" segtype="sentence" adminlang="en" creationtool="t" '
            'creationtoolversion="1" o-tmf="t"/><body><tu><tuv xml:lang="en"><seg>The train '
            'leaves.</seg></tuv><tuv xml:lang="de"><seg>Der Zug fährt.</seg></tuv></tu>'
            "</body></tmx>",
            encoding="utf-8",
        )
        engine.import_files([str(tm)], "tm")
        app.screen.stored = (["demo", "tm"], ["de", "en"])
        for _ in range(2):
            await pilot.press("backspace", "g", "enter")
            await settle(pilot)
        (line,) = [s for s in seen if "saw only" in s]  # once, not per search
        assert "3,830 translation pairs" in line and "xlsearch distill --train tm.tsv" in line
        assert "--lang en,de tm.tsv" in line  # the memory's languages (not the model's de,fr)


async def test_hits_show_before_the_query_language_is_known(seeded_model, settle):
    """The first results do not wait for the language identifier (its first load takes a
    fresh process a second or more): the translation column follows the query's language
    once it is known, and the cursor stays where it was."""
    import threading

    from helpers.spy import SpyEngine

    from xlsearch.tui.app import make_app

    gate = threading.Event()

    class SlowIdentifier(SpyEngine):
        def detect_language(self, text: str) -> str:
            gate.wait(20)
            return super().detect_language(text)

    app = make_app(engine=SlowIdentifier(), theme="textual-dark")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.query_one("#langs", Input).value = "de"
        screen.query_one("#query", Input).value = "поезд в Берлин"
        await pilot.press("enter")
        for _ in range(500):
            if screen.searches:
                break
            await pilot.pause(0.01)
        table = screen.query_one("#results", DataTable)
        assert screen.searches and screen.hits[0].text == "Der Zug nach Berlin fährt um neun ab."
        assert cell(table, 0, "translation") == "en: The train to Berlin leaves at nine."
        table.move_cursor(row=1)
        gate.set()
        await settle(pilot)
        assert cell(table, 0, "translation") == "ru: Поезд в Берлин отправляется в девять."
        assert table.cursor_row == 1


async def test_units_that_say_the_same_are_one_row_with_their_count(
    app, engine, settle, tmp_path: Path
):
    """The same unit in two imported files: one row, its document cell counting the copies
    (as the command line's ``[2 copies]``)."""
    tmx = (
        '<?xml version="1.0" encoding="UTF-8"?><tmx version="1.4"><header srclang="en" '
        'datatype="plaintext" segtype="sentence" adminlang="en" creationtool="t" '
        'creationtoolversion="1" o-tmf="t"/><body><tu><tuv xml:lang="en"><seg>The ferry '
        'leaves at noon.</seg></tuv><tuv xml:lang="de"><seg>Die Fähre legt mittags ab.</seg>'
        "</tuv></tu></body></tmx>"
    )
    for name in ("a.tmx", "b.tmx"):
        (tmp_path / name).write_text(tmx, encoding="utf-8")
    engine.import_files([str(tmp_path / "a.tmx"), str(tmp_path / "b.tmx")], "ferries")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot)
        screen.query_one("#mode", Select).value = "phrase"
        screen.query_one("#query", Input).value = "ferry leaves"
        await pilot.press("enter")
        await settle(pilot)
        assert [h.copies for h in screen.hits] == [2]
        table = screen.query_one("#results", DataTable)
        assert cell(table, 0, "document") == "a.tmx ×2"
