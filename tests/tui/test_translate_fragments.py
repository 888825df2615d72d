"""Translate screen: a segment without a good match lists the fragments the memory
translates after the matches; choosing one inserts it at the cursor, nothing more."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.tui import OpenTranslate
from textual.widgets import DataTable, TextArea

pytestmark = pytest.mark.anyio

HEAD = 'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"X-Source-Language: en\\n"\n\n'
MEMORY = [
    ("Open Location", "Ouvrir un emplacement"),
    ("Open _Location…", "Ouvrir un _emplacement…"),
    ("Open the file", "Ouvrir le fichier"),
    ("Location", "Emplacement"),
    ("Delete the file", "Supprimer le fichier"),
    ("Rename the file", "Renommer le fichier"),
    ("Copy the file", "Copier le fichier"),
]


async def test_fragments_are_listed_and_inserted_at_the_cursor(
    tmp_path: Path, settle, translate: OpenTranslate, monkeypatch: pytest.MonkeyPatch
) -> None:
    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.matching import fragments

    monkeypatch.setattr(fragments, "default_aligner", lambda: "cooc")  # eflomal samples

    mem = tmp_path / "mem.po"
    mem.write_text(HEAD + "".join(f'msgid "{s}"\nmsgstr "{t}"\n\n' for s, t in MEMORY), "utf-8")
    job = tmp_path / "job.po"
    job.write_text(HEAD + 'msgid "Failed to open location of the file"\nmsgstr ""\n', "utf-8")
    with Store() as store:
        store.import_file(mem, "tm")
    async with translate(job) as (pilot, screen):
        await settle(pilot, 3)
        table = screen.query_one("#tr-matches", DataTable)
        rows = [str(table.get_row_at(i)[3]) for i in range(table.row_count)]
        assert "open location → Ouvrir un emplacement" in rows
        assert "file → fichier" in rows
        screen._show_detail(rows.index("file → fichier"))  # the evidence, as lookup says it
        detail = str(screen.query_one("#tr-detail").render())
        assert "4 of 4 memory units translate it so · enter or" in detail
        editor = screen.query_one("#tr-target", TextArea)
        editor.text = "Impossible d’ouvrir "
        editor.move_cursor((0, len(editor.text)))
        screen.action_insert_match(rows.index("open location → Ouvrir un emplacement"))
        await settle(pilot, 1)
        assert editor.text == "Impossible d’ouvrir Ouvrir un emplacement"
        assert screen.doc.segments[0].target == ""  # nothing written until the translator says


async def test_learning_the_memory_s_words_shows_a_status_and_never_blocks(
    tmp_path: Path, settle, translate: OpenTranslate, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first lookup that needs the memory's fragments learns them (seconds on a real
    memory): the status says so while the screen goes on answering, then it is put back."""
    import asyncio
    import threading

    from textual.widgets import Label

    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.matching import fragments

    learn = fragments.FragmentIndex.learn.__func__  # type: ignore[attr-defined]
    started, release = threading.Event(), threading.Event()

    def slow_learn(cls: type, *args: object, **kwargs: object) -> fragments.FragmentIndex:
        started.set()  # the notice was posted just before: the status is on its way
        assert release.wait(20), "the test never let the learning finish"
        return learn(cls, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(fragments.FragmentIndex, "learn", classmethod(slow_learn))
    mem = tmp_path / "mem.po"
    mem.write_text(HEAD + "".join(f'msgid "{s}"\nmsgstr "{t}"\n\n' for s, t in MEMORY), "utf-8")
    job = tmp_path / "job.po"
    job.write_text(HEAD + 'msgid "Failed to open location of the file"\nmsgstr ""\n', "utf-8")
    with Store() as store:
        store.import_file(mem, "tm")
    async with translate() as (pilot, screen):
        screen.open_document(str(job))
        status = screen.query_one("#tr-status", Label)
        # the event loop runs on while this waits (in a thread) for the worker to learn
        if not await asyncio.to_thread(started.wait, 20):
            raise AssertionError(f"the lookup never learnt the memory: {status.render()}")
        for _ in range(50):  # its notice, posted before learning began: a few turns away
            await pilot.pause()
            if "learning which words your memory translates how" in str(status.render()):
                break
        else:
            release.set()
            raise AssertionError(f"no learning status: {status.render()}")
        assert "(first use of the memory, once)" in str(status.render())  # all collections
        editor = screen.query_one("#tr-target", TextArea)
        editor.focus()
        await pilot.press("x")  # the screen answers keys meanwhile
        assert editor.text == "x"
        release.set()
        await settle(pilot, 3)
        assert "learning" not in str(status.render())
        assert "job.po" in str(status.render())  # the summary is back
        table = screen.query_one("#tr-matches", DataTable)
        rows = [str(table.get_row_at(i)[3]) for i in range(table.row_count)]
        assert "file → fichier" in rows
