"""Translate screen: a job in another language than the memory is said in one line when it
opens (as ``xlsearch analyze`` says it), not left to show "no match" on every segment."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.tui import OpenTranslate

pytestmark = pytest.mark.anyio

CAT = Path(__file__).parents[1] / "fixtures" / "cat"

PO_HEADER = """# French translation for Tasklist.
# Camille Martin <camille@example.org>, 2024.
#
msgid ""
msgstr ""
"Project-Id-Version: tasklist 2.1\\n"
"Language-Team: French <https://hosted.weblate.org/projects/tasklist/app/fr/>\\n"
"Language: {lang}\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Plural-Forms: nplurals=2; plural=n > 1;\\n"
"X-Generator: Poedit 3.4\\n"
"""


def write_po(path: Path, lang: str, msgids: list[str]) -> Path:
    entries = "".join(
        f'\n#: tasklist/views.py:{10 + i}\nmsgid "{m}"\nmsgstr ""\n' for i, m in enumerate(msgids)
    )
    path.write_text(PO_HEADER.format(lang=lang) + entries, encoding="utf-8")
    return path


async def test_a_job_in_another_language_than_the_memory_is_said_on_opening(
    tmp_path: Path, tiny_static_model: Path, settle, translate: OpenTranslate
) -> None:
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    set_active_model(str(tiny_static_model))
    with Store() as store:  # an en→de memory
        store.import_file(CAT / "po_sentences.tmx", "tm")
        build_index(store, load_encoder(str(tiny_static_model)), "tm")
    french_job = write_po(tmp_path / "fr.po", "fr", ["Settings", "Sign in again", "_Quit"])
    german_text = tmp_path / "brief.txt"  # "en" typed as its source language
    german_text.write_text(
        "Ihre Sitzung ist abgelaufen. Bitte melden Sie sich erneut an.\n\n"
        "Die Datei konnte nicht gespeichert werden, weil der Ordner schreibgeschützt ist.\n",
        encoding="utf-8",
    )
    async with translate(german_text, src="en") as (pilot, screen):
        said = [n.message for n in pilot.app._notifications if n.title == "Job language"]
        assert len(said) == 1 and "brief.txt: its text reads as de, not en" in said[0], said
        # no target language in a text file: the example is one of the memory's, not its own
        ask = [n.message for n in pilot.app._notifications if n.title == "No target language"]
        assert len(ask) == 1 and "(e.g. de)" in ask[0], ask
        pilot.app.clear_notifications()
        screen.open_document(str(french_job))
        await settle(pilot, 3)
        said = [n.message for n in pilot.app._notifications if n.title == "Job language"]
        assert len(said) == 1, said
        assert "fr.po" in said[0] and "no segment in language 'fr'" in said[0], said
        assert "the job's target language" in said[0] and "de, en" in said[0], said
        assert "no segment can match" in str(screen.query_one("#tr-status").render())


def test_the_target_example_comes_from_the_chosen_collection() -> None:
    """A job without a target language: the example is the chosen memory's other language
    (``fr`` for fr-mem), not the first of every collection's (``ar`` from a corpus)."""
    from types import SimpleNamespace

    from xlsearch.service.api import CollectionInfo
    from xlsearch.tui.screens.translate import target_example

    engine = SimpleNamespace(
        languages=lambda: ["ar", "en", "fr"],
        collections=lambda: [
            CollectionInfo("corpus", languages=["ar", "en"]),
            CollectionInfo("fr-mem", languages=["en", "fr"]),
        ],
    )
    job = SimpleNamespace(src="en", tgt="")
    assert target_example(engine, job, "fr-mem") == "fr"
    assert target_example(engine, job) == "ar"  # all collections: any of their languages
