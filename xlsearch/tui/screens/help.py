"""Help: every key binding, by screen."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Static

from xlsearch.tui.screens.base import EngineScreen

SCREEN_KEYS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "Everywhere",
        [
            (
                "f1 … f9",
                "Help, Search, Compare, Corpus, Distill, Evaluate, Mine, Models, Translate",
            ),
            ("f10", "Align a document and its translation"),
            ("ctrl+p", "command palette (every screen and action by name)"),
            ("ctrl+t", "light / dark theme"),
            ("tab / shift+tab", "next / previous field"),
            ("ctrl+q", "quit"),
        ],
    ),
    (
        "Search",
        [
            ("type", "search as you type; enter searches now"),
            ("↓ / escape", "from the query to the results / back to the query"),
            ("c / t", "copy the hit / its aligned translation"),
            ("space / e", "mark a hit / export marked (else all) hits as TMX or TSV"),
            ("langs box", "language prefixes: en = en, en-GB, en-US; zh-Hant = zh-TW, zh-HK"),
            ("meta box", "client=ACME project=Web* changed>=2024-01-01 created<2025 note=*x*"),
        ],
    ),
    ("Compare", [("enter / ctrl+r", "score the sentences")]),
    (
        "Corpus",
        [
            ("n / i", "name the target collection / import files into it (file picker)"),
            ("x / X", "(re)index the selected collection / all stale and missing"),
            ("d", "delete the selected collection (asks first)"),
            ("r", "refresh"),
        ],
    ),
    (
        "Distill",
        [
            ("ctrl+r", "start (or resume) training"),
            ("ctrl+x", "cancel (a checkpoint is kept; resume later)"),
        ],
    ),
    ("Evaluate", [("ctrl+r / ctrl+x", "run the suite / cancel")]),
    ("Mine", [("ctrl+r", "mine"), ("- / +", "lower / raise the threshold"), ("e", "export")]),
    ("Models", [("enter / a", "make the selected model active"), ("r", "refresh")]),
    (
        "Align",
        [
            ("ctrl+r / ctrl+x", "align the two documents / cancel (ctrl+r resumes)"),
            ("n / a", "next low-confidence (!) bead / mark the bead as checked"),
            ("m / s", "merge the bead with the next one / split it"),
            ("] / [", "move the last translation sentence to the next bead / pull it back"),
            ("} / {", "the same for source sentences"),
            ("ctrl+s / e", "save into the collection as a memory / export TMX or TSV"),
        ],
    ),
    (
        "Translate",
        [
            ("ctrl+o / enter in the path", "open a document (XLIFF, PO, text, DOCX)"),
            ("↑ ↓ / ctrl+↑ ctrl+↓", "walk the segments (the target you typed is kept)"),
            ("1 … 5 / enter on a match", "insert that match's target into the editor"),
            ("ctrl+r / ctrl+e", "analyse against the memory / pre-translate"),
            ("ctrl+g", "confirm the segment (✓, saved as translated), go to the next one"),
            ("ctrl+n", "next unconfirmed segment"),
            ("ctrl+k", "check the targets (placeholders, numbers, …); enter jumps to one"),
            ("ctrl+s", "save next to the original (*.translated.*); unconfirmed: for review"),
        ],
    ),
]


def help_table() -> Table:
    """A two-column table of key bindings."""
    table = Table(show_header=False, box=None, padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for section, keys in SCREEN_KEYS:
        table.add_row(f"[reverse] {section} [/]", "")
        for key, what in keys:
            table.add_row(key, what)
        table.add_row("", "")
    return table


class HelpScreen(EngineScreen):
    """Key bindings of every screen."""

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="help-text"):
            yield Static(help_table())
        yield Footer()
