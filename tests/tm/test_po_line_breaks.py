"""A PO fill begins and ends with a line break exactly where its msgid does: the memory
stores texts without edge breaks, and ``msgfmt --check`` refuses a catalogue whose msgid
and msgstr differ there."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import polib
from po_jobs import pretranslate_po

HEAD = (
    'msgid ""\nmsgstr ""\n"Project-Id-Version: demo 1.0\\n"\n"Language: fr\\n"\n'
    '"MIME-Version: 1.0\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
    '"Content-Transfer-Encoding: 8bit\\n"\n\n'
)


def test_fills_keep_the_msgids_edge_line_breaks(tmp_path: Path) -> None:
    # the memory's catalogue: one entry with breaks at both ends, one without any
    mem = HEAD + 'msgid "\\nUsage: %s [OPTION...]\\n"\nmsgstr "\\nUsage : %s [OPTION...]\\n"\n\n'
    mem += 'msgid "Close the window"\nmsgstr "Fermer la fenêtre"\n\n'
    # the job: the same sources, the breaks the other way round
    job = HEAD + 'msgid "Usage: %s [OPTION...]"\nmsgstr ""\n\n'
    job += 'msgid "Close the window\\n"\nmsgstr ""\n\n'
    _, _, out = pretranslate_po(tmp_path, mem, job, "fr")
    got = {e.msgid: e.msgstr for e in polib.pofile(str(out))}
    assert got["Usage: %s [OPTION...]"] == "Usage : %s [OPTION...]"
    assert got["Close the window\n"] == "Fermer la fenêtre\n"
    if shutil.which("msgfmt"):
        run = subprocess.run(
            ["msgfmt", "--check", "--use-fuzzy", "-o", "/dev/null", str(out)],
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, run.stderr


def test_a_fill_breaks_into_lines_where_its_msgid_does(tmp_path: Path) -> None:
    """A dialog's message of two lines, each a sentence, whose memory translation has two
    sentences is filled on two lines, as the memory's own catalogue has it (the memory keeps
    the break as a space, and the fill came out on one line, with a `#| msgid` differing from
    the msgid only by that break). Lines that are not sentences stay as the memory has them."""
    mem = HEAD + (
        'msgid ""\n"Your changes were not saved.\\n"\n"Close anyway?"\n'
        'msgstr ""\n"Vos modifications n’ont pas été enregistrées.\\n"\n"Fermer quand même ?"\n\n'
        'msgid "No templates installed in\\n\\"%s\\""\n'
        'msgstr "Aucun modèle installé dans « %s »"\n\n'
    )
    job = HEAD + (
        'msgid ""\n"Your changes were not saved.\\n"\n"Close anyway?"\nmsgstr ""\n\n'
        'msgid "No templates installed in\\n\\"%s\\""\nmsgstr ""\n\n'
    )
    _, _, out = pretranslate_po(tmp_path, mem, job, "fr")
    entries = {e.msgid: e for e in polib.pofile(str(out))}
    dialog = entries["Your changes were not saved.\nClose anyway?"]
    assert dialog.msgstr == "Vos modifications n’ont pas été enregistrées.\nFermer quand même ?"
    assert dialog.previous_msgid is None  # a 100 % match: no `#|` line
    assert entries['No templates installed in\n"%s"'].msgstr == "Aucun modèle installé dans « %s »"


def test_a_fill_keeps_the_line_breaks_its_memory_translation_has(tmp_path: Path) -> None:
    """The memory's catalogue wrote its translation on two lines where they are no
    sentences (a question broken mid-sentence, an indented list): the fill keeps those
    lines, as the memory's own msgstr has them, not one line with a space."""
    mem = HEAD + (
        "#, c-format\n"
        'msgid ""\n"Are you sure that you want to\\n"\n"permanently delete \\"%s\\"?"\n'
        'msgstr ""\n"Voulez-vous vraiment supprimer\\n"\n"définitivement « %s » ?"\n\n'
        'msgid ""\n"Disabled:\\n"\n"\\t- Ignore file dragging."\n'
        'msgstr ""\n"Désactivé :\\n"\n"\\t- Ignorer le glisser de fichiers."\n\n'
    )
    job = HEAD + (
        "#, c-format\n"
        'msgid ""\n"Are you sure that you want to\\n"\n"permanently delete \\"%s\\"?"\n'
        'msgstr ""\n\n'
        'msgid ""\n"Disabled:\\n"\n"\\t- Ignore file dragging."\nmsgstr ""\n\n'
    )
    _, filled, out = pretranslate_po(tmp_path, mem, job, "fr")
    got = {e.msgid: e.msgstr for e in polib.pofile(str(out))}
    assert filled == 2
    question = got['Are you sure that you want to\npermanently delete "%s"?']
    assert question == "Voulez-vous vraiment supprimer\ndéfinitivement « %s » ?"
    assert got["Disabled:\n\t- Ignore file dragging."] == (
        "Désactivé :\n\t- Ignorer le glisser de fichiers."
    )


def test_damaged_line_break_records_are_ignored_not_a_crash() -> None:
    from xlsearch.engine.importers.base import restore_breaks

    assert restore_breaks("a b", {"at": [[0, "\n"]], "gaps": 1}) == "a\nb"
    for at in ([["x", "\n"]], [[None, "\n"]], [[5, "\n"]], [[0.5, "\n"]], ["0"]):
        assert restore_breaks("a b", {"at": at, "gaps": 1}) == "a b"
