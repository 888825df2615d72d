"""Model catalog: listing and choosing the active model; shared metrics."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from xlsearch.engine.evaluation.metrics import mse_x100, translation_accuracy
from xlsearch.engine.models import catalog
from xlsearch.engine.models.cards import update_card
from xlsearch.engine.runtime import locations


def test_active_model_is_only_what_the_user_chose(tiny_static_model: Path) -> None:
    """A new student never becomes active by itself; unfinished runs are not models."""
    import pytest

    from xlsearch.engine.errors import ModelError

    assert catalog.active_model() == "bundled:teacher"
    older = Path(shutil.copytree(tiny_static_model, locations.models_dir() / "older"))
    newer = Path(shutil.copytree(tiny_static_model, locations.models_dir() / "newer"))
    running = Path(shutil.copytree(tiny_static_model, locations.models_dir() / "running"))
    update_card(older, created="2026-01-01T00:00:00+00:00")
    update_card(newer, created="2026-02-01T00:00:00+00:00")
    update_card(running, created="2026-03-01T00:00:00+00:00", finished=False)
    names = [m.name for m in catalog.list_models()]
    assert names[0].startswith("teacher") and {"older", "newer"} <= set(names)
    assert "running" not in names
    assert [m.name for m in catalog.list_models(unfinished=True)] == ["running"]
    assert catalog.active_model() == "bundled:teacher"
    catalog.set_active_model(str(older))
    assert catalog.active_model() == str(older.resolve())
    with pytest.raises(ModelError, match="unfinished"):
        catalog.set_active_model("running")
    assert catalog.active_model() == str(older.resolve())


def test_translation_accuracy_and_mse() -> None:
    eye = np.eye(4, dtype=np.float32)
    swapped = eye[[1, 0, 2, 3]]
    assert translation_accuracy(eye, eye) == (100.0, 100.0)
    assert translation_accuracy(eye, swapped, block=3) == (50.0, 50.0)
    assert abs(mse_x100(eye, swapped) - 100 * 4 / 16) < 1e-9


def test_models_lists_a_students_teacher_language_too(tiny_static_model: Path, capsys) -> None:
    """A student of the English teacher encodes English too: the listing says so."""
    from xlsearch.cli import main
    from xlsearch.engine.models.cards import BUNDLED_TEACHER
    from xlsearch.service.local import LocalEngine

    student = Path(shutil.copytree(tiny_static_model, locations.models_dir() / "de-fr"))
    update_card(student, languages=["de", "fr"], teacher=BUNDLED_TEACHER)
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "langs en,de,fr" in out  # was "langs de,fr": as if it knew no English
    [entry] = [m for m in LocalEngine().list_models() if m.name == "de-fr"]
    assert entry.languages == ["en", "de", "fr"]


def test_a_model_used_from_its_own_folder_answers_to_the_name_models_lists(
    tiny_static_model: Path, tmp_path: Path, capsys
) -> None:
    """``models --use /elsewhere/full-static`` lists it as ``full-static``, and that name
    works for --use, --model and eval (it was 'model folder not found: full-static')."""
    import pytest

    from xlsearch.cli import main
    from xlsearch.engine.errors import ModelError
    from xlsearch.engine.models.cards import resolve_model_path

    mine = Path(shutil.copytree(tiny_static_model, tmp_path / "copies" / "full-static"))
    with pytest.raises(ModelError, match="model folder not found: full-static"):
        resolve_model_path("full-static")  # not active yet: a name is looked up as before
    assert main(["models", "--use", str(mine)]) == 0
    capsys.readouterr()
    assert main(["models"]) == 0
    assert "* full-static" in capsys.readouterr().out
    assert resolve_model_path("full-static") == mine.resolve()
    assert main(["models", "--use", "full-static"]) == 0
    assert main(["encode", "hello", "--model", "full-static"]) == 0
    assert "not found" not in capsys.readouterr().err
    with pytest.raises(ModelError):
        resolve_model_path("other-name")


def test_models_lists_every_language_of_a_model(tiny_static_model: Path, capsys) -> None:
    """A model of 16 languages lists all 16 (the line stopped at 12: a Russian or Chinese
    user read that the shipped model does not know their language)."""
    from xlsearch.cli import main

    many = ["ar", "cs", "de", "es", "fr", "is", "it", "ja", "ko", "nl", "pl", "pt", "ru", "tr"]
    student = Path(shutil.copytree(tiny_static_model, locations.models_dir() / "wide"))
    update_card(student, languages=["en", *many, "zh"])
    assert main(["models"]) == 0
    [line] = [x for x in capsys.readouterr().out.splitlines() if " wide " in x]
    assert "langs en," + ",".join(many) + ",zh" in line
