"""A binary file named .po (a compiled catalogue, as msgfmt writes one) as a job: analyze
and the app say "binary file" in import's words, not "declare its encoding"."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest

from xlsearch.engine.errors import DataError


def _compiled_catalogue(path: Path) -> Path:
    po = polib.POFile()
    po.metadata = {"Content-Type": "text/plain; charset=UTF-8", "Language": "fr"}
    po.append(polib.POEntry(msgctxt="menu", msgid="_Open", msgstr="_Ouvrir"))
    po.append(polib.POEntry(msgid="%1$s of %2$d", msgstr="%1$s sur %2$d"))
    po.save_as_mofile(str(path))  # a .mo renamed .po: the binary file a user picks by mistake
    return path


def test_a_binary_po_is_named_a_binary_file_by_analyze_import_and_the_app(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main
    from xlsearch.service.local import LocalEngine

    job = _compiled_catalogue(tmp_path / "fr.po")
    capsys.readouterr()
    assert main(["analyze", str(job), "--fuzzy-only"]) != 0
    analyze = capsys.readouterr().err.strip()
    assert main(["import", str(job), "--collection", "tm"]) != 0
    imported = capsys.readouterr().err.strip()
    for said in (analyze, imported):
        assert f"{job}:1: looks like a binary file (NUL bytes), not text" in said, said
        assert "declare its encoding" not in said and len(said.splitlines()) == 1
    with pytest.raises(DataError, match="looks like a binary file"):  # the Translate screen
        LocalEngine().open_document(str(job))
