"""Mining: translation pairs between two languages, filtered live by a margin threshold."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, Select, Static

from xlsearch.service.api import MinedPair
from xlsearch.service.options import MINE_THRESHOLD as DEFAULT_THRESHOLD
from xlsearch.tui.messages import JobDone, JobFailed, JobProgress
from xlsearch.tui.screens.base import EngineScreen, cancel_binding
from xlsearch.tui.screens.search import clipped
from xlsearch.tui.widgets.progress import JobPanel
from xlsearch.tui.widgets.slider import Slider

ALL = "*"
SAME = "="
MIN_MARGIN, MAX_MARGIN = 1.0, 2.0


class MiningScreen(EngineScreen):
    """Mine once (margin ≥ 1.0), then move the threshold to see fewer, surer pairs."""

    AUTO_FOCUS = "#pairs-table"
    BINDINGS = [
        Binding("ctrl+r", "mine", "Mine", priority=True),
        cancel_binding(),
        Binding("e", "export", "Export"),
        Binding("minus", "threshold(-1)", "Margin", key_display="-", show=False),
        Binding("plus,equals_sign", "threshold(1)", "Margin", key_display="+/-"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.pairs: list[MinedPair] = []
        self._rows = 0
        """How many of ``pairs`` (the first ones) the table holds."""
        self._lang_said = Text()
        """The language notice (the model does not know a side's language), if any."""
        self._precision_said = ""
        """How many of the mined pairs to trust (the last run's), if said."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(classes="bar", id="mine-bar"):
            yield Label("from")
            yield Input(value="de", id="src-lang", compact=True)
            yield Label("to")
            yield Input(value="en", id="tgt-lang", compact=True)
            yield Select(
                [("all collections", ALL)],
                value=ALL,
                allow_blank=False,
                id="mine-collection",
                compact=True,
            )
            yield Select(
                [("same collection", SAME)],
                value=SAME,
                allow_blank=False,
                id="mine-tgt-collection",
                compact=True,
            )
            yield Button("Mine (ctrl+r)", variant="primary", id="mine", compact=True)
        with Horizontal(id="threshold-bar"):
            yield Label("margin ≥ ")
            yield Label(f"{DEFAULT_THRESHOLD:.2f}", id="threshold-value")
            yield Slider(MIN_MARGIN, MAX_MARGIN, DEFAULT_THRESHOLD, 0.01, id="threshold")
            yield Label("", id="mine-count")
        yield JobPanel(id="mine-job")
        yield Static("", id="mine-notice", classes="lang-notice")
        yield DataTable(id="pairs-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="pair-preview")
        yield Footer()

    def on_mount(self) -> None:
        engine = self.engine
        self.show_model()
        self._setup_columns()
        self.run_query("collections", engine.collections)

    def _setup_columns(self) -> None:
        """Margin, then source and target sharing the screen's width."""
        table: DataTable[Any] = self.query_one("#pairs-table", DataTable)
        table.clear(columns=True)
        free = max(30, self.size.width - 6 - 8)
        table.add_column("margin", width=6, key="margin")
        table.add_column(self.side_label(0), width=free // 2, key="source")
        table.add_column(self.side_label(1), width=free - free // 2, key="target")

    def side_label(self, side: int) -> str:
        """A column's header: ``source (de)`` once pairs are mined."""
        name = ("source", "target")[side]
        if not self.pairs:
            return name
        p = self.pairs[0]
        return f"{name} ({(p.src_lang, p.tgt_lang)[side]})"

    def on_screen_resume(self) -> None:
        self.show_model()

    def on_resize(self) -> None:
        self._setup_columns()
        self._fill()

    @property
    def threshold(self) -> float:
        return self.query_one("#threshold", Slider).value

    def visible_pairs(self) -> list[MinedPair]:
        """Mined pairs at or above the threshold."""
        return [p for p in self.pairs if p.score >= self.threshold - 1e-9]

    @on(Input.Submitted)
    @on(Button.Pressed, "#mine")
    def action_mine(self) -> None:
        src = self.query_one("#src-lang", Input).value.strip().lower()
        tgt = self.query_one("#tgt-lang", Input).value.strip().lower()
        if not src or not tgt or src == tgt:
            self.notify("Give two different language codes", title="Check languages")
            return
        collection = self.query_one("#mine-collection", Select).value
        coll = None if collection in (ALL, Select.BLANK) else str(collection)
        target = self.query_one("#mine-tgt-collection", Select).value
        tgt_coll = coll if target in (SAME, Select.BLANK) else str(target)
        engine = self.engine
        self.run_job(
            "mine",
            lambda p, c: engine.mine(src, tgt, coll, MIN_MARGIN, p, c, tgt_collection=tgt_coll),
        )
        self.run_query("mine-languages", lambda: engine.language_notice([src, tgt]))

    def action_cancel(self) -> None:
        self.cancel_job("mine")

    @on(Slider.Changed, "#threshold")
    def _threshold_changed(self, event: Slider.Changed) -> None:
        self.query_one("#threshold-value", Label).update(f"{event.value:.2f}")
        self._sync_rows()

    def on_job_progress(self, message: JobProgress) -> None:
        self.query_one(JobPanel).show(message.progress)

    def on_job_done(self, message: JobDone) -> None:
        if message.job == "collections":
            select = self.query_one("#mine-collection", Select)
            names = [(c.name, c.name) for c in message.result]
            select.set_options([("all collections", ALL), *names])
            target = self.query_one("#mine-tgt-collection", Select)
            target.set_options([("same collection", SAME), *[(f"→ {n}", v) for n, v in names]])
        elif message.job == "mine-languages":
            said = message.result
            self._lang_said = Text(f"⚠ {said.text('app')}", style="yellow") if said else Text()
            self._show_notice()
        elif message.job == "mine":
            self.pairs = sorted(message.result, key=lambda p: -p.score)
            self.query_one(JobPanel).finish(f"{len(self.pairs):,} candidate pairs")
            # how many of them to trust, under the language notice (the panel's one line
            # cut it off)
            said = str(getattr(self.engine, "mined", {}).get("precision_notice") or "")
            self._precision_said = said
            self._show_notice()
            self._setup_columns()
            self._fill()
            if isinstance(self.focused, Input):  # results in: keys (e, arrows) act on them
                self.query_one("#pairs-table", DataTable).focus()
        elif message.job == "export":
            self.notify(f"{message.result} pairs written", title="Exported")

    def _show_notice(self) -> None:
        """The language notice, then how many mined pairs to trust: both jobs start together
        and either may end last, so each redraws both."""
        said = self._precision_said
        shown = Text.assemble(self._lang_said, "\n" if self._lang_said else "")
        shown.append(said, style="yellow")
        line = self.query_one("#mine-notice", Static)
        line.update(shown if said else self._lang_said)
        line.display = bool(said or self._lang_said)

    def on_job_failed(self, message: JobFailed) -> None:
        if message.job == "mine":
            self.query_one(JobPanel).finish(f"{message.title}: {message.message}")

    def _fill(self) -> None:
        """Refill the table with the pairs above the threshold (new pairs, new columns)."""
        self.query_one("#pairs-table", DataTable).clear()
        self._rows = 0
        self._sync_rows()

    def _sync_rows(self) -> None:
        """Make the table hold the pairs above the threshold by adding or removing rows at
        its end (the pairs are sorted by margin: those shown are always the first ones). A
        ``+`` or ``-`` touches the few pairs between the two thresholds; refilling a thousand
        rows held the UI ~0.4 s a key (the table measures every cell it is given)."""
        table = self.query_one("#pairs-table", DataTable)
        n = len(self.visible_pairs())
        for i in range(self._rows - 1, n - 1, -1):
            table.remove_row(str(i))
        for i in range(self._rows, n):
            p = self.pairs[i]
            table.add_row(
                f"{p.score:.3f}", clipped(Text(p.src_text)), clipped(Text(p.tgt_text)), key=str(i)
            )
        self._rows = n
        self.query_one("#mine-count", Label).update(f" {n:,}/{len(self.pairs):,} pairs")
        self._show_pair()

    def current_pair(self) -> MinedPair | None:
        """The pair under the table cursor."""
        shown = self.visible_pairs()
        row = self.query_one("#pairs-table", DataTable).cursor_row
        return shown[row] if 0 <= row < len(shown) else None

    @on(DataTable.RowHighlighted, "#pairs-table")
    def _show_pair(self) -> None:
        """The highlighted pair in full (the table cuts long sentences)."""
        pair = self.current_pair()
        out = Text()
        if pair is not None:
            out.append(f"margin {pair.score:.3f}\n", style="bold")
            out.append(f"{pair.src_lang}: ", style="bold")
            out.append(f"{pair.src_text}\n")
            out.append(f"{pair.tgt_lang}: ", style="bold")
            out.append(pair.tgt_text)
        self.query_one("#pair-preview", Static).update(out)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("export", "threshold"):
            return not isinstance(self.focused, Input)
        return super().check_action(action, parameters)

    def action_threshold(self, direction: int) -> None:
        """Lower / raise the margin threshold one step (from any focus but a text field)."""
        self.query_one("#threshold", Slider).action_step(direction)

    def action_export(self) -> None:
        items = self.visible_pairs()
        if not items:
            self.notify("Mine first (ctrl+r)", title="Nothing to export")
            return
        from xlsearch.tui.widgets.modals import ExportScreen

        def done(result: tuple[str, str] | None) -> None:
            if result:
                path, fmt = result
                engine = self.engine
                self.run_job("export", lambda _p, _c: engine.export(items, path, fmt))

        self.app.push_screen(ExportScreen(f"{len(items)} pairs", "mined-pairs.tmx"), done)

    def commands(self) -> list[tuple[str, str, Any]]:
        return [
            ("Mine: find pairs", "between the two languages", self.action_mine),
            ("Mine: export pairs", "TMX or TSV, above the threshold", self.action_export),
        ]
