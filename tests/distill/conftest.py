"""Fixtures of the distillation tests: one tiny en–de/en–fr corpus and home per module."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.distill import DE, FR, write_pairs


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("distill-data")
    return {
        "de": write_pairs(root / "en-de.tsv", DE, 240, 1),
        "fr": write_pairs(root / "en-fr.tsv", FR, 160, 2),
        "home": root / "home",
    }


@pytest.fixture()
def shared_home(corpus: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    """One XLSEARCH_HOME for this module so the teacher cache is built once."""
    monkeypatch.setenv("XLSEARCH_HOME", str(corpus["home"]))
    return corpus["home"]
