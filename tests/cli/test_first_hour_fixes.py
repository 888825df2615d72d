"""Smaller defects a newcomer met on CAT files (tests/fixtures/cat/nc_*): a quiet analysis that
went silent while indexing, a folder given as a file, a file whose only line is too long,
a diff without its space, ``%{name}`` placeholders, CLI options in the app's hints, the
footer's screen keys and an empty language-bias plot."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlsearch.engine.tm import fuzzy as fz

CAT = Path(__file__).resolve().parents[1] / "fixtures" / "cat"


def test_quiet_analyze_still_prints_the_notice_when_it_indexes_on_the_spot(
    tmp_path: Path, tiny_static_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.engine.store import Store

    set_active_model(str(tiny_static_model))
    with Store() as store:
        store.import_file(CAT / "nc_memory.tmx", "acme")  # no index for any model yet
    assert main(["analyze", str(CAT / "nc_cms_job.xlf"), "--collection", "acme", "-q"]) == 0
    printed = capsys.readouterr()
    notices = [line for line in printed.err.splitlines() if line.startswith("notice:")]
    assert len(notices) == 1 and "acme" in notices[0] and "indexing" in notices[0]
    assert "embed:" not in printed.err and "lookup:" not in printed.err  # still no bars
    assert "| 100% |" in printed.out


@pytest.mark.parametrize("command", ["analyze", "align", "import-beads"])
def test_a_folder_given_as_a_file_is_named_a_folder(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main

    folder = tmp_path / "jobs"
    folder.mkdir()
    argv = {
        "analyze": ["analyze", str(folder), "--fuzzy-only"],
        "align": ["align", str(folder), str(CAT / "nc_guide.de.md"), "--out", "x.tsv"],
        "import-beads": [
            "align",
            str(CAT / "nc_guide.en.md"),
            str(CAT / "nc_guide.de.md"),
            "--beads",
            str(folder),
            "--collection",
            "c",
        ],
    }[command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    said = (
        "jobs: is a folder; name the file to write"
        if "--beads" in argv
        else "jobs: is a folder, not a file"
    )
    assert said in err and "no such file" not in err and "encode:" not in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_an_empty_folder_to_import_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main

    (tmp_path / "memories").mkdir()
    (tmp_path / "memories" / "readme.pdf").write_bytes(b"%PDF")
    assert main(["import", str(tmp_path / "memories"), "--collection", "tm"]) == 2
    err = capsys.readouterr().err
    assert "memories: no file to import in this folder" in err and ".tmx" in err
    assert len(err.strip().splitlines()) == 1


def test_a_file_whose_only_line_is_too_long_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main
    from xlsearch.engine.importers.base import MAX_LINE_BYTES

    path = tmp_path / "dump.txt"
    path.write_text("word " * (MAX_LINE_BYTES // 5 + 10) + "\n", encoding="utf-8")
    assert main(["import", str(path), "--collection", "c", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert "dump.txt:1: a line is over the limit of" in err and "bytes; skipped" in err
    assert "no segments found" not in err and "split the file" in err
    assert "Traceback" not in err


def test_a_diff_keeps_the_space_before_words_deleted_at_the_end() -> None:
    new = "Everyone likes the new dashboard."
    stored = "Everyone likes the new dashboard. You kicked off the new reports yesterday."
    assert fz.diff_markup(fz.diff(new, stored)) == (
        "Everyone likes the new dashboard. [-You kicked off the new reports yesterday.-]"
    )
    # the ops still spell both sides exactly
    ops = fz.diff(new, stored)
    assert "".join(t for op, t in ops if op != "+") == stored
    assert "".join(t for op, t in ops if op != "-") == new


def test_a_percent_brace_placeholder_is_one_token_named_whole() -> None:
    tokens = fz.tokenize("We sent a link to %{target_email}.")
    assert [t.text for t in tokens if t.kind == "ph"] == ["%{target_email}"]
    flags = fz.flags("We sent a link to %{user_email}.", "We sent a link to %{target_email}.")
    assert flags == ["placeholders: new %{user_email} · stored %{target_email}"]


def test_app_hints_name_the_screens_controls_not_command_line_options() -> None:
    from xlsearch.engine.errors import DataError
    from xlsearch.engine.importers.document import read_document
    from xlsearch.engine.tm.documents import open_document
    from xlsearch.tui.hints import for_app
    from xlsearch.tui.screens.align import AlignScreen
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
    # whole commands stay as they are
    hint = "rebuild it: xlsearch index --rebuild"
    assert for_app(hint) == hint


def test_the_narrow_footer_names_every_screen_key() -> None:
    from xlsearch.tui.app import SCREENS, XLSearchApp, _fit

    keys = sorted(int(key[1:]) for key, *_ in SCREENS.values() if key != "f1")
    f2 = next(b for b in XLSearchApp.BINDINGS if b.key == "f2")
    assert _fit(f2, wide=False).key_display == f"f{keys[0]}…f{keys[-1]}" == "f2…f10"


def test_evaluation_on_held_out_translations_gives_the_bias_plot_its_points(
    tiny_static_model: Path,
) -> None:
    from xlsearch.engine.evaluation.suite import PCA_ROWS, run_suite
    from xlsearch.service import builtin_eval as builtin

    sets = builtin.demo_heldout_sets()
    report = run_suite(str(tiny_static_model), parallel_sets=sets, parallel_key="demo-heldout")
    points = report.bias_points()
    langs = {lang for _x, _y, lang in points}
    assert langs == {"en", *(s.src_lang for s in sets)}
    assert len(points) == sum(min(len(s.src), PCA_ROWS) for s in sets) + min(
        len(sets[0].tgt), PCA_ROWS
    )
    assert "bias" not in {t.key for t in report.tables}  # a plot, not a bias figure


def test_drafts_do_not_enter_the_memory_as_translations() -> None:
    """A PO ``#, fuzzy`` msgstr and a memoQ PartiallyEdited half target were imported as
    translations, and lookup then offered them (even as 100 % matches)."""
    from xlsearch.engine.store import Store

    with Store() as store:
        po = store.import_file(CAT / "nc_portal.de.po", "jobs")
        memoq = store.import_file(CAT / "nc_ui_strings.mqxliff", "jobs")
        texts = {row[0] for row in store.conn.execute("SELECT text FROM segments")}
    assert "Hochladen fehlgeschlagen." not in texts  # fuzzy in the PO
    assert "Hochladen fehlgeschlagen:" not in texts  # PartiallyEdited in memoQ
    assert "Upload failed: the file is larger than {max_size} MB." in texts  # source kept
    assert {"Einstellungen"} <= texts  # confirmed translations stay
    assert any("1 fuzzy entries" in w for w in po.warnings)
    assert any("memoQ status PartiallyEdited" in w for w in memoq.warnings)


def test_a_wrong_option_and_a_folder_as_output_are_one_line_each(tmp_path: Path) -> None:
    """A bad option value printed argparse's usage block; a folder named as an output file
    gave 'error: …/.d.tsv.x1y2.tmp: Is a directory' (our temp file, no fix)."""
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "xlsearch", *args], capture_output=True, text=True
        )

    bad = run("import", "x.tmx", "--format", "bogus")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert "invalid choice: 'bogus'" in bad.stderr and "xlsearch import --help" in bad.stderr
    (tmp_path / "tm.tsv").write_text("the dog sleeps\tder Hund schläft\n", encoding="utf-8")
    assert run("import", str(tmp_path / "tm.tsv"), "--collection", "tm").returncode == 0
    folder = tmp_path / "d.tsv"
    folder.mkdir()
    out = run("export", "--collection", "tm", "--lang", "en,de", str(folder))
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert f"{folder}: is a folder" in out.stderr and ".tmp" not in out.stderr
