"""Results in a language the model was not trained on are labelled, with the fix, on every
screen whose results come from the model (Search, Mine, Compare); the Mine screen shows its
pairs at full width with the highlighted pair in full; each screen names the model in use.

The concept model's card covers en (its teacher's), de, ru and zh; French is unseen."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static, TextArea

from xlsearch.engine.models.cards import update_card

pytestmark = pytest.mark.anyio

FRENCH = [
    "Le train pour Berlin part à neuf heures.",
    "Où est la pharmacie la plus proche ?",
    "Il fera beau demain, le temps sera ensoleillé toute la journée.",
]


@pytest.fixture()
def french(engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """French sentences in the seed collection (a language the model never saw)."""
    path = tmp_path / "notes.fr.txt"
    path.write_text("\n".join(FRENCH) + "\n", encoding="utf-8")
    engine.import_file(path, "demo", langs=["fr"])


def _column(table: DataTable, name: str) -> list[str]:  # type: ignore[type-arg]
    index = [str(c.label) for c in table.columns.values()].index(name)
    return [str(table.get_row_at(r)[index]) for r in range(table.row_count)]


async def test_search_labels_hits_in_an_untrained_language(app, french, settle):  # type: ignore[no-untyped-def]
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert "model demo-student" in screen.sub_title  # the model in use, named
        screen.query_one("#langs", Input).value = "fr"
        screen.query_one("#query", Input).value = "train Berlin"
        await pilot.press("enter")
        await settle(pilot, 3)
        notice = screen.query_one("#lang-notice", Static)
        text = str(notice.content)
        assert notice.display and "not trained on fr" in text
        assert "no installed model covers fr" in text and "Distill" in text
        assert set(_column(screen.query_one("#results", DataTable), "lang")) == {"fr?"}
        screen.query_one("#langs", Input).value = "de"  # a language it knows: no label
        await pilot.press("enter")
        await settle(pilot, 3)
        assert not notice.display
        assert "fr?" not in _column(screen.query_one("#results", DataTable), "lang")


async def test_search_names_an_installed_model_that_covers_the_language(  # type: ignore[no-untyped-def]
    app, french, seeded_model: Path, settle
):
    other = seeded_model.parent / "fr-student"
    shutil.copytree(seeded_model, other)
    update_card(other, languages=["fr", "es"])
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.query_one("#langs", Input).value = "fr"
        screen.query_one("#query", Input).value = "train Berlin"
        await pilot.press("enter")
        await settle(pilot, 3)
        text = str(screen.query_one("#lang-notice", Static).content)
        assert "a model that covers fr: fr-student" in text and "Models, f8" in text


async def test_mine_labels_an_untrained_pair_and_shows_pairs_in_full(app, french, settle):  # type: ignore[no-untyped-def]
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("f7")
        await settle(pilot)
        screen = app.screen
        assert "model demo-student" in screen.sub_title
        await pilot.press("ctrl+r")  # de → en: both known
        await settle(pilot)
        said = str(screen.query_one("#mine-notice", Static).content)
        assert "not trained on" not in said and "⚠" not in said  # (how many to trust: yes)
        table = screen.query_one("#pairs-table", DataTable)
        widths = [c.width for c in table.columns.values()]
        assert sum(widths) >= 140  # the sentences share the screen's width
        assert [str(c.label) for c in table.columns.values()][1:] == ["source (de)", "target (en)"]
        table.move_cursor(row=0)
        await settle(pilot, 1)
        pair = screen.current_pair()
        pane = str(screen.query_one("#pair-preview", Static).content)
        assert f"de: {pair.src_text}" in pane and f"en: {pair.tgt_text}" in pane
        screen.query_one("#src-lang", Input).value = "fr"
        await pilot.press("ctrl+r")
        await settle(pilot)
        notice = screen.query_one("#mine-notice", Static)
        assert notice.display and "not trained on fr" in str(notice.content)


async def test_mine_screen_and_command_line_share_one_default_threshold(app, settle):  # type: ignore[no-untyped-def]
    from xlsearch.cli import build_parser
    from xlsearch.tui.widgets.slider import Slider

    args = build_parser().parse_args(["mine", "--src", "de", "--tgt", "en"])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f7")
        await settle(pilot)
        assert app.screen.query_one("#threshold", Slider).value == pytest.approx(args.threshold)


async def test_compare_labels_sentences_in_an_untrained_language(app, settle):  # type: ignore[no-untyped-def]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f3")
        await settle(pilot, 1)
        screen = app.screen
        assert "model demo-student" in screen.sub_title
        screen.query_one("#sts-a", Input).value = "The train to Berlin leaves at nine."
        screen.query_one("#sts-b", TextArea).text = "Der Zug nach Berlin fährt um neun ab.\n"
        await pilot.press("ctrl+r")
        await settle(pilot)
        notice = screen.query_one("#sts-notice", Static)
        assert not notice.display  # English and German: known
        screen.query_one("#sts-b", TextArea).text = FRENCH[0] + "\n"
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert notice.display and "not trained on fr" in str(notice.content)


async def test_translate_warns_when_the_job_language_is_untrained(app, settle, tmp_path: Path):  # type: ignore[no-untyped-def]
    from helpers.memory import write_xliff

    german = write_xliff(tmp_path / "de.xlf", ["the train to Berlin"])
    french = tmp_path / "fr.xlf"
    french.write_text(german.read_text().replace('target-language="de"', 'target-language="fr"'))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f9")
        await settle(pilot)
        app.screen.open_document(str(german))
        await settle(pilot, 3)
        assert not [n for n in app._notifications if n.title == "Model languages"]
        app.screen.open_document(str(french))
        await settle(pilot, 3)
        [said] = [n for n in app._notifications if n.title == "Model languages"]
        assert "not trained on fr" in said.message
