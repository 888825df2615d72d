"""A job is read as ``import`` reads the same file: one message per fault on every read
path (analyze, the app's Translate screen, import), and ``--encoding`` wherever a file is
read. Catalogues written as Poedit / msgmerge write them (header comments, msgctxt,
mnemonics, ``%N$x``); the faults are the ones real files have: a header declaring
ISO-8859-1 over a UTF-8 file (its translator's name in the comments), a Latin-1 file
declaring UTF-8, NUL bytes deep inside."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlsearch.engine.errors import DataError

HEADER = """# French translation of Mousepad.
# Copyright (C) 2024 The Xfce development team.
# This file is distributed under the same license as the mousepad package.
# Gaël Bonithon <gael@xfce.org>, 2024.
#
msgid ""
msgstr ""
"Project-Id-Version: mousepad\\n"
"Report-Msgid-Bugs-To: https://gitlab.xfce.org/apps/mousepad/\\n"
"PO-Revision-Date: 2024-03-02 11:20+0100\\n"
"Last-Translator: Gael Bonithon <gael@xfce.org>\\n"
"Language-Team: French <xfce-i18n@xfce.org>\\n"
"Language: fr\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset={charset}\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\\n"
"""
ENTRIES = """
#: mousepad/mousepad-window.c:812
msgid "Save _As"
msgstr ""

#: mousepad/mousepad-window.c:830
msgctxt "menu"
msgid "_Quit"
msgstr ""

#: mousepad/mousepad-prefs.c:91
#, c-format
msgid "Unable to create new folder \\"%1$s\\": %2$u"
msgstr ""
"""


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    from xlsearch.cli import main

    capsys.readouterr()
    code = main(list(args))
    return code, capsys.readouterr().err.strip()


def _message(said: str) -> str:
    """The message without the CLI's prefix and the file's spelling (relative/absolute)."""
    return said.split(".po:", 1)[1]


@pytest.fixture()
def memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tsv = tmp_path / "mem.tsv"
    tsv.write_text("Save _As\tEnregistrer _sous\n_Quit\t_Quitter\n", encoding="utf-8")
    assert _cli(capsys, "import", str(tsv), "-c", "mem", "--lang", "en,fr")[0] == 0


def test_a_header_declaring_latin1_over_utf8_comments_is_refused_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], memory: None
) -> None:
    """Only the header comments hold non-ASCII: analyze used to take the job and write
    ``GaÃ«l Bonithon`` into the translator's header; now it is refused as import refuses it,
    naming the line and ``--encoding utf-8``, and with ``--encoding utf-8`` the comments come
    back byte for byte."""
    from xlsearch.service.local import LocalEngine

    job = tmp_path / "mousepad.fr.po"
    job.write_bytes((HEADER.format(charset="ISO-8859-1") + ENTRIES).encode("utf-8"))
    code, analyze = _cli(
        capsys, "analyze", str(job), "--fuzzy-only", "--out", str(tmp_path / "o.po")
    )
    assert code == 2 and len(analyze.splitlines()) == 1, analyze
    assert ":4: read as iso8859-1, the text comes out garbled" in analyze
    assert "GaÃ«l" in analyze and "Gaël" in analyze and "--encoding utf-8" in analyze
    code, imported = _cli(capsys, "import", str(job), "-c", "jobs")
    assert code == 2 and _message(imported) == _message(analyze), (imported, analyze)
    with pytest.raises(DataError, match="--encoding utf-8"):  # the Translate screen
        LocalEngine().open_document(str(job))
    out = tmp_path / "mousepad.fr.pre.po"
    code, _said = _cli(
        capsys, "analyze", str(job), "--fuzzy-only", "--encoding", "utf-8", "--out", str(out)
    )
    assert code == 0
    written = out.read_bytes().decode("utf-8")
    assert written.startswith(HEADER.splitlines()[0]) and "# Gaël Bonithon <gael" in written
    assert "Ã" not in written and 'msgstr "Enregistrer _sous"' in written


def test_a_latin1_po_declaring_utf8_gets_import_s_message_and_encoding_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], memory: None
) -> None:
    job = tmp_path / "mousepad.fr.po"
    text = HEADER.format(charset="UTF-8").replace("Gaël", "Gael") + ENTRIES
    text += '\n#: mousepad/mousepad-dialogs.c:40\nmsgid "Delete Event"\n'
    text += 'msgstr "Supprimer l\'évènement"\n'
    job.write_bytes(text.encode("latin-1"))
    code, analyze = _cli(capsys, "analyze", str(job), "--fuzzy-only")
    assert code == 2 and "declare its encoding" not in analyze, analyze
    assert ": not valid utf-8 (byte 0xe9)" in analyze and "--encoding cp1252" in analyze
    code, imported = _cli(capsys, "import", str(job), "-c", "jobs")
    assert code == 2 and _message(imported) == _message(analyze), (imported, analyze)
    code, said = _cli(capsys, "analyze", str(job), "--fuzzy-only", "--encoding", "cp1252")
    assert code == 0, said


@pytest.mark.parametrize("name", ["mousepad.fr.po", "notes.txt"])
def test_nul_bytes_deep_in_a_job_are_refused_as_binary_by_analyze_and_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """Two NUL bytes inside a msgid past the first 4 KB: analyze took the job and wrote the
    NULs back, import stored them; both now refuse it as binary at its line."""
    job = tmp_path / name
    if name.endswith(".po"):
        entries = "".join(
            f'\n#: src/file.c:{i}\nmsgid "Entry {i} of the catalogue"\nmsgstr ""\n'
            for i in range(120)
        )
        text = HEADER.format(charset="UTF-8") + ENTRIES + entries
        text += '\n#: src/z.c:1\nmsgid "Close\x00 window\x00"\nmsgstr ""\n'
        lang: list[str] = []
    else:
        text = "".join(f"Line {i} of the notes, which say nothing.\n" for i in range(150))
        text += "Close\x00 the window\x00 now.\n"
        lang = ["--lang", "en"]
    job.write_text(text, encoding="utf-8")
    line = text[: text.index("\x00")].count("\n") + 1
    assert len(text[: text.index("\x00")].encode()) > 4096
    code, analyze = _cli(capsys, "analyze", str(job), "--fuzzy-only", "--src", "en")
    assert code == 2, analyze
    assert f"{job}:{line}: looks like a binary file (NUL bytes), not text" in analyze
    code, imported = _cli(capsys, "import", str(job), "-c", "jobs", *lang)
    assert code == 2 and f":{line}: looks like a binary file (NUL bytes), not text" in imported


def test_analyze_does_not_write_over_the_job(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], memory: None
) -> None:
    job = tmp_path / "mousepad.fr.po"
    job.write_text(HEADER.format(charset="UTF-8") + ENTRIES, encoding="utf-8")
    before = job.read_bytes()
    code, said = _cli(capsys, "analyze", str(job), "--fuzzy-only", "--out", str(job))
    assert code == 2 and "is the job itself" in said and "--out mousepad.fr.pre.po" in said
    assert job.read_bytes() == before


def test_a_job_without_a_target_language_is_told_one_of_the_memory_s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], memory: None
) -> None:
    job = tmp_path / "help.txt"
    job.write_text("Save the file before you quit the editor.\n", encoding="utf-8")
    code, said = _cli(capsys, "analyze", str(job), "--src", "en", "--out", str(tmp_path / "x.txt"))
    assert code == 2 and "(e.g. --tgt fr" in said and "--tgt en" not in said, said
    # a corpus in another language beside the memory: the example is the chosen memory's
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("Good morning\tصباح الخير\n", encoding="utf-8")
    assert _cli(capsys, "import", str(corpus), "-c", "corpus", "--lang", "en,ar")[0] == 0
    out = str(tmp_path / "x.txt")
    code, said = _cli(capsys, "analyze", str(job), "--src", "en", "-c", "mem", "--out", out)
    assert code == 2 and "(e.g. --tgt fr; your memory has fr)" in said, said
