"""An HTML page can be analysed and pre-translated, its markup kept."""

from __future__ import annotations

from pathlib import Path

import pytest

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="windows-1252">
  <title>Resetting the printer</title>
  <script>var help = "Press the power button for ten seconds.";</script>
</head>
<body>
  <!-- exported from the help CMS -->
  <h1 class="title">Resetting the printer</h1>
  <p>Press the power button for ten seconds. The light blinks orange.</p>
  <p>Run <code>printer-reset --all</code> to restore the factory settings.</p>
  <ul>
    <li>Open the <a href="/settings">Settings</a> page.</li>
    <li>Remove the paper tray before you move the printer.</li>
  </ul>
</body>
</html>
"""
MEMORY = """en\tfr
Resetting the printer\tRéinitialiser l’imprimante
Press the power button for ten seconds.\tAppuyez sur le bouton d’alimentation pendant dix secondes.
Run printer-reset --all to restore the factory settings.\tExécutez printer-reset --all pour rétablir les réglages d’usine.
Open the Settings page.\tOuvrez la page Paramètres.
Remove the paper tray before you move the printer.\tRetirez le bac à papier avant de déplacer l’imprimante.
"""  # noqa: E501


def test_an_html_page_is_analysed_and_pre_translated_in_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bs4 import BeautifulSoup

    from xlsearch.cli import main

    (tmp_path / "tm.tsv").write_text(MEMORY, encoding="utf-8")
    assert main(["import", str(tmp_path / "tm.tsv"), "--collection", "tm"]) == 0
    page = tmp_path / "reset.html"
    page.write_bytes(PAGE.encode("cp1252"))
    out = tmp_path / "reset.fr.html"
    capsys.readouterr()
    argv = ["analyze", str(page), "-c", "tm", "--fuzzy-only", "--tgt", "fr", "--json"]
    assert main([*argv, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    # what is in the file: the Settings paragraph matched but stays in English (its link)
    assert "pre-translated 5 of 7 segments" in captured.err
    assert "(1 more matched, in paragraphs left as they were: see below)" in captured.err
    assert "1 translated paragraphs stay in the source language" in captured.err
    text = out.read_text(encoding="utf-8")
    soup = BeautifulSoup(text, "html.parser")
    assert soup.html["lang"] == "fr" and soup.meta["charset"] == "utf-8"
    assert soup.title.string == "Réinitialiser l’imprimante"
    assert soup.h1.get_text() == "Réinitialiser l’imprimante" and soup.h1["class"] == ["title"]
    first = soup.find_all("p")[0].get_text()
    assert first.startswith("Appuyez sur le bouton d’alimentation pendant dix secondes.")
    assert first.endswith("The light blinks orange.")  # no match: stays as it was
    code = soup.find_all("p")[1]
    assert code.code.get_text() == "printer-reset --all"  # the markup kept around its words
    assert code.get_text() == "Exécutez printer-reset --all pour rétablir les réglages d’usine."
    items = [li.get_text() for li in soup.find_all("li")]
    assert items[0] == "Open the Settings page." and soup.a["href"] == "/settings"
    assert items[1] == "Retirez le bac à papier avant de déplacer l’imprimante."
    assert 'var help = "Press the power button for ten seconds.";' in text
    assert "<!-- exported from the help CMS -->" in text and text.startswith("<!DOCTYPE html>")


def test_an_html_job_can_be_written_as_xliff_for_a_cat_tool(tmp_path: Path) -> None:
    from xlsearch.engine.tm.documents import open_document

    page = tmp_path / "reset.html"
    page.write_text(PAGE.replace("windows-1252", "utf-8"), encoding="utf-8")
    doc = open_document(page, tgt="fr")
    assert (doc.fmt, doc.src) == ("html", "en")
    assert [s.source for s in doc.segments][:3] == [
        "Resetting the printer",
        "Resetting the printer",
        "Press the power button for ten seconds.",
    ]
    out = doc.save(tmp_path / "reset.xlf")
    assert b"<source>Open the Settings page.</source>" in out.read_bytes()


def test_bold_around_a_whole_sentence_goes_around_its_translation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A paragraph of two sentences, the second in ``<b>``, both matched: the page used to
    stay all English while the count said "pre-translated 2"; the translation now holds the
    bold sentence's translation in bold, and the count is what the file holds."""
    from bs4 import BeautifulSoup

    from xlsearch.cli import main

    (tmp_path / "tm.tsv").write_text(MEMORY, encoding="utf-8")
    assert main(["import", str(tmp_path / "tm.tsv"), "--collection", "tm"]) == 0
    page = tmp_path / "move.html"
    page.write_text(
        '<html lang="en"><body><p>Press the power button for ten seconds. '
        "<b>Remove the paper tray before you move the printer.</b></p></body></html>",
        encoding="utf-8",
    )
    out = tmp_path / "move.fr.html"
    capsys.readouterr()
    argv = ["analyze", str(page), "-c", "tm", "--fuzzy-only", "--tgt", "fr", "--out", str(out)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "pre-translated 2 of 2 segments" in err and "stay in the source" not in err, err
    p = BeautifulSoup(out.read_text("utf-8"), "html.parser").p
    assert p.get_text().startswith("Appuyez sur le bouton d’alimentation")
    assert p.b.get_text() == "Retirez le bac à papier avant de déplacer l’imprimante."
