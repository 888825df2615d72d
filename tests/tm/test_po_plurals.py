"""PO plural entries pre-translated whole: every msgstr[n] from the memory's entry with the
job's number of plural forms (its ``Plural-Forms`` header), or none with the reason in the
report; ``msgfmt --check`` passes on the output."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import polib
from po_jobs import pretranslate_po

from xlsearch.engine.store import Store
from xlsearch.engine.tm.analysis.analyze import analyze
from xlsearch.engine.tm.analysis.pretranslate import pretranslate
from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.matching.lookup import Lookup

FR = "nplurals=2; plural=(n > 1);"
RU = (
    "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
    "(n%100<10 || n%100>=20) ? 1 : 2);"
)
RU4 = (  # Launchpad's Russian: a fourth form for 0
    "nplurals=4; plural=(n==0 ? 3 : n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
    "(n%100<10 || n%100>=20) ? 1 : 2);"
)


def _head(lang: str, forms: str) -> str:
    return (
        'msgid ""\nmsgstr ""\n"Project-Id-Version: demo 1.0\\n"\n"Language: '
        f'{lang}\\n"\n"MIME-Version: 1.0\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        f'"Content-Transfer-Encoding: 8bit\\n"\n"Plural-Forms: {forms}\\n"\n\n'
    )


def _entry(one: str, many: str, forms: list[str], ctx: str = "") -> str:
    head = "#, c-format\n" + (f'msgctxt "{ctx}"\n' if ctx else "")
    strs = "".join(f'msgstr[{k}] "{t}"\n' for k, t in enumerate(forms))
    return f'{head}msgid "{one}"\nmsgid_plural "{many}"\n{strs}\n'


def _msgfmt_ok(path: Path) -> None:
    if shutil.which("msgfmt"):
        run = subprocess.run(
            ["msgfmt", "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr


def test_every_plural_form_or_none(tmp_path: Path) -> None:
    mem = _head("fr", FR) + _entry(
        "Failed to open %d file",
        "Failed to open %d files",
        ["Impossible d'ouvrir %d fichier", "Impossible d'ouvrir %d fichiers"],
    )
    mem += 'msgid "%d item"\nmsgstr "%d élément"\n\n'  # the singular only, no plural entry
    job = _head("fr", FR) + _entry("Failed to open %d file", "Failed to open %d files", ["", ""])
    job += _entry("%d item", "%d items", ["", ""])
    (tmp_path / "mem.fr.po").write_text(mem, encoding="utf-8")
    (tmp_path / "job.fr.po").write_text(job, encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        store.import_file(tmp_path / "mem.fr.po", "mem")
        doc = open_document(tmp_path / "job.fr.po")
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
        pretranslate(doc, rep)
        out = doc.save(tmp_path / "out.fr.po")
        # the translator edits msgstr[0] before saving (the Translate screen): the other
        # forms pre-translation filled stay
        again = open_document(tmp_path / "job.fr.po")
        pretranslate(again, analyze(again, Lookup(store, None, collection="mem", semantic=False)))
        again.set_target(0, "Échec de l'ouverture de %d fichier")
        edited = polib.pofile(str(again.save(tmp_path / "edited.fr.po")))[0].msgstr_plural
    got = {e.msgid: e for e in polib.pofile(str(out))}
    assert got["Failed to open %d file"].msgstr_plural == {
        0: "Impossible d'ouvrir %d fichier",
        1: "Impossible d'ouvrir %d fichiers",
    }
    assert edited == {0: "Échec de l'ouverture de %d fichier", 1: "Impossible d'ouvrir %d fichiers"}
    assert "fuzzy" in got["Failed to open %d file"].flags
    # the memory has no plural entry for "%d item": nothing written, the report says why
    assert got["%d item"].msgstr_plural == {0: "", 1: ""}
    why = " ".join(rep.segments[1].best.flags if rep.segments[1].best else [])
    assert "no plural entry" in why and "no plural entry" in rep.to_markdown()
    _msgfmt_ok(out)


def test_another_number_of_plural_forms_is_not_written(tmp_path: Path) -> None:
    mem = _head("ru", RU) + _entry("%d folder", "%d folders", ["%d папка", "%d папки", "%d папок"])
    job = _head("ru", RU4) + _entry("%d folder", "%d folders", ["", "", "", ""])
    rep, filled, out = pretranslate_po(tmp_path, mem, job, "ru")
    assert filled == 0
    entry = polib.pofile(str(out))[0]
    assert set(entry.msgstr_plural.values()) == {""}
    best = rep.segments[0].best
    assert best is not None and any("3 plural forms" in f and "4" in f for f in best.flags)
    _msgfmt_ok(out)


def test_msgid_equal_to_msgid_plural_gets_its_own_forms(tmp_path: Path) -> None:
    """thunar's "%s (%d hidden)" has the same msgid and msgid_plural: the match found may be
    any form's unit (the most used target is msgstr[1]'s); msgstr[0] is still form 0's."""
    forms = ["%s (%d caché)", "%s (%d cachés)", "%s (%d cachés)"]
    three = "nplurals=3; plural=(n == 0 || n == 1) ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2;"
    mem = _head("fr", three) + _entry("%s (%d hidden)", "%s (%d hidden)", forms)
    job = _head("fr", three) + _entry("%s (%d hidden)", "%s (%d hidden)", ["", "", ""])
    _, filled, out = pretranslate_po(tmp_path, mem, job, "fr")
    assert filled == 1
    assert polib.pofile(str(out))[0].msgstr_plural == dict(enumerate(forms))
    _msgfmt_ok(out)
