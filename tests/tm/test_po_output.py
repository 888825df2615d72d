# ruff: noqa: E501  (the fixture holds a catalogue's long unwrapped lines as tools write them)
"""A translator's PO file comes back with only the entries that changed changed."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

# As Poedit/msgmerge --no-wrap and a Launchpad export leave a catalogue: header X-* lines in
# the tool's order, a long msgid on one line, a msgid wrapped at another width, an empty
# "#." line inside an extracted comment, a long reference line, msgctxt, a mnemonic, %N$x,
# a plural entry, an obsolete entry, CRLF-free LF endings.
JOB = """\
# French translation for the viewer.
# Copyright (C) 2024 The Viewer Team
# This file is distributed under the same license as the viewer package.
# Anne Exemple <anne@example.org>, 2024.
#
msgid ""
msgstr ""
"Project-Id-Version: viewer 1.4\\n"
"Report-Msgid-Bugs-To: https://bugs.example.org/\\n"
"POT-Creation-Date: 2024-03-01 10:00+0100\\n"
"PO-Revision-Date: 2024-03-04 18:12+0000\\n"
"Last-Translator: Anne Exemple <anne@example.org>\\n"
"Language-Team: French <traduc@traduc.org>\\n"
"Language: fr\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"X-Poedit-SourceCharset: UTF-8\\n"
"X-Launchpad-Export-Date: 2024-03-04 17:50+0000\\n"
"X-Generator: Poedit 3.4.2\\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\\n"

#. TRANSLATORS: shown in the status bar while the folder is read; keep it short because the bar is narrow
#.
#. The first %s is the folder's name.
#: src/folder-view.c:1204 src/folder-view.c:1377 src/sidebar/places.c:88 src/sidebar/tree.c:412
#, c-format
msgid "Reading the contents of the folder “%s” — this can take a while on network shares and removable drives"
msgstr ""

#: src/window.c:120
msgctxt "menu"
msgid "Open Link in New _Window"
msgstr "Ouvrir le lien dans une nouvelle _fenêtre"

#: src/status.c:44
#, c-format
msgid ""
"Image %2$u of %1$u, "
"zoom %3$d%%"
msgstr ""

#: src/count.c:12
#, c-format
msgid "%d file selected"
msgid_plural "%d files selected"
msgstr[0] "%d fichier sélectionné"
msgstr[1] "%d fichiers sélectionnés"

#~ msgid "Old label"
#~ msgstr "Ancienne étiquette"
"""


def _save(tmp_path: Path, fill: dict[int, str]) -> tuple[Path, Path]:
    from xlsearch.engine.tm.documents import open_document

    job = tmp_path / "fr.po"
    job.write_text(JOB, encoding="utf-8")
    doc = open_document(job)
    for index, text in fill.items():
        doc.set_target(index, text, quality=87.0, origin="fuzzy", match_source="")
    return job, doc.save(tmp_path / "out.po")


def test_nothing_changed_writes_the_file_byte_for_byte(tmp_path: Path) -> None:
    job, out = _save(tmp_path, {})
    assert out.read_bytes() == job.read_bytes()


def test_only_the_filled_entries_differ(tmp_path: Path) -> None:
    job, out = _save(tmp_path, {2: "Image %2$u sur %1$u, zoom %3$d %%"})
    diff = [
        line
        for line in difflib.unified_diff(
            job.read_text(encoding="utf-8").splitlines(),
            out.read_text(encoding="utf-8").splitlines(),
            lineterm="",
            n=0,
        )
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert diff == [
        "+# xlsearch: fuzzy match 87%, needs review",
        "-#, c-format",
        "+#, fuzzy, c-format",
        '-msgstr ""',
        '+msgstr "Image %2$u sur %1$u, zoom %3$d %%"',
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_filled_long_entry_keeps_its_comments_and_msgid_lines(
    tmp_path: Path, newline: str
) -> None:
    from xlsearch.engine.tm.documents import open_document

    job = tmp_path / "fr.po"
    job.write_bytes(JOB.replace("\n", newline).encode("utf-8"))
    doc = open_document(job)
    target = (
        "Lecture du contenu du dossier « %s » — cela peut prendre un moment sur les partages "
        "réseau et les disques amovibles"
    )
    doc.set_target(0, target, quality=91.0, origin="fuzzy")
    text = doc.save(tmp_path / "out.po").read_bytes().decode("utf-8")
    original = JOB.replace("\n", newline)
    for line in original.split(newline)[:30]:  # the header and the entry's own lines
        if not line.startswith(("msgstr", "#,")) and line.strip():
            assert line + newline in text, line
    assert f'msgstr "{target}"{newline}' in text  # the file is not wrapped: neither is it
    assert text.count("#~ msgid") == 1
    reread = open_document(tmp_path / "out.po")
    assert reread.segments[0].target == target
    assert not reread.segments[0].confirmed  # fuzzy: a suggestion to review


def test_a_catalogue_saved_with_a_bom_and_crlf_comes_back_with_both(tmp_path: Path) -> None:
    """Notepad and some Windows editors save a catalogue as UTF-8 with a BOM and CRLF line
    ends: the pre-translated file keeps both, so only the filled entry differs (the BOM was
    dropped: a first line that differed although the header was not touched)."""
    from xlsearch.engine.tm.documents import open_document

    job = tmp_path / "fr.po"
    original = b"\xef\xbb\xbf" + JOB.replace("\n", "\r\n").encode("utf-8")
    job.write_bytes(original)
    doc = open_document(job)
    assert not doc.segments[0].source.startswith("\ufeff")
    assert open_document(job).save(tmp_path / "same.po").read_bytes() == original
    doc.set_target(2, "Image %2$u sur %1$u, zoom %3$d %%", quality=87.0, origin="fuzzy")
    out = doc.save(tmp_path / "out.po").read_bytes()
    assert out.startswith(b"\xef\xbb\xbf# French translation for the viewer.\r\n")
    assert out.count(b"\xef\xbb\xbf") == 1
    before, after = original.split(b"\r\n"), out.split(b"\r\n")
    changed = [line for line in after if line not in before]
    assert changed == [
        b"# xlsearch: fuzzy match 87%, needs review",
        b"#, fuzzy, c-format",
        b'msgstr "Image %2$u sur %1$u, zoom %3$d %%"',
    ]


def test_a_catalogue_without_a_language_header_is_a_job_into_the_language_its_name_says(
    tmp_path: Path,
) -> None:
    """Catalogues whose header has no ``Language`` line: ``import`` reads the msgstrs of
    Launchpad's ``viewer-pt_BR.po`` as pt-BR (it read Breton, from ``BR``), and ``analyze``
    reads a ``pt_BR.po`` job as one into pt-BR (it saw no target language, refused ``--out``
    and offered the memory's other language). The saved file gets the Language line in
    gettext's form."""
    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.analysis.analyze import analyze
    from xlsearch.engine.tm.analysis.pretranslate import pretranslate
    from xlsearch.engine.tm.documents import open_document
    from xlsearch.engine.tm.matching.lookup import Lookup

    head = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    memory = tmp_path / "viewer-pt_BR.po"
    memory.write_text(head + 'msgid "Close the window"\nmsgstr "Fechar a janela"\n', "utf-8")
    job = tmp_path / "pt_BR.po"
    job.write_text(head + 'msgid "Close the window"\nmsgstr ""\n', encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        store.import_file(memory, "mem")
        assert store.languages("mem") == {"en": 1, "pt-BR": 1}
        doc = open_document(job)
        assert doc.tgt == "pt-BR"
        pretranslate(doc, analyze(doc, Lookup(store, None, collection="mem", semantic=False)))
        out = doc.save(tmp_path / "pt_BR.translated.po").read_text(encoding="utf-8")
    assert 'msgstr "Fechar a janela"' in out
    assert '"Language: pt_BR\\n"' in out
