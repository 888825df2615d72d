"""A catalogue that declares UTF-8 but is in a legacy code page: the error names the code
page its language uses (charset-normalizer alone guesses cp1250 or Big5 for short French)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.importing import read, write

from xlsearch.engine.errors import DataError

PO = """# {title}
# Copyright (C) 2009 THE PACKAGE'S COPYRIGHT HOLDER
# {translator}, 2009.
#
msgid ""
msgstr ""
"Project-Id-Version: panel\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Language: {lang}\\n"

#: ../panel/main.c:108
msgid "Preferences"
msgstr "{first}"

#: ../panel/main.c:131
#, c-format
msgid "Failed to open \\"%s\\""
msgstr "{second}"
"""

CASES = [
    ("fr", "cp1252", "Préférences du tableau de bord", "Impossible d'ouvrir « %s »", "Gaël"),
    ("es", "cp1252", "Preferencias del panel", "No se pudo abrir «%s»", "Pablo Lezaeta Reyes"),
    ("ru", "cp1251", "Параметры панели", "Не удалось открыть «%s»", "Сергей"),
    ("pl", "cp1250", "Preferencje panelu", "Nie można otworzyć „%s”", "Michał Olber"),
]


@pytest.mark.parametrize(("lang", "codepage", "first", "second", "translator"), CASES)
def test_the_hint_names_the_code_page_of_the_catalogues_language(
    tmp_path: Path, lang: str, codepage: str, first: str, second: str, translator: str
) -> None:
    text = PO.format(
        title=f"{lang} translation", translator=translator, lang=lang, first=first, second=second
    )
    po = write(tmp_path, f"{lang}.po", text.encode(codepage))
    with pytest.raises(DataError) as err:
        read(po)
    assert f"pass --encoding {codepage} (it looks like {codepage})" in str(err.value.hint)
    rows, _ctx = read(po, encoding=codepage)  # the advice, followed, reads the catalogue
    assert rows[1][2] == first
