"""Command-line mistakes are one line each: a folder given as a file, a wrong option value,
a folder as output."""

from __future__ import annotations

from pathlib import Path

import pytest

CAT = Path(__file__).resolve().parents[1] / "fixtures" / "cat"


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
