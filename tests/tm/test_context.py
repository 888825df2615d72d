"""Context and consistency on real PO catalogues: msgctxt makes 101 %, another context is
not 100 %, short strings from another context and translator credits are never written,
and one source translated several ways is chosen by context, then use count."""

from __future__ import annotations

from pathlib import Path

import polib

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
