"""Issue 11: no dead ends between features (export, search, models, delete, CLI errors).

Everything runs through the real engine (store, FAISS indexes, a tiny real static model).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from xlsearch.cli import main
from xlsearch.engine.errors import DataError
from xlsearch.engine.export.writer import export_store
from xlsearch.engine.store import Store

TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence"
 adminlang="en" creationtool="t" creationtoolversion="1" o-tmf="t"/><body>
<tu><tuv xml:lang="en"><seg>the dog sleeps</seg></tuv><tuv xml:lang="de"><seg>der hund schläft</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>the cat runs</seg></tuv><tuv xml:lang="fr"><seg>le chat court</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>hello world</seg></tuv></tu>
<tu><tuv xml:lang="de"><seg>guten morgen</seg></tuv><tuv xml:lang="fr"><seg>bonjour monde</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>the big tree</seg></tuv><tuv xml:lang="de"><seg>der große baum</seg></tuv><tuv xml:lang="fr"><seg>le grand arbre</seg></tuv></tu>
</body></tmx>
"""  # noqa: E501


@pytest.fixture()
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "tm.tmx"
    path.write_text(TMX, encoding="utf-8")
    with Store() as store:
        store.import_file(path, "tm")
    return path


def test_export_tsv_keeps_units_with_first_and_any_other_language(
    memory: Path, tmp_path: Path
) -> None:
    with Store() as store:
        rep = export_store(store, tmp_path / "tm.tsv", "tm", ["en", "de", "fr"])
    assert rep.columns == ["en", "de", "fr"] and rep.written == 3
    assert rep.left_out == {"with only en": 1, "without en": 1}
    assert (tmp_path / "tm.tsv").read_text("utf-8").splitlines() == [
        "the dog sleeps\tder hund schläft\t",
        "the cat runs\t\tle chat court",
        "the big tree\tder große baum\tle grand arbre",
    ]
    assert "left out 1 with only en, 1 without en" in rep.describe()
    # columns: only the requested languages that occur
    with Store() as store:
        rep = export_store(store, tmp_path / "ru.tsv", "tm", ["en", "ru", "de"])
    assert rep.columns == ["en", "de"] and rep.written == 2


def test_export_tmx_keeps_units_with_two_requested_languages(memory: Path, tmp_path: Path) -> None:
    with Store() as store:
        rep = export_store(store, tmp_path / "tm.tmx", "tm", ["de", "fr"])
    tmx = (tmp_path / "tm.tmx").read_text("utf-8")
    assert rep.written == 2 and tmx.count("<tu>") == 2 and 'xml:lang="en"' not in tmx
    assert rep.left_out == {"with fewer than 2 of de,fr": 3}


def test_export_with_nothing_to_write_is_an_error_and_writes_nothing(
    memory: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store() as store, pytest.raises(DataError, match="no unit has ru and any of ja"):
        export_store(store, tmp_path / "x.tsv", "tm", ["ru", "ja"])
    assert main(["export", "--collection", "tm", "--lang", "en,ja", str(tmp_path / "y.tsv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has en and any of ja" in err and "hint:" in err
    assert not (tmp_path / "x.tsv").exists() and not (tmp_path / "y.tsv").exists()


def test_cli_search_one_hit_per_unit_out_tsv_and_index_on_the_spot(
    memory: Path,
    tmp_path: Path,
    tiny_static_model: Path,
    tiny_st_model: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = str(tiny_static_model)
    assert main(["index", "--collection", "tm", "--model", str(tiny_st_model)]) == 0
    capsys.readouterr()
    # tm has an index for another model only: indexed on the spot, with a notice
    out = tmp_path / "hits.tsv"
    args = ["search", "the dog sleeps", "--model", model, "--k", "3", "--out", str(out)]
    assert main([*args, "--lang", "de", "--lang", "en"]) == 0
    stdout, err = capsys.readouterr()
    assert "notice: collection 'tm' had no index for model tiny-static" in err
    assert "wrote 3 hits" in err
    rows = [r.split("\t") for r in out.read_text("utf-8").splitlines()]
    assert rows[0] == ["rank", "score", "de", "en", "collection", "document"]
    assert len(rows) == 4 and [r[0] for r in rows[1:]] == ["1", "2", "3"]
    assert rows[1][2:4] == ["der hund schläft", "the dog sleeps"]
    # one hit per translation unit by default; --variants shows each matching segment
    assert main(["search", "the dog sleeps", "--model", model, "--k", "10", "--json"]) == 0
    hits = [eval_json(line) for line in capsys.readouterr().out.splitlines()]
    units = [(h["document_id"], h["tu_id"]) for h in hits]
    assert len(units) == len(set(units)) == 5
    assert main(["search", "the dog sleeps", "--model", model, "--json", "--variants"]) == 0
    variants = [eval_json(line) for line in capsys.readouterr().out.splitlines()]
    assert len(variants) == 10 and len({h["tu_id"] for h in variants}) == 5


def eval_json(line: str) -> dict:
    import json

    return json.loads(line)


def test_delete_collection_removes_its_index_files(
    memory: Path, tiny_static_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.engine.runtime import locations

    for model in (tiny_static_model,):
        assert main(["index", "--collection", "tm", "--model", str(model)]) == 0
    folders = list(locations.indexes_dir().iterdir())
    assert len(folders) == 1 and folders[0].name.startswith("tm--")
    assert main(["delete", "--collection", "tm"]) == 0
    assert "1 index folder(s)" in capsys.readouterr().out
    assert list(locations.indexes_dir().iterdir()) == []
    with Store() as store:
        assert store.conn.execute("SELECT COUNT(*) FROM indexes").fetchone()[0] == 0


def test_empty_tsv_is_an_error_like_an_empty_tmx(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("empty.tsv", "empty.tmx"):
        (tmp_path / name).write_text("", encoding="utf-8")
        assert main(["import", str(tmp_path / name), "-q"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: Bad input data: ") and f"{name}:1:" in err
        assert err.count("\n") == 1


def test_cli_errors_are_one_line_without_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["search", "x", "--collection", "nope", "--mode", "lexical"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "error: Configuration error: no collection named 'nope' "
        "(hint: collections: none yet (xlsearch collections lists them))\n"
    )

    def boom(*_: object, **__: object) -> None:
        raise ValueError("something broke")

    monkeypatch.setattr("xlsearch.engine.models.catalog.list_models", boom)
    assert main(["models"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ValueError: something broke" in err
    assert "XLSEARCH_DEBUG=1" in err and "Traceback" not in err


def test_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """``xlsearch … | head``: the reader goes away; no BrokenPipeError traceback."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "xlsearch", "collections", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the command writes: its first write hits a closed pipe
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and err == "", err


def test_reindex_cost_and_session_model(memory: Path, tiny_static_model: Path) -> None:
    from xlsearch.service.local import LocalEngine

    engine = LocalEngine(model=str(tiny_static_model))
    assert engine.active_model() == str(tiny_static_model)
    assert engine.reindex_cost(str(tiny_static_model)) == (10, 1)
    hits = engine.search("the dog sleeps", k=3)
    assert hits[0].text == "the dog sleeps" and "no index" in engine.notices[0]
    assert engine.reindex_cost(str(tiny_static_model)) == (0, 0)
    engine.search("the dog sleeps", k=3)
    assert engine.notices == []
    engine.set_active_model("bundled:teacher")  # the user's choice replaces the session model
    assert engine.active_model() == "bundled:teacher" and engine.session_model is None


def test_progress_display_plain_lines_and_width_aware_bars() -> None:
    from rich.console import Console

    from xlsearch.commands.progress import ProgressDisplay
    from xlsearch.engine.progress import Progress

    plain = io.StringIO()
    bar = ProgressDisplay(Console(file=plain, width=200), live=False)
    bar(Progress("plan", 0, 88, "flat index, ~1 KB"))
    bar(Progress("embed", 0, 100))
    for i in range(1, 100):
        bar(Progress("embed", i, 100, metrics={"eta_s": 100.0 - i}))  # throttled
    bar(Progress("embed", 100, 100))
    bar.close()
    lines = plain.getvalue().splitlines()
    assert lines == [
        "plan: flat index, ~1 KB for 88 segments",
        "embed: 0/100 0%",
        "embed: 100/100 100%",
    ]

    for width in (80, 120):  # one line per update, whatever the width (no wrapping)
        live = io.StringIO()
        bar = ProgressDisplay(Console(file=live, width=width, force_terminal=True), live=True)
        metrics = {"eta_s": 754.0, "sent_per_s": 812.5}
        bar(Progress("teacher", 10, 100, "teacher embeddings (once)", metrics))
        bar(Progress("teacher", 20, 100, "teacher embeddings (once)", metrics))
        bar.close()
        frames = strip_ansi(live.getvalue()).strip("\n").split("\r")
        last = frames[-1]
        assert "ETA 12:34" in last and "20/100" in last and " 20%" in last
        assert "\n" not in strip_ansi(live.getvalue()).strip("\n")
        assert all(len(f) <= width for f in frames)


def strip_ansi(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def test_teacher_cache_eta_comes_from_the_work_left() -> None:
    """Longest sentences first: a rate-based ETA over-estimates; the work-based one not."""
    from xlsearch.engine.distill.teacher_cache import eta_from_work, sentence_cost

    lengths = sentence_cost(np.array([200] * 10 + [20] * 90))
    assert lengths[0] > 10 * lengths[-1]  # a long sentence costs more than its length says
    remaining_after = lengths[::-1].cumsum()[::-1]
    total = float(remaining_after[0])
    per_char = 0.01  # seconds: encoding time proportional to the work
    done = 10
    elapsed = per_char * float(lengths[:done].sum())
    true_left = per_char * float(lengths[done:].sum())
    eta = eta_from_work(elapsed, remaining_after, done, total)
    assert eta == pytest.approx(true_left)
    rate_based = (100 - done) / (done / elapsed)
    assert rate_based > 3 * true_left
    assert eta_from_work(elapsed, remaining_after, 100, total) == 0.0


def test_search_with_no_hits_says_why(tmp_path: Path, capsys) -> None:
    """'no hits' alone left a newcomer guessing: an empty store, or a --lang typo."""
    assert main(["search", "tea", "--mode", "lexical"]) == 0
    out, err = capsys.readouterr()
    assert out == "no hits\n"
    assert "(the store is empty: xlsearch import FILE… --collection NAME)" in err
    path = tmp_path / "tm.tmx"
    path.write_text(TMX, encoding="utf-8")
    assert main(["import", str(path), "--collection", "tm", "-q"]) == 0
    capsys.readouterr()
    assert main(["search", "dog", "--mode", "lexical", "--lang", "jp"]) == 0
    out, err = capsys.readouterr()
    assert out == "no hits\n" and "the store has no segment in jp; it has en, de, fr" in err
    assert main(["search", "zebra", "--mode", "lexical", "--lang", "en"]) == 0
    out, err = capsys.readouterr()
    assert out == "no hits\n" and "(" not in err  # simply no match: nothing to explain


@pytest.mark.parametrize(
    "argv",
    [
        ["import", "tm.tmx", "-q"],
        ["index", "-q"],
        ["distill", "--train", "en-fr.tsv", "-q"],
        ["analyze", "job.po", "--collection", "tm", "-q"],
        ["align", "a.txt", "b.txt", "-q"],
    ],
    ids=lambda argv: argv[0],
)
def test_every_long_command_takes_quiet(argv: list[str]) -> None:
    """A script silences each long-running command the same way (index and distill refused
    ``-q`` where import, analyze and align took it)."""
    from xlsearch.cli import build_parser

    assert build_parser().parse_args(argv).quiet is True
