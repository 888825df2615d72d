"""Translate screen: a match inserted for a PO message of two lines is saved on the two
lines its memory translation has (the memory keeps the break as a space)."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest
from helpers.tui import OpenTranslate, settle
from textual.widgets import DataTable

pytestmark = pytest.mark.anyio

HEAD = (
    'msgid ""\nmsgstr ""\n"Project-Id-Version: files 1.3\\n"\n"Language: de\\n"\n'
    '"MIME-Version: 1.0\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
    '"Content-Transfer-Encoding: 8bit\\n"\n\n'
)
ENTRY = (
    '#: src/trash.c:{line}\n#, c-format\nmsgid ""\n'
    '"Are you sure that you want to\\n"\n"permanently delete \\"%s\\"?"\n'
)


async def test_an_inserted_match_keeps_its_line_break(
    tmp_path: Path, tiny_static_model: Path, translate: OpenTranslate
) -> None:
    from xlsearch.engine.store import Store

    memory = tmp_path / "mem.de.po"
    memory.write_text(
        HEAD + ENTRY.format(line=40)
        + 'msgstr ""\n"Sind Sie sicher, dass Sie »%s«\\n"\n"dauerhaft löschen wollen?"\n',
        encoding="utf-8",
    )  # fmt: skip
    job = tmp_path / "job.de.po"
    job.write_text(HEAD + ENTRY.format(line=52) + 'msgstr ""\n', encoding="utf-8")
    with Store() as store:
        store.import_file(memory, "tm")
    async with translate(job, typed=True) as (pilot, screen):
        assert screen.result.matches[0].fuzzy == 100
        screen.query_one("#tr-segments", DataTable).focus()
        await pilot.press("1")  # insert match 1, then save
        await pilot.press("ctrl+s")
        await settle(pilot, 3)
        assert not [n for n in pilot.app._notifications if n.severity == "error"]
    [entry] = [e for e in polib.pofile(str(tmp_path / "job.de.translated.po")) if e.msgid]
    assert entry.msgstr == "Sind Sie sicher, dass Sie »%s«\ndauerhaft löschen wollen?"
