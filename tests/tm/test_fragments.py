"""Fragments: the parts of a new segment the memory already translates — shown in lookup
and the report, never written into the file."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest

from xlsearch.engine.store import Store
from xlsearch.engine.tm.analysis.analyze import analyze
from xlsearch.engine.tm.analysis.pretranslate import pretranslate
from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.matching.fragments import FragmentIndex
from xlsearch.engine.tm.matching.lookup import Lookup

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


def test_the_fragment_index_is_learnt_once_per_memory_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CAT tool's hook runs ``lookup`` in a fresh process per segment: the index is read
    from the cache folder, not learnt again (a no-match lookup cost 4.7× the CPU), and it
    is learnt again once the memory changes."""
    from xlsearch.engine.tm.matching import fragments

    head = 'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"X-Source-Language: en\\n"\n\n'
    mem = tmp_path / "mem.po"
    mem.write_text(head + "".join(f'msgid "{s}"\nmsgstr "{t}"\n\n' for s, t in MEMORY), "utf-8")
    with Store(tmp_path / "s.db") as store:
        store.import_file(mem, "mem")
        first = fragments.index_for(store, "mem", "en", "fr")
        fragments._CACHE.clear()  # a new process

        def never(*_a: object) -> fragments.FragmentIndex:
            raise AssertionError("learnt again for an unchanged memory")

        monkeypatch.setattr(fragments.FragmentIndex, "learn", never)
        again = fragments.index_for(store, "mem", "en", "fr")
        assert again.units == first.units and again.align == first.align
        assert again.find("Delete the trash") == first.find("Delete the trash")
        monkeypatch.undo()
        more = tmp_path / "more.po"
        more.write_text(head + 'msgid "Empty"\nmsgstr "Vide"\n', "utf-8")
        store.import_file(more, "mem")  # a new generation: learnt again, with the new unit
        fragments._CACHE.clear()
        assert ("empty",) in fragments.index_for(store, "mem", "en", "fr").units
