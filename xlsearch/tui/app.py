"""The xlsearch Textual application (placeholder shell until the TUI issue lands)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Input


class XLSearchApp(App[None]):
    """Cross-lingual search in the terminal."""

    TITLE = "xlsearch"

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.initial_query = query

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(value=self.initial_query, placeholder="Search in any language…", id="query")
        yield Footer()


def make_app(query: str = "") -> XLSearchApp:
    """Build the app (tests reuse this factory)."""
    return XLSearchApp(query=query)


def run_app(query: str = "") -> None:
    """Run the app in the terminal."""
    make_app(query=query).run()
