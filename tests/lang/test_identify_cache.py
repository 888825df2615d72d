"""The language identifier's model, unpacked once into the cache folder: same answers as the
packed model, loaded in milliseconds, and never a failure when the folder is damaged or
cannot be written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from xlsearch.engine.lang import identify

TEXTS = [
    "Wann fährt der letzte Zug nach Wien?",
    "Le chat dort sur le canapé.",
    "Привет, как дела?",
    "これは日本語の文です。",
    "Para two.",
    "¿Dónde está la estación?",
]


@pytest.fixture()
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty cache folder, and no identifier loaded in this process."""
    monkeypatch.setattr(identify, "_IDENTIFIER", None)
    monkeypatch.setenv(identify.CACHE_ENV, str(tmp_path / "langid"))
    return tmp_path / "langid"


def test_the_unpacked_model_answers_as_the_packed_one(fresh: Path) -> None:
    packed = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    first = [identify.classify(t) for t in TEXTS]  # unpacks
    (folder,) = [p for p in fresh.iterdir() if not p.name.startswith(".")]
    assert (folder / "ok").is_file() and (folder / "ptc.npy").stat().st_size > 10_000_000
    identify._IDENTIFIER = None
    again = [identify.classify(t) for t in TEXTS]  # memory-mapped from the folder
    assert isinstance(identify.identifier().nb_ptc, __import__("numpy").memmap)
    assert first == again == [(str(a), float(b)) for a, b in map(packed.classify, TEXTS)]
    assert [identify.identifier().rank(t)[:3] for t in TEXTS] == [packed.rank(t)[:3] for t in TEXTS]


def test_a_damaged_or_unwritable_cache_falls_back_to_the_packed_model(fresh: Path) -> None:
    identify.classify("Der Hund schläft.")
    (folder,) = [p for p in fresh.iterdir() if not p.name.startswith(".")]
    (folder / "ptc.npy").write_bytes(b"not an array")
    identify._IDENTIFIER = None
    assert identify.classify("Der Hund schläft auf dem Sofa.")[0] == "de"
    # a cache folder that cannot be made: still the right answer
    blocked = fresh.parent / "file"
    blocked.write_text("x", encoding="utf-8")
    os.environ[identify.CACHE_ENV] = str(blocked / "langid")
    identify._IDENTIFIER = None
    assert identify.classify("Le chat dort sur le canapé.")[0] == "fr"
    assert not any(p.name.startswith(".unpack-") for p in fresh.iterdir())
