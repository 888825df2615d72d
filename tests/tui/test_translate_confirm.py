"""Translate screen: confirm a segment (ctrl+g), jump to the next unconfirmed one (ctrl+n),
pre-translate around it and save — the confirmed target is written as translated and never
replaced (on a CMS XLIFF written for these tests)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.tui import OpenTranslate, settle
from lxml import etree
from textual.widgets import DataTable, TextArea

from xlsearch.service.local import LocalEngine


def _real_engine(model: Path) -> LocalEngine:
    """The real engine over this test's empty home, with a tiny model active."""
    from xlsearch.engine.models.catalog import set_active_model

    set_active_model(str(model))
    return LocalEngine()


pytestmark = pytest.mark.anyio

CAT = Path(__file__).parent.parent / "fixtures" / "cat"
X12 = "{urn:oasis:names:tc:xliff:document:1.2}"


async def test_confirm_jump_pretranslate_and_save(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
) -> None:
    job = Path(shutil.copy(CAT / "nc_cms_job.xlf", tmp_path / "job.xlf"))
    memory = tmp_path / "tm.tsv"
    memory.write_text(
        "Press the power button for 10 seconds.\tDrücken Sie die Taste.\n"
        "Thank you for your order!\tDanke!\n",
        encoding="utf-8",
    )
    engine = _real_engine(tiny_static_model)
    engine.import_files([str(memory)], "tm")
    async with translate(job, engine=engine, size=(140, 36)) as (pilot, screen):
        doc = screen.doc
        table = screen.query_one("#tr-segments", DataTable)
        # the file's own final/translated targets are confirmed: ✓, and ctrl+n skips them
        assert str(table.get_cell("0", "st")) == "✓" and doc.segments[0].confirmed
        assert screen.current == 0
        await pilot.press("ctrl+n")
        await settle(pilot, 3)
        assert screen.current == 1  # "Press the power button…", the first unconfirmed
        # nothing to confirm yet: a notice, not a confirmation
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert any("Nothing to confirm" in (n.title or "") for n in pilot.app._notifications)
        assert not doc.segments[1].confirmed
        # the segments keep the focus: a digit inserts a match, it is not typed as the target
        await pilot.press("1")
        await pilot.pause()
        assert screen.query_one("#tr-target", TextArea).text == "Drücken Sie die Taste."
        # type the translation, confirm: ✓, and the cursor moves to the next unconfirmed
        screen.query_one("#tr-target", TextArea).text = "Halten Sie die Taste 10 Sekunden."
        await pilot.press("ctrl+g")
        await settle(pilot, 3)
        assert doc.segments[1].confirmed
        assert doc.segments[1].target == "Halten Sie die Taste 10 Sekunden."
        assert str(table.get_cell("1", "st")) == "✓"
        assert screen.current == 2 and not doc.segments[2].confirmed
        assert "3 confirmed" in str(screen.query_one("#tr-status").render())
        # analyse + pre-translate: the memory's other target does not replace the confirmed one
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        await pilot.press("ctrl+e")
        await settle(pilot, 3)
        assert doc.segments[1].target == "Halten Sie die Taste 10 Sekunden."
        order = next(s for s in doc.segments if s.source == "Thank you for your order!")
        assert order.target == "Danke für Ihre Bestellung!"  # confirmed in the file
        await pilot.press("ctrl+s")
        await settle(pilot, 3)
        assert not [n for n in pilot.app._notifications if n.severity == "error"]
    out = tmp_path / "job.translated.xlf"
    units = {tu.get("id"): tu for tu in etree.parse(str(out)).iter(f"{X12}trans-unit")}
    target = units["42-body-1"].find(f"{X12}target")
    assert (target.text, target.get("state")) == ("Halten Sie die Taste 10 Sekunden.", "translated")
    assert units["42-title-0"].find(f"{X12}target").get("state") == "final"  # untouched


async def test_when_everything_is_confirmed_ctrl_n_says_so(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
) -> None:
    job = tmp_path / "done.xlf"
    job.write_text(
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="a" '
        'source-language="en" target-language="de" datatype="plaintext"><body>'
        '<trans-unit id="1"><source>Settings</source><target state="signed-off">Einstellungen'
        "</target></trans-unit></body></file></xliff>",
        encoding="utf-8",
    )
    async with translate(job) as (pilot, screen):
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert any("Every segment is confirmed" in n.message for n in pilot.app._notifications)


async def test_matches_below_the_minimum_are_not_listed(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
) -> None:
    """A 9 % "match" with cosine 0.59 from another collection was listed like a real one."""
    from xlsearch.engine.tm.matching.lookup import SEMANTIC_THRESHOLD, LookupResult, Match
    from xlsearch.tui.screens.translate import MIN_FUZZY_SHOWN

    def match(fuzzy: int, semantic: float, target: str) -> Match:
        return Match(
            1, "x", "en", target, "de", fuzzy, semantic, float(fuzzy), [], [], False, {}, "tm", "d"
        )

    job = Path(shutil.copy(CAT / "nc_cms_job.xlf", tmp_path / "job.xlf"))
    async with translate(job, size=(140, 36)) as (pilot, screen):
        noise = match(9, 0.59, "Starten Sie den Router neu")
        screen.result = LookupResult("Settings", "en", "de", [noise], [])
        screen._show_matches()
        assert screen.query_one("#tr-matches", DataTable).row_count == 0
        assert f"{MIN_FUZZY_SHOWN} %" in str(screen.query_one("#tr-detail").render())
        fuzzy = match(MIN_FUZZY_SHOWN, 0.1, "Einstellungen")
        semantic = match(20, SEMANTIC_THRESHOLD, "Optionen")
        screen.result = LookupResult("Settings", "en", "de", [fuzzy, noise, semantic], [])
        screen._show_matches()
        assert [m.target for m in screen.all_matches()] == ["Einstellungen", "Optionen"]
        screen.query_one("#tr-segments", DataTable).focus()
        await pilot.press("2")  # the digits follow the listed matches
        assert screen.query_one("#tr-target", TextArea).text == "Optionen"


async def test_the_translate_footer_fits_80_columns_with_confirm_and_the_screen_keys(
    tiny_static_model: Path, translate: OpenTranslate
) -> None:
    from textual.widgets._footer import FooterKey

    async with translate(size=(80, 24)) as (pilot, screen):
        keys = list(screen.query(FooterKey))
        shown = [k.description for k in keys]
        assert {"Confirm", "Save", "Analyse", "Pre-translate", "Screens"} <= set(shown)
        screens = next(k for k in keys if k.description == "Screens")
        assert 0 < screens.region.right <= 80 - len("▏^p palette")  # not under the palette
