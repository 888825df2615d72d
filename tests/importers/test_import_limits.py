"""Bounded memory and time on pathological inputs: huge segments, tags and lines."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from xlsearch.engine.errors import DataError
from xlsearch.engine.importers import ReadContext, read_records
from xlsearch.engine.importers.base import MAX_LINE_BYTES


def big_segment_tmx(path: Path, megabytes: int) -> Path:
    """A TMX whose first segment is ``megabytes`` MB of words, written in blocks."""
    block = "word " * 20_000 + "\n"  # 100 kB
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('<tmx version="1.4"><header srclang="en"/><body>\n')
        fh.write('<tu><tuv xml:lang="en"><seg>')
        fh.writelines(block for _ in range(megabytes * 10))
        fh.write('</seg></tuv><tuv xml:lang="de"><seg>kurz</seg></tuv></tu>\n')
        fh.write('<tu><tuv xml:lang="en"><seg>next</seg></tuv></tu></body></tmx>')
    return path


def measure(path: Path, fmt: str) -> tuple[list[str], ReadContext, int, float]:
    ctx = ReadContext(path)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        texts = [r.text for r in read_records(ctx, fmt)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return texts, ctx, peak, time.perf_counter() - start


def test_long_segment_is_cut_while_streaming(tmp_path: Path) -> None:
    small = big_segment_tmx(tmp_path / "s.tmx", 2)
    large = big_segment_tmx(tmp_path / "l.tmx", 16)
    texts, ctx, peak_small, t_small = measure(small, "tmx")
    assert texts == ["kurz", "next"]
    assert "a segment is over the limit of 100,000 characters; skipped" in ctx.warnings[0]
    texts, _, peak_large, t_large = measure(large, "tmx")
    assert texts == ["kurz", "next"]
    # memory flat in segment length (8x the text, about the same peak, a few MB at most) …
    assert peak_large < 1.5 * peak_small + 512 * 1024 and peak_large < 8 << 20, (
        peak_small,
        peak_large,
    )
    # … and time linear (8x the text: far from the 64x a quadratic parse would take)
    assert t_large < 20 * t_small + 0.5, (t_small, t_large)


@pytest.mark.parametrize("where", ["attribute", "comment"])
def test_huge_single_token_is_refused_quickly(tmp_path: Path, where: str) -> None:
    token = "y" * (3 << 20)
    inner = f'<ph x="{token}"/>' if where == "attribute" else f"<!--{token}-->"
    path = tmp_path / "t.tmx"
    path.write_text(
        '<tmx version="1.4"><header srclang="en"/><body>\n<tu><tuv xml:lang="en"><seg>a'
        f"{inner}</seg></tuv></tu></body></tmx>",
        encoding="utf-8",
    )
    start = time.perf_counter()
    with pytest.raises(DataError, match=r"t\.tmx:2: a single tag, attribute or comment of over"):
        list(read_records(ReadContext(path), "tmx"))
    assert time.perf_counter() - start < 5


def test_xliff_long_target_skipped_source_kept(tmp_path: Path) -> None:
    path = tmp_path / "a.xlf"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('<xliff version="1.2"><file source-language="en" target-language="de"><body>')
        fh.write('<trans-unit id="1"><source>Short source.</source><target>')
        fh.writelines("Wort " * 10_000 for _ in range(30))
        fh.write("</target></trans-unit></body></file></xliff>")
    texts, ctx, peak, _ = measure(path, "xliff")
    assert texts == ["Short source."] and "target of trans-unit 1" in ctx.warnings[0]
    assert peak < 8 << 20


def test_huge_text_line_is_skipped_with_flat_memory(tmp_path: Path) -> None:
    path = tmp_path / "a.tsv"
    with open(path, "wb") as fh:
        fh.write(b"en\tde\nHello\tHallo\n")
        fh.write(b"x" * (8 * MAX_LINE_BYTES) + b"\tY\n")
        fh.write(b"Bye\tTsch\xc3\xbcss\n")
    texts, ctx, peak, _ = measure(path, "tsv")
    assert texts == ["Hello", "Hallo", "Bye", "Tschüss"]
    assert ctx.warnings == [
        f"{path}:3: a line is over the limit of {MAX_LINE_BYTES:,} bytes; skipped"
    ]
    assert peak < 4 * MAX_LINE_BYTES  # readline's own buffers: ~3x the limit, not the line


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
