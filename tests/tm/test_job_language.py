"""A job in another language than the memory says so in one line, not "no match" 361 times."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.cat_files import ENTRIES, HEADER

MEMORY = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence"
 adminlang="en" o-tmf="po" creationtool="Poedit" creationtoolversion="3.4"/><body>
<tu><tuv xml:lang="en"><seg>Open Link in New _Window</seg></tuv>
<tuv xml:lang="fr"><seg>Ouvrir le lien dans une nouvelle _fenêtre</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>Display the user manual</seg></tuv>
<tuv xml:lang="fr"><seg>Afficher le manuel de l’utilisateur</seg></tuv></tu>
</body></tmx>
"""
GERMAN = """\
#: src/save.c:40
msgid "Die Datei konnte nicht gespeichert werden, weil der Datenträger voll ist."
msgstr ""

#: src/save.c:52
#, c-format
msgid "Möchten Sie die Änderungen an „%s“ speichern, bevor Sie das Dokument schließen?"
msgstr ""

#: src/net.c:17
msgid "Die Verbindung zum Server wurde unerwartet unterbrochen."
msgstr ""
"""


def _memory(tmp_path: Path) -> None:
    from xlsearch.cli import main

    (tmp_path / "memory.tmx").write_text(MEMORY, encoding="utf-8")
    assert main(["import", str(tmp_path / "memory.tmx"), "--collection", "tm"]) == 0


LEARNING = "notice: learning which words your memory translates how (first use of 'tm', once)…"
"""The one other notice a first analysis gives (the memory's words, for its fragments)."""


def test_a_job_whose_text_is_german_against_an_english_memory_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main

    _memory(tmp_path)
    header = HEADER.format(language='"Language: fr\\n"\n"X-Source-Language: en\\n"\n')
    job = tmp_path / "save.po"
    job.write_text(header + GERMAN, encoding="utf-8")
    capsys.readouterr()
    argv = ["analyze", str(job), "--collection", "tm", "--fuzzy-only"]
    assert main([*argv, "--out", str(tmp_path / "out.po")]) == 0
    err = capsys.readouterr().err
    notices = [line for line in err.splitlines() if line.startswith("notice: ")]
    assert notices[1:] == [LEARNING]  # the memory's words, once, for the fragments
    assert notices[:1] == [
        "notice: save.po: its text reads as de, not en (the file says so): an en memory has "
        "no match for it; pass --src de if that is its language"
    ]
    text = tmp_path / "notes.txt"
    text.write_text(
        "Die Verbindung zum Server wurde unerwartet unterbrochen.\n\n"
        "Bitte versuchen Sie es später noch einmal.\n",
        encoding="utf-8",
    )
    assert main(["analyze", str(text), "--src", "en", "--tgt", "fr", "--collection", "tm",
                 "--fuzzy-only"]) == 0  # fmt: skip
    assert "its text reads as de, not en (--src)" in capsys.readouterr().err


def test_an_english_catalogue_with_short_ui_strings_raises_no_notice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main

    _memory(tmp_path)
    job = tmp_path / "fr.po"
    job.write_text(HEADER.format(language='"Language: fr\\n"\n') + ENTRIES, encoding="utf-8")
    capsys.readouterr()
    assert main(["analyze", str(job), "--collection", "tm", "--fuzzy-only"]) == 0
    err = capsys.readouterr().err
    assert [x for x in err.splitlines() if x.startswith("notice: ")] in ([], [LEARNING])
