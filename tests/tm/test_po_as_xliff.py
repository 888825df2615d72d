"""A PO catalogue saved as XLIFF 2.0 (``analyze job.po --out job.xlf``): entries with a
``msgctxt`` are written too, the context as the unit's ``name`` (what an XLIFF import
reads back as the context), never as a control character in the XML."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from xlsearch.engine.tm.documents import open_document

NS = "{urn:oasis:names:tc:xliff:document:2.0}"
PO = (
    'msgid ""\nmsgstr ""\n"Language: it\\n"\n\n'
    'msgctxt "column"\nmsgid "Name"\nmsgstr ""\n\n'
    'msgctxt "action"\nmsgid "Open"\nmsgstr "Apri"\n\n'
    'msgid "Save"\nmsgstr ""\n'
)


def test_a_po_with_msgctxt_is_saved_as_xliff(tmp_path: Path) -> None:
    job = tmp_path / "job.it.po"
    job.write_text(PO, encoding="utf-8")
    out = open_document(job).save(tmp_path / "job.xlf")
    root = etree.parse(str(out)).getroot()
    units = root.findall(f".//{NS}unit")
    assert [u.get("name") for u in units] == ["column", "action", None]
    assert [u.findtext(f".//{NS}source") for u in units] == ["Name", "Open", "Save"]
    notes = [n.text for n in root.iter(f"{NS}note")]
    assert notes == ["column: Name", "action: Open", "Save"]
    assert open_document(out).segments[0].context == "column"  # read back as the context


def test_a_plural_entry_keeps_every_form(tmp_path: Path) -> None:
    """``msgid_plural`` and each ``msgstr[n]`` after the first get a unit of their own
    (``u1-1``), as the singular has: the XLIFF holds everything the entry holds."""
    job = tmp_path / "job.it.po"
    job.write_text(
        'msgid ""\nmsgstr ""\n"Language: it\\n"\n'
        '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
        'msgid "%d folder"\nmsgid_plural "%d folders"\n'
        'msgstr[0] "%d cartella"\nmsgstr[1] "%d cartelle"\n\n'
        'msgid "%d file"\nmsgid_plural "%d files"\nmsgstr[0] ""\nmsgstr[1] ""\n',
        encoding="utf-8",
    )
    out = open_document(job).save(tmp_path / "job.xlf")
    root = etree.parse(str(out)).getroot()
    units = {
        u.get("id"): (u.findtext(f".//{NS}source"), u.findtext(f".//{NS}target"))
        for u in root.iter(f"{NS}unit")
    }
    assert units == {
        "u1": ("%d folder", "%d cartella"),
        "u1-1": ("%d folders", "%d cartelle"),
        "u2": ("%d file", None),
        "u2-1": ("%d files", None),
    }


def test_fills_keep_their_line_breaks_in_the_xliff(tmp_path: Path) -> None:
    """A msgid on two lines gets its fill on two lines, as the PO writer lays it out: where
    the memory's msgstr had its break, else one sentence a line as the msgid has them (the
    memory keeps a line break as a space); a real newline inside ``<target>``."""
    from po_jobs import pretranslate_po

    head = 'msgid ""\nmsgstr ""\n"Language: fr\\n"\n\n'
    mem = head + (
        'msgid ""\n"Are you sure that you want to\\n"\n"permanently delete \\"%s\\"?"\n'
        'msgstr ""\n"Voulez-vous vraiment supprimer\\n"\n"définitivement « %s » ?"\n\n'
        'msgid ""\n"Your changes were not saved.\\n"\n"Close anyway?"\n'
        'msgstr "Vos modifications n’ont pas été enregistrées. Fermer quand même ?"\n\n'
    )
    job = head + (
        'msgid ""\n"Are you sure that you want to\\n"\n"permanently delete \\"%s\\"?"\n'
        'msgstr ""\n\n'
        'msgid ""\n"Your changes were not saved.\\n"\n"Close anyway?"\nmsgstr ""\n\n'
    )
    _, filled, out = pretranslate_po(tmp_path, mem, job, "fr", out="job.fr.xlf")
    assert filled == 2
    root = etree.parse(str(out)).getroot()
    targets = [s.findtext(f"{NS}target") for s in root.iter(f"{NS}segment")]
    assert targets == [
        "Voulez-vous vraiment supprimer\ndéfinitivement « %s » ?",
        "Vos modifications n’ont pas été enregistrées.\nFermer quand même ?",
    ]
