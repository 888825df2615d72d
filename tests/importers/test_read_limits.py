"""One table of limits, one error each, on every path that reads a user's file."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlsearch.engine.importers.limits import LIMITS, LINE, SEGMENT


def _one_line(tmp_path: Path, name: str = "dump.txt") -> Path:
    path = tmp_path / name
    words = "the settings of the panel are saved when you close the window "
    path.write_text(words * (LINE.value // len(words) + 2), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["analyze", "{f}", "--src", "en", "--tgt", "fr", "--fuzzy-only", "--out", "{o}"],
        ["align", "{f}", "{f}", "--out", "{o}.tmx"],
    ],
    ids=["analyze", "align"],
)
def test_a_file_of_one_huge_line_is_refused_with_the_limit_every_command_uses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    from xlsearch.cli import main

    memory = tmp_path / "memory.tsv"
    memory.write_text("en\tfr\nClose the window\tFermer la fenêtre\n", encoding="utf-8")
    assert main(["import", str(memory), "--collection", "tm"]) == 0
    path, out = _one_line(tmp_path), tmp_path / "out.txt"
    capsys.readouterr()
    assert main([a.format(f=path, o=out) for a in argv]) == 2
    err = capsys.readouterr().err
    assert f"{path.name}:1: a line" in err
    assert f"is over the limit of {LINE.value:,} bytes" in err
    assert "Traceback" not in err and not out.exists()


def test_import_skips_the_same_line_with_the_same_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main

    path = _one_line(tmp_path)
    assert main(["import", str(path), "--collection", "c", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert f"dump.txt:1: a line is over the limit of {LINE.value:,} bytes; skipped" in err


def test_a_word_paragraph_over_the_line_limit_is_refused(tmp_path: Path) -> None:
    import docx

    from xlsearch.engine.errors import DataError
    from xlsearch.engine.tm.documents import open_document

    document = docx.Document()
    document.add_heading("Release notes", level=1)
    document.add_paragraph(_one_line(tmp_path).read_text(encoding="utf-8"))
    document.save(str(tmp_path / "notes.docx"))
    with pytest.raises(DataError, match=r"notes\.docx \(paragraph 2\): a paragraph \(") as info:
        open_document(tmp_path / "notes.docx", "en", "fr")
    assert f"is over the limit of {LINE.value:,} bytes" in str(info.value)


def test_a_job_segment_over_the_segment_limit_is_refused(tmp_path: Path) -> None:
    from xlsearch.engine.errors import DataError
    from xlsearch.engine.tm.documents import open_document

    po = tmp_path / "fr.po"
    msgid = "Close " * (SEGMENT.value // 6 + 1)
    po.write_text(
        f'msgid ""\nmsgstr ""\n"Language: fr\\n"\n\nmsgid "{msgid}"\nmsgstr ""\n',
        encoding="utf-8",
    )
    with pytest.raises(DataError, match=r"fr\.po \(segment 1\): a segment \(\d[\d,]* char"):
        open_document(po)


def test_the_table_names_file_size_line_length_segment_length_and_count() -> None:
    assert set(LIMITS) == {"file", "line", "segment", "segments"}
    assert all(limit.value > 0 and limit.hint for limit in LIMITS.values())
