"""The user's journeys through the app, against the real ``LocalEngine`` on tiny real models.

import → index → search → export; distill → use → search → evaluate; evaluate out of the box.
Driven by keys where a user would press them (file picker, export dialog, the switch offer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.concepts import DE, EN, write_pairs
from helpers.tui import settle
from textual.widgets import DataTable, Input, Label, Select

from xlsearch.service.api import EVAL_DEV, HIT_COLUMNS
from xlsearch.tui.app import make_app
from xlsearch.tui.screens.corpus import CorpusScreen
from xlsearch.tui.screens.distill import DistillScreen
from xlsearch.tui.screens.evaluate import EvaluateScreen
from xlsearch.tui.screens.search import SearchScreen
from xlsearch.tui.widgets.modals import ConfirmScreen, ExportScreen, FilePickerScreen

pytestmark = pytest.mark.anyio

UNITS = [
    {"en": "the dog sleeps", "de": "der hund schläft", "fr": "le chien dort"},
    {"en": "the cat runs", "de": "die katze läuft", "fr": "le chat court"},
    {"en": "a red house", "de": "das rote haus", "fr": "la maison rouge"},
    {"en": "good morning", "de": "guten morgen", "fr": "bonjour monde"},
]


def write_tmx(path: Path) -> Path:
    tus = "".join(
        "<tu>"
        + "".join(f'<tuv xml:lang="{lang}"><seg>{text}</seg></tuv>' for lang, text in u.items())
        + "</tu>"
        for u in UNITS
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><tmx version="1.4"><header srclang="en" '
        'datatype="plaintext" segtype="sentence" adminlang="en" creationtool="t" '
        f'creationtoolversion="1" o-tmf="t"/><body>{tus}</body></tmx>',
        encoding="utf-8",
    )
    return path


def errors(app: Any) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications if n.severity == "error"]


@pytest.fixture()
def real_app(tiny_static_model: Path) -> Any:
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.service.local import LocalEngine

    set_active_model(str(tiny_static_model))
    return make_app(engine=LocalEngine(), theme="textual-dark")


async def search(pilot: Any, query: str) -> SearchScreen:
    await pilot.press("f2")
    await settle(pilot, 3)
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    screen.query_one("#query", Input).value = query
    await pilot.press("enter")
    await settle(pilot, 3)
    return screen


async def export(pilot: Any, path: Path) -> None:
    await pilot.press("down", "e")  # to the results, export
    await pilot.pause(0.5)  # a shortcut letter acts unless more letters follow it
    await settle(pilot, 3)
    assert isinstance(pilot.app.screen, ExportScreen)
    pilot.app.screen.query_one("#export-path", Input).value = str(path)
    await pilot.press("enter")
    await settle(pilot, 3)


async def test_import_index_search_export(real_app, tmp_path: Path):
    tmx = write_tmx(tmp_path / "memory.tmx")
    app = real_app
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f4")
        await settle(pilot, 3)
        corpus = app.screen
        assert isinstance(corpus, CorpusScreen)
        corpus.query_one("#import-collection", Input).value = "tm"
        await pilot.press("i")
        await settle(pilot, 3)
        assert isinstance(app.screen, FilePickerScreen)
        app.screen.query_one("#picker-path", Input).value = str(tmx)
        await pilot.press("enter", "ctrl+o")
        await settle(pilot, 3)
        assert [(r.status, r.added) for r in corpus.reports] == [("imported", 12)]
        await pilot.press("x")
        await settle(pilot, 3)
        assert [(s.collection, s.state, s.vectors) for s in corpus.statuses] == [
            ("tm", "fresh", 12)
        ]

        screen = await search(pilot, "der hund schläft")
        assert not errors(app)
        assert (screen.hits[0].lang, screen.hits[0].text) == ("de", "der hund schläft")
        screen.query_one("#target", Select).value = "fr"
        await settle(pilot, 3)
        table = screen.query_one("#results", DataTable)
        assert str(table.get_row_at(0)[4]) == "fr: le chien dort"

        await export(pilot, tmp_path / "hits.tsv")
        rows = [r.split("\t") for r in (tmp_path / "hits.tsv").read_text("utf-8").splitlines()]
        assert rows[0] == list(HIT_COLUMNS)
        assert len(rows) == 1 + len(screen.hits) == 1 + table.row_count  # every row
        assert rows[1][2:6] == ["de", "der hund schläft", "fr", "le chien dort"]  # as shown
        assert any(n.title == "Exported" for n in app._notifications)

        await export(pilot, tmp_path / "hits.tmx")
        tmx_out = (tmp_path / "hits.tmx").read_text("utf-8")
        assert tmx_out.count("<tu>") == len(screen.hits)
        assert "le chien dort" in tmx_out and "the dog sleeps" not in tmx_out.split("</tu>")[0]

        screen.query_one("#mode", Select).value = "phrase"
        screen.query_one("#query", Input).value = "rote haus"
        screen.start_search(explicit=True)  # focus is on the results (enter picks a row)
        await settle(pilot, 3)
        assert [h.text for h in screen.hits] == ["das rote haus"]
        assert not errors(app)


@pytest.mark.slow
async def test_distill_use_search_evaluate(real_app, tiny_static_model, tiny_st_model, tmp_path):
    from xlsearch.engine.models.catalog import active_model

    app = real_app
    engine = app.engine
    engine.import_files([str(write_tmx(tmp_path / "memory.tmx"))], "tm")
    engine.build_index("tm")
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.press("f5")
        await settle(pilot, 3)
        screen = app.screen
        assert isinstance(screen, DistillScreen)
        screen.set_files([str(write_pairs(tmp_path / "en-de.tsv"))])
        await settle(pilot, 3)
        assert "200 pairs" in screen.query_one("#tsv-preview").content.plain
        screen.query_one("#teacher", Input).value = str(tiny_st_model)
        screen.query_one("#max-steps", Input).value = "20"
        screen.query_one("#batch", Input).value = "16"
        screen.query_one("#output", Input).focus()
        await pilot.press(*"my-student", "ctrl+r")
        await settle(pilot, 3)
        assert screen.result is not None and not screen.result.cancelled, errors(app)
        student = str(screen.result.out)
        assert Path(student, "modules.json").is_file()
        assert active_model() == str(tiny_static_model)  # the run did not switch by itself

        assert isinstance(app.screen, ConfirmScreen)  # the offer, with its cost
        question = str(app.screen.query_one("#question", Label).content)
        assert "Search with my-student now?" in question
        assert "re-indexes 12 segments in 1 collection(s)" in question
        await pilot.press("y")
        await settle(pilot, 3)
        assert active_model() == student
        assert not errors(app)

        search_screen = await search(pilot, "der hund schläft")
        assert search_screen.hits and not errors(app)
        assert (
            str(search_screen.query_one("#search-status", Label).content) == "4 hits"
        )  # one hit per unit: 12 segments in 4 units

        await pilot.press("f6")
        await settle(pilot, 3)
        evaluate = app.screen
        assert isinstance(evaluate, EvaluateScreen)
        assert evaluate.query_one("#eval-model", Select).value == student
        evaluate.query_one("#eval-source", Select).value = EVAL_DEV
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        assert not errors(app)
        assert set(evaluate.reports[student].summary) == {"dev-split"}
        [rows] = evaluate.reports[student].tables.values()
        assert [r["label"] for r in rows] == ["de"]


async def test_evaluate_out_of_the_box(real_app, tiny_static_model):
    app = real_app
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f6")
        await settle(pilot, 3)
        screen = app.screen
        assert screen.query_one("#eval-model", Select).value == str(tiny_static_model)
        await pilot.press("ctrl+r")  # the default source: the demo's held-out units
        await settle(pilot, 3)
        assert not errors(app)
        [rows] = screen.reports[str(tiny_static_model)].tables.values()
        assert [r["label"] for r in rows] == ["de", "fr", "es", "ru", "zh", "ar", "ja", "mean"]
        summary = screen.query_one("#eval-summary", DataTable)
        assert str(summary.get_row_at(0)[0]) == "demo heldout · trained"

        screen.query_one("#eval-source", Select).value = EVAL_DEV  # a model without one
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        assert errors(app) == [
            f"Configuration error: {tiny_static_model} has no training data recorded, so no "
            "dev split\n  hint: only students distilled by xlsearch have one; choose the demo "
            "held-out set"
        ]


async def test_mine_between_two_monolingual_collections(real_app, tmp_path: Path):
    """A corpus linguist's two monolingual collections: English side from one, German from
    the other (the CLI's --collection/--tgt-collection; the screen had no target choice)."""
    app = real_app
    (tmp_path / "en.txt").write_text("\n".join(EN) + "\n", encoding="utf-8")
    (tmp_path / "de.txt").write_text("\n".join(DE) + "\n", encoding="utf-8")
    (tmp_path / "mixed.tsv").write_text("the dog sleeps\tder hund schläft\n", encoding="utf-8")
    app.engine.import_files([str(tmp_path / "en.txt")], "ens", langs=["en"])
    app.engine.import_files([str(tmp_path / "de.txt")], "des", langs=["de"])
    app.engine.import_files([str(tmp_path / "mixed.tsv")], "other", langs=["en", "de"])
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.press("f7")
        await settle(pilot, 3)
        screen = app.screen
        screen.query_one("#src-lang", Input).value = "en"
        screen.query_one("#tgt-lang", Input).value = "de"
        screen.query_one("#mine-collection", Select).value = "ens"
        screen.query_one("#mine-tgt-collection", Select).value = "des"
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        assert not errors(app)
        assert screen.pairs
        assert {p.src_text for p in screen.pairs} <= set(EN)
        assert {p.tgt_text for p in screen.pairs} <= set(DE)


async def test_mining_a_language_the_collection_lacks_says_so(real_app, tmp_path: Path):
    app = real_app
    app.engine.import_files([str(write_tmx(tmp_path / "memory.tmx"))], "tm")
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.press("f7")
        await settle(pilot, 3)
        screen = app.screen
        screen.query_one("#src-lang", Input).value = "ja"  # was: "0 candidate pairs"
        screen.query_one("#tgt-lang", Input).value = "de"
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        panel = str(screen.query_one("#mine-job").render())
        assert not screen.pairs
        assert "has no segment in language 'ja'" in panel or any(
            "has no segment in language 'ja'" in e for e in errors(app)
        ), panel
