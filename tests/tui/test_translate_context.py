"""Translate screen: a segment whose source the memory translates several ways shows the
one its context chose first, and says why (the context and the other translations)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.tui import OpenTranslate
from textual.widgets import DataTable

pytestmark = pytest.mark.anyio

HEAD = 'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"X-Source-Language: en\\n"\n\n'
BUTTONS = "Select by Pattern dialog: buttons"


async def test_the_match_in_the_segments_context_comes_first_and_says_so(
    tmp_path: Path, settle, translate: OpenTranslate
) -> None:
    from xlsearch.engine.store import Store

    mem = tmp_path / "mem.po"
    mem.write_text(
        HEAD + 'msgid "_Cancel"\nmsgstr "_Annuler"\n\n'
        f'msgctxt "{BUTTONS}"\nmsgid "_Cancel"\nmsgstr "Ann_uler"\n\n',
        "utf-8",
    )
    job = tmp_path / "job.po"
    job.write_text(HEAD + f'msgctxt "{BUTTONS}"\nmsgid "_Cancel"\nmsgstr ""\n', "utf-8")
    with Store() as store:
        store.import_file(mem, "tm")
    async with translate(job) as (pilot, screen):
        await settle(pilot, 3)
        table = screen.query_one("#tr-matches", DataTable)
        assert "Ann_uler" in str(table.get_row_at(0)[3])
        detail = str(screen.query_one("#tr-detail").render())
        assert f"context match: {BUTTONS!r}" in detail
        assert "other 100 % translations in the memory: 1 ('_Annuler' ×1" in detail
        assert "chosen by context" in detail


async def test_copies_of_a_match_show_their_contexts(
    tmp_path: Path, settle, translate: OpenTranslate
) -> None:
    """One translation stored with and without the context: listed once, with both."""
    from xlsearch.engine.store import Store

    mem = tmp_path / "mem.po"
    mem.write_text(HEAD + f'msgctxt "{BUTTONS}"\nmsgid "_Cancel"\nmsgstr "Ann_uler"\n\n', "utf-8")
    other = tmp_path / "other.po"
    other.write_text(HEAD + 'msgid "_Cancel"\nmsgstr "Ann_uler"\n\n', "utf-8")
    job = tmp_path / "job.po"
    job.write_text(HEAD + f'msgctxt "{BUTTONS}"\nmsgid "_Cancel"\nmsgstr ""\n', "utf-8")
    with Store() as store:
        store.import_file(mem, "tm")
        store.import_file(other, "tm")
    async with translate(job) as (pilot, screen):
        await settle(pilot, 3)
        detail = str(screen.query_one("#tr-detail").render())
        assert "101%" in detail and f"context: {BUTTONS!r} ×1, (none) ×1" in detail
