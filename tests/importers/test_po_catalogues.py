"""Gettext catalogues as real tools write them: one language per file and side."""

from __future__ import annotations

from pathlib import Path

from tests.import_helpers import read, write

HEADER = """\
# French translation of the viewer.
# Copyright (C) 2024 The Viewer Team
# This file is distributed under the same license as the viewer package.
#
# Translators:
# Anne Exemple <anne@example.org>, 2021, 2023
msgid ""
msgstr ""
"Project-Id-Version: viewer 1.4\\n"
"Report-Msgid-Bugs-To: https://bugs.example.org/\\n"
"POT-Creation-Date: 2024-03-01 10:00+0100\\n"
"PO-Revision-Date: 2024-03-04 18:12+0000\\n"
"Last-Translator: Anne Exemple <anne@example.org>\\n"
"Language-Team: French (https://www.transifex.com/example/viewer/fr/)\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
{language}"Plural-Forms: nplurals=2; plural=(n > 1);\\n"
"X-Generator: Poedit 3.4\\n"

"""

ENTRIES = """\
#: src/window.c:120
msgid "Open Link in New _Window"
msgstr "Ouvrir le lien dans une nouvelle _fenêtre"

#: src/window.c:131
msgctxt "menu"
msgid "Side Pane (Add Bookmark)"
msgstr "Panneau latéral (ajouter un signet)"

#. TRANSLATORS: keywords of the desktop file, separated by semicolons
#: data/viewer.desktop.in:6
msgid "Media;Player;Audio;Video;Music;Playback;"
msgstr "Média;Lecteur;Audio;Vidéo;Musique;Lecture;"

#: src/status.c:44
#, c-format
msgid "Line: %d Column: %d Selection: %d"
msgstr "Ligne : %d Colonne : %d Sélection : %d"

#: src/rename.c:77
msgid "Old Name - Text - Number"
msgstr "Ancien nom - Texte - Numéro"

#: src/rename.c:78
msgid "1, 2, 3, ..."
msgstr "1, 2, 3, ..."

#: src/search.c:90
#, c-format
msgid "Search for '%1$s' in %2$s"
msgstr "Rechercher « %1$s » dans %2$s"

#: src/prefs.c:210
msgid ""
"Transfer files in parallel: copy several files at once when the source and "
"the destination are on different disks."
msgstr ""
"Transférer des fichiers en parallèle : copier plusieurs fichiers à la fois "
"quand la source et la destination sont sur des disques différents."

#: src/prefs.c:212
msgid "Display the user manual"
msgstr "Afficher le manuel de l’utilisateur"

#: src/count.c:12
#, c-format
msgid "%d file"
msgid_plural "%d files"
msgstr[0] "%d fichier"
msgstr[1] "%d fichiers"
"""


def _sides(path: Path, **opts: object) -> tuple[set[str | None], set[str | None]]:
    rows, _ctx = read(path, **opts)
    sources = {lang for i, (_tu, lang, _t) in enumerate(rows) if _first(rows, i)}
    targets = {lang for i, (_tu, lang, _t) in enumerate(rows) if not _first(rows, i)}
    return sources, targets


def _first(rows: list[tuple], i: int) -> bool:
    return i == 0 or rows[i - 1][0] != rows[i][0]


def test_the_msgids_of_a_catalogue_are_one_language_english_by_convention(tmp_path: Path) -> None:
    po = write(tmp_path, "fr.po", HEADER.format(language='"Language: fr\\n"\n') + ENTRIES)
    assert _sides(po) == ({"en"}, {"fr"})


def test_the_msgstr_language_comes_from_the_file_name_when_the_header_has_none(
    tmp_path: Path,
) -> None:
    po = write(tmp_path, "fr.po", HEADER.format(language="") + ENTRIES)
    assert _sides(po) == ({"en"}, {"fr"})


def test_x_source_language_and_lang_override_the_convention(tmp_path: Path) -> None:
    header = HEADER.format(language='"Language: fr\\n"\n"X-Source-Language: en-GB\\n"\n')
    po = write(tmp_path, "viewer.po", header + ENTRIES)
    assert _sides(po) == ({"en-GB"}, {"fr"})
    assert _sides(po, langs=["en-US", "fr-CA"]) == ({"en-US"}, {"fr-CA"})


def test_msgids_plainly_in_another_language_are_read_as_that_language(tmp_path: Path) -> None:
    german = """\
msgid "Die Datei konnte nicht gespeichert werden, weil der Datenträger voll ist."
msgstr "Le fichier n’a pas pu être enregistré parce que le disque est plein."

msgid "Möchten Sie die Änderungen speichern, bevor Sie das Dokument schließen?"
msgstr "Voulez-vous enregistrer les modifications avant de fermer le document ?"

msgid "Die Verbindung zum Server wurde unerwartet unterbrochen."
msgstr "La connexion au serveur a été interrompue de manière inattendue."
"""
    po = write(tmp_path, "fr.po", HEADER.format(language='"Language: fr\\n"\n') + german)
    assert _sides(po) == ({"de"}, {"fr"})


def test_an_imported_catalogue_stores_every_msgid_as_english(tmp_path: Path) -> None:
    from xlsearch.engine.store import Store

    po = write(tmp_path, "fr.po", HEADER.format(language="") + ENTRIES)
    with Store() as store:
        store.import_file(po, "tm")
        assert store.languages("tm") == {"en": 11, "fr": 11}
