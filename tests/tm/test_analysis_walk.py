"""An analysis is one pass of named stages: segment → candidates → score → choose → fill
policy → report, each stage's module entered once, in order, and no text looked up twice —
also in ``auto`` mode, where some units stay whole and others are split into sentences."""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from xlsearch.engine.store import Store
from xlsearch.engine.tm.analysis.analyze import analyze
from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.matching.lookup import Lookup

CAT = Path(__file__).resolve().parents[1] / "fixtures" / "cat"
STAGES = ["segment", "candidates", "score", "choose", "fill", "report"]
FOLDER = str(Path("xlsearch") / "engine" / "tm" / "analysis")


def _walk(doc: Any, lookup: Lookup, threshold: float = 0.8) -> tuple[list[str], list[str], Any]:
    """The stage modules entered while ``doc`` is analysed (consecutive entries into one
    module counted once), the texts looked up, and the analysis."""
    walked: list[str] = []
    looked: list[str] = []
    many = lookup.lookup_many

    def lookup_many(texts: Any, *args: Any, **kwargs: Any) -> Any:
        looked.extend(texts)
        return many(texts, *args, **kwargs)

    def profile(frame: FrameType, event: str, arg: object) -> None:
        path = Path(frame.f_code.co_filename)
        if event == "call" and FOLDER in str(path.parent) and path.stem in STAGES:
            if not walked or walked[-1] != path.stem:
                walked.append(path.stem)

    lookup.lookup_many = lookup_many  # type: ignore[method-assign]
    sys.setprofile(profile)
    try:
        rep = analyze(doc, lookup, segment="auto", threshold=threshold)
    finally:
        sys.setprofile(None)
    return walked, looked, rep


@pytest.fixture()
def paragraphs():
    with Store() as s:
        s.import_file(CAT / "units_omegat_paragraphs.tmx", "para")
        yield s


def test_auto_splits_some_units_and_keeps_others_in_one_pass(paragraphs: Store) -> None:
    """An XLIFF of paragraph units against a paragraph memory: five units stay whole (the
    memory holds them), the new one is split into its sentences — in one walk."""
    doc = open_document(CAT / "units_okapi_paragraphs.xlf", tgt="de-DE", segment="auto")
    walked, looked, rep = _walk(doc, Lookup(paragraphs, None, collection="para", semantic=False))
    assert walked == STAGES
    assert len(looked) == len(set(looked))
    assert [s.key for s in doc.segments][-3:] == ["tu5", "tu6/xls1", "tu6/xls2"]
    assert [r.band for r in rep.segments][-3:] == ["100%", "no match", "no match"]


def test_auto_makes_paragraphs_whole_in_one_pass(paragraphs: Store) -> None:
    """A Markdown document opens as sentences; the paragraphs the memory holds are made
    whole, the others stay sentences — in one walk."""
    doc = open_document(CAT / "units_manual.md", tgt="de-DE", segment="auto")
    walked, looked, rep = _walk(doc, Lookup(paragraphs, None, collection="para", semantic=False))
    assert walked == STAGES
    assert len(looked) == len(set(looked))
    assert [(s.key, r.band) for s, r in zip(doc.segments, rep.segments, strict=True)] == [
        ("line 1.1", "no match"), ("line 3", "100%"), ("line 5", "100%"),
        ("line 6.1", "no match"), ("line 6.2", "no match"),
    ]  # fmt: skip


class _Evidence:
    """A memory calibration that lets every semantic match write."""

    def evidence(self, segment: str, cosine: float, fuzzy: float = 0) -> str:
        return "your memory: every held-out match was right"

    def describe(self) -> str:
        return "every match"

    def to_dict(self) -> dict[str, Any]:
        return {}


def test_auto_keeps_a_unit_whole_only_for_a_semantic_match_the_memory_lets_write(
    tmp_path: Path, tiny_static_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PO entry of two sentences whose whole has only a semantic match (its words
    reordered) stays whole where the user's memory lets that match write, and is split
    where it does not."""
    from helpers.memory import write_tmx

    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.tm.calibration import memory

    enc = load_encoder(str(tiny_static_model))
    units = [("The big dog sleeps. A small cat runs.", "Der große Hund schläft. Eine Katze läuft.")]
    job = tmp_path / "job.po"
    job.write_text(
        'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Sleeps dog big the. Runs cat small a."\nmsgstr ""\n',
        encoding="utf-8",
    )
    with Store() as store:
        store.import_file(write_tmx(tmp_path / "tm.tmx", units), "tm")
        build_index(store, enc, "tm")
        for calibration, shape in ((_Evidence(), 1), (None, 2)):
            monkeypatch.setattr(memory, "calibrate", lambda *a, c=calibration, **k: c)
            doc = open_document(job, src="en")
            walked, _, rep = _walk(doc, Lookup(store, enc, collection="tm"), 0.5)
            assert walked == STAGES
            assert len(doc.segments) == shape
            assert [r.fill for r in rep.segments] == [shape == 1] * shape
