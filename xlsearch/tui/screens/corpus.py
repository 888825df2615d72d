"""Corpus: collections, documents, import with a report, index status per model, delete."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, Static

from xlsearch.service.api import CollectionInfo, IndexStatus
from xlsearch.tui.hints import for_app
from xlsearch.tui.messages import JobDone, JobFailed, JobProgress
from xlsearch.tui.screens.base import EngineScreen, cancel_binding
from xlsearch.tui.widgets.progress import JobPanel

if TYPE_CHECKING:
    from xlsearch.service.api import ImportReport

IMPORT_SUFFIXES = (
    ".tmx",
    ".tsv",
    ".tsv.gz",
    ".xliff",
    ".xlf",
    ".sdlxliff",
    ".mqxliff",
    ".po",
    ".pot",
    ".jsonl",
    ".txt",
    ".csv",
)
STATE_STYLE = {"fresh": "green", "stale": "yellow", "missing": "bold red"}


class CorpusScreen(EngineScreen):
    """What is stored and indexed, and the jobs that change it."""

    AUTO_FOCUS = "#collections-table"
    CONTROLS = {  # what an error's hint names instead of the command-line options
        "--lang": "the langs field",
        "--collection": "the collection field",
        "--encoding": "the encoding field",
    }
    BINDINGS = [
        Binding("i", "import", "Import"),
        Binding("n", "name", "Collection name", show=False),
        Binding("x", "index", "Index"),
        Binding("X", "index_all", "Index all", show=False),
        Binding("d", "delete", "Delete"),
        Binding("r", "refresh", "Refresh", show=False),
        cancel_binding(),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.collections: list[CollectionInfo] = []
        self.statuses: list[IndexStatus] = []
        self.reports: list[ImportReport] = []
        self._index_queue: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(classes="bar", id="corpus-actions"):
            yield Label("Into:")
            yield Input(value="default", id="import-collection", compact=True)
            yield Input(placeholder="langs en,de", id="import-langs", compact=True)
            yield Input(placeholder="encoding", id="import-encoding", compact=True)
            yield Button("Import (i)", id="import", compact=True)
            yield Button("Index (x)", id="index", compact=True)
            yield Button("Delete (d)", id="delete", compact=True)
        yield JobPanel(id="corpus-job")
        with Horizontal(id="corpus-tables"):
            with Vertical():
                yield Label("Collections", classes="section-title")
                t: DataTable[Any] = DataTable(id="collections-table", cursor_type="row")
                t.add_columns("collection", "docs", "segments", "units", "languages")
                yield t
            with Vertical():
                yield Label("Index status", classes="section-title")
                s: DataTable[Any] = DataTable(id="index-table", cursor_type="row")
                s.add_columns("collection", "model", "state", "vectors")
                yield s
        yield Label("Documents", classes="section-title")
        d: DataTable[Any] = DataTable(id="documents-table", cursor_type="row")
        d.add_columns("collection", "document", "segments", "languages")
        yield d
        yield Static("", id="import-report")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#collections-table", DataTable).focus()
        self.action_refresh()

    def on_screen_resume(self) -> None:
        if self.is_mounted:
            self.action_refresh()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("import", "index", "index_all", "delete", "refresh", "name") and isinstance(
            self.focused, Input
        ):
            return False  # letters go to the input
        return super().check_action(action, parameters)

    def action_refresh(self) -> None:
        engine = self.engine
        self.run_query(
            "refresh", lambda: (engine.collections(), engine.documents(), engine.index_status())
        )

    def selected_collection(self) -> str | None:
        table = self.query_one("#collections-table", DataTable)
        if not self.collections or not 0 <= table.cursor_row < len(self.collections):
            return None
        return self.collections[table.cursor_row].name

    # -- actions -------------------------------------------------------------------
    def action_name(self) -> None:
        """Focus the collection-name field (enter there opens the file picker)."""
        self.query_one("#import-collection", Input).focus()

    @on(Input.Submitted, "#import-collection")
    @on(Input.Submitted, "#import-langs")
    @on(Input.Submitted, "#import-encoding")
    @on(Button.Pressed, "#import")
    def action_import(self) -> None:
        if self.job_running():
            self.notify("Wait for the running job or cancel it (ctrl+x)", title="Busy")
            return
        from xlsearch.tui.widgets.modals import FilePickerScreen

        collection = self.query_one("#import-collection", Input).value.strip() or "default"
        langs = [x for x in self.query_one("#import-langs", Input).value.replace(",", " ").split()]
        encoding = self.query_one("#import-encoding", Input).value.strip() or None
        self.query_one("#collections-table", DataTable).focus()  # focus returns here

        def picked(paths: list[str] | None) -> None:
            if paths:
                self.start_import(paths, collection, langs or None, encoding)

        self.app.push_screen(
            FilePickerScreen(f"Import into collection '{collection}'", ".", IMPORT_SUFFIXES),
            picked,
        )

    def start_import(
        self,
        paths: list[str],
        collection: str,
        langs: list[str] | None = None,
        encoding: str | None = None,
    ) -> None:
        """Import ``paths`` into ``collection`` in the job worker (``langs``: TSV columns;
        ``encoding``: the files' codec, None to detect it)."""
        engine = self.engine
        self.query_one("#import-report", Static).update(f"importing {len(paths)} file(s)…")
        self.run_job(
            "import",
            lambda p, c: engine.import_files(
                paths, collection, p, c, langs=langs, encoding=encoding
            ),
        )

    @on(Button.Pressed, "#index")
    def action_index(self) -> None:
        name = self.selected_collection()
        if name is None:
            self.notify("Import a collection first", title="Nothing to index")
            return
        self.start_index([name])

    def action_index_all(self) -> None:
        names = sorted({s.collection for s in self.statuses if s.state != "fresh"})
        if not names:
            self.notify("Every index is fresh", title="Nothing to index")
            return
        self.start_index(names)

    def start_index(self, names: list[str]) -> None:
        """(Re)build the active model's index for each collection in ``names``, in turn."""
        if self.job_running():
            self.notify("Wait for the running job or cancel it (ctrl+x)", title="Busy")
            return
        self._index_queue = list(names)
        self._index_next()

    def _index_next(self) -> None:
        """Start the next queued index job (no busy check: called as the previous one ends,
        while its worker may still count as running)."""
        engine, name = self.engine, self._index_queue.pop(0)
        self.run_job("index", lambda p, c: engine.build_index(name, None, p, c))

    @on(Button.Pressed, "#delete")
    def action_delete(self) -> None:
        name = self.selected_collection()
        if name is None:
            return
        from xlsearch.tui.widgets.modals import ConfirmScreen

        def answer(yes: bool | None) -> None:
            if yes:
                engine = self.engine
                self.run_job("delete", lambda _p, _c: (engine.delete_collection(name), name)[1])

        self.app.push_screen(
            ConfirmScreen(f"Delete collection '{name}', its documents and indexes?"), answer
        )

    def action_cancel(self) -> None:
        for job in ("import", "index"):
            self.cancel_job(job)

    # -- messages ------------------------------------------------------------------
    def on_job_progress(self, message: JobProgress) -> None:
        self.query_one(JobPanel).show(message.progress)

    def on_job_done(self, message: JobDone) -> None:
        panel = self.query_one(JobPanel)
        if message.job == "refresh":
            self._fill(*message.result)
            return
        if message.job == "import":
            self.reports = message.result
            self._show_reports()
            units = sum(r.added for r in self.reports)
            skipped = sum(r.skipped for r in self.reports)
            failed = sum(r.status == "failed" for r in self.reports)
            panel.finish(
                f"added {units:,} segments, skipped {skipped:,} lines"
                + (f", {failed} file(s) failed" if failed else "")
                + " — index next (x)"
            )
        elif message.job == "index":
            status: IndexStatus = message.result
            panel.finish(f"indexed {status.collection}: {status.vectors:,} vectors")
            if self._index_queue:
                self._index_next()
        elif message.job == "delete":
            panel.finish(f"deleted {message.result}")
        self.action_refresh()

    def on_job_failed(self, message: JobFailed) -> None:
        if message.job in ("import", "index", "delete"):
            self._index_queue = []
            self.query_one(JobPanel).finish(f"{message.title}: {message.message}")
            self.action_refresh()

    def _fill(
        self, collections: list[CollectionInfo], documents: list[Any], statuses: list[IndexStatus]
    ) -> None:
        self.collections, self.statuses = collections, statuses
        table = self.query_one("#collections-table", DataTable)
        row = table.cursor_row
        table.clear()
        for c in collections:
            table.add_row(
                c.name, f"{c.documents:,}", f"{c.segments:,}", f"{c.units:,}", ",".join(c.languages)
            )
        if collections:
            table.move_cursor(row=min(max(row, 0), len(collections) - 1))
        docs = self.query_one("#documents-table", DataTable)
        docs.clear()
        for d in documents:
            docs.add_row(d.collection, d.name, f"{d.segments:,}", ",".join(d.languages))
        index = self.query_one("#index-table", DataTable)
        index.clear()
        for s in statuses:
            model = s.model.rstrip("/").split("/")[-1]  # the name; Models (f8) has the path
            state = Text(s.state, style=STATE_STYLE.get(s.state, ""))
            index.add_row(s.collection, model, state, f"{s.vectors:,}")

    def _show_reports(self) -> None:
        lines = []
        for r in self.reports:
            lines.append(
                f"{r.status} {r.path}: +{r.added:,}, {r.segments:,} segments "
                f"({','.join(r.languages)}), {r.skipped:,} skipped"
            )
            lines += [f"  {for_app(problem, self.CONTROLS)}" for problem in r.problems[:20]]
            if len(r.problems) > 20:
                lines.append(f"  … and {len(r.problems) - 20} more")
        self.query_one("#import-report", Static).update("\n".join(lines))

    def commands(self) -> list[tuple[str, str, Any]]:
        return [
            ("Corpus: import files", "TMX, TSV, XLIFF, JSONL, text", self.action_import),
            ("Corpus: index collection", "build the active model's index", self.action_index),
            ("Corpus: index all stale", "every stale or missing index", self.action_index_all),
            ("Corpus: delete collection", "asks first", self.action_delete),
        ]
