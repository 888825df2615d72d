"""Modal dialogs: confirm, export target, and a file picker built on ``DirectoryTree``."""

from __future__ import annotations

import glob
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DirectoryTree, Input, Label, ListItem, ListView


class ConfirmScreen(ModalScreen[bool]):
    """Ask a yes/no question; ``y``/``n``/``escape`` work as well as the buttons."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, id="question")
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", variant="error", id="yes")
                yield Button("No (n)", variant="primary", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class ExportScreen(ModalScreen["tuple[str, str] | None"]):
    """Ask where to export; the format follows the extension (``.tmx``, ``.xlf`` or ``.tsv``)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, what: str, default: str = "xlsearch-export.tmx") -> None:
        super().__init__()
        self.what = what
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Export {self.what} to (.tmx, .xlf or .tsv):")
            yield Input(value=self.default, id="export-path")
            yield Label("", id="export-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Export", variant="primary", id="ok")
                yield Button("Cancel", id="cancel")

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        path = self.query_one("#export-path", Input).value.strip()
        fmt = Path(path).suffix.lower().lstrip(".")
        fmt = "xliff" if fmt in ("xlf", "xliff") else fmt
        if fmt not in ("tmx", "tsv", "xliff"):
            self.query_one("#export-error", Label).update(
                "The file name must end in .tmx, .xlf/.xliff or .tsv"
            )
            return
        self.dismiss((path, fmt))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class FilePickerScreen(ModalScreen["list[str] | None"]):
    """Pick one or more files: browse with the tree (enter adds a file) or type a path/glob."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+o", "done", "Done", priority=True),
    ]

    def __init__(self, title: str, root: str | Path = ".", suffixes: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.title_text = title
        self.root = Path(root).expanduser()
        self.suffixes = suffixes
        self.chosen: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(self.title_text)
            yield Input(placeholder="type a path or glob, enter adds it", id="picker-path")
            yield DirectoryTree(self.root, id="picker-tree")
            yield Label("Chosen (enter on a file adds it; ctrl+o done):", classes="muted")
            yield ListView(id="picker-chosen")
            yield Label("", id="picker-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Done (ctrl+o)", variant="primary", id="done")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#picker-path", Input).focus()

    def add(self, path: str) -> None:
        """Add ``path`` (a file, or every file a glob matches) to the chosen list."""
        error = self.query_one("#picker-error", Label)
        matches = sorted(glob.glob(str(Path(path).expanduser()))) or [path]
        added = 0
        for match in matches:
            p = Path(match)
            if not p.is_file():
                error.update(f"Not a file: {match}")
                continue
            if self.suffixes and not p.name.lower().endswith(self.suffixes):
                error.update(f"Not a {'/'.join(self.suffixes)} file: {p.name}")
                continue
            if str(p) not in self.chosen:
                self.chosen.append(str(p))
                self.query_one("#picker-chosen", ListView).append(ListItem(Label(str(p))))
                added += 1
        if added:
            error.update("")

    @on(Input.Submitted, "#picker-path")
    def _typed(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.add(event.value.strip())
            event.input.value = ""
        elif self.chosen:
            self.action_done()

    @on(DirectoryTree.FileSelected)
    def _picked(self, event: DirectoryTree.FileSelected) -> None:
        self.add(str(event.path))

    @on(Button.Pressed, "#done")
    def action_done(self) -> None:
        if not self.chosen:
            self.query_one("#picker-error", Label).update("Choose at least one file")
            return
        self.dismiss(list(self.chosen))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
