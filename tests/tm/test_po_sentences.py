"""PO entries are looked up whole first and split into sentences where the whole entry has
no good match, as XLIFF units are (``--segment auto|never|always``): on a catalogue written
the way gettext and Weblate write one (``tests/fixtures/cat/po_app.de.po``) against a
sentence memory (``po_sentences.tmx``)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import polib
import pytest
from lxml import etree

from xlsearch.cli import main
from xlsearch.engine.store import Store
from xlsearch.engine.tm.analysis.analyze import analyze
from xlsearch.engine.tm.analysis.pretranslate import pretranslate
from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.matching.lookup import Lookup

CAT = Path(__file__).resolve().parents[1] / "fixtures" / "cat"
JOB = CAT / "po_app.de.po"
SESSION = "Your session has expired. Please sign in again."
DEVICE = (
    "Do not disconnect the device while the update is running. Contact your administrator "
    "if the problem persists."
)


@pytest.fixture()
def job(tmp_path: Path) -> Path:
    with Store() as s:
        s.import_file(CAT / "po_sentences.tmx", "sent")
    path = tmp_path / "app.po"
    shutil.copy(JOB, path)
    return path


def _analyze_cli(job: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    argv = ["analyze", str(job), "-c", "sent", "--fuzzy-only", "-q", "--json", *extra]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _by_source(report: dict) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {}
    for s in report["segments"]:
        out.setdefault(s["source"], []).append((s["band"], s["fuzzy"]))
    return out


def _entries(path: Path) -> dict[tuple[str | None, str], polib.POEntry]:
    return {(e.msgctxt, e.msgid): e for e in polib.pofile(str(path))}


def test_an_entry_of_two_sentences_is_two_100_matches_and_written_joined(
    job: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The entry that was one 50-74 % segment left empty is two 100 % sentences, written
    as one msgstr; the catalogue is otherwise as gettext wrote it."""
    out = tmp_path / "out.po"
    report = _analyze_cli(job, capsys, "--out", str(out))
    found = _by_source(report)
    assert found["Your session has expired."] == [("100%", 100)]
    # between the same two sentences as in the memory: an in-context (101 %) match
    assert found["Please sign in again."] == [("101%", 101), ("repetitions", 0)]
    assert SESSION not in found
    assert found["Settings"] == [("100%", 100)]  # one sentence: as it was
    entries = _entries(out)
    session = entries[("auth", SESSION)]
    assert session.msgstr == "Ihre Sitzung ist abgelaufen. Bitte melden Sie sich erneut an."
    # marked for review as every target xlsearch writes; a 100 % needs no "#| msgid"
    assert session.flags == ["fuzzy"] and session.previous_msgid is None
    # each sentence's figure as the report gives it (the second one in context: 101 %)
    assert session.tcomment == (
        "xlsearch: sentences: fuzzy match 100% · fuzzy match 101%, needs review"
    )
    assert session.comment == "TRANSLATORS: shown when the login cookie is too old"
    assert session.occurrences == [("tasklist/auth/views.py", "88")]
    # a placeholder of the msgid survives, in the sentence that has it
    upload = entries[(None, "The upload was cancelled. %(count)s files were not saved.")]
    assert (
        upload.msgstr == "Der Upload wurde abgebrochen. %(count)s Dateien wurden nicht gespeichert."
    )
    assert upload.flags == ["fuzzy", "python-format"]  # as gettext orders them
    # a long msgid wrapped over several lines: the joined targets, wrapped as polib wraps
    device = entries[(None, DEVICE)]
    assert device.msgstr == (
        "Trennen Sie das Gerät nicht, während das Update läuft. Wenden Sie sich an Ihren "
        "Administrator, wenn das Problem weiterhin besteht."
    )
    text = out.read_text(encoding="utf-8")
    assert (
        'msgid ""\n"Do not disconnect the device while the update is running. Contact your "\n'
        '"administrator if the problem persists."\n' in text
    )
    # the line breaks between and after the sentences stay where the msgid has them
    lines = entries[(None, "The upload was cancelled.\nPlease sign in again.\n")]
    assert lines.msgstr == "Der Upload wurde abgebrochen.\nBitte melden Sie sich erneut an.\n"
    assert lines.flags == ["fuzzy", "no-wrap"]
    if shutil.which("msgfmt"):  # gettext's own check: formats, line breaks, header
        done = subprocess.run(
            ["msgfmt", "--check", "-o", "/dev/null", str(out)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr


def test_an_entry_is_written_only_when_every_sentence_may_be(
    job: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One msgstr for the whole entry: a sentence without a match, or with a match that gets
    the placeholder wrong, leaves the entry empty; existing, plural and obsolete entries
    stay as they were; reading the file again gives the same entries."""
    out = tmp_path / "out.po"
    report = _analyze_cli(job, capsys, "--out", str(out))
    found = _by_source(report)
    assert found["Check your connection."] == [("no match", 0)]
    assert found["Task {name} was moved."] == [("75-84%", 80)]  # {title} in the memory
    assert found["Undo?"] == [("100%", 100)]
    entries = _entries(out)
    assert entries[(None, "The upload was cancelled. Check your connection.")].msgstr == ""
    task = entries[(None, "Task {name} was moved. Undo?")]
    assert task.msgstr == "" and task.flags == ["python-brace-format"] and not task.tcomment
    # plural entries stay whole: one segment, its forms untouched
    plural = "You have %(count)s new message. Open the inbox to read it."
    assert found[plural] == [("no match", 0)]
    assert entries[(None, plural)].msgstr_plural == {0: "", 1: ""}
    # the translator's confirmed msgstr and an old fuzzy one with its "#| msgid" are kept
    done = entries[(None, "Your changes were saved. The upload was cancelled.")]
    assert done.msgstr == "Ihre Änderungen wurden gespeichert. Der Upload wurde abgebrochen."
    assert not done.fuzzy
    old = entries[(None, "Your changes were saved. Reload the page to see them.")]
    assert old.msgstr == "Ihre Änderungen wurden gespeichert."
    assert old.fuzzy and old.previous_msgid == "Your changes were saved."
    # the same entries as before, in the same order, the header and the obsolete one too
    before, after = polib.pofile(str(job)), polib.pofile(str(out))
    assert after.metadata == before.metadata
    keep = [
        (e.msgctxt, e.msgid, e.msgid_plural, e.occurrences, e.comment, e.obsolete) for e in before
    ]
    assert [
        (e.msgctxt, e.msgid, e.msgid_plural, e.occurrences, e.comment, e.obsolete) for e in after
    ] == keep
    assert [e.msgid for e in after.obsolete_entries()] == ["Old obsolete string. It is gone."]
    assert [[f for f in e.flags if f != "fuzzy"] for e in after] == [
        [f for f in e.flags if f != "fuzzy"] for e in before
    ]


def test_segment_never_keeps_entries_whole_and_always_splits_each(
    job: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``never``: the two-sentence entry is one 50-74 % segment, as before; ``always``
    splits even the entry the memory holds whole (then no 100 %: its sentences are found
    inside the memory's entry, 99 % at best); ``auto`` keeps that one whole. Plural entries
    stay whole in every mode."""
    cache = "Clear the cache. Then restart the app."
    plural = "You have %(count)s new message. Open the inbox to read it."
    auto = _by_source(_analyze_cli(job, capsys))
    assert auto[cache] == [("100%", 100)]
    never = _by_source(_analyze_cli(job, capsys, "--segment", "never"))
    assert never[SESSION] == [("50-74%", 50)]
    assert "Your session has expired." not in never
    assert never[cache] == [("100%", 100)]
    always = _by_source(_analyze_cli(job, capsys, "--segment", "always"))
    assert always["Clear the cache."] == [("95-99%", 99)]  # inside the memory's whole entry
    assert always["Your session has expired."] == [("100%", 100)]
    assert cache not in always
    for found in (auto, never, always):
        assert found[plural] == [("no match", 0)]


def test_the_engine_fills_split_entries_all_or_none(job: Path, tmp_path: Path) -> None:
    """``analyze`` then ``pretranslate``: sentences counted in the bands; the sentences of
    an entry with one unmatched sentence are not filled (nor counted as filled)."""
    doc = open_document(job)
    assert len(doc.segments) == 11  # entries, whole, the header and obsolete one left out
    with Store() as store:
        rep = analyze(doc, Lookup(store, None, collection="sent", semantic=False))
    assert len(doc.segments) == 17
    keys = [s.key for s in doc.segments]
    assert keys[1:3] == [f"auth\x04{SESSION}/1", f"auth\x04{SESSION}/2"]
    bands = {r["band"]: r["segments"] for r in rep.table()}
    assert bands["100%"] + bands["101%"] == 9 and bands["repetitions"] == 3
    split = doc.written_whole()
    assert (1, 2) in split and len(split) == 6
    filled = pretranslate(doc, rep)
    assert filled == 10  # 1 + 2 + 2 + 2 + 2 (repetitions) + 1: no sentence of the rest
    connection = next(s for s in doc.segments if s.source == "Check your connection.")
    first = doc.segments[connection.index - 1]
    assert (first.source, first.target, first.changed) == ("The upload was cancelled.", "", False)
    saved = _entries(doc.save(tmp_path / "engine.po"))
    assert saved[("auth", SESSION)].msgstr.startswith("Ihre Sitzung ist abgelaufen. Bitte")


def test_confirming_and_editing_sentences_of_an_entry(job: Path, tmp_path: Path) -> None:
    """As in the Translate screen: the entry loses ``fuzzy`` when every sentence is
    confirmed; a sentence left without a target keeps its source text in the msgstr, the
    entry ``fuzzy`` with a comment saying so."""
    doc = open_document(job, segment="always")
    first = next(s.index for s in doc.segments if s.source == "Your session has expired.")
    doc.set_target(first, "Sitzung abgelaufen.")
    doc.set_target(first + 1, "Bitte neu anmelden.", quality=87, origin="fuzzy",
                   match_source="Please sign in.")  # fmt: skip
    entry = _entries(doc.save(tmp_path / "a.po"))[("auth", SESSION)]
    assert entry.msgstr == "Sitzung abgelaufen. Bitte neu anmelden." and entry.fuzzy
    assert entry.previous_msgid == "Your session has expired. Please sign in."
    assert entry.tcomment == "xlsearch: sentences: edited · fuzzy match 87%, needs review"
    doc.confirm(first)
    doc.confirm(first + 1)
    entry = _entries(doc.save(tmp_path / "b.po"))[("auth", SESSION)]
    assert not entry.fuzzy and entry.previous_msgid is None and not entry.tcomment
    cache = next(s.index for s in doc.segments if s.source == "Clear the cache.")
    doc.set_target(cache, "Leeren Sie den Cache.")
    entry = _entries(doc.save(tmp_path / "c.po"))[(None, "Clear the cache. Then restart the app.")]
    assert entry.msgstr == "Leeren Sie den Cache. Then restart the app." and entry.fuzzy
    assert entry.tcomment == (
        "xlsearch: sentences: edited · no target (source text kept), needs review"
    )


def test_sentences_of_a_japanese_msgstr_are_joined_without_a_space(
    job: Path, tmp_path: Path
) -> None:
    """Into Japanese the sentences follow each other without the msgid's space."""
    ja = tmp_path / "app.ja.po"
    ja.write_text(
        job.read_text(encoding="utf-8").replace('"Language: de\\n"', '"Language: ja\\n"'),
        encoding="utf-8",
    )
    doc = open_document(ja)
    with Store() as store:
        rep = analyze(doc, Lookup(store, None, collection="sent", semantic=False))
    pretranslate(doc, rep)
    device = _entries(doc.save(tmp_path / "out.ja.po"))[(None, DEVICE)]
    assert device.msgstr == (
        "アップデート中はデバイスを切断しないでください。問題が解決しない場合は、管理者に連絡してください。"
    )


def test_what_surrounds_the_sentences_is_kept_as_the_msgid_has_it(tmp_path: Path) -> None:
    """Line breaks around the sentences and a tab inside one stay as the msgid has them (in
    the msgstr and for a sentence left in the source language); a 100 % match writes no
    ``#| msgid``."""
    path = tmp_path / "cli.po"
    path.write_text(
        'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "\\nPress\\tEnter. Then wait.\\n"\nmsgstr ""\n',
        encoding="utf-8",
    )
    doc = open_document(path, segment="always")
    assert [s.source for s in doc.segments] == ["Press Enter.", "Then wait."]
    doc.set_target(1, "Dann warten.", quality=100, origin="fuzzy", match_source="Then wait.")
    entry = polib.pofile(str(doc.save(tmp_path / "out.po")))[0]
    assert entry.msgstr == "\nPress\tEnter. Dann warten.\n"
    assert entry.previous_msgid is None and entry.fuzzy


XLIFF12 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
 <file original="app.properties" source-language="en-US" target-language="{tgt}"
  datatype="javapropertyresourcebundle"><body>
  <trans-unit id="update.warning" resname="update.warning">
   <source>{text}</source>
  </trans-unit>
 </body></file>
</xliff>
"""
XLIFF20 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en-US"
 trgLang="{tgt}"><file id="f1"><unit id="update.warning">
  <segment><source>{text}</source></segment>
 </unit></file></xliff>
"""


@pytest.mark.parametrize("template", [XLIFF12, XLIFF20], ids=["xliff12", "xliff20"])
def test_split_xliff_units_into_japanese_have_no_space_between_sentences(
    job: Path, tmp_path: Path, template: str
) -> None:
    """A unit of two sentences, each 100 % in the memory: into Japanese the written target
    runs the sentences together (a CAT tool merges 1.2 ``mrk``s and their tails, or 2.0
    segments and their ``ignorable``s); into German the source's space stays."""
    from xlsearch.engine.tm.documents.xliff_text import element_text

    text = "Do not disconnect the device while the update is running. " + (
        "Contact your administrator if the problem persists."
    )
    written = {}
    for tgt in ("ja-JP", "de-DE"):
        path = tmp_path / f"job.{tgt}.xlf"
        path.write_text(template.format(tgt=tgt, text=text), encoding="utf-8")
        doc = open_document(path)
        with Store() as store:
            rep = analyze(doc, Lookup(store, None, collection="sent", semantic=False))
        assert [r.band for r in rep.segments] == ["100%", "100%"]
        assert pretranslate(doc, rep) == 2
        root = etree.parse(str(doc.save(tmp_path / f"out.{tgt}.xlf"))).getroot()
        if template is XLIFF12:
            written[tgt] = element_text(root.find(".//{*}trans-unit/{*}target"))[0]
        else:  # what a merger writes: each segment's target, each ignorable's target or source
            parts = []
            for e in root.iter():
                name = etree.QName(e).localname
                if name == "segment" and e.getparent().tag.endswith("unit"):
                    parts.append("".join(e.find("{*}target").itertext()))
                elif name == "ignorable":
                    inner = e.find("{*}target")
                    parts.append((inner if inner is not None else e.find("{*}source")).text or "")
            written[tgt] = "".join(parts)
    assert written["ja-JP"] == (
        "アップデート中はデバイスを切断しないでください。問題が解決しない場合は、管理者に連絡してください。"
    )
    assert written["de-DE"] == (
        "Trennen Sie das Gerät nicht, während das Update läuft. Wenden Sie sich an Ihren "
        "Administrator, wenn das Problem weiterhin besteht."
    )
