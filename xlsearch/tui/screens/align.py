"""Align: a document and its translation side by side, bead by bead; fix, then save."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Checkbox, DataTable, Footer, Header, Input, Label

from xlsearch.service.shared import edit_beads
from xlsearch.tui.messages import JobDone, JobFailed, JobProgress
from xlsearch.tui.screens.base import EngineScreen
from xlsearch.tui.widgets.progress import JobPanel

if TYPE_CHECKING:
    from xlsearch.service.types import Alignment, Bead

TEXT_WIDTH = 44


def row_height(*texts: str) -> int:
    """Lines the texts need wrapped at ``TEXT_WIDTH`` (cheap: no rendering, unlike auto)."""
    return max(
        1,
        *(max(len(textwrap.wrap(t, TEXT_WIDTH)), -(-cell_len(t) // TEXT_WIDTH)) for t in texts),
    )


class AlignScreen(EngineScreen):
    """Align two documents; low-confidence beads are marked ``!`` and shown in colour."""

    AUTO_FOCUS = "#align-src"
    CONTROLS = {  # what an error's hint names instead of the command-line options
        "--presplit": "tick “one sentence a line”",
        "--src-lang": "the two lang fields",
        "--collection": "the “save into collection” field",
    }
    BINDINGS = [
        Binding("ctrl+r", "align", "Align"),
        Binding("ctrl+x", "cancel", "Cancel"),
        Binding("m", "merge", "Merge"),
        Binding("s", "split", "Split"),
        Binding("right_square_bracket", "shift('tgt', 1)", "Tgt→next", show=False),
        Binding("left_square_bracket", "shift('tgt', -1)", "Tgt←next", show=False),
        Binding("right_curly_bracket", "shift('src', 1)", "Src→next", show=False),
        Binding("left_curly_bracket", "shift('src', -1)", "Src←next", show=False),
        Binding("a", "accept", "OK bead"),
        Binding("n", "next_flagged", "Next !"),
        Binding("ctrl+s", "save", "Save"),
        Binding("e", "export", "Export"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.alignment: Alignment | None = None
        self._keys: list[str] = []
        """The table's row key of each bead, in order."""
        self._next_key = 0

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(classes="bar", id="align-bar"):
            yield Input(placeholder="source document", id="align-src", compact=True)
            yield Input(placeholder="lang", id="align-src-lang", compact=True)
            yield Input(placeholder="translation", id="align-tgt", compact=True)
            yield Input(placeholder="lang", id="align-tgt-lang", compact=True)
            yield Checkbox("one sentence a line", id="align-presplit", compact=True)
            yield Button("Align (ctrl+r)", variant="primary", id="align-run", compact=True)
        yield JobPanel(id="align-job")
        yield Label("Give both documents (.txt, .md, .docx, .html), then ctrl+r.", id="align-info")
        table: DataTable[Any] = DataTable(id="beads", cursor_type="row", zebra_stripes=True)
        table.add_column("bead", width=12)
        table.add_column("score", width=6)
        table.add_column("source", width=TEXT_WIDTH)
        table.add_column("translation", width=TEXT_WIDTH)
        yield table
        with Horizontal(classes="bar", id="align-save-bar"):
            yield Label("save into collection")
            yield Input(value="aligned", id="align-collection", compact=True)
            yield Button("Save (ctrl+s)", id="align-save", compact=True)
        yield Footer()

    # -- aligning --------------------------------------------------------------------
    @on(Input.Submitted)
    @on(Button.Pressed, "#align-run")
    def action_align(self) -> None:
        src = self.query_one("#align-src", Input).value.strip()
        tgt = self.query_one("#align-tgt", Input).value.strip()
        missing = [p for p in (src, tgt) if not p or not Path(p).expanduser().is_file()]
        if missing:
            what = (
                "a folder, not a file"
                if missing[0] and Path(missing[0]).expanduser().is_dir()
                else "no such file"
            )
            self.notify(f"{what}: {missing[0] or '(empty)'}", title="Give both documents")
            return
        src_lang = self.query_one("#align-src-lang", Input).value.strip() or None
        tgt_lang = self.query_one("#align-tgt-lang", Input).value.strip() or None
        presplit = self.query_one("#align-presplit", Checkbox).value
        engine = self.engine
        self.run_job(
            "align", lambda p, c: engine.align(src, tgt, src_lang, tgt_lang, presplit, p, c)
        )

    def action_cancel(self) -> None:
        self.cancel_job("align")

    def on_job_progress(self, message: JobProgress) -> None:
        self.query_one(JobPanel).show(message.progress)

    def on_job_done(self, message: JobDone) -> None:
        if message.job == "align":
            self.alignment = al = message.result
            for field, lang in (("#align-src-lang", al.src.lang), ("#align-tgt-lang", al.tgt.lang)):
                box = self.query_one(field, Input)
                if not box.value.strip():  # what was identified: the memory's languages
                    box.value = lang
            self.query_one(JobPanel).finish(
                f"{len(al.beads):,} beads · {al.src.lang} → {al.tgt.lang}"
            )
            self._fill()
            self.query_one("#beads", DataTable).focus()
            for warning in self.alignment.warnings:
                self.notify(warning, title="Check the model", severity="warning", timeout=12)
        elif message.job == "save":
            self.notify(str(message.result), title="Saved")

    def on_job_failed(self, message: JobFailed) -> None:
        if message.job == "align":
            text = "cancelled: ctrl+r resumes" if message.cancelled else message.title
            self.query_one(JobPanel).finish(text)

    # -- the table -------------------------------------------------------------------
    def _fill(self, keep: int | None = None) -> None:
        table = self.query_one("#beads", DataTable)
        table.clear()
        al = self.alignment
        if al is None:
            return
        self._keys = [self._add_row(table, k) for k in range(len(al.beads))]
        self._info()
        if keep is not None and al.beads:
            table.move_cursor(row=min(keep, len(al.beads) - 1))

    def _info(self) -> None:
        al = self.alignment
        assert al is not None
        types = sum(1 for b in al.beads if b.src and b.tgt)
        self.query_one("#align-info", Label).update(
            f"{Path(al.src.path).name} ({al.src.lang}, {len(al.src)}) ↔ "
            f"{Path(al.tgt.path).name} ({al.tgt.lang}, {len(al.tgt)}): "
            f"{types:,} pairs, {al.flagged:,} to check (!)"
            + (" · paragraph anchors" if al.anchors else "")
        )

    def _cells(self, k: int) -> tuple[Text, ...]:
        assert self.alignment is not None
        bead = self.alignment.beads[k]
        src, tgt = self.alignment.texts(bead)
        style = "bold red" if bead.flagged else ""
        mark = "! " if bead.flagged else "  "
        score = f"{bead.score:.2f}" if bead.score else "—"
        return (
            Text(f"{mark}{len(bead.src)}-{len(bead.tgt)}", style=style),
            Text(score, style=style),
            Text(src or "∅", style="dim" if not src else ""),
            Text(tgt or "∅", style="dim" if not tgt else ""),
        )

    def _height(self, k: int) -> int:
        assert self.alignment is not None
        return row_height(*self.alignment.texts(self.alignment.beads[k]))

    @property
    def current(self) -> int:
        return self.query_one("#beads", DataTable).cursor_row

    def _add_row(self, table: DataTable[Any], k: int) -> str:
        """Append bead ``k``'s row under a fresh key (keys stay unique as beads change)."""
        self._next_key += 1
        key = str(self._next_key)
        table.add_row(*self._cells(k), key=key, height=self._height(k))
        return key

    def _edit(self, beads: list[Bead]) -> None:
        """Show an edited bead list, touching only the rows that changed (10k beads: no
        rebuild, which froze the UI for seconds)."""
        if self.alignment is None or beads is self.alignment.beads:
            return
        old, self.alignment.beads = self.alignment.beads, beads
        table = self.query_one("#beads", DataTable)
        cursor = self.current
        p, n = 0, min(len(old), len(beads))
        while p < n and old[p] == beads[p]:
            p += 1
        q = 0  # common suffix
        while q < n - p and old[-1 - q] == beads[-1 - q]:
            q += 1
        before, after = range(p, len(old) - q), range(p, len(beads) - q)
        same = [(old[i].src, old[i].tgt) for i in before] == [
            (beads[i].src, beads[i].tgt) for i in after
        ]
        if same:  # flags or scores only: update the cells in place
            for k in after:
                for column, cell in zip(table.columns, self._cells(k), strict=True):
                    table.update_cell(self._keys[k], column, cell)
        else:
            for k in before:
                table.remove_row(self._keys[k])
            added = [self._add_row(table, k) for k in after]
            self._keys = [*self._keys[:p], *added, *self._keys[len(old) - q :]]
            if added and q:  # appended rows go back between the prefix and the suffix
                column = next(iter(table.columns))
                place = {id(table.get_cell(key, column)): i for i, key in enumerate(self._keys)}
                table.sort(key=lambda cells: place[id(cells[0])])
            table.move_cursor(row=min(cursor, len(beads) - 1))
        self._info()

    def action_merge(self) -> None:
        if self.alignment is not None:
            self._edit(edit_beads("merge", self.alignment.beads, self.current))

    def action_split(self) -> None:
        if self.alignment is not None:
            self._edit(edit_beads("split", self.alignment.beads, self.current))

    def action_shift(self, side: str, direction: int) -> None:
        if self.alignment is not None:
            self._edit(edit_beads("shift", self.alignment.beads, self.current, side, direction))

    def action_accept(self) -> None:
        if self.alignment is not None:
            self._edit(edit_beads("accept", self.alignment.beads, self.current))

    def action_next_flagged(self) -> None:
        if self.alignment is None:
            return
        beads = self.alignment.beads
        start = self.current + 1
        for k in [*range(start, len(beads)), *range(0, start)]:
            if beads[k].flagged:
                self.query_one("#beads", DataTable).move_cursor(row=k)
                return
        self.notify("No low-confidence beads left", title="All checked")

    # -- saving ----------------------------------------------------------------------
    @on(Button.Pressed, "#align-save")
    def action_save(self) -> None:
        if self.alignment is None:
            self.notify("Align two documents first (ctrl+r)", title="Nothing to save")
            return
        collection = self.query_one("#align-collection", Input).value.strip()
        if not collection:
            self.notify("Name the collection to save into", title="No collection")
            return
        engine, al = self.engine, self.alignment
        self.run_query("save", lambda: engine.save_alignment(al, collection))

    def action_export(self) -> None:
        if self.alignment is None:
            self.notify("Align two documents first (ctrl+r)", title="Nothing to export")
            return
        from xlsearch.tui.widgets.modals import ExportScreen

        engine, al = self.engine, self.alignment

        def done(result: tuple[str, str] | None) -> None:
            if result:
                path, fmt = result
                target = str(Path(path).with_suffix(f".{fmt}"))
                self.run_query("save", lambda: engine.save_alignment(al, "", target))

        self.app.push_screen(ExportScreen(f"{len(al.beads)} beads", "aligned.tmx"), done)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("merge", "split", "shift", "accept", "next_flagged", "export"):
            return not isinstance(self.focused, Input)
        return super().check_action(action, parameters)

    def commands(self) -> list[tuple[str, str, Any]]:
        return [
            ("Align: align the two documents", "ctrl+r", self.action_align),
            ("Align: next low-confidence bead", "n", self.action_next_flagged),
            ("Align: save as memory", "into the named collection", self.action_save),
            ("Align: export TMX/TSV", "e", self.action_export),
        ]
