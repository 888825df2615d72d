"""A fuzzy match whose source says another thing (``mount`` for ``unmount``) is banded by
its words, as OmegaT bands a match: under 75 % of the words it is a suggestion, not a fill,
however many quotes and placeholders the two sources share."""

from __future__ import annotations

from pathlib import Path

import polib

from tests.po_jobs import pretranslate_po
from xlsearch.engine.tm.matching.fuzzy import fuzzy, word_fuzzy

MEMORY = r"""# French translation of a file manager.
msgid ""
msgstr ""
"Project-Id-Version: files 1.2\n"
"Language: fr\n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\n"

#: src/mount.c:120
#, c-format
msgid "Failed to mount \"%s\""
msgstr "Impossible de monter « %s »"

#: src/view.c:88
msgid "Show the hidden files of the folder in the side pane"
msgstr "Afficher les fichiers cachés du dossier dans le panneau latéral"

#: src/trash.c:40
#, c-format
msgid "The device \"%s\" is being mounted by the system, please wait"
msgstr "Le périphérique « %s » est en cours de montage par le système, veuillez patienter"
"""

JOB = r"""msgid ""
msgstr ""
"Project-Id-Version: files 1.3\n"
"Language: fr\n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"

#: src/mount.c:131
#, c-format
msgid "Failed to unmount \"%s\""
msgstr ""

#: src/view.c:90
msgid "Show hidden files of the folder in the side pane"
msgstr ""

#: src/trash.c:52
#, c-format
msgid "The device \"%s\" is being unmounted by the system, please wait"
msgstr ""
"""


def test_a_match_that_differs_in_its_one_verb_is_a_suggestion(tmp_path: Path) -> None:
    assert fuzzy('Failed to unmount "%s"', 'Failed to mount "%s"') == 83  # quotes, %s
    assert word_fuzzy('Failed to unmount "%s"', 'Failed to mount "%s"') == 66  # 2 of 3 words
    rep, filled, out = pretranslate_po(tmp_path, MEMORY, JOB, "fr")
    by = {s.source: s for s in rep.segments}
    unmount = by['Failed to unmount "%s"'].best
    assert unmount is not None and unmount.target == "Impossible de monter « %s »"
    assert any(f.startswith("suggestion only: another word in the source") for f in unmount.flags)
    written = {e.msgid: e.msgstr for e in polib.pofile(str(out))}
    assert written['Failed to unmount "%s"'] == ""  # not "monter" for "unmount"
    # an article less, or one word of ten: written (marked fuzzy) as before
    assert written["Show hidden files of the folder in the side pane"].startswith("Afficher")
    assert written['The device "%s" is being unmounted by the system, please wait']
    assert filled == 2
    report = rep.to_markdown()  # the report lists it for a look
    assert '- **Failed to unmount "%s"** (83 %): suggestion only: another word' in report


def test_a_mnemonic_is_no_word_break() -> None:
    """``Re_name…`` has the word *Rename*: as ``Rename`` it is the same words, not 2 of 3."""
    assert word_fuzzy("Re_name…", "Rename") == 100
    assert word_fuzzy("Re_name the file", "Rename the file") == 100
    assert word_fuzzy("開く(_O)", "開く") == 100
    assert word_fuzzy("_Rename the file", "_Remove the file") < 75
