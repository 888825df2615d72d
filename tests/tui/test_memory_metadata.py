"""The search screen over the real engine: memory metadata filters and the preview, and
language-variant filters (a Trados-style TMX written here)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.tui import settle
from textual.widgets import Input, Label, Select, Static

from xlsearch.engine.store.units import unit_lines
from xlsearch.tui.app import make_app
from xlsearch.tui.screens.search import SearchScreen

pytestmark = pytest.mark.anyio

TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="SDL Language Platform" creationtoolversion="8.1"
 o-tmf="SDL TM8 Format" datatype="xml" segtype="sentence" adminlang="en-US" srclang="en-US"/>
<body>
<tu creationdate="20231105T141210Z" creationid="jsmith" changedate="20240302T101500Z"
 changeid="mkeller"><prop type="x-Client:SinglePicklist">ACME</prop>
<note>Approved by the client</note>
<tuv xml:lang="en-US"><seg>Press the power button.</seg></tuv>
<tuv xml:lang="de-DE"><seg>Drücken Sie den Netzschalter.</seg></tuv>
<tuv xml:lang="de-CH"><seg>Drücken Sie den Einschaltknopf.</seg></tuv></tu>
<tu creationdate="20221001T090000Z" creationid="jsmith">
<prop type="x-Client:SinglePicklist">Globex</prop>
<tuv xml:lang="en-US"><seg>Press any key.</seg></tuv>
<tuv xml:lang="de-DE"><seg>Drücken Sie eine beliebige Taste.</seg></tuv></tu>
</body></tmx>
"""


async def test_metadata_filter_and_preview(tiny_static_model, tmp_path: Path) -> None:
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.service.local import LocalEngine

    set_active_model(str(tiny_static_model))
    tmx = tmp_path / "trados.tmx"
    tmx.write_text(TMX, encoding="utf-8")
    engine = LocalEngine()
    (report,) = engine.import_files([str(tmx)], "tm")
    assert sorted(report.languages) == ["de-CH", "de-DE", "en-US"]
    app = make_app(engine=engine, theme="textual-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        search = app.screen
        assert isinstance(search, SearchScreen)
        search.query_one("#mode", Select).value = "lexical"
        search.query_one("#langs", Input).value = "de"
        search.query_one("#query", Input).value = "Drücken"
        await pilot.press("enter")
        await settle(pilot)
        # one hit per unit (its best German variant): two units
        assert len(search.hits) == 2 and all(h.lang.startswith("de-") for h in search.hits)
        search.query_one("#where", Input).value = "client=acme changed>=2024-01"
        await pilot.press("enter")
        await settle(pilot)
        assert len(search.hits) == 1 and search.hits[0].lang in ("de-CH", "de-DE")
        assert {h.unit["props"][0]["text"] for h in search.hits} == {"ACME"}
        search.query_one("#langs", Input).value = "de-CH"
        await pilot.press("enter")
        await settle(pilot)
        assert [h.text for h in search.hits] == ["Drücken Sie den Einschaltknopf."]
        await pilot.press("down")
        await settle(pilot)
        preview = str(search.query_one("#preview", Static).render())
        assert "changed 2024-03-02 by mkeller" in preview
        assert "x-Client:SinglePicklist: ACME" in preview and "note: Approved" in preview
        search.query_one("#where", Input).value = "client"
        search.start_search(explicit=True)  # focus is on the results table (enter picks a row)
        await settle(pilot)
        assert "KEY=VALUE" in str(search.query_one("#preview", Static).render())
        status = str(search.query_one("#search-status", Label).content)
        assert status.startswith("⚠"), status


def test_unit_lines() -> None:
    unit = {"tuid": "7", "created": "2024-01-02T00:00:00Z", "created_by": "a"}
    assert unit_lines(unit) == ["tuid 7 · created 2024-01-02 by a"]
    unit |= {"changed": "2024-02-03T00:00:00Z", "changed_by": "b", "notes": [{"text": "n"}]}
    assert unit_lines(unit) == [
        "tuid 7 · created 2024-01-02 by a · changed 2024-02-03 by b",
        "note: n",
    ]
    assert unit_lines({}) == []
