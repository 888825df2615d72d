"""Gettext catalogues as real tools write them: one language per file and side."""

from __future__ import annotations

from pathlib import Path

from helpers.cat_files import ENTRIES, HEADER
from helpers.importing import read, write


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


TMX_HEAD = """<?xml version="1.0" encoding="{declared}"?>
<!DOCTYPE tmx SYSTEM "tmx14.dtd">
<tmx version="1.4">
  <header creationtool="Heartsome TMX Editor" creationtoolversion="8.0" datatype="PlainText"
          segtype="sentence" adminlang="en-US" srclang="en-US" o-tmf="unknown"/>
  <body>
"""
TMX_UNITS = """    <tu tuid="calendar.delete" creationdate="20230411T093012Z">
      <prop type="x-context">toolbar</prop>
      <tuv xml:lang="en-US"><seg>Delete Event</seg></tuv>
      <tuv xml:lang="fr-FR"><seg>Supprimer l’évènement</seg></tuv>
    </tu>
    <tu tuid="calendar.edit">
      <tuv xml:lang="en-US">
        <seg>Edit the <bpt i="1">&lt;b&gt;</bpt>next<ept i="1">&lt;/b&gt;</ept> event</seg>
      </tuv>
      <tuv xml:lang="fr-FR">
        <seg>Modifier le <bpt i="1">&lt;b&gt;</bpt>prochain<ept i="1">&lt;/b&gt;</ept>
          évènement</seg>
      </tuv>
    </tu>
  </body>
</tmx>
"""


def test_a_tmx_declaring_latin_1_but_holding_utf8_is_refused_with_the_fix(tmp_path: Path) -> None:
    import pytest

    from xlsearch.engine.errors import DataError

    tmx = write(tmp_path, "calendar.tmx", TMX_HEAD.format(declared="ISO-8859-1") + TMX_UNITS)
    with pytest.raises(DataError) as info:
        read(tmx)
    message = str(info.value)
    assert message.startswith(f"{tmx}:")
    assert "“Supprimer l’évènement” in utf-8" in message and "not in the encoding" in message
    assert "--encoding utf-8" in message
    # the garbled quote printable: its C1 control characters escaped, not sent raw
    assert "lâ\\x80\\x99Ã©vÃ¨nement" in message, message
    assert all(c.isprintable() for c in message.replace("\n", " ")), repr(message)
    rows, _ctx = read(tmx, encoding="utf-8")
    assert rows[1] == (0, "fr-FR", "Supprimer l’évènement")


def test_mojibake_inside_a_utf8_file_is_repaired_and_said(tmp_path: Path) -> None:
    garbled = TMX_UNITS.replace("l’évènement", "lâ€™Ã©vÃ¨nement")
    tmx = write(tmp_path, "calendar.tmx", TMX_HEAD.format(declared="UTF-8") + garbled)
    rows, ctx = read(tmx)
    assert rows[1] == (0, "fr-FR", "Supprimer l’évènement")
    assert any("1 segments held garbled text" in w for w in ctx.warnings)


def test_real_accented_text_is_not_taken_for_mojibake(tmp_path: Path) -> None:
    tmx = write(tmp_path, "calendar.tmx", TMX_HEAD.format(declared="UTF-8") + TMX_UNITS)
    rows, ctx = read(tmx)
    assert [r[2] for r in rows][:2] == ["Delete Event", "Supprimer l’évènement"]
    assert ctx.warnings == []
    latin = (TMX_HEAD.format(declared="ISO-8859-1") + TMX_UNITS).replace("’", "'")
    rows, ctx = read(write(tmx.parent, "latin.tmx", latin.encode("latin-1")))
    assert rows[1] == (0, "fr-FR", "Supprimer l'évènement")


def test_french_latin_1_bytes_in_a_file_declaring_utf8_suggest_cp1252(tmp_path: Path) -> None:
    import pytest

    from xlsearch.engine.errors import DataError

    text = (TMX_HEAD.format(declared="UTF-8") + TMX_UNITS).replace("’", "'")
    tmx = write(tmp_path, "calendar.tmx", text.encode("latin-1"))
    with pytest.raises(DataError, match="pass --encoding cp1252"):
        read(tmx)


def test_a_po_job_declaring_latin_1_but_holding_utf8_is_refused_not_translated_garbled(
    tmp_path: Path,
) -> None:
    import pytest

    from xlsearch.engine.errors import DataError
    from xlsearch.engine.tm.documents import open_document

    text = HEADER.format(language='"Language: fr\\n"\n') + ENTRIES
    po = write(tmp_path, "fr.po", text.replace("charset=UTF-8", "charset=ISO-8859-1"))
    with pytest.raises(DataError, match="not in the encoding it declares") as info:
        open_document(po)
    assert "“Ouvrir le lien dans une nouvelle _fenêtre” in utf-8" in str(info.value)
    assert "--encoding utf-8" in str(info.value)  # as import says it


FRENCH_UI = (
    "Taper « %s --help » pour plus d'informations.\n"
    "Échec de l'ouverture du fichier « %s » : %s\n"
    "Enregistrer les modifications avant de fermer ?\n"
)


def test_french_latin_1_text_is_guessed_cp1252_and_czech_stays_cp1250() -> None:
    """charset-normalizer reads French UI strings as cp1250 (``é`` is the same byte there,
    ``è`` becomes ``č``): the hint named cp1250 for a French catalogue. The guess is the
    Western code page when the text reads as a language written in it."""
    from xlsearch.engine.importers.encoding import guess_encoding

    assert guess_encoding(FRENCH_UI.encode("latin-1")) == "cp1252"
    czech = "Příliš žluťoučký kůň úpěl ďábelské ódy. Soubor nelze otevřít.\n"
    polish = "Zażółć gęślą jaźń. Nie można otworzyć pliku, błąd zapisu.\n"
    for text in (czech, polish):
        assert guess_encoding(text.encode("cp1250")) == "cp1250", text


def test_a_latin_1_french_po_declaring_utf8_is_told_cp1252(tmp_path: Path) -> None:
    import pytest

    from xlsearch.engine.errors import DataError
    from xlsearch.engine.tm.documents import open_document

    entries = "".join(
        f'\n#: src/main.c:{i}\n#, c-format\nmsgid "line {i}"\nmsgstr "{line}"\n'
        for i, line in enumerate(FRENCH_UI.splitlines())
    )
    text = HEADER.format(language='"Language: fr\\n"\n') + entries
    po = write(tmp_path, "fr.po", text.encode("latin-1"))
    with pytest.raises(DataError) as info:
        open_document(po)
    assert "pass --encoding cp1252" in str(info.value.hint), info.value


# A catalogue converted from a web app's JSON strings (i18next's gettext converter keeps
# U+2028, which JavaScript allows in a string) and a msgstr pasted from a cp1252 text read as
# Latin-1 (U+0085 where "…" stood): msgfmt --check passes, gettext splits lines at LF only.
SEPARATORS = (
    'msgid ""\n'
    'msgstr ""\n'
    '"Project-Id-Version: webshop 1.4\\n"\n'
    '"Language: de\\n"\n'
    '"Content-Type: text/plain; charset=UTF-8\\n"\n'
    '"X-Generator: i18next-conv\\n"\n'
    "\n"
    "#: checkout.json:12\n"
    'msgctxt "checkout.terms"\n'
    'msgid "I accept the terms.\u2028Read them first."\n'
    'msgstr "Ich akzeptiere die AGB.\u2028Bitte zuerst lesen."\n'
    "\n"
    "#: cart.json:3\n"
    'msgid "Loading"\n'
    'msgstr "Wird geladen\u0085"\n'
    "\n"
    'msgid "Cart"\n'
    'msgstr "Warenkorb"\n'
)


def test_line_and_next_line_separators_inside_strings_are_read_as_characters(
    tmp_path: Path,
) -> None:
    """U+2028 and U+0085 inside a string are the string's characters, as gettext reads them
    (the catalogue was refused: "a string is not closed"); a job with them is written back
    with them."""
    from xlsearch.engine.tm.documents import open_document

    po = write(tmp_path, "de.po", SEPARATORS.encode("utf-8"))
    rows, _ctx = read(po)  # the memory stores them as the spaces they stand for
    assert [text for _tu, _lang, text in rows] == [
        "I accept the terms. Read them first.",
        "Ich akzeptiere die AGB. Bitte zuerst lesen.",
        "Loading",
        "Wird geladen",
        "Cart",
        "Warenkorb",
    ]
    doc = open_document(po)
    assert [s.source for s in doc.segments][:2] == [
        "I accept the terms.\u2028Read them first.",
        "Loading",
    ]
    doc.set_target(2, "Einkaufswagen", quality=90, origin="fuzzy")
    out = doc.save(tmp_path / "de.translated.po")
    written = out.read_text(encoding="utf-8")
    assert 'msgstr "Ich akzeptiere die AGB.\u2028Bitte zuerst lesen."\n' in written
    assert 'msgstr "Wird geladen\u0085"\n' in written
    assert 'msgstr "Einkaufswagen"' in written


def test_gettext_locale_modifiers_are_languages(tmp_path: Path) -> None:
    """GNOME and Xfce translate into ``sr@latin`` (Serbian in Latin letters) and
    ``ca@valencia``: the header's ``Language: sr@latin`` and a file named ``sr@latin.po``
    were no language at all (the msgstrs' language was guessed from their words, and
    ``analyze`` found no target language)."""
    from xlsearch.engine.tm.documents import open_document

    latin = 'msgid "Open the file"\nmsgstr "Otvori datoteku"\n'
    po = write(tmp_path, "viewer.po", HEADER.format(language='"Language: sr@latin\\n"\n') + latin)
    assert _sides(po) == ({"en"}, {"sr-Latn"})
    valencian = (
        'msgid "Open Link in New _Window"\nmsgstr "Obri l\'enllaç en una finestra _nova"\n\n'
        'msgid "The file could not be saved."\nmsgstr "No s\'ha pogut guardar el fitxer."\n'
    )
    named = write(tmp_path, "ca@valencia.po", HEADER.format(language="") + valencian)
    assert _sides(named)[1] == {"ca-valencia"}
    job = write(tmp_path, "sr@latin.po", HEADER.format(language="") + 'msgid "Open"\nmsgstr ""\n')
    doc = open_document(job)
    assert doc.tgt == "sr-Latn"
    doc.set_target(0, "Otvori", quality=100, origin="fuzzy")
    saved = doc.save(tmp_path / "sr@latin.translated.po").read_text(encoding="utf-8")
    assert '"Language: sr@latin\\n"' in saved  # written back in gettext's form
