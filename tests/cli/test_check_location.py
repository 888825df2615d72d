"""``check``'s text output: one flag's location on one line, a msgid's line breaks escaped as
gettext writes them (thunar's "Are you sure that you want to permanently\\ndelete…" split
the location over two lines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlsearch.cli import main

CATALOGUE = """\
msgid ""
msgstr ""
"Language: de\\n"
"Content-Type: text/plain; charset=UTF-8\\n"

#: thunar/thunar-dialogs.c:1020
#, c-format
msgid ""
"Are you sure that you want to\\n"
"delete %d files?"
msgstr ""
"Sollen wirklich\\n"
"die Dateien gelöscht werden?"
"""


def test_a_msgid_with_a_line_break_is_one_location_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    po = tmp_path / "de.po"
    po.write_text(CATALOGUE, encoding="utf-8")
    assert main(["check", str(po), "--rules-only"]) == 1
    lines = capsys.readouterr().out.splitlines()
    [flag] = [line for line in lines if "error placeholders" in line]
    assert flag.startswith(f"{po}:")
    assert "[Are you sure that you want to\\ndelete %d files?]" in flag
