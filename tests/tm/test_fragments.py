"""Fragments: the parts of a new segment the memory already translates — shown in lookup
and the report, never written into the file."""

from __future__ import annotations

from pathlib import Path

import polib

from xlsearch.engine.store import Store
from xlsearch.engine.tm.analysis import analyze, pretranslate
from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.fragments import FragmentIndex
from xlsearch.engine.tm.lookup import Lookup

MEMORY = [
    ("Open _Location…", "Ouvrir un _emplacement…"),
    ("Open Location", "Ouvrir un emplacement"),
    ("Delete the file", "Supprimer le fichier"),
    ("Rename the file", "Renommer le fichier"),
    ("Copy the file", "Copier le fichier"),
    ("Trash", "Corbeille"),
    ("Empty the trash", "Vider la corbeille"),
    ("Restore the trash", "Restaurer la corbeille"),
]


def test_whole_units_and_word_alignments_make_fragments() -> None:
    idx = FragmentIndex.learn(MEMORY)
    found = idx.find("Failed to open location of the file in the trash")
    got = {(f.source, f.target, f.how) for f in found}
    assert ("open location", "Ouvrir un emplacement", "unit") in got  # longest first
    assert ("file", "fichier", "aligned") in got  # co-occurs in 3 units, and only there
    assert ("trash", "Corbeille", "unit") in got
    assert not any(f.source in {"the", "of", "in"} for f in found)  # no function words
    # the whole segment is a match, not a fragment
    assert "open location" not in {f.source for f in idx.find("Open Location")}


def test_analysis_reports_fragments_and_never_writes_them(tmp_path: Path) -> None:
    mem = tmp_path / "mem.po"
    body = "".join(f'msgid "{s}"\nmsgstr "{t}"\n\n' for s, t in MEMORY)
    head = 'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"X-Source-Language: en\\n"\n\n'
    mem.write_text(head + body, encoding="utf-8")
    job = tmp_path / "job.po"
    job.write_text(head + 'msgid "Failed to open location of the file"\nmsgstr ""\n', "utf-8")
    with Store(tmp_path / "s.db") as store:
        store.import_file(mem, "mem")
        lk = Lookup(store, None, collection="mem", semantic=False)
        res = lk.lookup("Failed to open location of the file", "en", "fr")
        assert ("open location", "Ouvrir un emplacement") in {
            (f.source, f.target) for f in res.fragments
        }
        doc = open_document(job)
        rep = analyze(doc, lk)
        assert rep.segments[0].fragments
        md = rep.to_markdown()
        assert "## Fragments your memory translates" in md
        assert "open location → Ouvrir un emplacement (×2)" in md  # with "Open _Location…"
        assert pretranslate(doc, rep) == 0
        out = doc.save(tmp_path / "out.po")
    assert [e.msgstr for e in polib.pofile(str(out))] == [""]
