"""CAT normalisation and match repair: near-exact twins are 95–99 % matches with a
repaired target, on a real store."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlsearch.engine.store import Store
from xlsearch.engine.tm.matching.lookup import Lookup
from xlsearch.engine.tm.matching.repair import Conventions, differences, repair

FR = Conventions.learn(["_Ouvrir", "Enregistrer…", "Nom\u00a0:", "Fermer"], "fr")
ZH = Conventions.learn(["打开(_O)", "保存…"], "zh")


@pytest.mark.parametrize(
    ("new", "stored", "target", "conv", "want"),
    [
        ("_Import…", "_Import", "_Importer", FR, "_Importer…"),
        ("Preparing", "Preparing...", "Préparation…", FR, "Préparation"),
        ("_Disconnect", "Disconnect", "Déconnecter", FR, "_Déconnecter"),
        ("Disconnect", "_Disconnect", "_Déconnecter", FR, "Déconnecter"),
        ("Name:", "Name", "Nom", FR, "Nom\u00a0:"),
        ("Copy 3 files", "Copy 2 files", "Copier 2 fichiers", FR, "Copier 3 fichiers"),
        ("Open %1$s", "Open %s", "Ouvrir %s", FR, "Ouvrir %1$s"),
        ("Rename", "rename", "renommer", FR, "Renommer"),
        ("_Import…", "_Import", "导入(_I)", ZH, "导入(_I)…"),
        ("_Disconnect", "Disconnect", "断开", ZH, "断开(_D)"),
        ("Name:", "Name", "名称", ZH, "名称："),
        ("Re_name", "_Rename", "_Renommer", FR, "Re_nommer"),  # the mnemonic moves
        ("Clea_r", "Clear", "Effacer", FR, "Efface_r"),
        ("Re_load", "_Reload", "导入(_R)", ZH, "导入(_L)"),
        ("ENCODING", "Encoding", "Codage", FR, "CODAGE"),
        ("SIZE %s", "Size %s", "Taille %s", FR, "TAILLE %s"),
    ],
)
def test_repair_fits_the_target_to_the_new_source(
    new: str, stored: str, target: str, conv: Conventions, want: str
) -> None:
    kinds = differences(new, stored)
    assert kinds, (new, stored)
    fixed = repair(new, stored, target, conv)
    assert fixed is not None and fixed[0] == want


def test_other_words_are_no_twin_and_a_missing_number_is_no_repair() -> None:
    assert differences("_Redo", "_Undo") is None
    assert differences("Double-Click", "Double Click") == ["whitespace"]
    assert repair("Copy 3 files", "Copy 2 files", "Copier deux fichiers", FR) is None


def _memory(tmp_path: Path) -> Path:
    po = tmp_path / "mem.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"X-Source-Language: en\\n"\n\n'
        'msgid "_Import"\nmsgstr "_Importer"\n\n'
        'msgid "Open the folder"\nmsgstr "Ouvrir le dossier"\n\n'
        'msgid "Save"\nmsgstr "_Enregistrer"\n',
        encoding="utf-8",
    )
    return po


def test_lookup_scores_a_twin_95_to_99_and_lists_its_repair(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.import_file(_memory(tmp_path), "mem")
        lk = Lookup(store, None, collection="mem", semantic=False)
        best = lk.lookup("_Import…", "en", "fr").matches[0]
        assert 95 <= best.fuzzy <= 99
        assert best.target == "_Importer…" and best.original_target == "_Importer"
        assert any(f.startswith("repaired:") and "ellipsis added" in f for f in best.flags)
        # without repair (penalties None) it is the CAT fuzzy % it always was
        plain = Lookup(store, None, collection="mem", semantic=False, penalties=None)
        assert plain.lookup("_Import…", "en", "fr").matches[0].fuzzy < 75


def test_an_ellipsis_is_one_token_of_the_fuzzy_score() -> None:
    """ "Other Application..." against "Other...": one word of three differs (66 %), not
    one of five (80 %, written as "Sonstige…" for "Other Application…")."""
    from xlsearch.engine.tm.matching.fuzzy import fuzzy

    assert fuzzy("Other Application...", "Other...") == fuzzy("Other Application…", "Other…")
    assert fuzzy("Other Application...", "Other...") < 75


def test_a_twin_split_by_a_mnemonic_is_found_and_repaired(tmp_path: Path) -> None:
    """``C_reate`` and ``Clear`` hold other words for the full-text index than ``Create``
    and ``Clea_r`` (the mnemonic splits them): found by their normalised form."""
    po = tmp_path / "mem.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: fr\\n"\n\n'
        'msgid "C_reate"\nmsgstr "C_réer"\n\n'
        'msgid "Clear"\nmsgstr "Effacer"\n\n'
        'msgid "Open the folder"\nmsgstr "Ouvrir le dossier"\n',
        encoding="utf-8",
    )
    with Store(tmp_path / "s.db") as store:
        store.import_file(po, "mem")
        lk = Lookup(store, None, collection="mem", semantic=False)
        create = lk.lookup("Create", "en", "fr").matches[0]
        assert (create.target, create.fuzzy) == ("Créer", 99)
        clear = lk.lookup("Clea_r", "en", "fr").matches[0]
        assert clear.target == "Efface_r" and 95 <= clear.fuzzy <= 99


@pytest.mark.parametrize(
    ("new", "stored", "target", "kinds", "label"),
    [
        ("_Open…", "_Open...", "_Ouvrir...", ["punctuation"],
         "ellipsis '...' → '…' in the source only"),
        ("Name:", "Name :", "Nom :", ["whitespace"], "spacing in the source only"),
        ("Double-Click", "Double Click", "Double-clic", ["whitespace"],
         "a dash for a space in the source only"),
        ("Don't save", "Don’t save", "Cible", ["quotes"], "quotes or dashes in the source only"),
        # the source's mnemonic moved, the target's stays: said so, not "spacing"
        ("Re_load", "_Reload", "_Recharger", ["mnemonic"],
         "mnemonic kept where the target has it (the source's is on 'l')"),
        ("_Replace All", "Replace _All", "_Tout remplacer", ["mnemonic"],
         "mnemonic kept where the target has it (the source's is on 'R')"),
    ],
)  # fmt: skip
def test_a_repair_names_the_real_difference(
    new: str, stored: str, target: str, kinds: list[str], label: str
) -> None:
    """An ellipsis written another way is punctuation, not whitespace; each kind of
    difference the target does not follow is named as it is."""
    assert differences(new, stored) == kinds
    assert repair(new, stored, target, FR) == (target, [label])


@pytest.mark.parametrize(
    ("new", "stored", "target", "conv", "want"),
    [
        ("&Help", "_Help", "A_iuto", FR, "A&iuto"),  # a Qt job, a GTK memory
        ("_Help", "&Help", "A&iuto", FR, "A_iuto"),
        ("&Help", "_Help", "ヘルプ(_H)", ZH, "ヘルプ(&H)"),
        ("Save &As…", "Save _As", "Salva _con nome", FR, "Salva &con nome…"),
    ],
)
def test_the_mnemonic_mark_follows_the_new_source(
    new: str, stored: str, target: str, conv: Conventions, want: str
) -> None:
    """``&`` (Qt, KDE, Windows) and ``_`` (GTK) mark the same mnemonic: the target takes
    the job's mark, and the repair says so (it is not a spacing difference)."""
    assert "mnemonic" in (differences(new, stored) or [])
    fixed = repair(new, stored, target, conv)
    assert fixed is not None and fixed[0] == want
    assert any("mnemonic mark" in d for d in fixed[1]), fixed[1]


def test_a_twin_promoted_to_the_top_by_its_repair_shows_its_diff(tmp_path: Path) -> None:
    """``Clea_r`` against ``Clear`` and ``_Clear`` (both twins): the model's cosine puts
    ``_Clear`` first once both are repaired, though it ranked second before; the match shown
    still gets its diff (it came out as the stored source alone, the difference unseen)."""
    po = tmp_path / "mem.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"X-Source-Language: en\\n"\n\n'
        'msgid "Clear"\nmsgstr "Effacer"\n\n'
        'msgid "_Clear"\nmsgstr "Effa_cer"\n',
        encoding="utf-8",
    )
    with Store(tmp_path / "s.db") as store:
        store.import_file(po, "tm")
        ids = dict(store.conn.execute("SELECT text, id FROM segments WHERE lang = 'en'"))
        lookup = Lookup(store, None, collection="tm")
        hits = [(ids["Clear"], 0.0), (ids["_Clear"], 0.72)]  # the shipped model's cosines
        got = lookup._one(
            "Clea_r", None, hits, "en", "fr", k=1, cross_k=0, require_target=True,
            min_fuzzy=0, all_matches=False, details=1,
        )  # fmt: skip
    best = got.matches[0]
    assert best.source == "_Clear" and best.target == "Efface_r"
    assert best.diff and any(op != "=" for op, _ in best.diff), best.diff
