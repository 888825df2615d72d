"""The app over the real engine with a tiny model: import → index → search shows translations."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.tui import settle
from textual.widgets import DataTable, Input

from xlsearch.tui.app import make_app
from xlsearch.tui.screens.corpus import CorpusScreen
from xlsearch.tui.screens.search import SearchScreen

pytestmark = pytest.mark.anyio

UNITS = [
    ("the dog sleeps", "der hund schläft"),
    ("the cat runs", "die katze läuft"),
    ("a red house", "das rote haus"),
    ("good morning", "guten morgen"),
]


def write_tmx(path: Path) -> Path:
    tus = "".join(
        f'<tu><tuv xml:lang="en"><seg>{en}</seg></tuv><tuv xml:lang="de"><seg>{de}</seg></tuv></tu>'
        for en, de in UNITS
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><tmx version="1.4"><header srclang="en" '
        'datatype="plaintext" segtype="sentence" adminlang="en" creationtool="t" '
        f'creationtoolversion="1" o-tmf="t"/><body>{tus}</body></tmx>',
        encoding="utf-8",
    )
    return path


async def test_import_index_search_shows_aligned_translation(tiny_static_model, tmp_path):
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.service.local import LocalEngine

    set_active_model(str(tiny_static_model))
    tmx = write_tmx(tmp_path / "tm.tmx")
    app = make_app(engine=LocalEngine(), theme="textual-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f4")
        await settle(pilot)
        corpus = app.screen
        assert isinstance(corpus, CorpusScreen)
        corpus.start_import([str(tmx)], "tm")
        await settle(pilot)
        assert [(r.status, r.added) for r in corpus.reports] == [("imported", 8)]
        assert [(s.collection, s.state) for s in corpus.statuses] == [("tm", "missing")]
        await pilot.press("x")
        await settle(pilot)
        assert [(s.collection, s.state, s.vectors) for s in corpus.statuses] == [("tm", "fresh", 8)]
        await pilot.press("f2")
        await settle(pilot)
        search = app.screen
        assert isinstance(search, SearchScreen)
        search.query_one("#query", Input).value = "der hund schläft"
        await pilot.press("enter")
        await settle(pilot)
        assert not app._notifications, [n.message for n in app._notifications]
        top = search.hits[0]
        assert (top.lang, top.text, top.translations) == (
            "de",
            "der hund schläft",
            {"en": "the dog sleeps"},
        )
        table = search.query_one("#results", DataTable)
        row = [str(c) for c in table.get_row_at(0)]
        assert row[3:5] == ["der hund schläft", "en: the dog sleeps"]
