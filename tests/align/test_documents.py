"""Document import: text, Markdown, DOCX, HTML → paragraphs of sentences; `xlsearch align`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.documents import tracked_docx

from xlsearch.cli import main
from xlsearch.engine.errors import DataError
from xlsearch.engine.importers.document import read_document, read_paragraphs
from xlsearch.engine.lang.sentences import split_sentences


def make_docx(path: Path) -> Path:
    import docx

    d = docx.Document()
    d.add_heading("Annual report", level=1)
    d.add_paragraph("The cat sleeps. The dog runs in the big house.")
    p = d.add_paragraph("Hello ")
    p.add_run("world").bold = True
    p.add_run("! Good morning.")
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Cell one."
    table.cell(0, 1).text = "Cell two."
    merged = table.cell(1, 0).merge(table.cell(1, 1))
    merged.text = "Merged cell."
    d.add_paragraph("")  # empty paragraphs are dropped
    d.add_paragraph("Last words.")
    d.save(str(path))
    return path


def test_docx_paragraphs_tables_and_runs(tmp_path: Path) -> None:
    path = make_docx(tmp_path / "r.docx")
    assert read_paragraphs(path) == [
        "Annual report",
        "The cat sleeps. The dog runs in the big house.",
        "Hello world! Good morning.",
        "Cell one.",
        "Cell two.",
        "Merged cell.",
        "Last words.",
    ]
    doc = read_document(path, "en")
    assert doc.sentences[1:5] == [
        "The cat sleeps.",
        "The dog runs in the big house.",
        "Hello world!",
        "Good morning.",
    ]
    assert doc.paragraphs[:6] == [0, 1, 1, 2, 2, 3]


def test_broken_docx_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.docx"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DataError, match="bad.docx"):
        read_paragraphs(bad)


def test_html_blocks_without_scripts_and_with_breaks(tmp_path: Path) -> None:
    html = tmp_path / "p.html"
    html.write_text(
        "<!DOCTYPE html><html><head><title>Der Titel</title><style>p{}</style></head><body>"
        "<script>var x = 'no';</script><h1>Überschrift</h1>"
        "<div>Lose Worte <p>Erster Satz. Zweiter&nbsp;Satz.</p></div>"
        "<ul><li>Punkt eins</li><li>Punkt <b>zwei</b></li></ul>"
        "<p>Zeile<br>umgebrochen</p><table><tr><td>Zelle</td></tr></table></body></html>",
        encoding="utf-8",
    )
    assert read_paragraphs(html) == [
        "Der Titel",
        "Überschrift",
        "Lose Worte",
        "Erster Satz. Zweiter\u00a0Satz.",  # &nbsp; stays a no-break space
        "Punkt eins",
        "Punkt zwei",
        "Zeile umgebrochen",
        "Zelle",
    ]
    doc = read_document(html)
    assert doc.lang == "de"
    assert "Erster Satz." in doc.sentences and "Zweiter Satz." in doc.sentences


def test_html_title_repeated_as_the_first_heading_is_one_block(tmp_path: Path) -> None:
    html = tmp_path / "help.html"
    html.write_text(
        "<html><head><title>Help</title></head><body><h1>Help</h1><p>Open the lid.</p></body>"
        "</html>",
        encoding="utf-8",
    )
    assert read_paragraphs(html) == ["Help", "Open the lid."]


def test_markdown_blocks_without_markup_or_code(tmp_path: Path) -> None:
    md = tmp_path / "n.md"
    md.write_text(
        "# Title\n\nSome *emphasis* and `code` here.\nSame paragraph.\n\n"
        "- item one\n- item [two](http://x)\n\n```\nnot prose()\n```\n\n"
        "| a | b |\n|---|---|\n| c | d |\n",
        encoding="utf-8",
    )
    assert read_paragraphs(md) == [
        "Title",
        "Some emphasis and code here. Same paragraph.",
        "item one",
        "item two",
        "a",
        "b",
        "c",
        "d",
    ]


def test_text_and_presplit_paragraphs(tmp_path: Path) -> None:
    txt = tmp_path / "t.txt"
    txt.write_text("One. Two.\nstill two\n\n\nThree.\n", encoding="utf-8")
    doc = read_document(txt, "en")
    assert doc.sentences == ["One.", "Two.", "still two", "Three."]
    assert doc.paragraphs == [0, 0, 0, 1]
    pre = read_document(txt, "en", presplit=True)
    assert pre.sentences == ["One. Two.", "still two", "Three."]
    assert pre.paragraphs == [0, 0, 1]
    with pytest.raises(DataError, match="not a document format"):
        (tmp_path / "x.pdf").write_bytes(b"%PDF-1.4")
        read_document(tmp_path / "x.pdf")


def test_segmentation_repairs() -> None:
    assert split_sentences("M. Dupont est arrivé. Il est parti.", "fr") == [
        "M. Dupont est arrivé.",
        "Il est parti.",
    ]
    assert split_sentences("Wie geht's? Gut.») Ok", "de") == ["Wie geht's?", "Gut.»)", "Ok"]


def test_import_docx_keeps_paragraph_metadata(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from xlsearch.engine.store import Store

    path = make_docx(tmp_path / "r.docx")
    assert main(["import", str(path), "--collection", "docs", "--lang", "en", "-q"]) == 0
    with Store() as store:
        rows = store.conn.execute("SELECT text, meta FROM segments ORDER BY position").fetchall()
    assert rows[1][0] == "The cat sleeps."
    assert json.loads(rows[1][1]) == {"paragraph": 1}
    assert len(rows) == 9


def test_align_cli_outputs_with_a_tiny_real_model(
    tiny_static_model: Path, tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    from xlsearch.engine.align import read_beads
    from xlsearch.engine.store import Store

    en = tmp_path / "en.txt"
    de = tmp_path / "de.txt"
    en.write_text("the cat sleeps .\nthe dog runs .\nhello world !\ngood morning .\n")
    de.write_text("die katze schläft .\nder hund läuft .\nhallo welt !\nguten morgen .\n")
    base = ["align", str(en), str(de), "--presplit", "--model", str(tiny_static_model), "-q"]
    out = tmp_path / "a.tmx"
    beads = tmp_path / "a.beads"
    assert (
        main(
            [
                *base,
                "--src-lang",
                "en",
                "--tgt-lang",
                "de",
                "--out",
                str(out),
                "--beads",
                str(beads),
                "--collection",
                "aligned",
            ]
        )
        == 0
    )
    text = out.read_text(encoding="utf-8")
    assert '<prop type="x-source-document">en.txt</prop>' in text
    assert 'xml:lang="de"' in text and "<seg>die katze schläft .</seg>" in text
    found = read_beads(beads)
    assert sorted(i for b in found for i in b.src) == [0, 1, 2, 3]
    assert sorted(j for b in found for j in b.tgt) == [0, 1, 2, 3]
    with Store() as store:
        langs = {c["name"]: c["languages"] for c in store.collections()}
    assert set(langs["aligned"]) == {"en", "de"}
    tsv = tmp_path / "a.tsv"
    rev = ["align", str(de), str(en), "--presplit", "--model", str(tiny_static_model), "-q"]
    assert main([*rev, "--src-lang", "de", "--tgt-lang", "en", "--out", str(tsv)]) == 0
    first = tsv.read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert len(first) == 2 and first[0].startswith(("the", "hello", "good"))  # English first
    assert main(["align", str(en), str(de), "--presplit", "--lengths"]) == 2  # nowhere to write
    assert "nowhere to put" in capsys.readouterr().err
    assert main(["align", str(tmp_path / "missing.txt"), str(de), "--lengths", "--show", "3"]) == 2


@pytest.mark.parametrize("presplit", [False, True])
def test_align_an_empty_document_or_unknown_output_is_an_error_before_work(
    tmp_path: Path, capsys, monkeypatch, presplit: bool
) -> None:  # type: ignore[no-untyped-def]
    """An empty (or only blank/markup) document, or an output of unknown kind, is a one-line
    error naming the file, before any model loads; nothing is written."""
    import xlsearch.engine.models.encoder as encoder

    def no_model(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(encoder, "load_encoder", no_model)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n", encoding="utf-8")
    de = tmp_path / "de.txt"
    de.write_text("Hallo Welt.\n", encoding="utf-8")
    flags = ["--presplit"] if presplit else []
    out = tmp_path / "a.tsv"
    assert main(["align", str(empty), str(de), *flags, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "empty.txt" in err and "no text" in err
    assert not out.exists()
    assert main(["align", str(de), str(de), *flags, "--out", str(tmp_path / "a.pdf")]) == 2
    assert "a.pdf" in capsys.readouterr().err


def test_two_jobs_with_the_same_file_names_aligned_into_one_collection_both_stay(
    tmp_path: Path,
) -> None:
    """Aligning job2/de.txt + job2/en.txt into the memory replaced job1's alignment (both were
    kept as aligned/de__en.tmx): the first job's units were gone."""
    from xlsearch.engine.store import Store

    for job, (de, en) in {
        "job1": ("Die Katze schläft.", "The cat sleeps."),
        "job2": ("Der Hund läuft.", "The dog runs."),
    }.items():
        (tmp_path / job).mkdir()
        (tmp_path / job / "de.txt").write_text(de + "\n", encoding="utf-8")
        (tmp_path / job / "en.txt").write_text(en + "\n", encoding="utf-8")
        argv = ["align", str(tmp_path / job / "de.txt"), str(tmp_path / job / "en.txt")]
        opts = ["--src-lang", "de", "--tgt-lang", "en", "--lengths", "-q", "--collection", "tm"]
        assert main([*argv, *opts]) == 0
    assert main([*argv, *opts]) == 0  # the same pair again updates its own document
    with Store() as store:
        (tm,) = [c for c in store.collections() if c["name"] == "tm"]
    assert tm["documents"] == 2 and tm["segments"] == 4


def test_an_html_documents_declared_language_is_kept_when_its_text_agrees(
    tmp_path: Path,
) -> None:
    """``<html lang="en-GB">`` was ignored: an aligned memory stored plain ``en``. The declared
    tag wins when identification agrees (or is unsure); a wrong label does not."""
    text = "<p>Check the oil pressure every 250 hours. Replace the filter once a year.</p>"
    page = tmp_path / "manual.html"
    page.write_text(f'<html lang="en-GB"><body>{text}</body></html>', encoding="utf-8")
    assert read_document(page).lang == "en-GB"
    page.write_text(f'<html lang="fr"><body>{text}</body></html>', encoding="utf-8")
    assert read_document(page).lang == "en"  # a template's stale lang attribute
    page.write_text('<html lang="pt-br"><body><p>Rio 2016</p></body></html>', encoding="utf-8")
    assert read_document(page).lang == "pt-BR"  # nothing to identify: the declaration


def test_an_alignment_without_a_single_pair_is_an_error_not_an_empty_memory(
    tmp_path: Path, capsys
) -> None:
    """Every bead a deletion or insertion: align wrote an empty TSV ("wrote 0 units"), then
    failed importing its own internal TMX ("…/aligned/x.tmx: no segments found … --format")."""
    from xlsearch.engine.store import Store

    de, en = tmp_path / "de.txt", tmp_path / "en.txt"
    de.write_text("Kurz.\n", encoding="utf-8")
    en.write_text("This is a very long sentence that translates nothing at all here.\n" * 30)
    out = tmp_path / "pairs.tsv"
    argv = ["align", str(de), str(en), "--lengths", "-q", "--out", str(out), "-c", "tm"]
    assert main([*argv, "--src-lang", "de", "--tgt-lang", "en", "--max-side", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "de.txt" in err and "en.txt" in err and "no sentence pair" in err
    assert "aligned/" not in err and len(err.splitlines()) == 1
    assert not out.exists()
    with Store() as store:
        assert "tm" not in [c["name"] for c in store.collections()]


def test_a_docx_with_tracked_changes_reads_as_word_shows_it(tmp_path: Path) -> None:
    """Inserted text of an unaccepted change was silently dropped from align and import
    ("Prüfen Sie den Öldruck ."); deleted text stays out."""
    path = tracked_docx(tmp_path / "tracked.docx")
    assert read_document(path, "de").sentences == [
        "Prüfen Sie den Öldruck alle 250 Stunden.",
        "Danach das Ventil.",
    ]


def test_markdown_front_matter_is_not_text(tmp_path: Path) -> None:
    """A Jekyll/Hugo page's YAML front matter became a sentence ("title: Wartung layout:
    page …"): an extra bead in every alignment of a docs site."""
    page = tmp_path / "wartung.md"
    page.write_text(
        "---\ntitle: Wartung\nlayout: page\n---\n\n# Wartung\n\nPrüfen Sie den Öldruck.\n\n"
        "---\n\nEnde.\n",
        encoding="utf-8",
    )
    assert read_paragraphs(page) == ["Wartung", "Prüfen Sie den Öldruck.", "Ende."]


def test_import_of_an_html_page_keeps_its_declared_regional_language(tmp_path: Path) -> None:
    """``xlsearch import manual.html`` stored ``<html lang="en-GB">`` text as plain en (align
    keeps en-GB): the same page gave two different memories."""
    from xlsearch.engine.store import Store

    page = tmp_path / "manual.html"
    page.write_text(
        '<html lang="en-GB"><body><p>Check the oil pressure every 250 hours.</p>'
        "<p>Replace the filter once a year.</p></body></html>",
        encoding="utf-8",
    )
    assert main(["import", str(page), "--collection", "docs", "-q"]) == 0
    with Store() as store:
        assert store.languages("docs") == {"en-GB": 2}
