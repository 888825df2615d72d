"""Documents to translate: read XLIFF 1.2/2.0, PO, text and DOCX the way CAT tools and
editors write them, set targets, save back in the same format (marked for review)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from xlsearch.engine.errors import DataError
from xlsearch.engine.tm.documents import open_document

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"

NS12 = {"x": "urn:oasis:names:tc:xliff:document:1.2"}
NS20 = {"x": "urn:oasis:names:tc:xliff:document:2.0", "mtc": "urn:oasis:names:tc:xliff:matches:2.0"}

XLIFF12 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="manual.html" source-language="en-US" target-language="de-DE" datatype="html">
    <header><tool tool-id="t" tool-name="Okapi-like"/></header>
    <body>
      <group id="g1">
        <trans-unit id="1" resname="title">
          <source>Press <g id="1">Save</g> to keep <x id="2"/>5 files.</source>
          <target state="new"></target>
          <note>UI string</note>
        </trans-unit>
      </group>
      <trans-unit id="2" translate="no"><source>ACME</source></trans-unit>
      <trans-unit id="3">
        <source>Already done.</source>
        <target state="translated">Schon erledigt.</target>
      </trans-unit>
      <trans-unit id="4">
        <source>First sentence. Second one.</source>
        <seg-source><mrk mtype="seg" mid="0">First sentence.</mrk> <mrk mtype="seg"
          mid="1">Second one.</mrk></seg-source>
        <target><mrk mtype="seg" mid="0">Erster Satz.</mrk> <mrk mtype="seg" mid="1"></mrk></target>
      </trans-unit>
    </body>
  </file>
</xliff>
"""

XLIFF20 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">
  <file id="f1">
    <unit id="u1">
      <notes><note>checkout page</note></notes>
      <segment id="s1" state="initial">
        <source>Pay <pc id="1">now</pc> with <ph id="2"/>.</source>
      </segment>
      <ignorable><source> </source></ignorable>
      <segment id="s2"><source>Thank you.</source><target>Merci.</target></segment>
    </unit>
  </file>
</xliff>
"""

PO = """# Translator comment kept
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Language: de\\n"

#: src/main.c:10
msgctxt "menu"
msgid "Open file"
msgstr ""

#, fuzzy
msgid "Close the window"
msgstr "Fenster schliessen"

msgid "One file"
msgid_plural "%d files"
msgstr[0] ""
msgstr[1] ""

#~ msgid "Old string"
#~ msgstr "Alter Text"
"""


def _untouched(path: Path) -> bytes:
    """An XLIFF as xlsearch writes it back unchanged: its own declaration and line end, then
    the tree as lxml serialises it."""
    raw = path.read_bytes()
    tree = etree.tostring(etree.parse(str(path)), xml_declaration=True, encoding="UTF-8")
    return raw[: raw.index(b"<xliff")] + tree[tree.index(b"<xliff") :]


def test_xliff12_read_segments_states_tags_and_seg_source(tmp_path: Path) -> None:
    path = tmp_path / "manual.xlf"
    path.write_text(XLIFF12, encoding="utf-8")
    doc = open_document(path)
    assert (doc.fmt, doc.src, doc.tgt) == ("xliff", "en-US", "de-DE")  # BCP 47 as written
    assert [(s.key, s.source, s.target, s.state) for s in doc.segments] == [
        ("1", "Press Save to keep 5 files.", "", "new"),
        ("3", "Already done.", "Schon erledigt.", "translated"),
        ("4/0", "First sentence.", "Erster Satz.", ""),
        ("4/1", "Second one.", "", ""),
    ]
    assert doc.segments[0].tags == 2


def test_xliff12_round_trip_marks_targets_for_review(tmp_path: Path) -> None:
    path = tmp_path / "manual.xlf"
    path.write_text(XLIFF12, encoding="utf-8")
    doc = open_document(path)
    doc.set_target(0, "Drücken Sie Speichern, um 5 Dateien zu behalten.", quality=87,
                   origin="fuzzy", match_source="Press Save to keep 7 files.")  # fmt: skip
    doc.set_target(3, "Zweiter.", origin="edited")
    out = doc.save(tmp_path / "manual.translated.xlf")
    root = etree.parse(str(out)).getroot()
    tu1 = root.find(".//x:trans-unit[@id='1']", NS12)
    target = tu1.find("x:target", NS12)
    assert target.text.startswith("Drücken Sie")
    assert target.get("state") == "needs-review-translation"
    assert target.get("state-qualifier") == "fuzzy-match"
    alt = tu1.find("x:alt-trans", NS12)
    assert (alt.get("match-quality"), alt.get("origin")) == ("87", "xlsearch")
    assert alt.find("x:source", NS12).text == "Press Save to keep 7 files."
    assert tu1.find("x:note", NS12).text == "UI string"  # the rest round-trips
    assert root.find(".//x:trans-unit[@id='2']", NS12).find("x:target", NS12) is None
    tu4 = root.find(".//x:trans-unit[@id='4']", NS12)
    marks = tu4.findall("x:target/x:mrk", NS12)
    assert [m.text for m in marks] == ["Erster Satz.", "Zweiter."]
    again = open_document(out)
    assert [s.target for s in again.segments] == [
        "Drücken Sie Speichern, um 5 Dateien zu behalten.",
        "Schon erledigt.",
        "Erster Satz.",
        "Zweiter.",
    ]
    assert path.read_text(encoding="utf-8") == XLIFF12  # the original is untouched


def test_xliff20_round_trip_state_substate_and_match(tmp_path: Path) -> None:
    path = tmp_path / "pay.xlf"
    path.write_text(XLIFF20, encoding="utf-8")
    doc = open_document(path)
    assert (doc.src, doc.tgt) == ("en", "fr")
    assert [(s.key, s.source, s.target, s.tags) for s in doc.segments] == [
        ("u1/s1", "Pay now with .", "", 2),
        ("u1/s2", "Thank you.", "Merci.", 0),
    ]
    doc.set_target(0, "Payez maintenant avec .", quality=91.5, origin="semantic",
                   match_source="Pay right away with .")  # fmt: skip
    out = doc.save()
    assert out == path
    root = etree.parse(str(out)).getroot()
    seg = root.find(".//x:segment[@id='s1']", NS20)
    assert seg.get("state") == "translated"
    assert seg.get("subState") == "xlsearch:semantic-92"
    children = [etree.QName(c).localname for c in seg]
    assert children == ["source", "target"]
    match = root.find(".//mtc:matches/mtc:match", NS20)
    assert match.get("ref") == "#s1" and match.get("matchQuality") == "91.50"
    assert match.get("origin") == "xlsearch-semantic"  # a cosine, not a fuzzy %: labelled
    assert open_document(out).segments[0].target == "Payez maintenant avec ."


def test_po_round_trip_sets_fuzzy_previous_msgid_and_comment(tmp_path: Path) -> None:
    import polib

    path = tmp_path / "app.po"
    path.write_text(PO, encoding="utf-8")
    doc = open_document(path)
    assert (doc.src, doc.tgt) == ("en", "de")
    assert [(s.source, s.target, s.state) for s in doc.segments] == [
        ("Open file", "", ""),
        ("Close the window", "Fenster schliessen", "fuzzy"),
        ("One file", "", ""),
    ]
    doc.set_target(0, "Datei öffnen", quality=90, origin="fuzzy", match_source="Open a file")
    doc.set_target(2, "Eine Datei", origin="edited")
    doc.save()
    po = polib.pofile(str(path))
    entry = po.find("Open file", msgctxt="menu")
    assert entry.msgstr == "Datei öffnen" and entry.fuzzy
    assert entry.previous_msgid == "Open a file"
    assert "xlsearch: fuzzy match 90%" in entry.tcomment
    assert po.find("One file").msgstr_plural[0] == "Eine Datei"
    assert [e.msgid for e in po.obsolete_entries()] == ["Old string"]
    assert "# Translator comment kept" in path.read_text(encoding="utf-8")


def test_text_split_into_sentences_and_written_back_by_paragraph(tmp_path: Path) -> None:
    path = tmp_path / "note.txt"
    path.write_text("Hello there. How are you?\n\n  Fine, thanks.\n", encoding="utf-8")
    doc = open_document(path, src="en", tgt="de")
    assert [(s.key, s.source) for s in doc.segments] == [
        ("line 1.1", "Hello there."),
        ("line 1.2", "How are you?"),
        ("line 3.1", "Fine, thanks."),
    ]
    doc.set_target(0, "Hallo.", origin="edited")
    doc.set_target(2, "Gut, danke.", origin="edited")
    out = doc.save(tmp_path / "note.de.txt")
    assert out.read_text(encoding="utf-8") == "Hallo. How are you?\n\n  Gut, danke.\n"
    xlf = doc.save(tmp_path / "note.xlf")  # any document → XLIFF 2.0 for the CAT tool
    again = open_document(xlf)
    assert [s.source for s in again.segments] == [s.source for s in doc.segments]
    assert [s.target for s in again.segments] == ["Hallo.", "", "Gut, danke."]


def test_docx_paragraphs_and_tables_round_trip(tmp_path: Path) -> None:
    import docx

    d = docx.Document()
    p = d.add_paragraph("The device is ready. ")
    p.add_run("Press start.").bold = True
    table = d.add_table(rows=1, cols=1)
    table.rows[0].cells[0].text = "Cell text here."
    d.save(str(tmp_path / "guide.docx"))
    doc = open_document(tmp_path / "guide.docx", src="en", tgt="de")
    assert [s.source for s in doc.segments] == [
        "The device is ready.",
        "Press start.",
        "Cell text here.",
    ]
    doc.set_target(0, "Das Gerät ist bereit.", origin="edited")
    doc.set_target(2, "Zelltext.", origin="edited")
    out = doc.save(tmp_path / "guide.de.docx")
    again = docx.Document(str(out))
    assert again.paragraphs[0].text == "Das Gerät ist bereit. Press start."
    assert again.tables[0].rows[0].cells[0].text == "Zelltext."


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("broken.xlf", "<xliff version='1.2'><file>", "malformed XML"),
        ("empty.xlf", "<xliff version='1.2'/>", "no translatable segments"),
        ("tm.tmx", "<tmx/>", "cannot tell the format"),
        ("notes.txt", "", "no segments"),
        ("contract.docx", "not a zip", "not a readable DOCX"),
    ],
)
def test_bad_documents_give_one_line_errors(tmp_path: Path, name, content, message) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError, match=message) as err:
        open_document(path, src="en")
    assert str(path) in str(err.value)
    if name == "broken.xlf":  # a cut-short file: the fix, as import gives it
        assert "export it again" in str(err.value.hint)
    if name.endswith(".docx"):  # the fix, as import gives it
        assert "save it again as .docx" in str(err.value.hint)


SDLXLIFF = """<?xml version="1.0" encoding="utf-8"?>
<xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" version="1.2"
  xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="m.docx" source-language="en-GB" target-language="de-DE" datatype="x-sdl">
<body>
<trans-unit id="1">
<source>Click <g id="5">Save</g> now.</source>
<seg-source><mrk mtype="seg" mid="1">Click <g id="5">Save</g> now.</mrk></seg-source>
<target><mrk mtype="seg" mid="1"/></target>
<sdl:seg-defs><sdl:seg id="1"/></sdl:seg-defs>
</trans-unit>
<trans-unit id="2">
<source>Plain text.</source>
<seg-source>Plain text.</seg-source>
</trans-unit>
</body>
</file>
</xliff>
"""


def test_sdlxliff_pretranslation_keeps_schema_order(tmp_path: Path) -> None:
    """Trados SDLXLIFF: ``alt-trans`` goes before ``sdl:seg-defs`` (XLIFF 1.2 puts elements of
    other namespaces last), a new ``target`` after a ``seg-source`` without ``mrk``; the
    source's inline tags are untouched."""
    path = tmp_path / "job.sdlxliff"
    path.write_text(SDLXLIFF, encoding="utf-8")
    doc = open_document(path)
    doc.set_target(0, "Klicken Sie jetzt auf Speichern.", quality=87, origin="fuzzy",
                   match_source="Click Save now please.")  # fmt: skip
    doc.set_target(1, "Reiner Text.", quality=90, origin="fuzzy", match_source="Plain texts.")
    out = doc.save(tmp_path / "job.pre.sdlxliff")
    root = etree.parse(str(out)).getroot()
    tus = root.findall(".//x:trans-unit", NS12)
    names = [[etree.QName(c).localname for c in tu] for tu in tus]
    assert names[0] == ["source", "seg-source", "target", "alt-trans", "seg-defs"]
    assert names[1] == ["source", "seg-source", "target", "alt-trans"]
    assert etree.tostring(tus[0].find("x:seg-source", NS12)).count(b'<g id="5">Save</g>') == 1
    # Trados reads the status from sdl:seg, not from XLIFF state: draft, from a TM, its fuzzy %
    seg = tus[0].find(".//{http://sdl.com/FileTypes/SdlXliff/1.0}seg")
    assert (seg.get("conf"), seg.get("origin"), seg.get("percent")) == ("Draft", "tm", "87")
    assert seg.get("origin-system") == "xlsearch"
    schema = etree.XMLSchema(file=str(SCHEMAS / "xliff-1.2-subset.xsd"))
    assert schema.validate(root.getroottree()), schema.error_log.filter_from_errors()


@pytest.mark.parametrize("version", ["1.2", "2.0"])
def test_a_placeholder_between_words_separates_them(tmp_path: Path, version: str) -> None:
    """``battery<x/>before`` reads as two words (a CAT tool's tag token), not
    ``batterybefore``; formatting codes inside a word (``<bpt/>H<ept/>ello``) do not split it."""
    if version == "1.2":
        body = (
            '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file '
            'original="a" source-language="en" target-language="de" datatype="plaintext"><body>'
            '<trans-unit id="1"><source>Remove the battery<x id="7"/>before <bpt id="1">'
            '&lt;b&gt;</bpt>H<ept id="1">&lt;/b&gt;</ept>ello<ph id="2">&lt;br/&gt;</ph>now.'
            "</source></trans-unit></body></file></xliff>"
        )
    else:
        body = (
            '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" '
            'trgLang="de"><file id="f"><unit id="u"><segment id="s"><source>Remove the '
            'battery<ph id="7"/>before <sc id="1"/>H<ec startRef="1"/>ello<ph id="2"/>now.'
            "</source></segment></unit></file></xliff>"
        )
    path = tmp_path / "job.xlf"
    path.write_text(body, encoding="utf-8")
    seg = open_document(path).segments[0]
    assert seg.source == "Remove the battery before Hello now."
    assert seg.tags == 4


def test_an_empty_text_is_reported_as_empty_even_without_a_language(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_text("\n \n", encoding="utf-8")
    with pytest.raises(DataError, match="no segments to translate"):
        open_document(path)


def test_po_without_source_language_header_takes_the_msgids_language(tmp_path: Path) -> None:
    """A German→English PO (no X-Source-Language) was analysed as en → en: nothing matched."""
    path = tmp_path / "ui.po"
    path.write_text(
        'msgid ""\nmsgstr ""\n"Language: en\\n"\n\n'
        'msgid "Prüfen Sie den Öldruck alle 250 Betriebsstunden."\nmsgstr ""\n\n'
        'msgid "Dr. Müller ist für die Freigabe verantwortlich."\nmsgstr ""\n',
        encoding="utf-8",
    )
    assert (open_document(path).src, open_document(path).tgt) == ("de", "en")
    header = path.read_text(encoding="utf-8").replace(
        '"Language: en\\n"', '"Language: en\\n"\n"X-Source-Language: fr\\n"'
    )
    path.write_text(header, encoding="utf-8")
    assert open_document(path).src == "fr"  # the header wins over detection


@pytest.mark.parametrize("version", ["1.2", "2.0"])
def test_a_target_language_given_on_the_command_line_is_written_into_the_xliff(
    tmp_path: Path, version: str
) -> None:
    """``analyze --tgt en`` on an XLIFF without a target language wrote targets in ``en`` but
    left ``<file>`` without target-language (2.0: no trgLang): a CAT tool cannot open it."""
    path = tmp_path / "job.xlf"
    if version == "1.2":
        body = (
            '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
            '<file original="a" source-language="de" datatype="plaintext"><body>'
            '<trans-unit id="1"><source>Hallo Welt.</source></trans-unit></body></file></xliff>'
        )
    else:
        body = (
            '<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="de">'
            '<file id="f1"><unit id="u1"><segment><source>Hallo Welt.</source></segment>'
            "</unit></file></xliff>"
        )
    path.write_text(body, encoding="utf-8")
    doc = open_document(path, tgt="en")
    doc.set_target(0, "Hello world.", quality=100, origin="fuzzy")
    out = doc.save(tmp_path / "pre.xlf")
    root = etree.parse(str(out)).getroot()
    if version == "1.2":
        assert root[0].get("target-language") == "en"
    else:
        assert root.get("trgLang") == "en"
    assert open_document(out).tgt == "en"


def test_docx_pretranslation_keeps_footnotes_and_does_not_repeat_link_text(
    tmp_path: Path,
) -> None:
    """A translated paragraph lost its footnote reference (and pictures: every later run was
    deleted) and kept its hyperlink's source text after the new text ("… acme.de.acme.de")."""
    import docx
    from docx.enum.text import WD_BREAK
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    d = docx.Document()
    p = d.add_paragraph("Das Gerät ist bereit.")
    note = OxmlElement("w:footnoteReference")
    note.set(qn("w:id"), "1")
    p.add_run()._r.append(note)
    p.add_run().add_break(WD_BREAK.PAGE)
    p.add_run(" Siehe ")
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), p.part.relate_to("https://acme.de", RELATIONSHIP_TYPE.HYPERLINK, True))
    link.append(OxmlElement("w:r"))
    link[0].append(OxmlElement("w:t"))
    link[0][0].text = "acme.de"
    p._p.append(link)
    p.add_run(".")
    d.save(str(tmp_path / "de.docx"))
    doc = open_document(tmp_path / "de.docx", tgt="en")
    assert [s.source for s in doc.segments] == ["Das Gerät ist bereit.", "Siehe acme.de."]
    doc.set_target(0, "The device is ready.", origin="edited")
    doc.set_target(1, "See acme.de.", origin="edited")
    para = docx.Document(str(doc.save(tmp_path / "en.docx"))).paragraphs[0]
    assert para.text == "The device is ready. See acme.de."
    assert len(para._p.xpath(".//w:footnoteReference")) == 1
    assert len(para._p.xpath('.//w:br[@w:type="page"]')) == 1  # a page break is no text


def test_a_unit_with_a_fuzzy_segment_is_never_marked_exact_match(tmp_path: Path) -> None:
    """A Trados unit with an 87 % and a 100 % segment came out ``state-qualifier="exact-match"``
    (the last segment written decided): a reviewer filtering on exact matches skips it."""
    path = tmp_path / "job.sdlxliff"
    unit = (
        '<trans-unit id="1"><source>A one. B two.</source><seg-source>'
        '<mrk mtype="seg" mid="1">A one.</mrk> <mrk mtype="seg" mid="2">B two.</mrk></seg-source>'
        '<target><mrk mtype="seg" mid="1"/> <mrk mtype="seg" mid="2"/></target></trans-unit>'
    )
    path.write_text(
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
        '<file original="a" source-language="en" target-language="de" datatype="x"><body>'
        f"{unit}</body></file></xliff>",
        encoding="utf-8",
    )
    for qualities, expected in (((87, 100), "fuzzy-match"), ((100, 100), "exact-match")):
        doc = open_document(path)
        for i, quality in enumerate(qualities):
            doc.set_target(i, f"Ziel {i}.", quality=quality, origin="fuzzy", match_source="x")
        out = doc.save(tmp_path / "pre.sdlxliff")
        target = etree.parse(str(out)).getroot().find(".//{*}target")
        assert target.get("state-qualifier") == expected


def test_a_windows_text_file_keeps_its_line_breaks(tmp_path: Path) -> None:
    """A Windows-1252 text with CRLF came back with LF only: one long line in old Windows
    tools. Line breaks stay as they were (the text is written as UTF-8)."""
    path = tmp_path / "notiz.txt"
    path.write_bytes("Die Größe beträgt 5 €.\r\n\r\nPrüfen Sie das Ventil.\r\n".encode("cp1252"))
    doc = open_document(path, tgt="en")
    assert [s.source for s in doc.segments] == ["Die Größe beträgt 5 €.", "Prüfen Sie das Ventil."]
    doc.set_target(0, "The size is 5 €.", origin="edited")
    data = doc.save(tmp_path / "note.txt").read_bytes()
    assert data.decode("utf-8") == "The size is 5 €.\r\n\r\nPrüfen Sie das Ventil.\r\n"


def test_a_segmented_unit_without_target_keeps_what_lies_between_its_segments(
    tmp_path: Path,
) -> None:
    """With no ``<target>`` yet, the new target held only the segments' ``mrk``s: the space
    and the ``<x/>`` line break between sentences were lost ("hours.The nominal …")."""
    path = tmp_path / "job.xlf"
    path.write_text(
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
        '<file original="a" source-language="en" target-language="de" datatype="x"><body>'
        '<trans-unit id="1"><source>A one. B two.<x id="7"/>C three.</source><seg-source>'
        '<mrk mtype="seg" mid="1">A one.</mrk> <mrk mtype="seg" mid="2">B two.</mrk><x id="7"/>'
        '<mrk mtype="seg" mid="3">C three.</mrk></seg-source></trans-unit></body></file></xliff>',
        encoding="utf-8",
    )
    doc = open_document(path)
    doc.set_target(0, "Eins.", quality=100, origin="fuzzy", match_source="A one.")
    doc.set_target(2, "Drei.", quality=100, origin="fuzzy", match_source="C three.")
    target = etree.parse(str(doc.save(tmp_path / "pre.xlf"))).getroot().find(".//{*}target")
    assert "".join(target.itertext()) == "Eins. Drei."
    assert [(etree.QName(c).localname, c.get("mid") or c.get("id")) for c in target] == [
        ("mrk", "1"),
        ("mrk", "2"),
        ("x", "7"),
        ("mrk", "3"),
    ]
    assert target[0].tail == " " and not len(target[1]) and not target[1].text


def test_a_docx_with_tracked_changes_is_translated_as_word_shows_it(tmp_path: Path) -> None:
    """Analyze read "Prüfen Sie den Öldruck ." (the inserted text dropped), and a target
    written into that paragraph kept the inserted source text beside it."""
    import docx
    from helpers.documents import tracked_docx

    doc = open_document(tracked_docx(tmp_path / "de.docx"), src="de", tgt="en")
    assert [s.source for s in doc.segments] == [
        "Prüfen Sie den Öldruck alle 250 Stunden.",
        "Danach das Ventil.",
    ]
    doc.set_target(0, "Check the oil pressure every 250 hours.", origin="edited")
    para = docx.Document(str(doc.save(tmp_path / "en.docx"))).paragraphs[0]
    shown = "".join(t.text for t in para._p.xpath(".//w:t"))
    assert shown == "Check the oil pressure every 250 hours. Danach das Ventil."
    assert not para._p.xpath(".//w:delText")  # the source's deletion means nothing here


def test_docx_merged_cells_once_and_content_controls_too(tmp_path: Path) -> None:
    """Analyze counted a merged table cell once per column it spans (repetitions, double
    words) and never saw text in content controls (``w:sdt``), which import and align read."""
    import docx
    from docx.oxml import OxmlElement

    d = docx.Document()
    d.add_paragraph("Erster Absatz.")
    table = d.add_table(rows=1, cols=3)
    merged = table.cell(0, 0).merge(table.cell(0, 1))
    merged.text = "Zusammengeführte Zelle."
    table.cell(0, 2).text = "Letzte Zelle."
    sdt, content = OxmlElement("w:sdt"), OxmlElement("w:sdtContent")
    sdt.append(content)
    control = d.add_paragraph("Text im Steuerelement.")
    content.append(control._p)  # moves the paragraph into the content control
    d.element.body.insert(len(d.element.body) - 1, sdt)
    d.save(str(tmp_path / "form.docx"))
    doc = open_document(tmp_path / "form.docx", src="de", tgt="en")
    assert [s.source for s in doc.segments] == [
        "Erster Absatz.",
        "Zusammengeführte Zelle.",
        "Letzte Zelle.",
        "Text im Steuerelement.",
    ]
    doc.set_target(3, "Text in the control.", origin="edited")
    again = docx.Document(str(doc.save(tmp_path / "form.en.docx")))
    assert "Text in the control." in "".join(again.element.body.itertext())


def test_units_of_a_group_marked_translate_no_are_left_out(tmp_path: Path) -> None:
    """XLIFF 1.2 ``translate`` is inherited from ``<group>``: analyze counted and
    pre-translated units of a ``translate="no"`` group (import already left them out)."""
    path = tmp_path / "app.xlf"
    path.write_text(
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
        '<file original="a" source-language="en" target-language="de" datatype="x"><body>'
        '<group translate="no"><trans-unit id="1"><source>ACME Cloud</source></trans-unit>'
        '<group translate="yes"><trans-unit id="2"><source>Save</source></trans-unit></group>'
        '</group><trans-unit id="3"><source>Open</source></trans-unit></body></file></xliff>',
        encoding="utf-8",
    )
    assert [s.source for s in open_document(path).segments] == ["Save", "Open"]


def test_xliff2_units_marked_translate_no_are_left_out(tmp_path: Path) -> None:
    """XLIFF 2.0 ``translate="no"`` on a unit (or its group/file) was ignored by analyze."""
    path = tmp_path / "app.xlf"
    path.write_text(
        '<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en" '
        'trgLang="de"><file id="f"><group id="g" translate="no"><unit id="1"><segment>'
        "<source>ACME Cloud</source></segment></unit></group>"
        '<unit id="2" translate="no"><segment><source>v2.1</source></segment></unit>'
        '<unit id="3"><segment><source>Open</source></segment></unit></file></xliff>',
        encoding="utf-8",
    )
    assert [s.source for s in open_document(path).segments] == ["Open"]


def test_a_latin1_po_is_written_back_readable(tmp_path: Path) -> None:
    """A PO declaring charset=ISO-8859-1 came back as UTF-8 bytes under that same header:
    msgfmt and Poedit then read "PrÃ¼fen". It is written as UTF-8 and says so."""
    import polib

    path = tmp_path / "de.po"
    path.write_bytes(
        'msgid ""\nmsgstr ""\n"Language: en\\n"\n"Content-Type: text/plain; charset=ISO-8859-1\\n"'
        '\n\nmsgid "Prüfen Sie das Ventil."\nmsgstr ""\n'.encode("latin-1")
    )
    doc = open_document(path)
    doc.set_target(0, "Check the valve → now.", quality=90, origin="fuzzy", match_source="x")
    again = polib.pofile(str(doc.save(tmp_path / "en.po")))
    assert [(e.msgid, e.msgstr) for e in again] == [
        ("Prüfen Sie das Ventil.", "Check the valve → now.")
    ]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
def test_a_utf16_po_opens_as_import_reads_it(tmp_path: Path, encoding: str) -> None:
    """A catalogue saved as UTF-16 (with a byte-order mark, or little-endian without one,
    as Windows tools write it): ``xlsearch import`` read it, analyze and the Translate screen
    said "not a readable PO file: 'utf-8' codec can't decode byte 0xff". It opens, and is
    written back as UTF-8 that says so."""
    import polib

    path = tmp_path / "app.de.po"
    path.write_bytes(
        'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"'
        '\n\n#, python-format\nmsgid "Your order %s has been shipped."\nmsgstr ""\n\n'
        'msgctxt "menu"\nmsgid "Start"\nmsgstr "Start"\n'.encode(encoding)
    )
    doc = open_document(path)
    assert [s.source for s in doc.segments] == ["Your order %s has been shipped.", "Start"]
    assert (doc.src, doc.tgt) == ("en", "de")
    doc.set_target(0, "Ihre Bestellung %s wurde versandt.", quality=100, origin="fuzzy")
    again = polib.pofile(str(doc.save(tmp_path / "out.po")))
    assert [(e.msgctxt, e.msgid, e.msgstr) for e in again] == [
        (None, "Your order %s has been shipped.", "Ihre Bestellung %s wurde versandt."),
        ("menu", "Start", "Start"),
    ]
    written = (tmp_path / "out.po").read_bytes()
    assert b"\x00" not in written and "charset=UTF-8" in written.decode("utf-8")


def test_a_po_in_an_undeclared_encoding_names_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "de.po"
    path.write_bytes('msgid "Prüfen"\nmsgstr ""\n'.encode("cp1252"))
    with pytest.raises(DataError, match="de.po") as err:
        open_document(path, tgt="en")
    assert "--encoding" in str(err.value.hint)  # import's words: analyze takes it too


def test_text_deleted_in_trados_track_changes_is_not_part_of_the_segment(
    tmp_path: Path,
) -> None:
    """A Trados revision (``mrk mtype="x-sdl-deleted"`` 10, ``x-sdl-added`` 12) read as
    "1012 Nm" in analyze and the Translate screen (import already read "12 Nm")."""
    path = tmp_path / "rev.sdlxliff"
    path.write_text(
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2" '
        'xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0"><file original="a" '
        'source-language="de" target-language="en" datatype="x"><body><trans-unit id="1">'
        '<source>Mit 12 Nm anziehen.</source><seg-source><mrk mtype="seg" mid="1">Mit '
        '<mrk mtype="x-sdl-deleted" sdl:revid="r1">10</mrk><mrk mtype="x-sdl-added" '
        'sdl:revid="r2">12</mrk> Nm anziehen.</mrk></seg-source></trans-unit></body></file>'
        "</xliff>",
        encoding="utf-8",
    )
    assert [s.source for s in open_document(path).segments] == ["Mit 12 Nm anziehen."]


def test_markdown_headings_and_list_markers_survive_pretranslation(tmp_path: Path) -> None:
    """A Markdown job lost its structure: "- " bullets vanished from translated lines and a
    numbered item's "1." became a segment of its own. Block markers now stay as they are."""
    path = tmp_path / "job.md"
    path.write_text(
        "# Wartung\n\n- Prüfen Sie den Öldruck.\n  - Danach das Ventil.\n\n"
        "1. Ziehen Sie die Schrauben an.\n> Vorsicht: heiß.\n",
        encoding="utf-8",
    )
    doc = open_document(path, src="de", tgt="en")
    assert [s.source for s in doc.segments] == [
        "Wartung",
        "Prüfen Sie den Öldruck.",
        "Danach das Ventil.",
        "Ziehen Sie die Schrauben an.",
        "Vorsicht: heiß.",
    ]
    for i, text in enumerate(["Maintenance", "Check the oil.", "Then the valve.", "Tighten."]):
        doc.set_target(i, text, origin="edited")
    assert doc.save(tmp_path / "job.en.md").read_text(encoding="utf-8") == (
        "# Maintenance\n\n- Check the oil.\n  - Then the valve.\n\n1. Tighten.\n> Vorsicht: heiß.\n"
    )


@pytest.mark.parametrize(
    ("sentence", "plain", "marked"),
    [
        ("Die **Pumpe** muss `p_max` halten.", "Die Pumpe muss p_max halten.",
         ["Pumpe", "p_max"]),
        ('Siehe [Handbuch](http://x.de/a_b "t") und *sofort* __jetzt__.',
         "Siehe Handbuch und sofort jetzt.", ["Handbuch", "sofort", "jetzt"]),
        ("**fett *kursiv* fett** Ende.", "fett kursiv fett Ende.", ["fett kursiv fett", "kursiv"]),
        ("Code `a*b*c` bleibt Code.", "Code a*b*c bleibt Code.", ["a*b*c"]),
        # not read: an unclosed marker, an escape, an image, snake_case
        ("**Achtung. Ein \\*Stern* und ![Bild](a.png) und snake_case_name.",
         "**Achtung. Ein \\*Stern* und ![Bild](a.png) und snake_case_name.", []),
    ],
)  # fmt: skip
def test_markdown_inline_markup_is_read_apart_and_rebuilt_exactly(sentence, plain, marked) -> None:  # type: ignore[no-untyped-def]
    from xlsearch.engine.tm.documents.markdown import rebuild, split_markup

    got, spans = split_markup(sentence)
    assert got == plain
    assert [got[s.start : s.end] for s in spans] == marked
    assert rebuild(got, spans) == sentence


def test_markdown_markup_is_not_matched_and_comes_back_where_its_place_is_clear(
    tmp_path: Path,
) -> None:
    """``**Pumpe**`` cost fuzzy points against every memory and its asterisks went into the
    translation. Now the lookup sees the plain sentence (the markup counts as tags, so a
    match is 99 %, not 100 %), the target gets the markup around text it holds once, and an
    untranslated sentence of the same paragraph keeps its own markup."""
    path = tmp_path / "job.md"
    path.write_text(
        "- Prüfen Sie den Wert `p_max` an der **Pumpe**. Dann das *Ventil* schließen.\n",
        encoding="utf-8",
    )
    doc = open_document(path, src="de", tgt="en")
    assert [(s.source, s.tags) for s in doc.segments] == [
        ("Prüfen Sie den Wert p_max an der Pumpe.", 2),
        ("Dann das Ventil schließen.", 1),
    ]
    doc.set_target(0, "Check the p_max value on the pump.", quality=99, origin="fuzzy")
    assert doc.save(tmp_path / "job.en.md").read_text(encoding="utf-8") == (
        "- Check the `p_max` value on the pump. Dann das *Ventil* schließen.\n"
    )
    xlf = doc.save(tmp_path / "job.en.xlf").read_text(encoding="utf-8")
    assert "<source>Prüfen Sie den Wert `p_max` an der **Pumpe**.</source>" in xlf
    assert "<target>Check the `p_max` value on the pump.</target>" in xlf


def test_a_markdown_sentence_matches_its_memory_text_as_99_percent(tmp_path: Path) -> None:
    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.analysis.analyze import analyze
    from xlsearch.engine.tm.matching.lookup import Lookup

    (tmp_path / "tm.tsv").write_text(
        "de\ten\nPrüfen Sie die Pumpe.\tCheck the pump.\n", encoding="utf-8"
    )
    (tmp_path / "job.md").write_text("Prüfen Sie die **Pumpe**.\n", encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        store.import_file(tmp_path / "tm.tsv", "tm")
        doc = open_document(tmp_path / "job.md", src="de", tgt="en")
        seg = analyze(doc, Lookup(store, None, collection="tm", semantic=False)).segments[0]
    assert (seg.fuzzy, seg.band, seg.best.target) == (99, "95-99%", "Check the pump.")


def test_a_po_without_a_header_comment_gets_no_stray_hash_line(tmp_path: Path) -> None:
    """polib wrote an empty header comment as a lone ``#`` line at the top of every
    pre-translated PO that had none: a diff in the translator's repository for nothing."""
    path = tmp_path / "job.po"
    path.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Language: de\\n"\n\nmsgid "Open file"\nmsgstr ""\n',
        encoding="utf-8",
    )
    doc = open_document(path)
    doc.set_target(0, "Datei öffnen", quality=90, origin="fuzzy")
    out = doc.save(tmp_path / "out.po").read_text(encoding="utf-8")
    assert out.startswith('msgid ""\n')
    with_comment = path.read_text(encoding="utf-8").replace('msgid ""', '# Project X\nmsgid ""', 1)
    path.write_text(with_comment, encoding="utf-8")
    doc = open_document(path)
    doc.set_target(0, "Datei öffnen", quality=90, origin="fuzzy")
    assert doc.save(tmp_path / "out2.po").read_text(encoding="utf-8").startswith("# Project X\n")


PARAGRAPH_XLIFF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
 <file original="page.html" source-language="en" target-language="de" datatype="html">
  <body>
   <trans-unit id="p1">
    <source>The pump is old. Open the <g id="1">Settings</g> menu. Dr. Smith agrees.</source>
   </trans-unit>
   <trans-unit id="p2">
    <source>Close the valve.</source>
   </trans-unit>
   <trans-unit id="p3">
    <source>Keep this. And this.</source>
   </trans-unit>
  </body>
 </file>
</xliff>
"""


def test_a_paragraph_unit_is_segmented_into_sentences_as_a_cat_tool_does(tmp_path: Path) -> None:
    """A CMS's XLIFF with one paragraph per unit was looked up paragraph by paragraph, so a
    sentence memory matched nothing. Its sentences are segments now, written back the XLIFF
    1.2 way (``seg-source`` and ``target`` with one ``mrk mtype="seg"`` a sentence); a unit
    that gets no target is left exactly as it was."""
    path = tmp_path / "page.xlf"
    path.write_text(PARAGRAPH_XLIFF, encoding="utf-8")
    doc = open_document(path, segment="always")
    assert [(s.key, s.source, s.tags) for s in doc.segments] == [
        ("p1/xls1", "The pump is old.", 0),
        ("p1/xls2", "Open the Settings menu.", 1),
        ("p1/xls3", "Dr. Smith agrees.", 0),
        ("p2", "Close the valve.", 0),
        ("p3/xls1", "Keep this.", 0),
        ("p3/xls2", "And this.", 0),
    ]
    assert doc.save(tmp_path / "same.xlf").read_bytes() == _untouched(path)  # as it was
    doc.set_target(0, "Die Pumpe ist alt.", quality=100, origin="fuzzy", match_source="x")
    doc.set_target(1, "Öffnen Sie das Menü Settings.", quality=90, origin="fuzzy")
    doc.set_target(3, "Schließen Sie das Ventil.", quality=100, origin="fuzzy")
    out = doc.save(tmp_path / "page.pre.xlf")
    root = etree.parse(str(out)).getroot()
    p1, p2, p3 = root.findall(".//x:trans-unit", NS12)
    text = etree.tostring(p1, encoding="unicode").replace(f' xmlns="{NS12["x"]}"', "")
    assert (
        '<seg-source><mrk mtype="seg" mid="xls1">The pump is old.</mrk> <mrk mtype="seg" '
        'mid="xls2">Open the <g id="1">Settings</g> menu.</mrk> <mrk mtype="seg" mid="xls3">'
        "Dr. Smith agrees.</mrk></seg-source>" in text
    )
    target = etree.tostring(p1.find("x:target", NS12), encoding="unicode")
    assert '<mrk mtype="seg" mid="xls1">Die Pumpe ist alt.</mrk> ' in target
    assert 'mid="xls2">Öffnen Sie das Menü <g id="1">Settings</g>.</mrk>' in target
    assert p2.find("x:seg-source", NS12) is None and p2.find("x:target", NS12).text == (
        "Schließen Sie das Ventil."
    )
    assert p3.find("x:seg-source", NS12) is None and p3.find("x:target", NS12) is None
    schema = etree.XMLSchema(file=str(SCHEMAS / "xliff-1.2-subset.xsd"))
    assert schema.validate(root.getroottree()), schema.error_log.filter_from_errors()
    again = open_document(out)  # the file as the CAT tool gets it reads the same way
    assert [s.key for s in again.segments][:3] == ["p1/xls1", "p1/xls2", "p1/xls3"]
    assert again.segments[1].target == "Öffnen Sie das Menü Settings."


def test_docx_pretranslation_keeps_bold_and_italic_words_it_can_place(tmp_path: Path) -> None:
    """The whole translated paragraph took its first run's formatting: "**Note:** the pump is
    hot." came back all bold, and a bold UI label in the middle lost its bold. Now the text
    takes the formatting most of the source had, and a differently formatted run keeps it
    where the translation holds its text once."""
    import docx

    d = docx.Document()
    p = d.add_paragraph("Press ")
    p.add_run("Save").bold = True
    p.add_run(" to keep the file.")
    p = d.add_paragraph()
    p.add_run("Note:").bold = True
    p.add_run(" the pump is hot.")
    d.add_paragraph().add_run("All of this is italic.").italic = True
    path = tmp_path / "job.docx"
    d.save(str(path))
    doc = open_document(path, src="en", tgt="de")
    for i, text in enumerate(
        ["Drücken Sie Save, um die Datei zu behalten.", "Hinweis: Die Pumpe ist heiß.",
         "All das ist kursiv."]
    ):  # fmt: skip
        doc.set_target(i, text, origin="edited")
    out = docx.Document(str(doc.save(tmp_path / "job.de.docx")))
    runs = [  # the review comment's reference run holds no text
        [(r.text, bool(r.bold), bool(r.italic)) for r in q.runs if r.text] for q in out.paragraphs
    ]
    assert runs == [
        [("Drücken Sie ", False, False), ("Save", True, False),
         (", um die Datei zu behalten.", False, False)],
        [("Hinweis: Die Pumpe ist heiß.", False, False)],
        [("All das ist kursiv.", False, True)],
    ]  # fmt: skip


PARAGRAPH_XLIFF20 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">
 <file id="f1">
  <unit id="u1">
   <segment id="s1" state="initial">
    <source>The pump is old. Open the <pc id="1">Settings</pc> menu.</source>
   </segment>
  </unit>
  <unit id="u2" canResegment="no">
   <segment><source>Keep this. And this.</source></segment>
  </unit>
  <unit id="u3">
   <segment><source>Leave this one. It stays untouched.</source></segment>
  </unit>
 </file>
</xliff>
"""


def test_an_xliff20_paragraph_segment_is_split_into_sentences(tmp_path: Path) -> None:
    """The 2.0 way: one ``segment`` a sentence, the space between in an ``ignorable``; a unit
    marked ``canResegment="no"`` stays whole, and a unit that gets no target is saved as it
    was."""
    ns = {"x": "urn:oasis:names:tc:xliff:document:2.0"}
    path = tmp_path / "page.xlf"
    path.write_text(PARAGRAPH_XLIFF20, encoding="utf-8")
    doc = open_document(path, segment="always")
    assert [(s.key, s.source) for s in doc.segments] == [
        ("u1/xls1", "The pump is old."),
        ("u1/xls2", "Open the Settings menu."),
        ("u2", "Keep this. And this."),
        ("u3/xls1", "Leave this one."),
        ("u3/xls2", "It stays untouched."),
    ]
    assert doc.save(tmp_path / "same.xlf").read_bytes() == _untouched(path)  # as it was
    doc.set_target(0, "Die Pumpe ist alt.", quality=100, origin="fuzzy", match_source="x")
    doc.set_target(1, "Öffnen Sie das Menü Settings.", quality=90, origin="fuzzy")
    root = etree.parse(str(doc.save(tmp_path / "page.pre.xlf"))).getroot()
    u1, u2, u3 = root.findall(".//x:unit", ns)
    assert [etree.QName(c).localname for c in u1 if etree.QName(c).localname != "matches"] == [
        "segment", "ignorable", "segment"
    ]  # fmt: skip
    segs = u1.findall("x:segment", ns)
    assert [s.get("id") for s in segs] == ["xls1", "xls2"]
    target = etree.tostring(segs[1].find("x:target", ns), encoding="unicode")
    assert 'Öffnen Sie das Menü <pc id="1">Settings</pc>.</target>' in target
    assert u1.find("x:ignorable/x:source", ns).text == " "
    assert len(u3.findall("x:segment", ns)) == 1  # nothing translated: as it was
    schema = etree.XMLSchema(file=str(SCHEMAS / "xliff-2.0-subset.xsd"))
    assert schema.validate(root.getroottree()), schema.error_log.filter_from_errors()
    again = open_document(tmp_path / "page.pre.xlf")
    assert [s.key for s in again.segments][:2] == ["u1/xls1", "u1/xls2"]
    assert again.segments[1].target == "Öffnen Sie das Menü Settings."


def test_a_target_language_other_than_the_job_s_is_refused(tmp_path: Path) -> None:
    """``analyze job.xlf --tgt fr`` on a job into de-DE wrote French targets into the German
    job (target-language still de-DE, beside its German targets). A --tgt of another
    language is one line naming the file's; the same language (another region) is taken."""
    path = tmp_path / "job.xlf"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" '
        'xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="a.html" '
        'source-language="en-US" target-language="de-DE" datatype="html"><body>'
        '<trans-unit id="1"><source>Use only fresh, cold water.</source>'
        '<target state="final">Nur frisches, kaltes Wasser verwenden.</target></trans-unit>'
        '<trans-unit id="2"><source>Press Start.</source></trans-unit></body></file></xliff>\n',
        encoding="utf-8",
    )
    with pytest.raises(DataError, match=r"job\.xlf: the file is a job into de-DE, not fr") as err:
        open_document(path, tgt="fr")
    assert "leave the target language (--tgt) out" in str(err.value.hint)
    assert open_document(path, tgt="de-AT").tgt == "de-AT"
    assert open_document(path).tgt == "de-DE"
    po = tmp_path / "app.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Press Start."\nmsgstr ""\n',
        encoding="utf-8",
    )
    with pytest.raises(DataError, match="a job into de, not fr"):
        open_document(po, tgt="fr")
    text = tmp_path / "notes.txt"
    text.write_text("Press Start.\n", encoding="utf-8")
    assert open_document(text, src="en", tgt="fr").tgt == "fr"  # a text names no target


def test_a_po_job_cut_in_a_string_is_refused_not_read_cut(tmp_path: Path) -> None:
    """analyze and the Translate screen read "Your order %s ha" from a catalogue cut inside
    a string (and would have written it back so): one line naming the line instead."""
    path = tmp_path / "app.po"
    path.write_text(
        'msgid ""\nmsgstr ""\n"Language: de\\n"\n\n#, python-format\nmsgid "Your order %s has ',
        encoding="utf-8",
    )
    with pytest.raises(DataError, match=r"app\.po:6: a string is not closed"):
        open_document(path)
    path.write_text('msgid ""\nmsgstr ""\n"Language: de\\n"\n\nmsgid "Ok"\nmsgstr ""\n')
    assert [s.source for s in open_document(path).segments] == ["Ok"]


def test_a_markdown_sentence_whose_link_the_translation_cannot_hold_stays_as_written(
    tmp_path: Path,
) -> None:
    """A link's address is content: "Then open the [web interface](http://192.168.1.1) in
    your browser." was written as "Öffnen Sie die Weboberfläche in Ihrem Browser." (the
    translation does not hold "web interface", so the link was dropped without a word). The
    sentence now stays as written (``analyze`` says how many); an XLIFF for a CAT tool still
    gets the translation, its source showing the link."""
    path = tmp_path / "setup.md"
    path.write_text(
        "Press the **power button**. Then open the [web interface](http://192.168.1.1) in "
        "your browser.\n",
        encoding="utf-8",
    )
    doc = open_document(path, src="en", tgt="de")
    doc.set_target(0, "Drücken Sie die Ein-/Aus-Taste.", quality=90, origin="fuzzy")
    doc.set_target(1, "Öffnen Sie die Weboberfläche in Ihrem Browser.", quality=88, origin="fuzzy")
    from xlsearch.engine.tm.documents.simple import unwritten_text_segments

    assert unwritten_text_segments(doc) == 1
    assert doc.save(tmp_path / "setup.de.md").read_text(encoding="utf-8") == (
        "Drücken Sie die Ein-/Aus-Taste. Then open the [web interface](http://192.168.1.1) in "
        "your browser.\n"
    )
    xlf = doc.save(tmp_path / "setup.de.xlf").read_text(encoding="utf-8")
    assert "<target>Öffnen Sie die Weboberfläche in Ihrem Browser.</target>" in xlf
