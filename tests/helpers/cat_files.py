"""CAT-tool files written for the tests: a Trados-style XLIFF 1.2, an XLIFF 2.0 with codes, a
gettext catalogue's header and entries."""

from __future__ import annotations

XLIFF12 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"
 xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0">
<file original="ui.properties" source-language="en-US" target-language="de-DE"
 datatype="javapropertyresourcebundle"><body>
<trans-unit id="lb"><source>close this<x id="1" ctype="lb"/>dialog box</source>
<target>Dialog<x id="1" ctype="lb"/>schließen</target></trans-unit>
<trans-unit id="codes"><source>Open <g id="1" ctype="bold">the</g> <bx id="2"/>file<ex id="2"/>\
<ph id="3">&lt;br/&gt;</ph>now<bpt id="4">&lt;i&gt;</bpt>!<ept id="4">&lt;/i&gt;</ept>\
<it id="5" pos="open">&lt;u&gt;</it><mrk mtype="term">menu</mrk></source>
<target>Öffnen</target></trans-unit>
<trans-unit id="ph-sub"><source>Image<ph id="1">&lt;img alt="<sub>Logo</sub>"&gt;</ph>.</source>
<target>Bild<ph id="1">&lt;img alt="<sub>Logo DE</sub>"&gt;</ph>.</target></trans-unit>
<trans-unit id="no" translate="no"><source>DO_NOT_TRANSLATE</source></trans-unit>
<group id="g" translate="no"><trans-unit id="in-no-group"><source>KEY</source></trans-unit>
<group id="inner"><trans-unit id="deep"><source>DEEP</source></trans-unit></group></group>
<trans-unit id="seg"><source>First sentence. Second one.</source>
<seg-source><mrk mtype="seg" mid="1">First sentence.</mrk> <g id="9"><mrk mtype="seg" mid="2">\
Second <x id="7" ctype="x-tab"/>one.</mrk></g></seg-source>
<target><mrk mtype="seg" mid="1">Erster Satz.</mrk> <g id="9"><mrk mtype="seg" mid="2">\
Zweiter <mrk mtype="x-sdl-deleted">alter </mrk>Satz.</mrk></g></target>
<sdl:seg-defs><sdl:seg id="1" conf="Translated"/><sdl:seg id="2" conf="Draft"/></sdl:seg-defs>
</trans-unit>
<trans-unit id="after"><source>Last.</source></trans-unit>
</body></file></xliff>
"""


XLIFF20 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">
<file id="f1"><unit id="u1"><originalData><data id="d1">&lt;br/&gt;</data></originalData>
<segment><source>Elysian Collection<ph id="1" dataRef="d1" subType="xlf:lb" type="fmt"/>\
Bahnhofstrasse</source>
<target>Collection Elysian<ph id="1" dataRef="d1" subType="xlf:lb" type="fmt"/>\
Bahnhofstrasse</target></segment></unit>
<unit id="u2"><segment><source>Tab<cp hex="0009"/>here, <pc id="1">bold</pc> and \
<sc id="2"/>span<ec startRef="2"/> <mrk id="m1" type="term">term</mrk> \
<sm id="m2" type="comment"/>x<em startRef="m2"/> y<ph id="3" equiv=" "/>z</source>
<target>Tab<cp hex="0009"/>ici</target></segment>
<segment><source>Ctrl<cp hex="001F"/>char</source></segment></unit>
<unit id="u3" translate="no"><segment><source>CODE</source></segment></unit>
<group id="g1" translate="no"><unit id="u4"><segment><source>ALSO</source></segment></unit>
</group></file></xliff>
"""


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
