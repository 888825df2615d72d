"""Models: the bundled teacher, distilled students and user folders with their cards."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Footer, Header, Static

from xlsearch.service.api import IndexStatus, ModelEntry
from xlsearch.tui.messages import JobDone
from xlsearch.tui.screens.base import EngineScreen
from xlsearch.tui.screens.search import clipped
from xlsearch.tui.widgets.card import format_card


def index_summary(spec: str, statuses: list[IndexStatus]) -> Text:
    """``2 fresh · 1 stale`` for one model's indexes (stale and missing in colour)."""
    counts: Counter[str] = Counter(s.state for s in statuses if s.model == spec)
    out = Text()
    for state, style in (("fresh", "green"), ("stale", "bold yellow"), ("missing", "bold red")):
        if counts[state]:
            if out:
                out.append(" · ")
            out.append(f"{counts[state]} {state}", style=style)
    return out


class ModelsScreen(EngineScreen):
    """Pick the active model (search and indexing use it); read each model's card."""

    AUTO_FOCUS = "#models-table"
    BINDINGS = [
        Binding("a", "activate", "Make active"),
        Binding("r", "refresh", "Refresh"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.models: list[ModelEntry] = []
        self.statuses: list[IndexStatus] = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="models-body"):
            table: DataTable[Any] = DataTable(id="models-table", cursor_type="row")
            table.add_column("", width=1)
            table.add_column("model", width=20)
            table.add_column("kind", width=11)
            table.add_column("dim", width=4)
            table.add_column("indexes", width=12)
            yield table
            with VerticalScroll(id="card-view"):
                yield Static("", id="card")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#models-table", DataTable).focus()

    def on_screen_resume(self) -> None:
        self.action_refresh()

    def action_refresh(self) -> None:
        engine = self.engine
        self.run_query("models", lambda: (engine.list_models(), engine.index_status()))

    def selected(self) -> ModelEntry | None:
        row = self.query_one("#models-table", DataTable).cursor_row
        return self.models[row] if self.models and 0 <= row < len(self.models) else None

    @on(DataTable.RowSelected, "#models-table")
    def action_activate(self) -> None:
        model = self.selected()
        if model is None or model.active:
            return
        engine, spec = self.engine, model.spec
        self.run_job("activate", lambda _p, _c: engine.set_active_model(spec))

    @on(DataTable.RowHighlighted, "#models-table")
    def _show_card(self) -> None:
        model = self.selected()
        if model is None:
            return
        out = Text(f"{model.name}\n", style="bold")
        out.append(f"{model.spec}\n", style="dim")
        if model.active:
            out.append("active model — search and indexing use it\n", style="green")
        out.append_text(format_card(model.card))
        stale = [
            s.collection for s in self.statuses if s.model == model.spec and s.state != "fresh"
        ]
        if stale:
            out.append(f"\nre-index needed: {', '.join(stale)} (Corpus, f4)\n", style="yellow")
        self.query_one("#card", Static).update(out)

    def on_job_done(self, message: JobDone) -> None:
        if message.job == "models":
            self.models, self.statuses = message.result
            table = self.query_one("#models-table", DataTable)
            row = table.cursor_row
            table.clear()
            for m in self.models:
                table.add_row(
                    "●" if m.active else "",
                    clipped(Text(m.name)),
                    clipped(Text(m.kind or "?")),
                    str(m.dim or ""),
                    index_summary(m.spec, self.statuses),
                )
            if self.models:
                table.move_cursor(row=min(max(row, 0), len(self.models) - 1))
            self._show_card()
        elif message.job == "activate":
            self.notify(f"{message.result}", title="Active model", timeout=4)
            self.action_refresh()
            self.app.warm_up()  # type: ignore[attr-defined]

    def commands(self) -> list[tuple[str, str, Any]]:
        return [
            ("Models: make selected active", "search and indexing use it", self.action_activate)
        ]
