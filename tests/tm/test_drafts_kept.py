"""A draft target the file holds is kept by ``analyze --out`` and said, whatever the format
calls it: a PO entry msgmerge left ``#, fuzzy`` with its old msgstr, memoQ's
``PartiallyEdited``; ``--overwrite`` replaces it."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest
from helpers.memory import write_tmx

from xlsearch.cli import main

MEMORY = [
    ("Save the file %s?", "Die Datei %s speichern?"),
    ("Click Save.", "Klicken Sie auf „Speichern“."),
    ("Quit", "Beenden"),
]

# as msgmerge leaves an entry whose msgid changed: fuzzy, the old msgid, the old msgstr
PO_JOB = """\
# German translation of editor.
# Copyright (C) 2024 The editor team
#
msgid ""
msgstr ""
"Project-Id-Version: editor 1.4\\n"
"Language: de\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

#: src/window.c:210
#, fuzzy, c-format
#| msgid "Save the file %s"
msgid "Save the file %s?"
msgstr "Datei %s speichern"

#: src/window.c:318
msgid "Quit"
msgstr ""
"""

MQ_JOB = """\
<?xml version="1.0" encoding="utf-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:mq="MQXliff">
  <file original="ui.docx" source-language="en-us" target-language="de-de" datatype="x-docx">
    <header><tool tool-id="MQ" tool-name="MemoQ" tool-version="9.14.9"/></header>
    <body>
      <trans-unit id="1" mq:status="NotStarted" mq:segmentguid="6f0e-0001" mq:percent="0">
        <source xml:space="preserve">Quit</source>
        <target xml:space="preserve"></target>
      </trans-unit>
      <trans-unit id="2" mq:status="PartiallyEdited" mq:segmentguid="6f0e-0002" mq:percent="85">
        <source xml:space="preserve">Click Save.</source>
        <target xml:space="preserve">Klicken Sie auf Speichern.</target>
      </trans-unit>
    </body>
  </file>
</xliff>
"""


@pytest.fixture()
def memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["import", str(write_tmx(tmp_path / "tm.tmx", MEMORY)), "-c", "tm", "-q"]) == 0
    capsys.readouterr()
    return "tm"


def _analyze(job: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    argv = ["analyze", str(job), "-c", "tm", "--fuzzy-only", "-q", "--out", str(out), *extra]
    assert main(argv) == 0
    return capsys.readouterr().err


def test_a_po_entry_msgmerge_left_fuzzy_with_a_draft_is_kept_and_said(
    tmp_path: Path, memory: str, capsys: pytest.CaptureFixture[str]
) -> None:
    job = tmp_path / "de.po"
    job.write_text(PO_JOB, encoding="utf-8")
    err = _analyze(job, tmp_path / "out.po", capsys)
    assert "pre-translated 1 of 2 segments" in err
    assert (
        "notice: 1 segment keeps the draft target the file has (not confirmed: a #, fuzzy "
        "entry's msgstr); --overwrite replaces it"
    ) in err
    kept = polib.pofile(str(tmp_path / "out.po")).find("Save the file %s?")
    assert kept is not None and kept.msgstr == "Datei %s speichern"
    err = _analyze(job, tmp_path / "over.po", capsys, "--overwrite")
    assert "pre-translated 2 of 2 segments" in err and "keeps the draft" not in err
    filled = polib.pofile(str(tmp_path / "over.po")).find("Save the file %s?")
    assert filled is not None and filled.msgstr == "Die Datei %s speichern?"


def test_a_memoq_partially_edited_draft_is_kept_and_said(
    tmp_path: Path, memory: str, capsys: pytest.CaptureFixture[str]
) -> None:
    job = tmp_path / "ui.docx.mqxliff"
    job.write_text(MQ_JOB, encoding="utf-8")
    err = _analyze(job, tmp_path / "out.mqxliff", capsys)
    assert "pre-translated 1 of 2 segments" in err
    assert "notice: 1 segment keeps the draft target the file has" in err
    assert "Klicken Sie auf Speichern.<" in (tmp_path / "out.mqxliff").read_text("utf-8")
    err = _analyze(job, tmp_path / "over.mqxliff", capsys, "--overwrite")
    assert "pre-translated 2 of 2 segments" in err and "keeps the draft" not in err
