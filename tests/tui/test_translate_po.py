"""Translate screen on a gettext PO catalogue: an entry of two sentences opens whole, the
analysis splits it (the table follows, the cursor on its first sentence), pre-translation
fills both sentences, a confirmed sentence shows ✓, and the save writes one msgstr."""

from __future__ import annotations

import shutil
from pathlib import Path

import polib
import pytest
from helpers.tui import OpenTranslate
from textual.widgets import DataTable

pytestmark = pytest.mark.anyio

CAT = Path(__file__).parents[1] / "fixtures" / "cat"
SESSION = "Your session has expired. Please sign in again."


async def test_a_po_entry_is_split_in_the_table_and_saved_as_one_msgstr(
    tmp_path: Path, tiny_static_model: Path, settle, translate: OpenTranslate
) -> None:
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    job = Path(shutil.copy(CAT / "po_app.de.po", tmp_path / "app.po"))
    set_active_model(str(tiny_static_model))
    with Store() as store:
        store.import_file(CAT / "po_sentences.tmx", "tm")
        build_index(store, load_encoder(str(tiny_static_model)), "tm")
    async with translate(job, typed=True) as (pilot, screen):
        table = screen.query_one("#tr-segments", DataTable)
        assert table.row_count == 17  # split as the analysis splits it, from the start
        screen.goto(1)
        await settle(pilot, 3)
        await pilot.press("ctrl+r")
        await settle(pilot, 3)
        assert table.row_count == 17
        assert screen.doc.segments[screen.current].key == f"auth\x04{SESSION}/1"
        assert str(table.get_row_at(1)[2]) == "Your session has expired."
        assert str(table.get_row_at(2)[2]) == "Please sign in again."
        await pilot.press("ctrl+e")
        await settle(pilot, 3)
        assert str(table.get_row_at(2)[3]) == "Bitte melden Sie sich erneut an."
        assert [str(table.get_row_at(i)[1]) for i in (1, 2)] == ["✎", "✎"]
        screen.query_one("#tr-segments", DataTable).focus()
        await pilot.press("ctrl+g")  # confirm the first sentence only
        await settle(pilot, 3)
        assert str(table.get_row_at(1)[1]) == "✓"
        await pilot.press("ctrl+s")
        await settle(pilot, 3)
    entry = polib.pofile(str(tmp_path / "app.translated.po")).find(SESSION, msgctxt="auth")
    assert entry.msgstr == "Ihre Sitzung ist abgelaufen. Bitte melden Sie sich erneut an."
    assert entry.fuzzy  # one of its two sentences is confirmed: the entry is not yet
    # the second sentence follows the same sentence as in the memory: an in-context 101 %
    assert entry.tcomment == "xlsearch: sentences: confirmed · fuzzy match 101%, needs review"
