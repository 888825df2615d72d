"""The demo model's notice gives advice that works for the memory at hand, run here as the
user would run it: an export the notice names writes distillation pairs; a memory of
monolingual files gets no export that would fail; an installed model that knows the
memory's languages is named first."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from helpers.memory import write_tmx

from xlsearch.cli import main
from xlsearch.engine.models.cards import update_card
from xlsearch.engine.models.catalog import set_active_model

PAIRS = [("the dog sleeps", "der Hund schläft"), ("a red house", "ein rotes Haus")]


@pytest.fixture()
def toy(tiny_static_model: Path) -> Path:
    """The tiny static model as a demo model (it saw 3,800 pairs), active."""
    update_card(tiny_static_model, data=[{"path": "demo-train.tsv", "pairs": 3800}])
    set_active_model(str(tiny_static_model))
    return tiny_static_model


def _notice(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    lines = [x for x in capsys.readouterr().err.splitlines() if "saw only 3,800" in x]
    assert len(lines) == 1
    return lines[0]


def test_a_memory_of_monolingual_files_gets_no_export_that_fails(
    toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for lang, text in (("de", "Der Hund schläft.\n"), ("ja", "犬が寝ている。\n")):
        (tmp_path / f"a.{lang}.txt").write_text(text, "utf-8")
        assert main(["import", str(tmp_path / f"a.{lang}.txt"), "-c", "c", "--lang", lang]) == 0
    line = _notice(capsys, "search", "dog", "-c", "c")
    assert "xlsearch export" not in line  # it would fail: no unit has English and another
    assert "no units with English and" in line and "xlsearch distill --train en-" in line
    assert main(["export", "-c", "c", "--lang", "en,de,ja", "tm.tsv"]) != 0  # the old advice


def test_the_export_the_notice_names_writes_distillation_pairs(
    toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["import", str(write_tmx(tmp_path / "tm.tmx", PAIRS)), "-c", "tm"]) == 0
    (tmp_path / "notes.ja.txt").write_text("犬が寝ている。\n", "utf-8")  # monolingual too
    assert main(["import", str(tmp_path / "notes.ja.txt"), "-c", "tm", "--lang", "ja"]) == 0
    line = _notice(capsys, "search", "dog", "-c", "tm")
    export = re.search(r"xlsearch (export .*?) && xlsearch distill", line)
    assert export is not None and "--lang en,de " in export.group(1)  # not ja: no pairs
    assert main(shlex.split(export.group(1))) == 0  # the advice, run as given
    rows = (tmp_path / "tm.tsv").read_text("utf-8").splitlines()
    assert [r.split("\t") for r in rows][-2:] == [list(p) for p in PAIRS]


def test_an_installed_model_that_knows_the_languages_is_named_first(
    toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.engine.runtime import locations

    real = locations.models_dir() / "real-student"
    shutil.copytree(toy, real)
    card = {"data": [{"path": "big.tsv", "pairs": 80_000}], "teacher": "bundled:teacher"}
    update_card(real, **card, languages=["de"])
    assert main(["import", str(write_tmx(tmp_path / "tm.tmx", PAIRS)), "-c", "tm"]) == 0
    line = _notice(capsys, "search", "dog", "-c", "tm")
    assert line.endswith("xlsearch models --use real-student")
    assert main(["models", "--use", "real-student"]) == 0  # the advice works
