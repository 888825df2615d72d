"""The Evaluate screen's summary compares like with like: trained and untrained languages
apart, a row of the sets two columns share when they ran on different ones, every
evaluation kept as its own column, every row and the plot explained; the blank model entry
does not run."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.concepts import SEED_UNITS
from textual.widgets import DataTable, Input, Select, Static

from xlsearch.service.api import EVAL_DEMO, EvalReport
from xlsearch.service.eval_view import Column, row_languages, summary_rows

pytestmark = pytest.mark.anyio
METRIC = "metric (mean, rows)"


def _bench(root: Path) -> Path:
    """Tatoeba de and ru (the seed units), STS in en and de."""
    tatoeba = root / "dev" / "tatoeba"
    tatoeba.mkdir(parents=True)
    for lang, iso3 in (("de", "deu"), ("ru", "rus")):
        for side, name in ((lang, iso3), ("en", "eng")):
            text = "".join(u[side] + "\n" for u in SEED_UNITS)
            (tatoeba / f"tatoeba.{iso3}-eng.{name}").write_text(text, encoding="utf-8")
    sts = root / "dev" / "stsb-multi-mt"
    sts.mkdir(parents=True)
    for lang, a, b in (("en", "The train.", "Sunny weather."), ("de", "Der Zug.", "Sonnig.")):
        rows = [(a, a, 5.0), (a, b, 0.5), (b, b, 4.5), (b, a, 1.0)]
        text = "".join(f'"{x}","{y}",{s}\n' for x, y, s in rows)
        (sts / f"stsb-{lang}-test.csv").write_text(text, encoding="utf-8")
    return root


def _column(table: DataTable, name: str) -> list[str]:  # type: ignore[type-arg]
    index = [str(c.label) for c in table.columns.values()].index(name)
    return [str(table.get_row_at(r)[index]) for r in range(table.row_count)]


async def test_summary_splits_trained_languages_and_keeps_every_run(  # type: ignore[no-untyped-def]
    app, settle, tmp_path: Path
):
    bench = _bench(tmp_path / "bench")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f6")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#eval-source").value = "folder"
        await pilot.pause()
        screen.query_one("#eval-data", Input).value = str(bench)
        await pilot.press("ctrl+r")
        await settle(pilot)
        screen.query_one("#eval-model").value = "bundled:teacher"
        await pilot.press("ctrl+r")
        await settle(pilot)
        summary = screen.query_one("#eval-summary", DataTable)
        rows = dict(zip(_column(summary, METRIC), range(summary.row_count), strict=True))
        student = _column(summary, "demo-student · bench")
        teacher = _column(summary, "teacher · bench")
        # the student knows de and ru: both Tatoeba rows are trained; the teacher knows
        # only English: both are untrained, and not averaged into its trained figure
        assert student[rows["tatoeba · trained"]] == "100.0 (2)"
        assert teacher[rows["tatoeba · trained"]] == "–"
        assert teacher[rows["tatoeba · untrained"]].endswith("(2)")
        assert teacher[rows["sts · trained"]].endswith("(1)")  # English STS only
        legend = str(screen.query_one("#eval-detail", Static).content.renderables[0])
        assert "Tatoeba:" in legend and "STS:" in legend and "bias:" in legend
        assert "language bias plot" in legend
        # the student on another set: a new column, its first run kept
        screen.query_one("#eval-model").value = next(
            spec for spec, _ in screen.reports.items() if "demo-student" in spec
        )
        screen.query_one("#eval-source").value = EVAL_DEMO
        await pilot.press("ctrl+r")
        await settle(pilot)
        labels = [str(c.label) for c in summary.columns.values()]
        assert labels == [
            METRIC,
            "demo-student · bench",
            "teacher · bench",
            "demo-student · demo held-out",
        ]
        assert _column(summary, "demo-student · bench")[0] == "100.0 (2)"


async def test_the_blank_model_entry_does_not_run(app, settle):  # type: ignore[no-untyped-def]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f6")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#eval-model", Select).clear()
        await pilot.press("ctrl+r")
        await settle(pilot)
        messages = [(n.title, n.message) for n in app._notifications]
        assert ("No model", "Choose a model first") in messages
        assert not [m for m in messages if "Select.NULL" in m[1]]


def _report(model: str, langs: list[str]) -> EvalReport:
    rows = [{"label": lang, "xx→en": 80.0, "en→xx": 80.0, "mean": 80.0} for lang in langs]
    return EvalReport(model, {"Tatoeba accuracy (%)": rows})


def test_columns_on_different_sets_get_a_row_of_the_sets_they_share() -> None:
    a = Column(_report("/m/a", ["de", "fr"]), "bench", {"en", "de", "fr"})
    b = Column(_report("/m/b", ["de", "fr", "ja", "ar"]), "bench", {"en", "de", "fr", "ja", "ar"})
    rows = {r.metric: r for r in summary_rows([a, b])}
    assert rows["tatoeba · trained"].values == ["80.0 (2)", "80.0 (4)"]
    same = rows["tatoeba · same sets"]
    assert same.values == ["80.0 (2)", "80.0 (2)"] and "the 2 they share" in same.note
    rows = {r.metric: r for r in summary_rows([a, a])}
    assert "tatoeba · same sets" not in rows  # the same sets: nothing to add


def test_row_languages() -> None:
    assert row_languages("tatoeba", "de") == row_languages("tatoeba", "deu") == {"en", "de"}
    assert row_languages("sts", "stsb-fr-test") == {"fr"}
    assert row_languages("sts", "en-de") == {"en", "de"}
    assert row_languages("sts", "sts-test") == {"en"}


def test_demo_heldout_mean_is_the_same_everywhere(engine, seeded_model: Path) -> None:  # type: ignore[no-untyped-def]
    """The card's demo held-out mean (shown by `models` and the demo) equals the Evaluate
    screen's mean row: one mean of the exact figures, not a mean of rounded ones."""
    from xlsearch.service.demo import heldout_accuracy

    report = engine.evaluate(str(seeded_model), EVAL_DEMO)
    [rows] = report.tables.values()
    [mean] = [r["mean"] for r in rows if r["label"] == "mean"]
    exact = heldout_accuracy(engine.encoder(str(seeded_model)))
    assert exact["mean"] == mean


def test_demo_heldout_mean_is_of_the_exact_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    from xlsearch.engine.evaluation import metrics
    from xlsearch.service import demo

    figures = iter([81.04] * 6 + [81.34])

    def accuracy(_a: object, _b: object) -> tuple[float, float]:
        v = next(figures)
        return v, v

    class Encoder:
        def encode(self, texts: list[str]) -> list[str]:
            return texts

    monkeypatch.setattr(metrics, "translation_accuracy", accuracy)
    scores = demo.heldout_accuracy(Encoder())
    assert scores["mean"] == 81.1  # a mean of the rounded figures said 81.0
