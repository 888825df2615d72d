"""Compare / STS: one sentence against one or many → cosine and a 0–5 score, ranked."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, Static, TextArea

from xlsearch.service.api import StsScore
from xlsearch.tui.messages import JobDone
from xlsearch.tui.screens.base import EngineScreen


class CompareScreen(EngineScreen):
    """Sentence A (any language) vs sentences B (one per line)."""

    AUTO_FOCUS = "#sts-a"
    BINDINGS = [Binding("ctrl+r", "compare", "Compare")]

    def __init__(self) -> None:
        super().__init__()
        self.scores: list[StsScore] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Sentence A (any language)", id="sts-a")
        yield Label(" Sentences B, one per line:", classes="muted")
        yield TextArea(id="sts-b", soft_wrap=True, show_line_numbers=False)
        with Horizontal(classes="row form"):
            yield Button("Compare (ctrl+r)", variant="primary", id="compare")
            yield Label("", id="sts-status")
        yield Static("", id="sts-notice", classes="lang-notice")
        table: DataTable[Any] = DataTable(id="sts-results", cursor_type="row")
        table.add_column("#", width=3)
        table.add_column("0–5", width=5)
        table.add_column("cosine", width=7)
        table.add_column("sentence B", width=70)
        yield table
        yield Footer()

    def on_mount(self) -> None:
        self.show_model()
        self.query_one("#sts-a", Input).focus()

    def on_screen_resume(self) -> None:
        self.show_model()

    @on(Input.Submitted, "#sts-a")
    @on(Button.Pressed, "#compare")
    def action_compare(self) -> None:
        a = self.query_one("#sts-a", Input).value.strip()
        b = [line.strip() for line in self.query_one("#sts-b", TextArea).text.splitlines()]
        b = [line for line in b if line]
        if not a or not b:
            self.notify("Type sentence A and at least one sentence B", title="Nothing to compare")
            return
        self.query_one("#sts-status", Label).update("scoring…")
        engine = self.engine
        self.run_job("sts", lambda _p, _c: (engine.sts(a, b), engine.language_notice([], [a, *b])))

    def on_job_done(self, message: JobDone) -> None:
        if message.job != "sts":
            return
        scores, said = message.result
        line = self.query_one("#sts-notice", Static)
        line.update(Text(f"⚠ {said.text('app')}", style="yellow") if said else "")
        line.display = said is not None
        self.scores = sorted(scores, key=lambda s: -s.cosine)
        table = self.query_one("#sts-results", DataTable)
        table.clear()
        for rank, s in enumerate(self.scores, start=1):
            table.add_row(str(rank), f"{s.score:.2f}", f"{s.cosine:.3f}", s.text)
        best = self.scores[0] if self.scores else None
        how = "calibrated" if best and best.calibrated else "uncalibrated: 5 × cosine"
        self.query_one("#sts-status", Label).update(
            f"{len(self.scores)} scored; best {best.score:.2f}/5 ({how})" if best else ""
        )

    def commands(self) -> list[tuple[str, str, Any]]:
        return [("Compare: score sentences", "STS of A vs every B", self.action_compare)]
