"""Pilot tests of every other screen's main flow over the real engine (the concept model and
the seed memory; a tiny teacher by name for distillation)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from helpers.concepts import SEED_UNITS, write_pairs
from helpers.spy import SpyEngine
from helpers.tui import wait_estimate
from textual.widgets import Button, Checkbox, DataTable, Input, Label, Select, Static, TextArea
from textual.widgets.data_table import RowKey

from xlsearch.engine.errors import StoreError
from xlsearch.service.api import EVAL_DEMO, EVAL_DEV
from xlsearch.service.local import LocalEngine
from xlsearch.tui.app import SCREENS, make_app
from xlsearch.tui.messages import JobProgress
from xlsearch.tui.screens.align import AlignScreen
from xlsearch.tui.screens.compare import CompareScreen
from xlsearch.tui.screens.corpus import CorpusScreen
from xlsearch.tui.screens.distill import DistillScreen
from xlsearch.tui.screens.evaluate import EvaluateScreen
from xlsearch.tui.screens.help import HelpScreen
from xlsearch.tui.screens.mining import MiningScreen
from xlsearch.tui.screens.models import ModelsScreen
from xlsearch.tui.screens.translate import TranslateScreen
from xlsearch.tui.widgets.modals import ConfirmScreen
from xlsearch.tui.widgets.slider import Slider

pytestmark = pytest.mark.anyio
SIZE = (100, 30)
TEACHER = "bundled:teacher"


@pytest.fixture()
def pairs(tmp_path: Path) -> Path:
    """200 English–German training pairs (enough for a few logged steps at batch 16)."""
    return write_pairs(tmp_path / "pairs.en-de.tsv")


async def start_distill(pilot, screen, teacher: str, *, name: str = "") -> None:  # type: ignore[no-untyped-def]
    """Fill the teacher, a short schedule and (typed) the output name; start."""
    screen.query_one("#teacher", Input).value = teacher
    screen.query_one("#max-steps", Input).value = "30"
    screen.query_one("#batch", Input).value = "16"
    screen.query_one("#output", Input).focus()
    await pilot.press(*name, "ctrl+r")


def column(table: DataTable, name: str) -> list[str]:
    index = [str(c.label) for c in table.columns.values()].index(name)
    return [str(table.get_row_at(r)[index]) for r in range(table.row_count)]


async def test_every_screen_opens_by_key_at_80x24(app, settle):
    expected = {
        "f3": CompareScreen,
        "f4": CorpusScreen,
        "f5": DistillScreen,
        "f6": EvaluateScreen,
        "f7": MiningScreen,
        "f8": ModelsScreen,
        "f9": TranslateScreen,
        "f10": AlignScreen,
        "f1": HelpScreen,
    }
    async with app.run_test(size=(80, 24)) as pilot:
        for key, screen_type in expected.items():
            await pilot.press(key)
            await settle(pilot, 1)
            assert isinstance(app.screen, screen_type)
        assert not app._notifications  # nothing failed on the way


async def test_command_palette_opens_screens(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {f"Open {t}" for _k, t, _h, _c in SCREENS.values()} <= titles
        assert "Search: export hits" in titles  # the screen's own commands too
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Open Corpus")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CorpusScreen)


async def test_compare_ranks_sentences(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await settle(pilot, 1)
        screen = app.screen
        screen.query_one("#sts-a", Input).value = "the train to Berlin"
        screen.query_one("#sts-b", TextArea).text = "sunny weather\nthe train to Berlin leaves\n"
        await pilot.press("ctrl+r")
        await settle(pilot)
        table = screen.query_one("#sts-results", DataTable)
        assert column(table, "sentence B") == ["the train to Berlin leaves", "sunny weather"]
        scores = [float(x) for x in column(table, "0–5")]
        assert scores[0] > scores[1] and 0 <= scores[1] <= scores[0] <= 5


async def test_corpus_import_report_index_and_delete(app, engine, settle, tsv_file: Path):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#import-collection", Input).value = "mine"
        screen.query_one("#collections-table", DataTable).focus()
        await pilot.press("i")  # the file picker
        await pilot.pause()
        picker = app.screen
        picker.query_one("#picker-path", Input).value = str(tsv_file)
        await pilot.press("enter", "ctrl+o")
        await settle(pilot)
        assert screen.reports[0].skipped == 1
        report = str(screen.query_one("#import-report", Static).content)
        assert "en-de.tsv" in report and ":3" in report  # the bad line, by file and number
        assert column(screen.query_one("#collections-table", DataTable), "collection") == [
            "demo",
            "mine",
        ]
        states = {(s.collection, s.state) for s in screen.statuses}
        assert ("mine", "missing") in states and ("demo", "fresh") in states
        await pilot.press("down", "x")  # index the selected collection
        await settle(pilot)
        assert ("mine", "fresh") in {(s.collection, s.state) for s in screen.statuses}
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert [c.name for c in screen.collections] == ["demo"]
        assert "JobDone('delete')" in screen.message_log


async def test_corpus_import_takes_an_encoding(app, settle, tmp_path: Path):
    """A TMX whose declaration lies (says UTF-8, is cp1252): refused with a hint naming the
    screen's encoding field, then imported with it."""
    tu = '<tu><tuv xml:lang="en"><seg>{}</seg></tuv><tuv xml:lang="fr"><seg>{}</seg></tuv></tu>'
    body = tu.format("Café menu", "Menu du café") + tu.format("Open the file", "Ouvrir à côté")
    tmx = tmp_path / "lying.tmx"
    tmx.write_bytes(
        (
            '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header srclang="en" '
            'datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x" '
            f'creationtool="x" creationtoolversion="1"/><body>\n{body}\n</body></tmx>\n'
        ).encode("cp1252")
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#import-collection", Input).value = "lying"
        for encoding in ("", "cp1252"):
            screen.query_one("#import-encoding", Input).value = encoding
            screen.query_one("#collections-table", DataTable).focus()
            await pilot.press("i")
            await pilot.pause()
            app.screen.query_one("#picker-path", Input).value = str(tmx)
            await pilot.press("enter", "ctrl+o")
            await settle(pilot)
            report = str(screen.query_one("#import-report", Static).content)
            if not encoding:
                assert "failed" in report and "the encoding field" in report
                assert "--encoding" not in report
        assert screen.reports[0].status == "imported" and screen.reports[0].added == 4, report
        assert "lying" in [c.name for c in screen.collections]


async def test_corpus_index_all_indexes_every_collection(app, engine, settle, tsv_file: Path):
    engine.import_files([str(tsv_file)], "one")
    engine.import_files([str(tsv_file)], "two")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#collections-table", DataTable).focus()
        await pilot.press("X")  # index all: one collection after the other
        for _ in range(4):
            await settle(pilot)
        # was: the second start found the first job still running ("Busy") and the rest dropped
        assert {(s.collection, s.state) for s in screen.statuses} == {
            ("demo", "fresh"),
            ("one", "fresh"),
            ("two", "fresh"),
        }
        assert not [n for n in app._notifications if n.title == "Busy"]


async def test_distill_from_an_imported_memory_is_previewed(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#tm-collection", Select).value = "demo"
        await settle(pilot)
        # choosing the memory checks "use my imported translation memory" and previews it
        assert screen.query_one("#use-tm", Checkbox).value is True
        preview = screen.query_one("#tsv-preview", Static).content.plain
        assert preview.startswith("collection demo · 6 units · languages de, en, ru, zh")
        assert "English–other pairs" in preview
        screen.query_one("#use-tm", Checkbox).value = False
        await settle(pilot)
        assert str(screen.query_one("#tsv-preview", Static).content) == "no data chosen"


async def test_distill_wizard_preview_run_and_card(
    app,
    engine,
    settle,
    tsv_file: Path,
    pairs: Path,
    teacher: str,
    seeded_model: Path,
    tmp_path: Path,
):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        assert str(screen.query_one("#device", Label).content).startswith("device: CPU")
        screen.set_files([str(tsv_file)])
        await settle(pilot)
        preview = screen.query_one("#tsv-preview", Static).content.plain
        assert "3 pairs" in preview and "en-de.tsv:3" in preview  # the bad line named
        # before Start: a time estimate from the data's size and the machine's rates
        shown = screen.query_one("#estimate", Static)
        screen.query_one("#teacher", Input).value = teacher
        screen.query_one("#max-steps", Input).value = "30"
        screen.query_one("#batch", Input).value = "16"
        screen.set_files([str(pairs)])
        first = await wait_estimate(pilot, screen, "reference", 200)
        assert (first.pairs, first.steps) == (200, 30) and first.low < first.seconds < first.high
        assert str(shown.content).startswith("time: about ")
        assert "200 pairs, 30 steps" in str(shown.content)
        assert "rough: no run here yet" in str(shown.content)
        # the STS option: naming a file ticks it; the new student's 0-5 scores are calibrated
        assert not screen.query_one("#calibrate", Checkbox).value  # no STS file known here
        sts = tmp_path / "sts.tsv"
        rows = [("the dog sleeps", "a dog is sleeping", 4.6), ("the dog sleeps", "a house", 0.2)]
        rows += [("good morning", "good morning to you", 4.0), ("a red house", "the cat", 0.5)]
        sts.write_text("".join(f"{a}\t{b}\t{s}\n" for a, b, s in rows * 3), encoding="utf-8")
        screen.query_one("#sts-file", Input).value = str(sts)
        await pilot.pause()
        assert screen.query_one("#calibrate", Checkbox).value
        await start_distill(pilot, screen, teacher)
        await settle(pilot)
        assert screen.result is not None and not screen.result.cancelled
        assert screen.result.card["sts_calibration"]["pairs"] == 12
        (score,) = LocalEngine(model=str(screen.result.out)).sts("the dog", ["a dog"])
        assert score.score is not None  # calibrated, not the "uncalibrated" fallback
        assert len(screen.losses) >= 2 and screen.losses[0][1] > screen.losses[-1][1]
        assert screen.dev == [
            (h["step"], h["dev_acc"]) for h in screen.result.history if "dev_acc" in h
        ]
        assert screen.dev  # no dev point lost to progress coalescing
        card = screen.query_one("#model-card", Static).content.plain
        assert "teacher: tiny-teacher" in card and "languages:" in card
        # the run never switches the active model; the app offers it, with the cost
        assert isinstance(app.screen, ConfirmScreen)
        question = str(app.screen.query_one("#question", Label).content)
        name = screen.result.out.name
        assert f"Search with {name} now?" in question
        assert "re-indexes 24 segments in 1 collection(s) now" in question
        assert engine.active_model() == str(seeded_model)
        await pilot.press("n")
        await settle(pilot)
        assert engine.active_model() == str(seeded_model) and app.screen is screen
        # the run's rates are this machine's now: the next estimate says so
        await wait_estimate(pilot, screen, "measured", 200)
        assert "from the last run here" in str(shown.content)


async def test_distill_offer_accepted_switches_and_warms_the_new_model(
    app, engine, settle, pairs: Path, teacher: str
):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        screen.files = [str(pairs)]
        await start_distill(pilot, screen, teacher)
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert engine.active_model() == str(screen.result.out)
        assert engine.calls.count("warm_up") == 2  # at start, and after the switch


async def test_distill_fields_are_checked_by_name(app, settle, tsv_file):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        screen.files = [str(tsv_file)]
        for field, value, message in [
            ("#minutes", "-", "Minutes: enter a number ≥ 0"),
            ("#minutes", "-3", "Minutes: enter a number ≥ 0"),
            ("#epochs", "1e999", "Epochs: enter a number ≥ 0"),
            ("#batch", "2.5", "Batch: enter a whole number ≥ 0"),
        ]:
            screen.query_one(field, Input).value = value
            app.clear_notifications()
            await pilot.press("ctrl+r")
            await settle(pilot)
            assert [n.message.split(" (")[0] for n in app._notifications] == [message]
            assert screen.result is None and not screen.job_running()
            screen.query_one(field, Input).value = ""


async def test_distill_uses_the_imported_tm(app, settle, teacher: str):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#use-tm").value = True
        screen.query_one("#tm-collection").value = "demo"
        await start_distill(pilot, screen, teacher)
        await settle(pilot)
        assert screen.last_collection == "demo" and screen.last_config.train == []
        assert screen.result is not None and not screen.result.cancelled
        assert set(screen.result.card["languages"]) == {"de", "ru", "zh"}  # the memory's


async def test_distill_cancel_keeps_checkpoint_and_resumes(
    settle, seeded_model: Path, pairs: Path, teacher: str
):
    engine = SpyEngine(step_delay=0.15)
    app = make_app(engine=engine, theme="textual-dark")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        screen.files = [str(pairs)]
        name = screen.query_one("#output", Input)
        await start_distill(pilot, screen, teacher, name="my-student")  # type the name, start
        for _ in range(100):  # until training has saved its first steps
            await pilot.pause(0.1)
            if len(screen.losses) >= 1:
                break
        assert screen.job_running() and screen.focused is name
        await pilot.press("ctrl+x")  # a priority key: the field's "cut" does not swallow it
        await settle(pilot)
        assert name.value == "my-student"
        assert screen.result is not None and screen.result.cancelled
        assert not isinstance(app.screen, ConfirmScreen)  # a cancelled run is not offered
        assert screen.can_resume and not screen.query_one("#resume", Button).disabled
        assert screen.last_resume is False
        name.focus()
        await pilot.press("ctrl+u")
        await settle(pilot)
        assert screen.last_resume is True
        assert screen.result is not None and not screen.result.cancelled


async def test_ui_stays_responsive_while_a_long_job_runs(
    settle, seeded_model: Path, pairs: Path, teacher: str
):
    engine = SpyEngine(step_delay=0.3)  # 0.3 s per progress event: seconds of training
    app = make_app(engine=engine, theme="textual-dark")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3", "f5")
        await settle(pilot)
        distill = app.screen
        distill.files = [str(pairs)]
        await start_distill(pilot, distill, teacher)
        for _ in range(100):  # until it trains (the teacher loaded, the vocabulary built)
            await pilot.pause(0.1)
            if distill.losses:
                break
        assert distill.job_running()
        start = time.monotonic()
        await pilot.press("f3")  # handled while the worker is busy
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        assert time.monotonic() - start < 1.0
        await pilot.press(*"hello")
        assert app.screen.query_one("#sts-a", Input).value == "hello"
        assert distill.job_running()
        distill.cancel_job("distill")
        await settle(pilot)


def write_benchmark(root: Path) -> Path:
    """A tiny benchmark folder: Tatoeba (the seed units) and stsb-multi-mt in en and de."""
    tatoeba = root / "dev" / "tatoeba"
    tatoeba.mkdir(parents=True)
    for lang, iso3 in (("de", "deu"), ("ru", "rus")):
        for side, name in ((lang, iso3), ("en", "eng")):
            text = "".join(u[side] + "\n" for u in SEED_UNITS)
            (tatoeba / f"tatoeba.{iso3}-eng.{name}").write_text(text, encoding="utf-8")
    sts = root / "dev" / "stsb-multi-mt"
    sts.mkdir(parents=True)
    rows = {
        "en": [
            ("The train to Berlin.", "The train leaves.", 3.0),
            ("Sunny weather.", "A table.", 0.5),
            ("The storm.", "The storm.", 5.0),
            ("Two tables.", "The server.", 0.0),
        ],
        "de": [
            ("Der Zug nach Berlin.", "Der Zug fährt.", 3.0),
            ("Sonnig.", "Ein Tisch.", 0.5),
            ("Der Sturms.", "Der Sturms.", 5.0),
            ("Zwei Tisch.", "Der Server.", 0.0),
        ],
    }
    for lang, pairs in rows.items():
        text = "".join(f'"{a}","{b}",{score}\n' for a, b, score in pairs)
        (sts / f"stsb-{lang}-test.csv").write_text(text, encoding="utf-8")
    return root


async def test_evaluate_models_side_by_side_and_bias_plot(
    app, settle, seeded_model: Path, tmp_path: Path
):
    bench = write_benchmark(tmp_path / "bench")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f6")
        await settle(pilot)
        screen = app.screen
        assert screen.query_one("#eval-model").value == str(seeded_model)
        assert screen.query_one("#eval-source").value == EVAL_DEMO  # works out of the box
        assert screen.query_one("#eval-data").disabled
        screen.query_one("#eval-source").value = "folder"
        await pilot.pause()
        assert not screen.query_one("#eval-data").disabled
        screen.query_one("#eval-data", Input).value = str(bench)
        await pilot.press("ctrl+r")
        await settle(pilot)
        screen.query_one("#eval-model").value = TEACHER
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert not app._notifications, [n.message for n in app._notifications]
        summary = screen.query_one("#eval-summary", DataTable)
        assert [str(c.label) for c in summary.columns.values()] == [
            "metric (mean, rows)",
            "demo-student · bench",
            "teacher · bench",
        ]
        metrics = column(summary, "metric (mean, rows)")
        assert "tatoeba · trained" in metrics and len(metrics) >= 2
        detail = screen.query_one("#eval-detail", Static).content
        assert len(detail.renderables) >= 2
        assert screen.reports[TEACHER].bias_points
        # the concept model pairs the seed units' translations exactly
        student = screen.reports[str(seeded_model)]
        assert student.summary["tatoeba"] == pytest.approx(100.0)


async def test_evaluate_builtin_sets_out_of_the_box(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f6")
        await settle(pilot)
        screen = app.screen
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert column(screen.query_one("#eval-summary", DataTable), "metric (mean, rows)") == [
            "demo heldout · trained",
            "demo heldout · untrained",
        ]
        assert not app._notifications
        screen.query_one("#eval-source").value = EVAL_DEV  # not distilled here: no dev split
        await pilot.press("ctrl+r")
        await settle(pilot)
        [error] = [n for n in app._notifications if n.severity == "error"]
        assert "has no training data recorded, so no dev split" in error.message


async def test_mining_threshold_and_export(app, settle, tmp_path: Path):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f7")
        await settle(pilot)
        screen = app.screen
        await pilot.press("ctrl+r")
        await settle(pilot)
        table = screen.query_one("#pairs-table", DataTable)
        everything = len(screen.pairs)
        assert everything >= 4 and table.row_count == len(screen.visible_pairs())
        units = [set(u.values()) for u in SEED_UNITS]  # mined pairs are the memory's units
        assert all(any({p.src_text, p.tgt_text} <= u for u in units) for p in screen.pairs)
        slider = screen.query_one("#threshold", Slider)
        assert screen.focused is table
        await pilot.press("plus", "plus", "minus")  # the footer's +/- work from the table
        assert slider.value == pytest.approx(1.07)
        assert str(screen.query_one("#threshold-value", Label).content) == "1.07"
        screen.query_one("#src-lang", Input).focus()
        await pilot.press("minus")  # in a text field, "-" is typed
        assert slider.value == pytest.approx(1.07)
        slider.focus()
        await pilot.press("minus")
        before = table.row_count
        await pilot.press("right", "right")
        assert slider.value == pytest.approx(1.08)
        cut = sorted(p.score for p in screen.pairs)[1]  # above the lowest pair
        slider.value = round(cut, 2)
        await pilot.pause()
        assert table.row_count == len(screen.visible_pairs()) < before
        assert all(float(x) >= round(cut, 2) for x in column(table, "margin"))
        await pilot.press("e")
        await pilot.pause()
        out = tmp_path / "pairs.tsv"
        app.screen.query_one("#export-path", Input).value = str(out)
        await pilot.press("enter")
        await settle(pilot)
        header, *rows = [r.split("\t") for r in out.read_text(encoding="utf-8").splitlines()]
        assert header[2] == "score"  # the languages, then the margin score
        assert len(rows) == table.row_count  # the pairs shown, German then English
        assert sorted(r[:2] for r in rows) == sorted(
            [p.src_text, p.tgt_text] for p in screen.visible_pairs()
        )
        assert all(float(r[2]) >= round(cut, 2) for r in rows)


async def test_models_choose_active_and_flag_stale_indexes(app, engine, settle):  # type: ignore[no-untyped-def]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f8")
        await settle(pilot)
        screen = app.screen
        table = screen.query_one("#models-table", DataTable)
        assert [str(x) for x in table.get_row_at(1)][:2] == ["●", "demo-student"]
        card = screen.query_one("#card", Static).content.plain
        assert "teacher (all-MiniLM-L6-v2)" in card  # the cursor starts on the teacher
        await pilot.press("down")
        await pilot.pause()
        assert (
            "data: the UI tests' concept table" in screen.query_one("#card", Static).content.plain
        )
        await pilot.press("up", "a")
        await settle(pilot)
        assert engine.active_model() == TEACHER
        assert str(table.get_row_at(0)[0]) == "●"
        assert "missing" in str(table.get_row_at(0)[4])  # no teacher index yet: flagged
        card = screen.query_one("#card", Static).content.plain
        assert "re-index needed: demo" in card


async def test_engine_errors_become_titled_notifications(settle, seeded_model):  # type: ignore[no-untyped-def]
    class Broken(SpyEngine):
        def collections(self):  # type: ignore[override]
            raise StoreError("the store is locked")

    app = make_app(engine=Broken(), theme="textual-dark")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await settle(pilot)
        assert {(n.title, n.message) for n in app._notifications} == {
            ("Store error", "the store is locked")
        }
        assert "JobFailed('refresh', 'Store error', cancelled=False)" in app.screen.message_log


async def test_help_and_theme_toggle(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        svg = app.export_screenshot()
        assert "palette" in svg and "ctrl+t" in svg and "Distill" in svg
        await pilot.press("ctrl+t")
        assert app.theme == "textual-light"
        await pilot.press("ctrl+t")
        assert app.theme == "textual-dark"


def test_progress_messages_replace_only_same_stage_and_metrics():
    from xlsearch.engine.progress import Progress

    a = JobProgress("distill", Progress("distill", 1, 9, metrics={"loss": 1.0}))
    b = JobProgress("distill", Progress("distill", 2, 9, metrics={"loss": 0.9}))
    dev = JobProgress("distill", Progress("distill", 2, 9, metrics={"loss": 0.9, "dev_acc": 50}))
    other = JobProgress("index", Progress("distill", 2, 9, metrics={"loss": 0.9}))
    assert a.can_replace(b) and a.can_replace(dev)
    assert not dev.can_replace(b)  # the dev figure is kept
    assert not a.can_replace(other)
    assert not a.can_replace(JobProgress("distill", Progress("eval", 0)))


def test_model_card_shows_held_out_results_as_a_table():
    from xlsearch.tui.screens.distill import format_card

    card = {
        "config": {"lr": 0.003},
        "kind": "static",
        "demo_heldout": {
            "student": {"de": 92.7, "ru": 70.2, "mean": 81.45},
            "teacher": {"de": 66.1, "ru": 13.7, "mean": 39.9},
            "units": 62,
        },
    }
    lines = format_card(card).plain.splitlines()
    assert lines[0] == "kind: static" and lines[-2:] == ["config:", "  lr: 0.003"]
    i = lines.index("held-out demo accuracy (%):")
    assert lines[i + 1] == "  units: 62"
    assert lines[i + 2].split() == ["student", "teacher"]
    assert lines[i + 3].split() == ["de", "92.7", "66.1"]
    assert lines[i + 5].split() == ["mean", "81.5", "39.9"]


async def test_distill_name_typed_just_before_ctrl_r_is_the_name_used(app, settle, teacher: str):
    """Keys typed quickly and ctrl+r (a priority key) arrive together: the run must start
    with every letter the field shows, not the field as it was a moment before."""
    from textual import events

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#teacher", Input).value = teacher
        screen.query_one("#output", Input).focus()
        await pilot.pause()
        for key in "mywiz":  # queued at once, as a fast typist's keys are
            app.post_message(events.Key(key, key))
        app.post_message(events.Key("ctrl+r", None))
        await settle(pilot)  # no data chosen: the run stops at once, its settings kept
        assert screen.query_one("#output", Input).value == "mywiz"
        assert screen.last_config is not None and screen.last_config.name == "mywiz"


async def test_mining_threshold_keys_do_not_refill_a_long_table(app, settle):
    """A thousand mined pairs: a +/- adds or removes only the rows between the two thresholds
    (a whole refill held the UI up to a second a key), and the table ends with the pairs at
    or above the last key's threshold."""
    from xlsearch.service.api import MinedPair

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f7")
        await settle(pilot)
        screen = app.screen
        screen.pairs = [
            MinedPair(i, i + 5000, f"Satz {i}", f"sentence {i}", "de", "en", 1.0 + i / 1000)
            for i in range(999, -1, -1)
        ]
        screen._fill()
        table = screen.query_one("#pairs-table", DataTable)
        top = table.rows[RowKey("0")]
        table.focus()
        for _ in range(5):
            await pilot.press("minus")
        await pilot.press("plus")
        await settle(pilot)
        slider = screen.query_one("#threshold", Slider)
        assert (
            table.row_count
            == len(screen.visible_pairs())
            == sum(1 for p in screen.pairs if p.score >= slider.value - 1e-9)
        )
        assert str(table.get_row_at(table.row_count - 1)[0]) == f"{slider.value:.3f}"
        assert table.rows[RowKey("0")] is top  # the rows above both thresholds stayed
