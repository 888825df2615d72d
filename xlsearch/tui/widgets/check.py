"""The Translate screen's Check panel: the flags of the open document, enter jumps to one."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

_MARK = {"error": "✖", "warning": "▲", "info": "·"}
_RANK = {"error": 0, "warning": 1, "info": 2}


class CheckScreen(ModalScreen["int | None"]):
    """Every flag of a check (``CheckReport``); enter returns the flag's segment index."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        # the Translate screen's footer stays in view under the panel: its save works here too
        Binding("ctrl+s", "save", "Save"),
    ]
    DEFAULT_CSS = """
    CheckScreen { align: center middle; }
    CheckScreen > Vertical { width: 95%; height: 85%; border: round $accent; padding: 0 1; }
    CheckScreen DataTable { height: 1fr; }
    """

    def __init__(self, report: Any) -> None:
        super().__init__()
        self.report = report
        shown = [f for f in report.flags if f.severity != "info"] or list(report.flags)
        # Document order within each severity (the CLI's order), whatever the unit ids.
        self.flags = sorted(
            shown,
            key=lambda f: (_RANK.get(f.severity, 3), f.segment if f.segment is not None else -1),
        )

    def compose(self) -> ComposeResult:
        counts = self.report.counts()
        notes = "; ".join(self.report.notes)
        with Vertical():
            yield Label(
                f"Check: {self.report.checked} targets, {counts['error']} errors, "
                f"{counts['warning']} warnings, {counts['info']} notes · enter: go to the "
                "segment, escape: close, ctrl+s: save the document"
                + (f"\n{notes}" if notes else ""),
                id="check-summary",
            )
            table: DataTable[Any] = DataTable(id="check-flags", cursor_type="row")
            yield table

    def on_mount(self) -> None:
        table = self.query_one("#check-flags", DataTable)
        table.add_column("", width=1, key="sev")
        table.add_column("#", width=5, key="n")
        table.add_column("kind", width=14, key="kind")
        table.add_column("target", width=32, key="target")
        table.add_column("explanation", key="why")
        for i, f in enumerate(self.flags):
            n = "" if f.segment is None else str(f.segment + 1)
            target = " ".join(f.target.split())
            target = target if len(target) <= 32 else target[:31] + "…"
            table.add_row(_MARK.get(f.severity, "?"), n, f.kind, target, f.explanation, key=str(i))
        table.focus()

    @on(DataTable.RowSelected, "#check-flags")
    def _selected(self, event: DataTable.RowSelected) -> None:
        flag = self.flags[int(str(event.row_key.value))]
        self.dismiss(flag.segment)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_save(self) -> None:
        """Close the panel and save the document, as ctrl+s does on the Translate screen."""
        below = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        self.dismiss(None)
        save = getattr(below, "action_save", None)
        if callable(save):
            save()
