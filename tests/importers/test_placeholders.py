"""Placeholders of software strings are text of the segment, whether a CAT tool wrapped them
in an inline code (TMX ``<ph>%{email}</ph>``, memoQ ``mq:rxt``, XLIFF ``equiv-text``/
``equiv``) or not; a match whose target gets them wrong is never written as a translation.
The CAT files are the newcomer trial's (tests/fixtures/cat/nc_*)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers.faults import xlsearch
from lxml import etree

from xlsearch.engine.importers.base import ReadContext
from xlsearch.engine.importers.inline import segment_text_tags
from xlsearch.engine.importers.placeholders import code_placeholder
from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.matching import fuzzy as fz

CAT = Path(__file__).resolve().parents[1] / "fixtures" / "cat"
N12 = "urn:oasis:names:tc:xliff:document:1.2"
BROKEN = ("größer als MB", "Bestätigungslink an gesendet", "an  gesendet")


def _texts(store, collection: str) -> set[str]:  # type: ignore[no-untyped-def]
    rows = store.conn.execute(
        "SELECT s.text FROM segments s JOIN documents d ON d.id = s.document_id "
        "JOIN collections c ON c.id = d.collection_id WHERE c.name = ?",
        (collection,),
    ).fetchall()
    return {r[0] for r in rows}


def test_import_keeps_the_placeholders_of_tmx_memoq_and_xliff_codes() -> None:
    from xlsearch.engine.store import Store

    with Store() as store:
        store.import_file(CAT / "nc_memory.tmx", "acme")
        store.import_file(CAT / "nc_ui_strings.mqxliff", "ui")
        store.import_file(CAT / "nc_cms_job.xlf", "cms")
        acme, ui, cms = (_texts(store, c) for c in ("acme", "ui", "cms"))
    assert "We sent a confirmation link to %{target_email}." in acme
    assert "Wir haben einen Bestätigungslink an %{target_email} gesendet." in acme
    assert "Upload failed: the file is larger than {max_size} MB." in acme
    assert "Hochladen fehlgeschlagen: Die Datei ist größer als {max_size} MB." in acme
    assert "Click Save to keep your changes." in acme  # bold stays a code: no "<b>" in text
    assert "The password must contain at least {{min}} characters." in ui  # memoQ mq:rxt
    assert "Upload failed: the file is larger than %{max_size} MB." in ui
    assert "We sent a confirmation link to %{target_email}." in cms
    assert not [t for t in acme | ui | cms if "than MB" in t or "to ." in t or "least char" in t]


@pytest.mark.parametrize(
    ("seg", "text"),
    [
        ('Hello <ph x="1">{{user}}</ph>!', "Hello {{user}}!"),
        ('Hello <ph x="1">%s</ph>!', "Hello %s!"),
        ('Hello <ph x="1">%1$s</ph>, <ph x="2">%2$d</ph> new', "Hello %1$s, %2$d new"),
        ('Hi <ph x="1">$name</ph>.', "Hi $name."),
        ('Hi <x id="1" equiv-text="{0}"/>.', "Hi {0}."),  # XLIFF 1.2 / Okapi
        ('Hi <ph id="1" equiv="%(name)s" disp="%(name)s"/>.', "Hi %(name)s."),  # XLIFF 2.x
        ("<ph>&lt;mq:rxt-req displaytext=\"{n}\" val=\"{n}\"/&gt;</ph> files", "{n} files"),
        # formatting codes keep today's handling: dropped, or a space for a break
        ('Line<ph x="1">&lt;br/&gt;</ph>two', "Line two"),
        ('An <ph x="1">&lt;img src="a.png"/&gt;</ph> icon', "An icon"),
        ('Press <bpt i="1">{</bpt>OK<ept i="1">}</ept>', "Press OK"),
        ('Not one <ph x="1">{a} and {b}</ph>', "Not one"),
    ],
)  # fmt: skip
def test_a_code_is_its_placeholder_only_when_it_stands_for_one(seg: str, text: str) -> None:
    node = ET.fromstring(f"<seg>{seg}</seg>")
    assert segment_text_tags(ReadContext(Path("m.tmx")), node, "tu 1")[0] == text


def test_a_placeholder_code_is_not_a_tag_but_is_kept_for_a_tmx_export() -> None:
    node = ET.fromstring(
        '<seg>Size <bpt i="1">&lt;b&gt;</bpt>{max}<ept i="1">&lt;/b&gt;</ept></seg>'
    )
    text, tags = segment_text_tags(ReadContext(Path("m.tmx")), node, "tu 1")
    assert text == "Size {max}" and [t[1] for t in tags or []] == ["open", "close"]
    node = ET.fromstring('<seg>Size <ph x="4">{max}</ph> MB</seg>')
    text, tags = segment_text_tags(ReadContext(Path("m.tmx")), node, "tu 1", keep_xml=True)
    assert (text, tags) == ("Size {max} MB", [[5, "text", "{max}", 0, '<ph x="4">{max}</ph>']])
    assert code_placeholder(ET.fromstring('<bpt i="1">{max}</bpt>')) == ""  # paired: formatting


def test_placeholder_problem_names_missing_and_extra_placeholders() -> None:
    assert fz.placeholder_problem("to %{email}.", "an %{email} gesendet.") == ""
    assert fz.placeholder_problem("than {max_size} MB.", "als MB.") == (
        "placeholders in target: missing {max_size} · extra —"
    )
    assert fz.placeholder_problem("to %(email)s.", "an %{email}.") == (
        "placeholders in target: missing %(email)s · extra %{email}"
    )
    assert fz.placeholder_problem("{n} of {n}", "{n} von") != ""  # counted, not only seen
    assert fz.placeholder_problem("Hello $name", "Hallo $name") == ""


def test_lookup_finds_the_100_percent_match_for_a_job_with_the_placeholder_as_text() -> None:
    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.matching.lookup import Lookup

    with Store() as store:
        store.import_file(CAT / "nc_memory.tmx", "acme")
        lookup = Lookup(store, None, collection="acme", semantic=False)
        found = lookup.lookup("Upload failed: the file is larger than {max_size} MB.", "en", "de")
    best = found.matches[0]
    assert best.fuzzy == 100
    assert best.target == "Hochladen fehlgeschlagen: Die Datei ist größer als {max_size} MB."
    assert not best.flags


def _memory(tmp_path: Path) -> Path:
    """A memory of a software project: placeholders in memoQ's and Okapi's codes, and one
    unit whose target lost its placeholder (an old, wrong translation)."""
    path = tmp_path / "ui.tmx"
    path.write_text(
        """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="memoQ" creationtoolversion="9" o-tmf="memoQTM"
 datatype="plaintext" segtype="sentence" adminlang="en-US" srclang="en-US"/><body>
<tu><tuv xml:lang="en-US"><seg>The password must contain at least <ph x="1">{{min}}</ph>
 characters.</seg></tuv>
<tuv xml:lang="de-DE"><seg>Das Passwort muss mindestens <ph x="1">{{min}}</ph> Zeichen
 enthalten.</seg></tuv></tu>
<tu><tuv xml:lang="en-US"><seg>Thank you for your order!</seg></tuv>
<tuv xml:lang="de-DE"><seg>Vielen Dank für <ph x="1">{name}</ph> Bestellung!</seg></tuv></tu>
</body></tmx>
""",
        encoding="utf-8",
    )
    return path


def test_a_memoq_job_gets_its_placeholder_code_back_in_the_target(tmp_path: Path) -> None:
    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.analysis.analyze import analyze
    from xlsearch.engine.tm.analysis.pretranslate import pretranslate
    from xlsearch.engine.tm.matching.lookup import Lookup

    doc = open_document(CAT / "nc_ui_strings.mqxliff")
    # the Translate screen's source pane shows the segment's source: the placeholder in it
    assert doc.segments[1].source == "The password must contain at least {{min}} characters."
    with Store() as store:
        store.import_file(_memory(tmp_path), "ui")
        lookup = Lookup(store, None, collection="ui", semantic=False)
        analysis = analyze(doc, lookup)
        pretranslate(doc, analysis)
        out = doc.save(tmp_path / "ui.de.mqxliff")
    by_id = {r.source: r for r in analysis.segments}
    assert by_id["The password must contain at least {{min}} characters."].fuzzy == 100
    thanks = by_id["Thank you for your order!"]  # 100 %, but its target has a placeholder more
    assert thanks.fuzzy == 100 and thanks.best is not None
    assert "placeholders in target: missing — · extra {name}" in thanks.best.flags
    report = analysis.to_markdown()
    assert "## Matches that get the placeholders wrong (suggestions only)" in report
    assert (
        "- **Thank you for your order!** (100 %): placeholders in target: missing — · extra {name}"
        in report
    )
    root = etree.parse(str(out)).getroot()
    units = {u.get("id"): u for u in root.iter(f"{{{N12}}}trans-unit")}
    target = units["2"].find(f"{{{N12}}}target")
    assert target is not None and [c.tag.split("}")[1] for c in target] == ["ph"]
    assert target.text == "Das Passwort muss mindestens "
    assert target[0].text == '<mq:rxt displaytext="{{min}}" val="{{min}}" />'
    assert target[0].tail == " Zeichen enthalten."
    assert not "".join(units["6"].find(f"{{{N12}}}target").itertext())  # a suggestion only
    again = open_document(out)
    assert again.segments[1].target == "Das Passwort muss mindestens {{min}} Zeichen enthalten."


def test_analyze_out_never_writes_a_target_without_its_placeholder(tmp_path: Path) -> None:
    """The trial's CLI path, in fresh processes: import the memory, analyse the XLIFF job
    and the PO file with ``--out``, export TSV and TMX."""
    home = tmp_path / "home"
    done = xlsearch("import", str(CAT / "nc_memory.tmx"), "--collection", "acme", home=home)
    assert done.returncode == 0, done.stderr
    xlf, po, report = tmp_path / "job.de.xlf", tmp_path / "portal.de.po", tmp_path / "po.json"
    for job, out, extra in (
        ("nc_cms_job.xlf", xlf, []),
        ("nc_portal.de.po", po, ["--report", str(report)]),
    ):
        done = xlsearch(
            "analyze", str(CAT / job), "--collection", "acme", "--fuzzy-only", "--out",
            str(out), "-q", *extra, home=home,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    written = xlf.read_text(encoding="utf-8") + po.read_text(encoding="utf-8")
    assert not [b for b in BROKEN if b in written]
    # the plain-text job: the 100 % match, with its placeholder
    units = {u.get("id"): u for u in etree.parse(str(xlf)).getroot().iter(f"{{{N12}}}trans-unit")}
    target = units["42-body-8"].find(f"{{{N12}}}target")
    assert target is not None and target.get("state-qualifier") == "exact-match"
    assert target.text == "Hochladen fehlgeschlagen: Die Datei ist größer als {max_size} MB."
    # the job's own code: the target takes it where the memory's placeholder stood
    target = units["42-body-3"].find(f"{{{N12}}}target")
    assert target is not None and target.get("state-qualifier") == "exact-match"
    assert target.text == "Wir haben einen Bestätigungslink an " and len(target) == 1
    assert target[0].get("ctype") == "x-placeholder" and target[0].text == "%{target_email}"
    # PO python-format: the memory's %{target_email} is not the msgid's %(target_email)s
    import polib

    entries = {e.msgid: e for e in polib.pofile(str(po))}
    assert entries["We sent a confirmation link to %(target_email)s."].msgstr == ""
    assert entries["Your session has expired. Please sign in again."].msgstr  # others filled
    rows = {s["source"]: s for s in json.loads(report.read_text(encoding="utf-8"))["segments"]}
    flags = rows["We sent a confirmation link to %(target_email)s."]["best"]["flags"]
    assert "placeholders in target: missing %(target_email)s · extra %{target_email}" in flags
    # exports: the placeholder is in the distillation data, and a TMX keeps its code
    tsv, tmx = tmp_path / "acme.tsv", tmp_path / "acme.tmx"
    for out in (tsv, tmx):
        done = xlsearch("export", "--collection", "acme", "--lang", "en,de", str(out), home=home)
        assert done.returncode == 0, done.stderr
    lines = tsv.read_text(encoding="utf-8").splitlines()
    assert (
        "Upload failed: the file is larger than {max_size} MB.\t"
        "Hochladen fehlgeschlagen: Die Datei ist größer als {max_size} MB." in lines
    )
    assert (
        "We sent a confirmation link to %{target_email}.\t"
        "Wir haben einen Bestätigungslink an %{target_email} gesendet." in lines
    )
    exported = tmx.read_text(encoding="utf-8")
    assert 'Die Datei ist größer als <ph x="1">{max_size}</ph> MB.' in exported
    assert "{max_size}</ph>{max_size}" not in exported


def test_a_semantic_fill_without_the_placeholder_stays_a_suggestion(tmp_path: Path) -> None:
    """The calibrated semantic fill obeys the same check: flagged, and not written."""
    from xlsearch.engine.tm.analysis.fill import check_placeholders
    from xlsearch.engine.tm.analysis.pretranslate import pretranslate
    from xlsearch.engine.tm.analysis.results import SegmentResult
    from xlsearch.engine.tm.documents import DocSegment, Document
    from xlsearch.engine.tm.matching.matches import Match

    source = "The upload is bigger than {max_size} MB."

    def result() -> SegmentResult:
        m = Match(1, "The file exceeds the limit.", "en", "Die Datei ist zu groß.", "de", 40,
                  0.93, 0.9)  # fmt: skip
        return SegmentResult(0, source, 8, "no match", 40, 0.93, semantic=m, fill=True)

    res = check_placeholders(result())
    assert res.fill is False and res.semantic is not None
    assert res.semantic.flags == ["placeholders in target: missing {max_size} · extra —"]
    doc = Document(tmp_path / "x.txt", "text", "en", "de", [DocSegment(0, "1", source, "")])
    analysis = type("A", (), {"segments": [result()]})()  # fill still on: pretranslate checks
    assert pretranslate(doc, analysis) == 0 and doc.segments[0].target == ""


def test_a_memory_imported_before_reads_its_placeholders_when_imported_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A memory stored by an older xlsearch (placeholder codes dropped) is read again when
    the unchanged file is imported again."""
    from xlsearch.engine.importers import inline
    from xlsearch.engine.store import Store, ingest

    with Store() as store, monkeypatch.context() as old:  # the previous reader
        old.setattr(inline, "code_placeholder", lambda node: "")
        old.setattr(ingest, "READER_VERSION", 3)  # the last one that dropped placeholders
        store.import_file(CAT / "nc_memory.tmx", "acme")
        assert "Upload failed: the file is larger than MB." in _texts(store, "acme")
    with Store() as store:
        assert store.import_file(CAT / "nc_memory.tmx", "acme").status == "updated"
        texts = _texts(store, "acme")
    assert "Upload failed: the file is larger than {max_size} MB." in texts
    assert "Upload failed: the file is larger than MB." not in texts
