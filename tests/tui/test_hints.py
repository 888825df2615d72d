"""The app's hints name its own controls, not command-line options; the footer names every
screen key."""

from __future__ import annotations

from pathlib import Path

import pytest

CAT = Path(__file__).resolve().parents[1] / "fixtures" / "cat"


def test_app_hints_name_the_screens_controls_not_command_line_options() -> None:
    from xlsearch.engine.errors import DataError
    from xlsearch.engine.importers.document import read_document
    from xlsearch.engine.tm.documents import open_document
    from xlsearch.tui.hints import for_app
    from xlsearch.tui.screens.align import AlignScreen
    from xlsearch.tui.screens.corpus import CorpusScreen
    from xlsearch.tui.screens.translate import TranslateScreen

    with pytest.raises(DataError) as align_error:
        read_document(CAT / "nc_portal.de.po")
    assert "--presplit" in str(align_error.value)
    shown = for_app(str(align_error.value), AlignScreen.CONTROLS)
    assert "--" not in shown and "“one sentence a line”" in shown

    with pytest.raises(DataError) as open_error:
        open_document(CAT / "nc_make_docx.py")
    shown = for_app(str(open_error.value), TranslateScreen.CONTROLS)
    assert "--format" not in shown and "rename it to .txt" in shown
    assert for_app(
        "x: the file does not say its source language\n  hint: pass --src", TranslateScreen.CONTROLS
    ).endswith("hint: use the src field")
    # an option the app has no control for is named with its command
    shown = for_app("x: bytes\n  hint: pass --encoding cp1252 (it looks like cp1252)")
    assert "`xlsearch import … --encoding cp1252` (command line)" in shown
    # a field the screen has: the value to type in it
    shown = for_app(
        "x: bytes\n  hint: pass --encoding utf-8 (the file's real encoding)", CorpusScreen.CONTROLS
    )
    assert shown.endswith("hint: type utf-8 in the encoding field (the file's real encoding)")
    # whole commands stay as they are
    hint = "rebuild it: xlsearch index --rebuild"
    assert for_app(hint) == hint


def test_the_narrow_footer_names_every_screen_key() -> None:
    from xlsearch.tui.app import SCREENS, XLSearchApp, _fit

    keys = sorted(int(key[1:]) for key, *_ in SCREENS.values() if key != "f1")
    f2 = next(b for b in XLSearchApp.BINDINGS if b.key == "f2")
    assert _fit(f2, wide=False).key_display == f"f{keys[0]}…f{keys[-1]}" == "f2…f10"


def test_a_job_that_lies_about_its_encoding_gets_a_fix_for_the_job(tmp_path: Path) -> None:
    """The Translate screen has no encoding field, and importing the job (`xlsearch import
    … --encoding`) would make it a memory: the hint says to correct the file's own
    declaration, the fix its CAT tool needs too."""
    from xlsearch.engine.errors import DataError
    from xlsearch.engine.tm.documents import open_document
    from xlsearch.tui.hints import for_app
    from xlsearch.tui.screens.translate import TranslateScreen

    job = tmp_path / "job.it.po"
    job.write_text(
        'msgid ""\nmsgstr ""\n"Language: it\\n"\n"Content-Type: text/plain; charset=ISO-8859-1\\n"'
        '\n\nmsgid "Properties"\nmsgstr "Proprietà"\n',
        encoding="utf-8",
    )
    with pytest.raises(DataError) as error:
        open_document(job)
    shown = for_app(str(error.value), TranslateScreen.CONTROLS)
    assert "xlsearch import" not in shown and "--encoding" not in shown, shown
    assert "type utf-8 in the file's own declaration" in shown, shown
