"""A pre-translated Word file says which sentences xlsearch filled: a comment per paragraph."""

from __future__ import annotations

from pathlib import Path

import pytest

MEMORY = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="memoQ" creationtoolversion="10.4" datatype="plaintext"
 segtype="sentence" adminlang="en-us" srclang="en-us" o-tmf="memoQ"/><body>
<tu><tuv xml:lang="en-us"><seg>Press the power button for ten seconds.</seg></tuv>
<tuv xml:lang="fr-fr">
<seg>Appuyez sur le bouton d’alimentation pendant dix secondes.</seg></tuv></tu>
<tu><tuv xml:lang="en-us"><seg>Remove the paper tray before you move the printer.</seg></tuv>
<tuv xml:lang="fr-fr"><seg>Retirez le bac à papier avant de déplacer l’imprimante.</seg></tuv></tu>
</body></tmx>
"""


def _job(tmp_path: Path) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Resetting the printer", level=1)
    para = document.add_paragraph("The light blinks orange. ")
    para.add_run("Press the power button for ten seconds.").bold = True
    document.add_paragraph("Remove the paper tray before you move the printer.")
    path = tmp_path / "guide.docx"
    document.save(str(path))
    return path


def test_filled_sentences_are_marked_by_word_comments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import docx

    from xlsearch.cli import main

    (tmp_path / "tm.tmx").write_text(MEMORY, encoding="utf-8")
    assert main(["import", str(tmp_path / "tm.tmx"), "--collection", "tm"]) == 0
    out = tmp_path / "guide.fr.docx"
    argv = ["analyze", str(_job(tmp_path)), "-c", "tm", "--fuzzy-only", "--src", "en",
            "--tgt", "fr", "-q", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "2 pre-translated sentences are marked by Word comments" in err
    assert "carry no review mark" not in err
    comments = list(docx.Document(str(out)).comments)
    assert [c.author for c in comments] == ["xlsearch", "xlsearch"]
    assert [c.text for c in comments] == [
        "xlsearch: 1 of 2 sentences pre-translated · sentence 2: fuzzy match 100% · needs review",
        "xlsearch: fuzzy match 100%, needs review",
    ]


def test_saving_again_rewrites_a_paragraphs_comment_instead_of_adding_one(
    tmp_path: Path,
) -> None:
    import docx

    from xlsearch.engine.tm.documents import open_document

    doc = open_document(_job(tmp_path), "en", "fr")
    last = len(doc.segments) - 1
    doc.set_target(last, "Retirez le bac à papier.", quality=80.0, origin="fuzzy")
    doc.save(tmp_path / "a.docx")
    doc.confirm(last)
    doc.save(tmp_path / "b.docx")
    assert [c.text for c in docx.Document(str(tmp_path / "a.docx")).comments] == [
        "xlsearch: fuzzy match 80%, needs review"
    ]
    assert [c.text for c in docx.Document(str(tmp_path / "b.docx")).comments] == [
        "xlsearch: confirmed"
    ]
