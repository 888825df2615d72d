"""The embedded demo: committed assets match their sources; the held-out split is honest."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlsearch.engine import DataError
from xlsearch.service.demo import DEMO_LANGS, assets_dir, build_assets, is_heldout, load_units


def test_demo_corpus_is_large_and_multiscript() -> None:
    units = load_units()
    assert len(units) >= 600
    assert len({u["id"] for u in units}) == len(units)
    assert len({u["en"] for u in units}) == len(units)
    assert {"ru", "zh", "ar", "ja"} <= set(DEMO_LANGS)
    assert all(all(u[lang].strip() for lang in DEMO_LANGS) for u in units)


def test_committed_assets_match_sources(tmp_path: Path) -> None:
    counts = build_assets(out=tmp_path)
    for name in ("demo.tmx", "demo-train.tsv", "demo-heldout.tsv"):
        assert (tmp_path / name).read_bytes() == (assets_dir() / name).read_bytes(), name
    assert counts["demo-train.tsv"] + counts["demo-heldout.tsv"] == counts["demo.tmx"]


def test_heldout_units_never_reach_training() -> None:
    train = (assets_dir() / "demo-train.tsv").read_text(encoding="utf-8").splitlines()
    held = [u for u in load_units() if is_heldout(u["id"])]
    train_en = {row.split("\t")[0] for row in train}
    assert held and not any(u["en"] in train_en for u in held)
    assert all(len(row.split("\t")) == len(DEMO_LANGS) for row in train)


def test_bad_demo_source_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "part.jsonl").write_text('{"id": "x001", "en": "hi"}\n{oops\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"part\.jsonl:1"):
        load_units(tmp_path)
