"""A fuzzy match differing in one phrase the memory translates: the phrase swapped in its
target; a short string with other words stays a suggestion."""

from __future__ import annotations

from pathlib import Path

import polib

from xlsearch.engine.store import Store
from xlsearch.engine.tm.analysis.analyze import analyze
from xlsearch.engine.tm.analysis.pretranslate import pretranslate
from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.matching.lookup import Lookup
from xlsearch.engine.tm.matching.substitute import SUBSTITUTED, substitute

HEAD = 'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'


def _po(path: Path, pairs: list[tuple[str, str]]) -> Path:
    body = "".join(f'msgid "{s}"\nmsgstr "{t}"\n\n' for s, t in pairs)
    path.write_text(HEAD + body, encoding="utf-8")
    return path


def test_a_phrase_or_a_name_is_swapped_only_where_it_is_safe() -> None:
    words = {"save": "enregistrer", "open": "ouvrir"}.get
    got = substitute(
        'Failed to open file "%s"',
        'Failed to save file "%s"',
        "Impossible d’enregistrer «\u00a0%s\u00a0»",
        lambda p: words(p.lower()),
    )
    assert got is not None and got[0] == "Impossible d’ouvrir «\u00a0%s\u00a0»"
    name = substitute(
        "Run Thunar as root", "Run Mousepad as root", "Exécuter Mousepad en root", lambda p: None
    )
    assert name is not None and name[0] == "Exécuter Thunar en root"
    # title case: "Volume" may be a word that reads the same in French, not a name
    assert (
        substitute("One Line _Up Now", "Volume _Up Now", "Monter le volume", lambda p: None) is None
    )
    # too little said the same around the phrase
    assert substitute("New _Tab", "Close _Tab", "Fermer l’_onglet", lambda p: p) is None


def test_analysis_writes_a_swap_and_keeps_a_short_fuzzy_a_suggestion(tmp_path: Path) -> None:
    mem = _po(
        tmp_path / "mem.po",
        [
            ("Failed to save the file %s", "Impossible d’enregistrer le fichier %s"),
            ("Save", "Enregistrer"),
            ("Open", "Ouvrir"),
            ("Show _Hidden Files Now", "Afficher les fichiers _cachés maintenant"),
        ],
    )
    job = _po(tmp_path / "job.po", [("Failed to open the file %s", ""), ("Show _Hidden Files", "")])
    with Store(tmp_path / "s.db") as store:
        store.import_file(mem, "mem")
        doc = open_document(job)
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
        swap, short = rep.segments
        assert swap.best is not None and swap.best.fuzzy == SUBSTITUTED
        assert swap.best.target == "Impossible d’ouvrir le fichier %s"
        assert any(f.startswith("substituted: 'enregistrer' → 'ouvrir'") for f in swap.best.flags)
        assert short.best is not None and 75 <= short.best.fuzzy < 85
        assert any(f.startswith("suggestion only: a short string") for f in short.best.flags)
        pretranslate(doc, rep)
    report = rep.to_markdown()
    assert (
        "- **Failed to open the file %s** (90 %): substituted: 'enregistrer' → 'ouvrir'" in report
    )
    assert [s.target for s in doc.segments] == ["Impossible d’ouvrir le fichier %s", ""]


def test_the_po_comment_names_the_repair(tmp_path: Path) -> None:
    """Poedit shows the translator comment: a substituted or repaired fill says there what
    was done, in the report's words."""
    mem = _po(
        tmp_path / "mem.po",
        [
            ("Failed to save the file %s", "Impossible d’enregistrer le fichier %s"),
            ("Save", "Enregistrer"),
            ("Open", "Ouvrir"),
            ("Encoding", "Encodage"),
        ],
    )
    job = _po(tmp_path / "job.po", [("Failed to open the file %s", ""), ("ENCODING", "")])
    with Store(tmp_path / "s.db") as store:
        store.import_file(mem, "mem")
        doc = open_document(job)
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
        pretranslate(doc, rep)
        out = doc.save(tmp_path / "out.po")
    notes = {e.msgid: e.tcomment for e in polib.pofile(str(out))}
    swap, caps = notes["Failed to open the file %s"], notes["ENCODING"]
    assert swap.startswith("xlsearch: fuzzy match 90%, needs review; substituted: 'enregistrer'")
    assert "; repaired: " in caps and "case" in caps
    assert polib.pofile(str(out)).find("ENCODING").msgstr == "ENCODAGE"
    lines = out.read_text(encoding="utf-8").splitlines()  # one line, not cut at 79 columns
    assert f"# {swap}" in lines and swap.endswith("'ouvrir' (for 'save' → 'open')")


def test_a_name_the_job_writes_in_lower_case_is_swapped_for_the_memorys(tmp_path: Path) -> None:
    """``Display ristretto user manual`` against ``Display Thunar user manual``: the
    target keeps the name ``Thunar``, and the memory never holds the word ``ristretto``
    (a name, though not capitalised): swapped. A lower-case word the memory knows (``it``)
    is no name: nothing swapped."""
    unknown = {"ristretto"}.__contains__
    target = "Mostrar el manual de usuario de Thunar"
    got = substitute(
        "Display ristretto user manual", "Display Thunar user manual", target, lambda p: None,
        unknown=unknown,
    )  # fmt: skip
    assert got is not None and got[0] == "Mostrar el manual de usuario de ristretto", got
    assert substitute(
        "Run it as root now", "Run Thunar as root now", "Ejecutar Thunar como root ahora",
        lambda p: None, unknown=unknown,
    ) is None  # fmt: skip
    mem = _po(
        tmp_path / "mem.po",
        [
            ("Display Thunar user manual", "Mostrar el manual de usuario de Thunar"),
            ("Run it in a terminal", "Ejecutarlo en una terminal"),
        ],
    )
    other = _po(tmp_path / "ristretto.po", [("Quit ristretto", "Quitter Ristretto")])
    with Store(tmp_path / "s.db") as store:
        store.import_file(mem, "mem")
        store.import_file(other, "other")  # another memory's words do not count
        lookup = Lookup(store, None, collection="mem", semantic=False)
        best = lookup.lookup("Display ristretto user manual", src="en", tgt="fr").matches[0]
        assert best.target == "Mostrar el manual de usuario de ristretto", best
        known = Lookup(store, None, collection=None, semantic=False)  # all memories: known
        assert known.lookup("Display ristretto user manual", "en", "fr").matches[0].target == (
            "Mostrar el manual de usuario de Thunar"
        )
    assert best.fuzzy == SUBSTITUTED and any(f.startswith("substituted:") for f in best.flags)
