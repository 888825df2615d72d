"""check's summary says how to see the flags its --severity hides (the notes: a missing
accelerator is one), instead of counting them without a word."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlsearch.cli import main

PO = (
    'msgid ""\nmsgstr ""\n"Language: it\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    'msgid "_Save"\nmsgstr "Salva"\n\n'
    'msgid "Open With Other _Application…"\nmsgstr "Apri con un\'altra applicazione…"\n'
)


def test_the_summary_names_the_option_that_shows_the_notes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    po = tmp_path / "acc.it.po"
    po.write_text(PO, encoding="utf-8")
    assert main(["check", str(po), "--rules-only"]) == 0
    out = capsys.readouterr().out
    assert "Missing accelerator" not in out
    assert "2 notes (not shown: --severity info lists them)" in out, out
    assert main(["check", str(po), "--rules-only", "--severity", "info"]) == 0
    out = capsys.readouterr().out
    assert out.count("Missing accelerator") == 2 and "not shown" not in out, out
