"""Evaluation: run the suite on a model, tables per benchmark, models side by side, bias plot."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, DataTable, Footer, Header, Input, Select, Static
from textual_plotext import PlotextPlot

from xlsearch.service.api import EVAL_DEMO, EVAL_DEV, EvalReport
from xlsearch.service.eval_view import Column, explanations, summary_rows
from xlsearch.tui.messages import JobDone, JobFailed, JobProgress
from xlsearch.tui.screens.base import EngineScreen, cancel_binding
from xlsearch.tui.widgets.progress import JobPanel

FOLDER = "folder"
SOURCES = [
    ("demo held-out", EVAL_DEMO),
    ("its dev split", EVAL_DEV),
    ("benchmark folder", FOLDER),
]
"""What to evaluate on: the two built-in sets work out of the box."""


def default_data_dir() -> str:
    """``$XLSEARCH_BENCH_DATA``, else empty (the user names the folder)."""
    return os.environ.get("XLSEARCH_BENCH_DATA", "")


def short_name(spec: str) -> str:
    """A model's name as the screen shows it: its folder's name (``teacher`` for the
    bundled teacher)."""
    return spec.rstrip("/").split("/")[-1].split(":")[-1]


def benchmark_table(name: str, rows: list[dict[str, Any]]) -> Table:
    """One benchmark's rows as a rich table (floats to one decimal)."""
    table = Table(title=name, title_justify="left", expand=False, padding=(0, 1))
    columns = list(dict.fromkeys(key for row in rows for key in row))
    for col in columns:
        table.add_column(col, justify="right" if rows and _numeric(rows[0].get(col)) else "left")
    for row in rows:
        table.add_row(*(_fmt(row.get(col, "")) for col in columns))
    return table


def _numeric(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _fmt(value: Any) -> str:
    return f"{value:.1f}" if isinstance(value, float) else str(value)


class EvaluateScreen(EngineScreen):
    """Evaluate models; every report of this session stays in the side-by-side table."""

    AUTO_FOCUS = "#eval-model"
    BINDINGS = [Binding("ctrl+r", "run", "Run", priority=True), cancel_binding()]

    def __init__(self) -> None:
        super().__init__()
        self.reports: dict[str, EvalReport] = {}
        """The latest report of each model (the plot and tables show the newest run)."""
        self.columns: dict[tuple[str, str], Column] = {}
        """Every evaluation of this session, by (model, data): a model run on another set
        adds a column, it does not replace its earlier one."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(classes="bar"):
            yield Select([], prompt="model", id="eval-model", compact=True)
            yield Select(
                SOURCES, value=EVAL_DEMO, allow_blank=False, id="eval-source", compact=True
            )
            yield Input(
                value=default_data_dir(),
                placeholder="benchmark folder (dev/tatoeba, dev/stsbenchmark…)",
                id="eval-data",
                compact=True,
                disabled=True,
            )
            yield Button("Run", variant="primary", id="run", compact=True, tooltip="ctrl+r")
            yield Button("Cancel", id="cancel", compact=True, tooltip="ctrl+x")
        yield JobPanel(id="eval-job")
        summary: DataTable[Any] = DataTable(id="eval-summary", cursor_type="row")
        yield summary
        yield Static("", id="eval-explain", classes="muted")
        with Horizontal(id="eval-body"):
            with VerticalScroll(id="eval-tables"):
                yield Static("Run the suite to see per-benchmark tables.", id="eval-detail")
            yield PlotextPlot(id="bias-plot")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#eval-summary", DataTable).styles.height = 7
        self._plot(None)
        engine = self.engine
        self.run_query("models", lambda: (engine.list_models(), engine.active_model()))

    @on(Button.Pressed, "#run")
    def action_run(self) -> None:
        model = self.query_one("#eval-model", Select).value
        if not isinstance(model, str) or not model:  # the blank entry (Select.NULL)
            self.notify("Choose a model first", title="No model")
            return
        if self.job_running():
            self.notify("An evaluation is running (ctrl+x cancels)", title="Busy")
            return
        engine, spec = self.engine, str(model)
        source = str(self.query_one("#eval-source", Select).value)
        data = source if source != FOLDER else self.query_one("#eval-data", Input).value.strip()
        if not data:
            self.notify("Type the benchmark folder, or choose a built-in set", title="No data")
            self.query_one("#eval-data", Input).focus()
            return
        label = {EVAL_DEMO: "demo held-out", EVAL_DEV: "dev split"}.get(data) or Path(data).name

        def call(p: Any, c: Any) -> tuple[EvalReport, str, set[str] | None]:
            from xlsearch.service.coverage import model_known_languages

            return engine.evaluate(spec, data, p, c), label, model_known_languages(spec)

        self.run_job("evaluate", call)

    @on(Select.Changed, "#eval-source")
    def _source_changed(self, event: Select.Changed) -> None:
        folder = self.query_one("#eval-data", Input)
        folder.disabled = event.value != FOLDER
        if not folder.disabled:
            folder.focus()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.cancel_job("evaluate")

    def on_job_progress(self, message: JobProgress) -> None:
        self.query_one(JobPanel).show(message.progress)

    def on_job_done(self, message: JobDone) -> None:
        if message.job == "models":
            models, active = message.result
            select = self.query_one("#eval-model", Select)
            select.set_options([(m.name, m.spec) for m in models])
            if any(m.spec == active for m in models):
                select.value = active
        elif message.job == "evaluate":
            report, label, known = message.result
            self.reports[report.model] = report
            self.columns[(report.model, label)] = Column(report, label, known)
            self.query_one(JobPanel).finish(f"evaluated {short_name(report.model)}")
            self._show(report)

    def on_job_failed(self, message: JobFailed) -> None:
        if message.job == "evaluate":
            self.query_one(JobPanel).finish(f"{message.title}: {message.message}")

    def _show(self, report: EvalReport) -> None:
        summary = self.query_one("#eval-summary", DataTable)
        summary.clear(columns=True)
        columns = list(self.columns.values())
        summary.add_column("metric (mean, rows)", width=26)
        for col in columns:
            summary.add_column(col.title[:32], width=max(14, min(32, len(col.title))))
        rows = summary_rows(columns)
        for row in rows:
            summary.add_row(row.metric, *row.values)
        notes = [r.note for r in rows if "same sets" in r.metric]
        explain = self.query_one("#eval-explain", Static)
        explain.update("\n".join(notes))
        explain.display = bool(notes)
        legend = Text("\n".join(explanations(columns)) + "\n", style="italic")
        tables = [benchmark_table(name, rows) for name, rows in report.tables.items()]
        self.query_one("#eval-detail", Static).update(Group(legend, *tables))
        self._plot(report)

    def _plot(self, report: EvalReport | None) -> None:
        plot = self.query_one("#bias-plot", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title("language bias (PCA of embeddings)")
        if report is not None and report.bias_points:
            for lang in sorted({p[2] for p in report.bias_points}):
                xs = [p[0] for p in report.bias_points if p[2] == lang]
                ys = [p[1] for p in report.bias_points if p[2] == lang]
                plt.scatter(xs, ys, label=lang, marker="dot")
        plot.refresh()

    def commands(self) -> list[tuple[str, str, Any]]:
        return [
            ("Evaluate: run suite", "on the chosen model", self.action_run),
            ("Evaluate: cancel", "stop the running evaluation", self.action_cancel),
        ]
