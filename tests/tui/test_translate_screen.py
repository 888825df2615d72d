"""The Translate screen over the real engine and a tiny model: open an XLIFF, walk segments,
see matches, insert and edit a target, analyse, pre-translate, save for the CAT tool."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.tui import OpenTranslate, settle
from lxml import etree
from textual.widgets import DataTable, Input, TextArea

pytestmark = pytest.mark.anyio

MEMORY = [
    ("the dog sleeps", "der hund schläft"),
    ("the cat runs", "die katze läuft"),
    ("a red house", "das rote haus"),
]
SEGMENTS = ["the big dog sleeps", "a red house", "hello world"]
NS = {"x": "urn:oasis:names:tc:xliff:document:1.2"}


def _prepare(tmp_path: Path, model: Path) -> Path:
    from helpers.memory import write_tmx, write_xliff

    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    set_active_model(str(model))
    with Store() as store:
        store.import_file(write_tmx(tmp_path / "tm.tmx", MEMORY), "tm")
        build_index(store, load_encoder(str(model)), "tm")
    return write_xliff(tmp_path / "job.xlf", SEGMENTS)


async def test_translate_journey_with_the_real_engine(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
):
    doc_path = _prepare(tmp_path, tiny_static_model)
    async with translate(doc_path, typed=True) as (pilot, screen):
        assert not pilot.app._notifications, [n.message for n in pilot.app._notifications]
        assert screen.doc is not None and screen.current == 0
        assert screen.query_one("#tr-segments", DataTable).row_count == 3
        # the current segment's matches: the closest unit first, with fuzzy % and target
        best = screen.result.matches[0]
        assert (best.source, best.fuzzy, best.target) == ("the dog sleeps", 75, "der hund schläft")
        matches = screen.query_one("#tr-matches", DataTable)
        assert [str(c) for c in matches.get_row_at(0)][:2] == ["1", "75%"]
        # insert match 1 (focus on the segments table), edit it, move on: the target is kept
        screen.query_one("#tr-segments", DataTable).focus()
        await pilot.press("1")
        editor = screen.query_one("#tr-target", TextArea)
        assert editor.text == "der hund schläft" and editor.has_focus
        editor.text = "der große hund schläft"
        await pilot.press("ctrl+down")
        await settle(pilot, 3)
        assert screen.current == 1
        first = screen.doc.segments[0]
        assert (first.target, first.origin) == ("der große hund schläft", "edited")
        assert screen.result.matches[0].fuzzy == 100
        # analyse and pre-translate the rest, then save next to the original
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        bands = {r["band"]: r["segments"] for r in screen.analysis.table()}
        assert (bands["100%"], bands["no match"]) == (1, 1)
        await pilot.press("ctrl+e")
        await settle(pilot, 3)
        assert screen.doc.segments[1].target == "das rote haus"
        assert screen.doc.segments[0].target == "der große hund schläft"  # kept
        await pilot.press("ctrl+s")
        await settle(pilot, 3)
        assert not [n for n in pilot.app._notifications if n.severity == "error"]
    out = tmp_path / "job.translated.xlf"
    root = etree.parse(str(out)).getroot()
    targets = [tu.find("x:target", NS) for tu in root.findall(".//x:trans-unit", NS)]
    assert [t.text if t is not None else None for t in targets] == [
        "der große hund schläft",
        "das rote haus",
        None,
    ]
    assert targets[1].get("state") == "needs-review-translation"
    assert targets[1].get("state-qualifier") == "exact-match"
    assert (
        (tmp_path / "job.translated.analysis.md")
        .read_text(encoding="utf-8")
        .startswith("# Analysis")
    )


async def test_translate_screen_reports_a_bad_file(
    tmp_path: Path, engine, translate: OpenTranslate
) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "broken.xlf"
    bad.write_text("<xliff version='1.2'><file>", encoding="utf-8")
    async with translate(bad, engine=engine, size=(100, 30)) as (pilot, screen):
        assert screen.doc is None
        errors = [n.message for n in pilot.app._notifications if n.severity == "error"]
        assert len(errors) == 1 and "malformed XML" in errors[0]  # was shown twice
        assert sum("JobFailed" in m for m in screen.message_log) == 1


async def test_a_file_without_target_language_asks_for_one_and_uses_the_one_typed(
    tmp_path: Path, engine, translate: OpenTranslate
) -> None:  # type: ignore[no-untyped-def]
    """An XLIFF without target-language opened silently; ctrl+e then said "0 segments filled"
    even after the translator typed the language in the tgt field (analysis ignored it)."""
    from helpers.memory import write_xliff

    path = write_xliff(tmp_path / "job.xlf", ["the dog sleeps"])
    path.write_text(path.read_text().replace(' target-language="de"', ""), encoding="utf-8")
    async with translate(path, engine=engine) as (pilot, screen):
        warned = [n for n in pilot.app._notifications if n.severity == "warning"]
        assert warned and "target language" in warned[0].message
        pilot.app.clear_notifications()
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        await pilot.press("ctrl+e")
        await settle(pilot, 3)
        assert not any("segments filled" in n.message for n in pilot.app._notifications)
        assert any("target language" in n.message for n in pilot.app._notifications)
        screen.query_one("#tr-tgt", Input).value = "de"
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        assert screen.doc.tgt == "de" and screen.analysis.tgt == "de"


async def test_opening_a_job_into_another_language_after_one_is_open(
    tmp_path: Path, engine, translate: OpenTranslate
) -> None:  # type: ignore[no-untyped-def]
    """The tgt field shows the open job's language; opening a French job after a German one
    takes the French job's language (the field's "de" is not a choice the translator made),
    while a language typed for a file that names none is still used."""
    from helpers.memory import write_xliff

    german = write_xliff(tmp_path / "de.xlf", ["the dog sleeps"])
    french = tmp_path / "fr.xlf"
    french.write_text(german.read_text().replace('target-language="de"', 'target-language="fr"'))
    async with translate(german, engine=engine) as (pilot, screen):
        assert screen.doc.tgt == "de"
        screen.open_document(str(french))
        await settle(pilot, 3)
        assert not [n.message for n in pilot.app._notifications if n.severity == "error"]
        assert screen.doc.path == french and screen.doc.tgt == "fr"
        assert screen.query_one("#tr-tgt", Input).value == "fr"


async def test_a_locked_segment_cannot_be_changed_in_the_app(
    tmp_path: Path, engine, translate: OpenTranslate
) -> None:  # type: ignore[no-untyped-def]
    """A segment locked in Trados took an inserted match or an edit like any other."""
    path = tmp_path / "job.sdlxliff"
    path.write_text(
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2" '
        'xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0"><file original="a" '
        'source-language="en" target-language="de" datatype="x"><body><trans-unit id="1">'
        '<source>the dog sleeps</source><seg-source><mrk mtype="seg" mid="1">the dog sleeps'
        '</mrk></seg-source><target><mrk mtype="seg" mid="1"/></target><sdl:seg-defs>'
        '<sdl:seg id="1" locked="true"/></sdl:seg-defs></trans-unit></body></file></xliff>',
        encoding="utf-8",
    )
    async with translate(path, engine=engine) as (pilot, screen):
        assert screen.doc.segments[0].locked
        assert screen.query_one("#tr-target", TextArea).read_only
        screen.action_insert_match(0)
        await pilot.pause()
        assert any("locked" in n.message for n in pilot.app._notifications)
        screen.query_one("#tr-target", TextArea).text = "typed anyway"
        screen.commit()
        assert screen.doc.segments[0].target == ""


async def test_walking_onto_a_tag_only_segment_is_not_an_error(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
) -> None:
    """A segment holding only an inline code raised "the segment to look up is empty" as an
    error notification each time the translator walked past it."""
    from helpers.memory import write_xliff

    _prepare(tmp_path, tiny_static_model)
    path = write_xliff(tmp_path / "tags.xlf", ['<x id="1"/>', "the dog sleeps"])
    async with translate(path) as (pilot, screen):
        assert screen.current == 0
        assert not [n.message for n in pilot.app._notifications if n.severity == "error"]


async def test_an_inserted_match_edited_keeps_the_memory_tags(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
):
    """Insert a match from a tagged XLIFF memory, edit it, save: the tag wraps the edited
    word where the memory's target had it."""
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    def xliff(units: str) -> str:
        return (
            f'<?xml version="1.0" encoding="UTF-8"?><xliff version="1.2" xmlns="{NS["x"]}">'
            '<file original="a.html" source-language="en" target-language="de" '
            f'datatype="html"><body>{units}</body></file></xliff>'
        )

    (tmp_path / "old.xlf").write_text(
        xliff('<trans-unit id="1"><source>open the <g id="1">settings</g> menu</source>'
              '<target>öffne das menü <g id="1">einstellungen</g></target></trans-unit>'),
        encoding="utf-8",
    )  # fmt: skip
    job = tmp_path / "job.xlf"
    job.write_text(
        xliff('<trans-unit id="a"><source>open the <g id="5">options</g> menu</source>'
              '</trans-unit><trans-unit id="b"><source>open the settings <g id="6">menu</g>'
              "</source></trans-unit>"),
        encoding="utf-8",
    )  # fmt: skip
    set_active_model(str(tiny_static_model))
    with Store() as store:
        store.import_file(tmp_path / "old.xlf", "tm")
        build_index(store, load_encoder(str(tiny_static_model)), "tm")
    async with translate(job, typed=True) as (pilot, screen):
        assert screen.result.matches[0].target == "öffne das menü einstellungen"
        screen.query_one("#tr-segments", DataTable).focus()
        await pilot.press("1")
        screen.query_one("#tr-target", TextArea).text = "öffne bitte das menü optionen"
        await pilot.press("ctrl+down")
        await settle(pilot, 3)
        # the memory's words with the tag elsewhere: 99 %, flagged, as in the analysis
        best = screen.result.matches[0]
        assert (best.fuzzy, best.flags[-1]) == (99, "tags: new 2 · stored 2")
        await pilot.press("ctrl+s")
        await settle(pilot, 3)
        assert not [n for n in pilot.app._notifications if n.severity == "error"]
    root = etree.parse(str(tmp_path / "job.translated.xlf")).getroot()
    target = etree.tostring(root.find(".//x:trans-unit/x:target", NS), encoding="unicode")
    assert len(root.findall(".//x:trans-unit/x:target", NS)) == 1
    assert target.endswith('öffne bitte das menü <g id="5">optionen</g></target>')


async def test_pretranslate_updates_only_the_filled_rows(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
):
    """Pre-translating refilled every row of the segments table (0.7 s of frozen UI with
    5,000 segments); now only the rows whose target changed are updated."""

    doc_path = _prepare(tmp_path, tiny_static_model)
    async with translate(doc_path) as (pilot, screen):
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        table = screen.query_one("#tr-segments", DataTable)
        cleared: list[int] = []
        real_clear = table.clear
        table.clear = lambda *a, **k: cleared.append(1) or real_clear(*a, **k)  # type: ignore[method-assign]
        await pilot.press("ctrl+e")
        await settle(pilot, 3)
        assert not cleared
        assert str(table.get_row_at(1)[3]) == "das rote haus"
        assert str(table.get_row_at(1)[1]) == "✎"


async def test_analysis_says_who_may_fill_and_that_a_toy_model_is_a_toy(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
):
    from textual.widgets import Static

    from xlsearch.engine.models.cards import update_card

    update_card(tiny_static_model, data=[{"path": "demo-train.tsv", "pairs": 3830}])
    doc_path = _prepare(tmp_path, tiny_static_model)
    async with translate(doc_path, typed=True) as (pilot, screen):
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        shown = str(screen.query_one("#tr-detail", Static).render())
        assert "suggestions only: tiny-static writes no en → de fills" in shown
        assert "your own student, trained on only 3,830 pairs" in shown
        assert "a demo model" not in shown and "the demo model" not in shown
        assert "notice: this model saw only 3,830 translation pairs (your own student" in shown
        assert any("saw only 3,830" in str(n.message) for n in pilot.app._notifications)
        assert "xlsearch distill --train tm.tsv" in shown


async def test_analysis_splits_paragraph_units_and_the_table_follows(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
):
    """An Okapi XLIFF of paragraph units against a sentence memory opens as the analysis
    segments it: its paragraphs split into sentences (eleven rows, not six), and an
    analysis keeps those rows and the segment the cursor is on."""
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    cat = Path(__file__).parents[1] / "fixtures" / "cat"
    set_active_model(str(tiny_static_model))
    with Store() as store:
        store.import_file(cat / "units_sentences.tmx", "tm")
        build_index(store, load_encoder(str(tiny_static_model)), "tm")
    async with translate(cat / "units_okapi_paragraphs.xlf", typed=True) as (pilot, screen):
        table = screen.query_one("#tr-segments", DataTable)
        assert table.row_count == 11
        keys = [s.key for s in screen.doc.segments]
        screen.goto(3)
        await settle(pilot, 3)
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        assert table.row_count == 11 and [s.key for s in screen.doc.segments] == keys
        assert screen.current == 3
        assert {r["band"]: r["segments"] for r in screen.analysis.table()}["100%"] == 6


async def test_the_status_line_says_what_a_long_analysis_waits_for(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
):
    """The first analysis over a large memory calibrates the model on it (tens of seconds):
    the status line names that wait, not only a count."""
    from textual.widgets import Label

    from xlsearch.engine.progress import Progress
    from xlsearch.tui.messages import JobProgress

    doc_path = _prepare(tmp_path, tiny_static_model)
    async with translate(doc_path, typed=True) as (pilot, screen):
        what = "calibrating semantic fills on your memory: 600 held-out units looked up"
        screen.on_job_progress(JobProgress("analyze", Progress("calibrate", 25, 600, what)))
        await pilot.pause()
        shown = str(screen.query_one("#tr-status", Label).render())
        assert shown == f"analyze: {what} · 25/600"


async def test_a_unit_of_two_sentences_opens_as_the_analysis_segments_it(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
):
    """A unit of two sentences split by an inline code, whose first sentence the memory
    holds: before any analysis the job opens with it split, the first sentence shows its
    100 % match (not the whole unit's fuzzy one), and an analysis keeps the same segments."""
    from helpers.memory import write_tmx, write_xliff

    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    set_active_model(str(tiny_static_model))
    memory = [
        ("Do not turn off the router during the update.", "Schalten Sie den Router nicht aus."),
        ("the cat runs", "die katze läuft"),
    ]
    with Store() as store:
        store.import_file(write_tmx(tmp_path / "tm.tmx", memory), "tm")
        build_index(store, load_encoder(str(tiny_static_model)), "tm")
    two = 'Do not turn off the router during the update.<x id="1"/>This can take several minutes.'
    job = write_xliff(tmp_path / "job.xlf", ["the cat runs", two])
    async with translate(job) as (pilot, screen):
        table = screen.query_one("#tr-segments", DataTable)
        sources = [s.source for s in screen.doc.segments]
        assert table.row_count == 3
        assert sources[1] == "Do not turn off the router during the update."
        screen.goto(1)
        await settle(pilot, 3)
        assert screen.result is not None and screen.result.matches[0].fuzzy == 100
        assert screen.result.matches[0].target == "Schalten Sie den Router nicht aus."
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        assert [s.source for s in screen.doc.segments] == sources and table.row_count == 3
