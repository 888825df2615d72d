"""Context and consistency on real PO catalogues: msgctxt makes 101 %, another context is
not 100 %, short strings from another context and translator credits are never written,
and one source translated several ways is chosen by context, then use count."""

from __future__ import annotations

import json
from pathlib import Path

import polib
import pytest

from xlsearch.engine.store import Store
from xlsearch.engine.tm.analysis.analyze import analyze
from xlsearch.engine.tm.analysis.pretranslate import pretranslate
from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.matching.lookup import Lookup

HEAD = 'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"X-Source-Language: en\\n"\n\n'


def _po(path: Path, entries: list[tuple[str | None, str, str]]) -> Path:
    body = ""
    for ctx, src, tgt in entries:
        body += (f'msgctxt "{ctx}"\n' if ctx else "") + f'msgid "{src}"\nmsgstr "{tgt}"\n\n'
    path.write_text(HEAD + body, encoding="utf-8")
    return path


def test_context_decides_what_is_written(tmp_path: Path) -> None:
    mem = [
        ("calendar tuesday", "T", "M"),  # weekday initials: "T" is Mardi here
        ("calendar thursday", "T", "J"),
        (None, "translator-credits", "Jean Dupont <jean@example.org>"),
        (None, "_Cancel", "_Annuler"),
        (None, "_Cancel", "A_nnuler"),
        (None, "_Cancel", "A_nnuler"),
        ("toolbar", "Open", "Ouvrir le fichier"),
        (None, "Open", "Ouvrir"),
    ]
    job = [
        ("grid thursday", "T", ""),
        ("calendar thursday", "T", ""),
        (None, "translator-credits", ""),
        (None, "_Cancel", ""),
        ("toolbar", "Open", ""),
    ]
    with Store(tmp_path / "s.db") as store:
        store.import_file(_po(tmp_path / "mem.po", mem), "mem")
        doc = open_document(_po(tmp_path / "job.po", job))
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
        pretranslate(doc, rep)
        out = doc.save(tmp_path / "out.po")
    got = {(e.msgctxt, e.msgid): e.msgstr for e in polib.pofile(str(out))}
    by = {(s.index, s.source): s for s in rep.segments}
    # another context: not 100 %, and a short string is only a suggestion
    assert by[(0, "T")].fuzzy == 99 and got[("grid thursday", "T")] == ""
    assert any("another context" in f for f in by[(0, "T")].best.flags)
    # the same context: 101 %, ranked first, written
    assert by[(1, "T")].band == "101%" and got[("calendar thursday", "T")] == "J"
    # another project's translators are never leveraged
    assert got[(None, "translator-credits")] == ""
    # several translations: the most used one, the other listed with its count
    assert got[(None, "_Cancel")] == "A_nnuler"
    assert any("'_Annuler' ×1" in f for f in by[(3, "_Cancel")].best.flags)
    assert rep.to_dict()["several_translations"] >= 1
    # the same context beats the translation without one
    assert got[("toolbar", "Open")] == "Ouvrir le fichier"


def test_the_po_comment_of_a_context_match_says_101_as_the_report_does(tmp_path: Path) -> None:
    mem = [("door state", "Open", "Ouverte"), ("menu", "Open", "Ouvrir")]
    job = [("door state", "Open", ""), (None, "Open the door", "")]
    with Store(tmp_path / "s.db") as store:
        store.import_file(_po(tmp_path / "mem.po", mem), "mem")
        doc = open_document(_po(tmp_path / "job.po", job))
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
        pretranslate(doc, rep)
        out = doc.save(tmp_path / "out.po")
    assert "- **Open** (101 %): context match: 'door state'" in rep.to_markdown()
    (entry,) = [e for e in polib.pofile(str(out)) if e.msgctxt == "door state"]
    assert entry.msgstr == "Ouverte" and entry.fuzzy
    assert entry.tcomment == (
        "xlsearch: fuzzy match 101%, needs review; context match: 'door state'"
    )


def test_copies_keep_their_contexts(tmp_path: Path) -> None:
    """A unit stored with and without a msgctxt (thunar's `_Cancel`) is one match of two
    copies that keeps both contexts: a job entry with that msgctxt gets the 101 % match,
    not the most used translation."""
    buttons = "Select by Pattern dialog: buttons"
    with Store(tmp_path / "s.db") as store:
        mine = [(None, "_Cancel", "Ann_uler"), (buttons, "_Cancel", "Ann_uler")]
        store.import_file(_po(tmp_path / "thunar.po", mine), "mem")
        for n in range(2):
            store.import_file(_po(tmp_path / f"o{n}.po", [(None, "_Cancel", "_Annuler")]), "mem")
        lk = Lookup(store, None, collection="mem", semantic=False)
        found = lk.lookup("_Cancel", "en", "fr").matches
        assert next(m for m in found if m.target == "Ann_uler").contexts == {"": 1, buttons: 1}
        doc = open_document(_po(tmp_path / "job.po", [(buttons, "_Cancel", "")]))
        rep = analyze(doc, lk)
    seg = rep.segments[0]
    assert seg.band == "101%" and seg.best.target == "Ann_uler"
    assert seg.best.context == buttons
    assert f"context match: {buttons!r}" in seg.best.flags


def _head(project: str) -> str:
    return HEAD.replace('"X-Source', f'"Project-Id-Version: {project} 4.18\\n"\n"X-Source')


def test_the_jobs_project_then_the_same_neighbours_choose_a_translation(tmp_path: Path) -> None:
    """Two modules translate "_Edit" two ways: the job's own project wins over use count
    (and says so); a unit between the same two strings as the job's is a 101 % match,
    ranked above the job's project."""
    apps = tmp_path / "apps.po"
    apps.write_text(
        _head("Xfce Apps")
        + 'msgid "_Edit"\nmsgstr "É_dition"\n\nmsgid "_Copy"\nmsgstr "_Copier"\n\n',
        encoding="utf-8",
    )
    core = tmp_path / "core.po"
    core.write_text(
        _head("Xfce Core")
        + 'msgid "_Edit"\nmsgstr "M_odifier"\n\nmsgid "Ed_it"\nmsgstr "M_odifier"\n\n'
        + 'msgid "Cut"\nmsgstr "Couper"\n\nmsgid "_Copy"\nmsgstr "Co_pier"\n\n'
        + 'msgid "Paste"\nmsgstr "Coller"\n\n',
        encoding="utf-8",
    )
    job = tmp_path / "job.po"
    job.write_text(
        _head("Xfce Apps") + 'msgid "_Edit"\nmsgstr ""\n\n'
        'msgid "Cut"\nmsgstr ""\n\nmsgid "_Copy"\nmsgstr ""\n\nmsgid "Paste"\nmsgstr ""\n\n',
        encoding="utf-8",
    )
    with Store(tmp_path / "s.db") as store:
        store.import_file(apps, "mem")
        store.import_file(core, "mem")
        doc = open_document(job)
        assert doc.project == "Xfce Apps"
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
    edit, _cut, copy, _paste = rep.segments
    assert edit.best is not None and edit.best.target == "É_dition"
    assert any("chosen by project 'Xfce Apps'" in f for f in edit.best.flags)
    assert copy.band == "101%" and copy.best is not None and copy.best.target == "Co_pier"
    assert any(f.startswith("context match: the same neighbours") for f in copy.best.flags)
    assert any("chosen by context" in f for f in copy.best.flags)


def test_xliff_resname_is_the_context_of_a_unit(tmp_path: Path) -> None:
    """XLIFF 1.2 ``resname`` (and a key-like id) is the unit's context, in the memory and
    in the job: the same key is 101 %; the same short text under another key is not
    written."""
    xlf = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n'
        '<file original="app.properties" source-language="en" target-language="fr" '
        'datatype="javapropertyresourcebundle"><body>\n{units}</body></file></xliff>\n'
    )
    unit = (
        '<trans-unit id="{id}" resname="{key}"><source>{s}</source>'
        "<target>{t}</target></trans-unit>\n"
    )
    mem = tmp_path / "mem.xlf"
    mem.write_text(
        xlf.format(
            units=unit.format(id="1", key="day.saturday.initial", s="S", t="S")
            + unit.format(id="2", key="day.sunday.initial", s="S", t="D")
        ),
        encoding="utf-8",
    )
    job = tmp_path / "job.xlf"
    job.write_text(
        xlf.format(
            units=unit.format(id="7", key="day.sunday.initial", s="S", t="")
            + unit.format(id="8", key="size.small", s="S", t="")
        ),
        encoding="utf-8",
    )
    with Store(tmp_path / "s.db") as store:
        store.import_file(mem, "mem")
        doc = open_document(job)
        assert [s.context for s in doc.segments] == ["day.sunday.initial", "size.small"]
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
        pretranslate(doc, rep)
    sunday, small = rep.segments
    assert sunday.band == "101%" and sunday.best is not None and sunday.best.target == "D"
    # the same text under a name the memory does not know: its own match, from another
    # context (99 %), and a short one is not written
    assert small.band == "95-99%" and small.repetition_of is None
    assert doc.segments[1].target == ""
    assert doc.segments[0].target == "D"


def test_lookup_says_which_translation_comes_first_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``xlsearch lookup`` lists the memory's other 100 % translations of the source with
    their counts and the evidence that put the first one first."""
    from xlsearch.cli import main

    mem = [(None, "_Cancel", "_Annuler"), (None, "_Close", "_Fermer")]
    _po(tmp_path / "a.po", mem)
    _po(tmp_path / "b.po", [(None, "_Cancel", "_Annuler")])
    _po(tmp_path / "c.po", [(None, "_Cancel", "A_nnuler")])
    for name in ("a", "b", "c"):
        assert main(["import", str(tmp_path / f"{name}.po"), "-c", "fr-mem", "-q"]) == 0
    capsys.readouterr()
    assert (
        main(["lookup", "_Cancel", "--src", "en", "--tgt", "fr", "-c", "fr-mem", "--fuzzy-only"])
        == 0
    )
    out = capsys.readouterr().out
    assert "fr: _Annuler" in out.splitlines()[2]
    assert "other 100 % translations in the memory: 1 ('A_nnuler' ×1" in out
    assert "chosen by use count" in out


def _xliff(path: Path, units: list[tuple[str, str, str]]) -> Path:
    body = "".join(
        f'<trans-unit id="u{n}" resname="{name}"><source>{src}</source>'
        + (f'<target state="translated">{tgt}</target>' if tgt else "")
        + "</trans-unit>"
        for n, (name, src, tgt) in enumerate(units)
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" '
        'xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="ui" '
        f'source-language="en" target-language="de" datatype="plaintext"><body>{body}'
        "</body></file></xliff>\n",
        encoding="utf-8",
    )
    return path


def test_xliff_copies_keep_their_resnames(tmp_path: Path) -> None:
    """The same for XLIFF 1.2 memories: a copy's resname is its context."""
    with Store(tmp_path / "s.db") as store:
        mem = [("menu.file.open", "Open", "Öffnen"), ("toolbar.open", "Open", "Öffnen")]
        mem += [("door.open", "Open", "Offen"), ("door.state", "Open", "Offen")]
        mem += [("lid.open", "Open", "Offen")]
        store.import_file(_xliff(tmp_path / "mem.xlf", mem), "mem")
        doc = open_document(_xliff(tmp_path / "job.xlf", [("toolbar.open", "Open", "")]))
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
    best = rep.segments[0].best
    assert best is not None and best.fuzzy == 101 and best.target == "Öffnen"
    assert best.context == "toolbar.open"


def _okapi_xliff(path: Path, units: list[tuple[str, str, str]], lang: str = "de") -> Path:
    """An XLIFF 1.2 file as Okapi's XLIFF writer extracts a Java properties file: one
    ``trans-unit`` per key, the key as ``resname``, ``xml:space="preserve"``."""
    body = "".join(
        f'<trans-unit id="{n}" resname="{key}" xml:space="preserve">\n'
        f'<source xml:lang="en">{src}</source>\n'
        + (f'<target xml:lang="{lang}" state="translated">{tgt}</target>\n' if tgt else "")
        + "</trans-unit>\n"
        for n, (key, src, tgt) in enumerate(units, 1)
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" '
        'xmlns="urn:oasis:names:tc:xliff:document:1.2" '
        'xmlns:okp="okapi-framework:xliff-extensions">\n'
        f'<file original="ui.properties" source-language="en" target-language="{lang}" '
        'datatype="x-properties" okp:inputEncoding="UTF-8">\n<body>\n'
        f"{body}</body>\n</file>\n</xliff>\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    "order",
    [
        ["menu.file.open", "status.door.open", "toolbar.open"],
        ["status.door.open", "toolbar.open", "menu.file.open"],
    ],
)
def test_a_text_repeated_under_another_resname_takes_its_own_context_match(
    tmp_path: Path, order: list[str]
) -> None:
    """The same source under several resnames: each unit's own resname chooses its target
    (101 %), in whatever order the units come; a unit whose name the memory does not know
    gets its own ranked match, not the first occurrence's context choice."""
    mem = [
        ("menu.file.open", "Open", "Öffnen"),
        ("status.door.open", "Open", "Offen"),
        ("status.door.open.count", "Open", "Geöffnet"),
    ]
    with Store(tmp_path / "s.db") as store:
        store.import_file(_okapi_xliff(tmp_path / "mem.xlf", mem), "mem")
        job = _okapi_xliff(tmp_path / "job.xlf", [(k, "Open", "") for k in order])
        doc = open_document(job)
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
        pretranslate(doc, rep)
        doc.save(tmp_path / "out.xlf")
    written = {seg.context: seg.target for seg in doc.segments}
    assert written["menu.file.open"] == "Öffnen"
    assert written["status.door.open"] == "Offen"
    by_name = {doc.segments[s.index].context: s for s in rep.segments}
    assert by_name["menu.file.open"].band == by_name["status.door.open"].band == "101%"
    toolbar = by_name["toolbar.open"]
    assert toolbar.repetition_of is None and toolbar.band == "95-99%"
    assert toolbar.best is not None and "new 'toolbar.open'" in toolbar.best.flags[0]
    assert all(s.band != "repetitions" for s in rep.segments)
    saved = (tmp_path / "out.xlf").read_text(encoding="utf-8")
    assert saved.count('state-qualifier="exact-match"') <= 2


def test_a_text_repeated_under_another_resname_is_a_repetition_where_names_do_not_matter(
    tmp_path: Path,
) -> None:
    """Where the memory stores the text under none of the units' names, the second unit
    is a repetition of the first (counted and filled as one)."""
    mem = [("dialog.save", "Save", "Speichern")]
    with Store(tmp_path / "s.db") as store:
        store.import_file(_okapi_xliff(tmp_path / "mem.xlf", mem), "mem")
        job = _okapi_xliff(
            tmp_path / "job.xlf", [("menu.save", "Save", ""), ("tb.save", "Save", "")]
        )
        doc = open_document(job)
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
        pretranslate(doc, rep)
    assert rep.segments[1].band == "repetitions" and rep.segments[1].repetition_of == 0
    assert [s.target for s in doc.segments] == ["Speichern", "Speichern"]


THUNAR_FR = r"""# French translation of Thunar.
# Copyright (C) YEAR Xfce
# This file is distributed under the same license as the thunar.master package.
#
# Translators:
# A Translator <a.translator@example.org>, 2024
#
msgid ""
msgstr ""
"Project-Id-Version: Thunar\n"
"Report-Msgid-Bugs-To: https://gitlab.xfce.org/\n"
"POT-Creation-Date: 2025-01-01 00:00+0100\n"
"PO-Revision-Date: 2013-07-02 20:11+0000\n"
"Last-Translator: A Translator <a.translator@example.org>, 2024\n"
"Language-Team: French (https://app.transifex.com/xfce/teams/16840/fr/)\n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"
"Language: fr\n"
"Plural-Forms: nplurals=3; plural=(n == 0 || n == 1) ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2;\n"

#: thunar/thunar-dialogs.c:120 thunar/thunar-dialogs.c:210
#: thunar/thunar-job-operation.c:77
msgid "_Cancel"
msgstr "_Annuler"

#: thunar/thunar-window.c:4120
msgctxt "Select by Pattern dialog: buttons"
msgid "_Cancel"
msgstr "Ann_uler"

#: thunar/thunar-window.c:4121
msgctxt "Select by Pattern dialog: buttons"
msgid "_Select"
msgstr "_Sélectionner"
"""


def test_lookup_takes_the_segments_msgctxt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lookup --msgctxt`` (``--context``): the unit stored with that context is a 101 %
    match and comes first, chosen by context; without it the plain entry is 100 %."""
    from xlsearch.cli import main

    po = tmp_path / "thunar.fr.po"
    po.write_text(THUNAR_FR, encoding="utf-8")
    assert main(["import", str(po), "-c", "fr-mem", "-q"]) == 0
    capsys.readouterr()
    base = ["lookup", "_Cancel", "--src", "en", "--tgt", "fr", "-c", "fr-mem", "--fuzzy-only"]
    dialog = "Select by Pattern dialog: buttons"
    assert main([*base, "--msgctxt", dialog]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("1. fuzzy 101%")
    assert "fr: Ann_uler" in out.splitlines()[2]
    assert f"context match: '{dialog}'" in out and "chosen by context" in out
    assert main([*base, "--context", dialog, "--json"]) == 0
    best = json.loads(capsys.readouterr().out)["matches"][0]
    assert (best["fuzzy"], best["target"]) == (101, "Ann_uler")
    assert main(base) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("1. fuzzy 100%") and "fr: _Annuler" in out


def test_the_sources_other_forms_count_among_the_uses_of_a_translation(tmp_path: Path) -> None:
    """Two catalogues translate "_Cancel" two ways, once each; three more translate the same
    words without the mnemonic or with a colon one of those ways: that translation is
    written (the most recent import alone would pick the other), and the report says why."""
    cats = {
        "panel": 'msgid "_Cancel"\nmsgstr "О_тменить"\n\n',
        "power": 'msgid "Cancel"\nmsgstr "Отменить"\n\n',
        "session": 'msgid "Cancel"\nmsgstr "Отменить"\n\nmsgid "Cancel:"\nmsgstr "Отменить:"\n\n',
        "terminal": 'msgid "_Cancel"\nmsgstr "_Отмена"\n\nmsgid "Cancel"\nmsgstr "Отмена"\n\n',
    }
    job = tmp_path / "job.po"
    job.write_text(
        _head("Xfdesktop").replace("fr", "ru") + 'msgid "_Cancel"\nmsgstr ""\n\n', encoding="utf-8"
    )
    with Store(tmp_path / "s.db") as store:
        for name, body in cats.items():  # "terminal", with "_Отмена", imported last
            path = tmp_path / f"{name}.ru.po"
            path.write_text(_head(name.title()).replace("fr", "ru") + body, encoding="utf-8")
            store.import_file(path, "mem")
        doc = open_document(job)
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
        pretranslate(doc, rep)
    best = rep.segments[0].best
    assert best is not None and best.target == "О_тменить" and best.form_uses == 4
    assert doc.segments[0].target == "О_тменить"
    flag = next(f for f in best.flags if "other 100 % translations" in f)
    assert "'_Отмена' ×1" in flag
    assert "chosen by use count with the source's other forms: these words ×4" in flag


def test_lookup_stdin_json_lines_carry_each_segments_msgctxt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``lookup --stdin --stdin-json``: a CAT hook gives each line's context; a line that
    is not such an object gets its error and the next lines are answered."""
    import io
    import sys

    from xlsearch.cli import main

    po = tmp_path / "thunar.fr.po"
    po.write_text(THUNAR_FR, encoding="utf-8")
    assert main(["import", str(po), "-c", "fr-mem", "-q"]) == 0
    capsys.readouterr()
    lines = [
        json.dumps({"segment": "_Cancel", "context": "Select by Pattern dialog: buttons"}),
        "_Cancel",
        json.dumps({"segment": "_Cancel"}),
    ]
    stdin = io.TextIOWrapper(io.BytesIO(("\n".join(lines) + "\n").encode("utf-8")))
    monkeypatch.setattr(sys, "stdin", stdin)
    args = ["lookup", "--stdin", "--stdin-json", "--json", "--src", "en", "--tgt", "fr"]
    assert main([*args, "-c", "fr-mem", "--fuzzy-only"]) == 2
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [a["matches"][0]["fuzzy"] for a in (answers[0], answers[2])] == [101, 100]
    assert answers[0]["matches"][0]["target"] == "Ann_uler"
    assert answers[2]["matches"][0]["target"] == "_Annuler"
    assert answers[1]["line"] == 2 and "not a JSON object" in answers[1]["error"]
    # gettext's own word for the context is the context; another key is refused, naming
    # the keys a line takes, and the next lines are answered
    lines = [
        json.dumps({"segment": "_Cancel", "msgctxt": "Select by Pattern dialog: buttons"}),
        json.dumps({"segment": "_Cancel", "msgid_plural": "_Cancel all"}),
        json.dumps({"segment": "_Cancel", "context": "a", "msgctxt": "b"}),
        json.dumps({"segment": "_Cancel", "context": None}),
    ]
    stdin = io.TextIOWrapper(io.BytesIO(("\n".join(lines) + "\n").encode("utf-8")))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main([*args, "-c", "fr-mem", "--fuzzy-only"]) == 2
    out, err = capsys.readouterr()
    answers = [json.loads(line) for line in out.splitlines()]
    assert answers[0]["matches"][0]["fuzzy"] == 101
    assert answers[0]["matches"][0]["target"] == "Ann_uler"
    assert answers[1]["error"] == (
        'standard input, line 2: unknown key "msgid_plural" (the keys: "segment", and '
        '"context" or gettext\'s "msgctxt")'
    )
    assert answers[2]["line"] == 3 and '"context" and "msgctxt" differ' in answers[2]["error"]
    assert answers[3]["matches"][0]["fuzzy"] == 100 and "Traceback" not in err


def test_a_tie_goes_to_the_translation_stored_most_recently(tmp_path: Path) -> None:
    """Two translations used as often: the one whose latest copy was imported last is
    written ("date"), not the one whose first copy happens to be newer."""
    with Store(tmp_path / "s.db") as store:
        for n, target in enumerate(["_Annuler", "A_nnuler", "A_nnuler", "_Annuler"]):
            store.import_file(_po(tmp_path / f"m{n}.po", [(None, "_Cancel", target)]), "mem")
        doc = open_document(_po(tmp_path / "job.po", [(None, "_Cancel", "")]))
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
    best = rep.segments[0].best
    assert best is not None and best.target == "_Annuler" and best.copies == 2
    assert any("chosen by date (the most recently imported)" in f for f in best.flags)


def test_a_translation_ending_as_its_source_does_beats_the_jobs_project(tmp_path: Path) -> None:
    """The job's own project does not pick the one translation that adds a full stop its
    source lacks (or drops the source's ellipsis): a translation ending as the source does
    wins, and the report says why."""
    version, save = "Print version information and exit", "Save _As…"
    apps = _head("Xfce Apps").replace("fr", "de") + (
        f'msgid "{version}"\nmsgstr "Versionsinformationen anzeigen und Programm beenden."\n\n'
        f'msgid "{save}"\nmsgstr "Speichern _unter"\n\n'
    )
    core = _head("Xfce Core").replace("fr", "de") + (
        f'msgid "{version}"\nmsgstr "Versionsinformation anzeigen und beenden"\n\n'
        f'msgid "{save}"\nmsgstr "Speichern _unter …"\n\n'
    )
    job = tmp_path / "job.po"
    job.write_text(
        _head("Xfce Apps").replace("fr", "de")
        + f'msgid "{version}"\nmsgstr ""\n\nmsgid "{save}"\nmsgstr ""\n\n',
        encoding="utf-8",
    )
    with Store(tmp_path / "s.db") as store:
        for name, body in [("core", core), ("core2", core), ("apps", apps)]:
            (tmp_path / f"{name}.de.po").write_text(body, encoding="utf-8")
            store.import_file(tmp_path / f"{name}.de.po", "mem")
        doc = open_document(job)
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
        pretranslate(doc, rep)
    assert [s.target for s in doc.segments] == [
        "Versionsinformation anzeigen und beenden",
        "Speichern _unter …",
    ]
    for seg in rep.segments:
        assert seg.best is not None
        flag = next(f for f in seg.best.flags if "other 100 % translations" in f)
        assert "chosen by trailing punctuation like the source's" in flag
