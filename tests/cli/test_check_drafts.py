"""``check`` after ``analyze --out``: the fills xlsearch wrote (PO ``#, fuzzy``, awaiting
review) are checked before the translator confirms them, marked as drafts; another tool's
fuzzy entries (msgmerge's) are checked with ``--fuzzy``, as pofilter checks them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xlsearch.cli import main

MEMORY = r"""msgid ""
msgstr ""
"Project-Id-Version: files 1.2\n"
"Language: fr\n"
"Content-Type: text/plain; charset=UTF-8\n"

#: src/trash.c:12
msgid "Remove the 10 oldest files from the trash"
msgstr "Supprimer les 10 fichiers les plus anciens de la corbeille"
"""

# The next version of the catalogue, as msgmerge leaves it: a new entry, and one whose
# msgid changed kept fuzzy with its old translation.
JOB = r"""msgid ""
msgstr ""
"Project-Id-Version: files 1.3\n"
"Language: fr\n"
"Content-Type: text/plain; charset=UTF-8\n"

#: src/trash.c:14
msgid "Remove the 20 oldest files from the trash now"
msgstr ""

#: src/move.c:40
#, fuzzy, c-format
#| msgid "Moving the files to the folder"
msgid "Moving %d files to the folder"
msgstr "Déplacement des fichiers vers le dossier"
"""


def test_the_fills_analyze_wrote_are_checked_before_confirmation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "mem.fr.po").write_text(MEMORY, encoding="utf-8")
    (tmp_path / "job.fr.po").write_text(JOB, encoding="utf-8")
    out = tmp_path / "pre.fr.po"
    assert main(["import", str(tmp_path / "mem.fr.po"), "-c", "mem", "-q"]) == 0
    assert main(["analyze", str(tmp_path / "job.fr.po"), "-c", "mem", "--fuzzy-only",
                 "--out", str(out), "-q"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["check", str(out), "--rules-only"]) == 0
    text = capsys.readouterr().out
    assert "warning numbers: number 20 missing in the target; 10 added" in text
    assert "target (a draft, not confirmed): Supprimer les 10 fichiers" in text
    assert text.splitlines()[-1].startswith(
        "1 unit checked (1 of them drafts not yet confirmed; 1 without a target or fuzzy, "
        "not checked: --fuzzy checks the 1 fuzzy entry): 0 errors, 1 warning"
    )
    # every fuzzy entry, as pofilter checks them: msgmerge's lost its %d
    assert main(["check", str(out), "--rules-only", "--fuzzy", "--json"]) == 1
    got = json.loads(capsys.readouterr().out)
    assert (got["checked"], got["drafts"]) == (2, 2)
    flags = {(f["msgid"], f["kind"], f["draft"]) for f in got["flags"]}
    assert ("Moving %d files to the folder", "placeholders", True) in flags
    assert ("Remove the 20 oldest files from the trash now", "numbers", True) in flags


def test_the_json_output_counts_what_was_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = tmp_path / "job.fr.po"  # one entry without a target, one msgmerge left fuzzy
    job.write_text(JOB, encoding="utf-8")
    assert main(["check", str(job), "--rules-only", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["checked"], got["skipped"], got["drafts_skipped"]) == (0, 2, 1)
    assert main(["check", str(job), "--rules-only", "--fuzzy", "--json"]) == 1
    got = json.loads(capsys.readouterr().out)
    assert (got["checked"], got["drafts"], got["skipped"], got["drafts_skipped"]) == (1, 1, 1, 0)
