"""Whole units first, repetitions with their own codes, ``translate="no"`` at any level, one
language per document — on files written the way CAT tools write them
(``tests/fixtures/cat/units_*``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from lxml import etree

from xlsearch.cli import main
from xlsearch.engine.store import Store
from xlsearch.engine.tm.analysis.analyze import analyze
from xlsearch.engine.tm.analysis.pretranslate import pretranslate
from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.matching.lookup import Lookup

CAT = Path(__file__).resolve().parents[1] / "fixtures" / "cat"
NS12 = {"x": "urn:oasis:names:tc:xliff:document:1.2"}


@pytest.fixture()
def store():
    with Store() as s:
        s.import_file(CAT / "units_omegat_paragraphs.tmx", "para")
        s.import_file(CAT / "units_sentences.tmx", "sent")
        yield s


def _analyze(store: Store, name: str, collection: str, segment: str = "auto"):
    doc = open_document(CAT / name, tgt="de-DE", segment=segment)
    lookup = Lookup(store, None, collection=collection, semantic=False)
    return doc, analyze(doc, lookup, segment=segment)


def _bands(rep) -> dict[str, int]:
    return {r["band"]: r["segments"] for r in rep.table()}


def test_a_paragraph_memory_matches_the_jobs_paragraph_units_whole(store, tmp_path) -> None:
    """An Okapi XLIFF of paragraph units against OmegaT's paragraph TMX: every unit the
    memory holds word for word is one 100 % segment, written whole (no ``seg-source``); the
    edited paragraph (5 → 3 minutes) gets its match on the whole unit, its number repaired
    (a 95–99 % match); only the new
    paragraph is split into its sentences."""
    doc, rep = _analyze(store, "units_okapi_paragraphs.xlf", "para")
    assert [(s.key, r.band) for s, r in zip(doc.segments, rep.segments, strict=True)] == [
        ("tu1", "100%"), ("tu2", "95-99%"), ("tu3", "100%"), ("tu4", "100%"), ("tu5", "100%"),
        ("tu6/xls1", "no match"), ("tu6/xls2", "no match"),
    ]  # fmt: skip
    assert _bands(rep)["100%"] == 4
    assert "3 Minuten" in (rep.segments[1].best.target if rep.segments[1].best else "")
    assert pretranslate(doc, rep) == 5
    root = etree.parse(str(doc.save(tmp_path / "job.xlf"))).getroot()
    tu1, tu2 = root.findall(".//x:trans-unit", NS12)[:2]
    assert tu1.find("x:seg-source", NS12) is None
    target = tu1.find("x:target", NS12)
    assert target.text == (
        "Die Pumpen wurden für 5 Minuten angehalten. Erwägen Sie, eine Kochsalzinfusion anzulegen."
    )
    assert target.get("state-qualifier") == "exact-match"
    assert tu1.find("x:alt-trans", NS12).get("match-quality") == "100"
    assert tu2.find("x:target", NS12).get("state-qualifier") == "fuzzy-match"
    assert "seg-source" not in etree.tostring(root[0][1][-1], encoding="unicode")  # tu6: as it was
    # XLIFF 2.0 the same way: the unit stays one segment
    doc20, rep20 = _analyze(store, "units_cms_paragraphs_20.xlf", "para")
    assert [(s.key, r.band) for s, r in zip(doc20.segments, rep20.segments, strict=True)] == [
        ("body-1/1", "100%"),
        ("body-2/1", "100%"),
    ]


def test_a_sentence_memory_matches_the_jobs_sentences(store) -> None:
    """The same job against a sentence memory: its paragraphs are split, each sentence a
    100 % match; Trados' own sentence segments match as they are; ``never`` keeps the
    paragraphs whole (and so finds no 100 %), ``always`` splits even what a paragraph
    memory has whole."""
    doc, rep = _analyze(store, "units_okapi_paragraphs.xlf", "sent")
    assert [s.key for s in doc.segments][:2] == ["tu1/xls1", "tu1/xls2"]
    in_context = _bands(rep).get("101%", 0)  # between the same sentences as in the memory
    assert _bands(rep)["100%"] + in_context == 6 and _bands(rep)["repetitions"] == 1
    doc, rep = _analyze(store, "units_trados_sentences.sdlxliff", "sent")
    bands = [r.band.replace("101%", "100%") for r in rep.segments]  # 101: same neighbours
    assert bands == ["100%"] * 5  # the <g> where the memory has it
    _, rep = _analyze(store, "units_okapi_paragraphs.xlf", "sent", "never")
    assert _bands(rep)["100%"] == 0 and len(rep.segments) == 6
    _, rep = _analyze(store, "units_okapi_paragraphs.xlf", "para", "always")
    assert _bands(rep)["100%"] == 1  # only "Settings", a unit of one sentence


def test_analyze_segment_option_from_the_command_line(store, tmp_path, capsys) -> None:
    job = tmp_path / "job.xlf"
    shutil.copy(CAT / "units_okapi_paragraphs.xlf", job)
    store.close()
    argv = ["analyze", str(job), "-c", "para", "--fuzzy-only", "-q", "--json"]
    for segment, hundred in (("auto", 4), ("never", 4), ("always", 1)):
        assert main([*argv, "--segment", segment]) == 0
        rows = {r["band"]: r for r in json.loads(capsys.readouterr().out)["bands"]}
        assert rows["100%"]["segments"] == hundred, segment
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--segment", "sometimes"])
    assert exc.value.code == 2


def test_a_repetition_with_other_inline_codes_is_99_and_flagged(store, tmp_path) -> None:
    """memoQ job: "Press **Save** …" (bold, as the memory has it) is 100 %; the same words
    without the bold are no repetition of it but 99 %, flagged, and written without codes;
    the bold one again is a repetition, written with its codes. "Open the *Settings* menu."
    is new; its plain twin is a 99 % repetition with a flag, not a free 100 %."""
    doc, rep = _analyze(store, "units_memoq_tags.mqxliff", "sent")
    got = [(r.band, r.fuzzy, r.repetition_of) for r in rep.segments]
    assert got == [("100%", 100, None), ("95-99%", 99, None), ("repetitions", 0, 0),
                   ("no match", 0, None), ("95-99%", 99, 3)]  # fmt: skip
    assert rep.segments[1].best.flags == ["tags: new 0 · stored 2"]
    assert rep.segments[4].flags == ["tags: new 0 · first occurrence 2"]
    pretranslate(doc, rep)
    root = etree.parse(str(doc.save(tmp_path / "job.mqxliff"))).getroot()
    tus = root.findall(".//x:trans-unit", NS12)
    t1, t2, t3 = (tu.find("x:target", NS12) for tu in tus[:3])
    assert [c.tag.split("}")[1] for c in t1] == ["bpt", "ept"]
    assert len(t2) == 0 and t2.text.startswith("Klicken Sie auf Save, um")
    assert t2.get("state-qualifier") == "fuzzy-match"
    assert [c.tag.split("}")[1] for c in t3] == ["bpt", "ept"]


def test_translate_no_at_every_level_is_honoured_and_counted_alike(tmp_path) -> None:
    """A unit's ``translate="yes"`` overrides its file's or group's ``no``; a 2.0 segment
    wholly inside ``<mrk translate="no">`` is not to translate either. Import and analysis
    leave out and count the same segments."""
    cases = {
        "units_translate_no.xlf": (
            ["Pumps have been paused for 5 minutes.", "Consider starting a saline drip.",
             "Settings", "Clean the filter every week."], 3),
        "units_translate_no_20.xlf": (
            ["Pumps have been paused for 5 minutes.",
             "Clean the filter every week with FilterClean."], 3),
    }  # fmt: skip
    with Store() as s:
        for name, (sources, skipped) in cases.items():
            report = s.import_file(CAT / name, name)
            stored = [t for (t,) in s.conn.execute("SELECT text FROM segments ORDER BY id")]
            assert stored[-len(sources) :] == sources
            assert f'{skipped} segments marked translate="no" not imported' in report.problems[0]
            doc = open_document(CAT / name)
            assert [seg.source for seg in doc.segments] == sources
            rep = analyze(doc, Lookup(s, None, collection=name, semantic=False))
            rows = {r["band"]: r for r in rep.table()}
            assert rows["not translatable"]["segments"] == skipped
            assert rows["total"]["segments"] == len(sources)
            assert 'not translatable (translate="no"' in rep.to_markdown()


def _langs(name: Path, **kw) -> dict[str, int]:
    """The languages an import gives the segments of one file (``{lang: count}``)."""
    with Store() as s:
        s.import_file(name, "docs", **kw)
        rows = s.conn.execute("SELECT lang, count(*) FROM segments GROUP BY lang").fetchall()
        s.delete_collection("docs")
    return dict(rows)


def test_one_language_per_document_unless_it_is_really_mixed(tmp_path) -> None:
    """French minutes whose short lines read as Walloon or Occitan come in as French, every
    line (with or without the name's hint); a name's tag sets the region and decides a
    short unsure document; a plainly French text named ``_de`` stays French; a document of
    English and German lines stays mixed, each line in its language; ``--lang`` wins."""
    minutes = CAT / "units_minutes.fr.txt"
    assert _langs(minutes) == {"fr": 25}
    plain = shutil.copy(minutes, tmp_path / "minutes.txt")
    assert _langs(Path(plain)) == {"fr": 25}
    wrong = shutil.copy(minutes, tmp_path / "minutes_de.txt")
    assert _langs(Path(wrong)) == {"fr": 25}
    short = tmp_path / "greetings_fr-CA.txt"
    short.write_text("Bon appétit !\nOui, d'accord.\nPas de souci.\n", encoding="utf-8")
    assert _langs(short) == {"fr-CA": 3}
    assert _langs(CAT / "units_mixed_en_de.txt") == {"en": 5, "de": 5}
    assert _langs(plain, langs="fr-BE") == {"fr-BE": 25}
    # the document to translate: its source language the same way
    assert open_document(minutes).src == "fr"
    assert open_document(short).src == "fr-CA"
    import docx

    d = docx.Document()
    for line in ("Die Pumpe ist alt.", "Danke."):
        d.add_paragraph(line)
    brief = tmp_path / "brief_de-AT.docx"
    d.save(str(brief))
    assert open_document(brief).src == "de-AT"
    assert _langs(brief) == {"de-AT": 2}


def test_a_sentence_gets_no_semantic_fill_from_a_paragraph_unit(store, tiny_static_model) -> None:
    """Trados segmented the job into sentences; the memory holds paragraphs. A sentence is
    close in meaning to the paragraph it opens, but the paragraph's translation is no
    translation of it: the semantic band takes units of the segment's kind only."""
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder

    enc = load_encoder(str(tiny_static_model))
    build_index(store, enc, "para")
    doc = open_document(CAT / "units_trados_sentences.sdlxliff")
    rep = analyze(doc, Lookup(store, enc, collection="para"), threshold=0.0)
    assert rep.segments[0].source == "Pumps have been paused for 5 minutes."
    sources = {r.semantic.source for r in rep.segments if r.semantic is not None}
    assert sources <= {"Settings"}
    # the job's paragraph units do get paragraph matches
    doc, rep = _analyze(store, "units_okapi_paragraphs.xlf", "para")
    assert rep.segments[0].best.source.startswith("Pumps have been paused for 5 minutes. ")


def test_text_and_docx_paragraphs_a_paragraph_memory_holds_are_one_segment(store, tmp_path) -> None:
    """A Markdown or DOCX document opens as sentences; against OmegaT's paragraph memory a
    paragraph it holds word for word becomes one 100 % segment and is written whole, a new
    one stays in sentences; against the sentence memory nothing is merged."""
    doc, rep = _analyze(store, "units_manual.md", "para")
    assert [(s.key, r.band) for s, r in zip(doc.segments, rep.segments, strict=True)] == [
        ("line 1.1", "no match"), ("line 3", "100%"), ("line 5", "100%"),
        ("line 6.1", "no match"), ("line 6.2", "no match"),
    ]  # fmt: skip
    pretranslate(doc, rep)
    text = doc.save(tmp_path / "manual.de.md").read_text(encoding="utf-8")
    assert "\n- Der Alarm ertönt, wenn der Akku schwach ist. Ersetzen Sie den Akku" in text
    assert "\n- Store the device in a dry place." in text
    _, rep = _analyze(store, "units_manual.md", "sent")
    bands = [r.band.replace("101%", "100%") for r in rep.segments]  # 101: the same neighbours
    assert bands == ["no match"] + ["100%"] * 4 + ["no match"] * 2
    import docx

    d = docx.Document()
    d.add_paragraph("Clean the filter every week. A dirty filter reduces the flow rate.")
    d.add_paragraph("Keep the lid closed. Check it daily.")
    path = tmp_path / "care_en.docx"
    d.save(str(path))
    doc = open_document(path, tgt="de")
    assert len(doc.segments) == 4
    rep = analyze(doc, Lookup(store, None, collection="para", semantic=False))
    assert [r.band for r in rep.segments] == ["100%", "no match", "no match"]
    pretranslate(doc, rep)
    out = docx.Document(str(doc.save(tmp_path / "care_de.docx")))
    assert out.paragraphs[0].text.startswith("Reinigen Sie den Filter jede Woche. Ein ")
    assert len(open_document(path, segment="never").segments) == 2
