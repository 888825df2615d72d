"""The Search screen (its table and its preview) names a hit's document by enough of its path
to tell apart files of the same name (every module of a project has its own de.po)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static

pytestmark = pytest.mark.anyio

PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Language: de\\n"

#: src/main.c:12
msgid "{en}"
msgstr "{de}"
"""


async def test_two_de_po_files_are_told_apart(seeded_model: Path, tmp_path: Path, app, settle):
    for module, en, de in (
        ("panel", "The train to Berlin leaves at nine.", "Der Zug nach Berlin fährt um neun ab."),
        ("session", "The train was late because of the storm.", "Der Zug hatte Verspätung."),
    ):
        (tmp_path / module).mkdir()
        (tmp_path / module / "de.po").write_text(PO.format(en=en, de=de), encoding="utf-8")
        app.engine.import_files([str(tmp_path / module / "de.po")], "ui")
    app.engine.build_index("ui")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot, 2)
        app.screen.query_one("#query", Input).value = "train"
        app.screen.query_one("#query", Input).focus()
        await pilot.press("enter")
        await settle(pilot, 3)
        table = app.screen.query_one("#results", DataTable)
        docs = {str(table.get_row_at(i)[5]) for i in range(table.row_count)}
        assert {"panel/de.po", "…ssion/de.po"} <= docs, docs
        row = next(
            i for i in range(table.row_count) if str(table.get_row_at(i)[5]) == "panel/de.po"
        )
        table.focus()
        table.move_cursor(row=row)
        await settle(pilot, 3)
        preview = app.screen.query_one("#preview", Static).content.plain
        assert preview.startswith("panel/de.po · en"), preview  # not only "de.po"


def test_a_wide_terminal_shows_a_module_s_path_whole() -> None:
    """At 155 columns the document column cut ``xfce4-terminal/fr.po ×2`` to 12 columns
    (``…minal/fr.po``) while the text columns had room; narrow terminals keep 12."""
    from xlsearch.tui.screens.search import document_width, left_clipped

    label = "xfce4-terminal/fr.po"
    width = document_width(155)
    assert left_clipped(label, width - len(" ×2")) == label
    assert document_width(80) == document_width(120) == 12  # the snapshots' sizes
    assert document_width(400) == 30
