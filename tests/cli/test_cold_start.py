"""Fast from cold: ``lookup --stdin`` (the model loaded once for many segments) and the
start-up shortcuts (language tags without langcodes, the thread count settled without a
sleep, index files hashed once, collection names without counting segments)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.memory import UNITS, write_tmx

ROOT = Path(__file__).resolve().parents[2]


def _home(tmp_path: Path, model: Path) -> dict[str, str]:
    """A memory indexed with ``model``, active: the environment of a user."""
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    set_active_model(str(model))
    with Store() as store:
        store.import_file(write_tmx(tmp_path / "tm.tmx", UNITS), "tm")
        build_index(store, load_encoder(str(model)), "tm")
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}


@pytest.fixture()
def memory_home(tmp_path: Path, tiny_st_model: Path) -> dict[str, str]:
    """With the tiny transformer: the resident path that ``--stdin`` is for."""
    return _home(tmp_path, tiny_st_model)


@pytest.fixture()
def static_home(tmp_path: Path, tiny_static_model: Path) -> dict[str, str]:
    """With a tiny static student: the same command without torch's start-up (the output
    rules do not depend on the model)."""
    return _home(tmp_path, tiny_static_model)


def _lookup(env: dict[str, str], *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "xlsearch", "lookup", "--stdin", "--src", "en", "--tgt", "de"]
    return subprocess.Popen(
        [*cmd, *extra],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_lookup_stdin_answers_each_line_as_it_comes(memory_home: dict[str, str]) -> None:
    proc = _lookup(memory_home, "--json")
    assert proc.stdin is not None and proc.stdout is not None
    answers = []
    lines = ("the dog sleeps", "", "a red house", "the big dog sleeps")
    for line in lines:
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()  # no more input yet: the answer must come before the next line
        answers.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    assert [a["segment"] for a in answers] == [
        "the dog sleeps",
        "",
        "a red house",
        "the big dog sleeps",
    ]
    assert answers[0]["matches"][0]["target"] == "der hund schläft"
    assert answers[0]["matches"][0]["fuzzy"] == 100
    assert answers[1]["matches"] == []  # a blank line still gets its (empty) answer
    assert answers[2]["matches"][0]["target"] == "das rote haus"
    assert answers[3]["matches"][0]["fuzzy"] == 100


def test_lookup_stdin_text_blocks_are_blank_line_separated(static_home: dict[str, str]) -> None:
    proc = _lookup(static_home)
    out, err = proc.communicate(b"the dog sleeps\r\ngood morning world\nzzz qqq\n")
    assert proc.returncode == 0, err
    blocks = out.decode().split("\n\n")
    assert len(blocks) == 3
    assert blocks[0].startswith("1. fuzzy 100%") and "der hund schläft" in blocks[0]
    assert "guten morgen welt" in blocks[1]
    assert err.decode().count(" ms)") == 3  # the time of each lookup


def test_lookup_stdin_a_bad_line_gets_its_error_as_its_answer_and_the_rest_go_on(
    static_home: dict[str, str],
) -> None:
    """A CAT tool's hook reads one answer per line: a line that is not UTF-8 is answered
    with its error (and one line on stderr), the next lines are answered, the exit status
    says something failed."""
    proc = _lookup(static_home, "--json")
    out, err = proc.communicate(b"the dog sleeps\ncaf\xe9 au lait\nthe cat runs\n")
    assert proc.returncode == 2
    answers = [json.loads(line) for line in out.decode().splitlines()]
    assert [a["segment"] for a in answers] == ["the dog sleeps", None, "the cat runs"]
    assert answers[1]["line"] == 2 and "not UTF-8" in answers[1]["error"]
    assert answers[2]["matches"][0]["target"] == "die katze läuft"
    lines = err.decode().strip().splitlines()
    assert lines == [lines[-1]] and "standard input, line 2: not UTF-8" in lines[-1]
    assert "Traceback" not in err.decode()
    proc = _lookup(static_home)  # text: an error block in its place
    out, _ = proc.communicate(b"caf\xe9\nthe cat runs\n")
    blocks = out.decode().split("\n\n")
    assert proc.returncode == 2 and blocks[0].startswith("error: standard input, line 1")
    assert "die katze läuft" in blocks[1]


@pytest.mark.parametrize("argv", [["--src", "en"], ["the dog", "--stdin", "--src", "en"]])
def test_lookup_needs_a_segment_or_stdin(argv: list[str], capsys: pytest.CaptureFixture) -> None:
    from xlsearch.cli import main

    assert main(["lookup", *argv]) == 2
    assert "give one segment, or --stdin" in capsys.readouterr().err


# -- start-up shortcuts ----------------------------------------------------------------------
def test_the_settled_thread_count_follows_the_load_since_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No 0.1 s sleep at import: the first guess comes from the load average, and the
    measured sample (started at import) settles it before torch loads."""
    from xlsearch.engine.runtime import cpu

    monkeypatch.setattr(cpu, "_policy", None)
    monkeypatch.setattr(cpu, "_pending", None)
    for var in ("XLSEARCH_THREADS", "XLSEARCH_THREAD_POLICY", "OMP_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(cpu, "cpu_count", lambda *a: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (2.0, 2.0, 2.0))  # a minute ago: busy
    now = [(100.0, 500.0)]  # busy, total jiffies
    monkeypatch.setattr(cpu, "cpu_times", lambda stat=None: now[0])
    monkeypatch.setattr(cpu, "STAT_SAMPLE_S", 0.0)
    assert cpu.configure_threads().threads == 1  # the guess
    now[0] = (100.0, 700.0)  # since start: idle
    assert cpu.settle_threads().threads == 2  # the measurement
    assert cpu.settle_threads().threads == 2  # settled once


def test_common_language_tags_skip_langcodes_with_its_answers() -> None:
    """``ll`` and ``ll-RR`` tags are normalised without importing langcodes, to the same
    result (every two-letter language, with and without a sample of regions)."""
    import itertools
    import string

    import langcodes

    from xlsearch.engine.lang import tags as langtags

    letters = ["".join(p) for p in itertools.product(string.ascii_lowercase, repeat=2)]
    regions = ["US", "GB", "UK", "DE", "CH", "BR", "TW", "CN", "ZR", "YU", "AT", "419"]
    tags = letters + [f"{x}-{r}" for x in ("en", "de", "zh", "pt", "iw", "sh") for r in regions]
    tags += [f"{x}-{r.lower()}" for x in letters[::7] for r in ("us", "fx", "es")]
    tags += ["EN", "En-gB", "tl", "in", "mo", "de_AT"]
    for tag in tags:
        want = str(langcodes.standardize_tag(tag.replace("_", "-"), macro=True))
        assert langtags.normalize_lang.__wrapped__(tag) == want, tag
    code = "import xlsearch.engine.lang.tags as t, sys; t.normalize_lang('en-GB'); "
    code += "print('langcodes' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_index_files_are_hashed_once_and_checked_again_when_changed(
    tiny_static_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from xlsearch.engine.errors import IndexMismatchError
    from xlsearch.engine.index import files
    from xlsearch.engine.index.manager import build_index, open_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    enc = load_encoder(str(tiny_static_model))
    hashed: list[Path] = []
    real = files._sha256
    monkeypatch.setattr(files, "_sha256", lambda p: hashed.append(p) or real(p))
    with Store() as store:
        store.import_file(write_tmx(tmp_path / "tm.tmx", UNITS), "tm")
        folder = build_index(store, enc, "tm").folder
        hashed.clear()
        for _ in range(3):
            assert open_index(store, enc, "tm").count == 2 * len(UNITS)
        assert hashed == []  # verified when written: no fresh process hashes it again
        path = folder / files.read_sidecar(folder)["file"]
        data = bytearray(path.read_bytes())
        data[-5] ^= 0xFF  # same size, one byte flipped
        path.write_bytes(bytes(data))
        with pytest.raises(IndexMismatchError, match="checksum"):
            open_index(store, enc, "tm")


def test_nonempty_collections_lists_what_collections_counts(tmp_path: Path) -> None:
    from xlsearch.engine.store import Store

    with Store() as store:
        store.import_file(write_tmx(tmp_path / "b.tmx", UNITS), "b")
        store.import_file(write_tmx(tmp_path / "a.tmx", UNITS[:1]), "a")
        store.ensure_collection("empty")
        want = [c["name"] for c in store.collections() if c["segments"]]
        assert store.nonempty_collections() == want == ["a", "b"]


def test_a_memory_mapped_flat_index_is_repaired_in_memory_while_another_writer_holds_it(
    tiny_static_model: Path, tmp_path: Path
) -> None:
    """A flat index opened for search is mapped read-only; when a writer holds the folder,
    the repair works on a writable copy (and the file on disk stays as it was)."""
    from xlsearch.engine.index.files import folder_lock, read_sidecar
    from xlsearch.engine.index.manager import build_index, open_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    enc = load_encoder(str(tiny_static_model))
    with Store() as store:
        store.import_file(write_tmx(tmp_path / "a.tmx", UNITS[:3]), "tm")
        folder = build_index(store, enc, "tm").folder
        before = read_sidecar(folder)
        store.import_file(write_tmx(tmp_path / "b.tmx", UNITS[3:]), "tm")
        with folder_lock(folder, wait=False) as locked:
            assert locked
            oi = open_index(store, enc, "tm")
            assert oi.count == 2 * len(UNITS) and oi.state == "repaired"
        assert read_sidecar(folder) == before  # nothing written while another writer held it
        assert open_index(store, enc, "tm").count == 2 * len(UNITS)  # saved now
