"""Continuing a static student on new pairs (``distill --init``): its vocabulary and head
are kept, only the rows of the new pairs' pieces move, its languages stay on its card."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers.distill import config

from xlsearch.engine.distill import distill
from xlsearch.engine.errors import ModelError


def _weights(folder: Path) -> dict[str, np.ndarray]:
    """Every tensor of a model folder, by ``module folder/name``."""
    from safetensors.numpy import load_file

    out: dict[str, np.ndarray] = {}
    for f in sorted(folder.rglob("model.safetensors")):
        for k, v in load_file(str(f)).items():
            out[f"{f.parent.name}/{k}"] = v
    return out


def test_init_shipped_continues_the_student_and_keeps_its_head(
    corpus: dict[str, Path],
    tiny_st_model: Path,
    shared_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from xlsearch.engine.models.cards import read_card
    from xlsearch.engine.models.shrink import dequantize_rows, shrink_static

    base = distill(config(corpus, tiny_st_model, tmp_path / "base", max_steps=6)).out
    shipped = shrink_static(base, tmp_path / "shipped" / "multilingual")  # int8 rows
    monkeypatch.setenv("XLSEARCH_SHIPPED_MODEL", str(shipped))
    with pytest.raises(ModelError):  # nothing to continue where no model is shipped
        monkeypatch.setenv("XLSEARCH_SHIPPED_MODEL", "")
        distill(config(corpus, tiny_st_model, tmp_path / "x", start_from="shipped"))
    monkeypatch.setenv("XLSEARCH_SHIPPED_MODEL", str(shipped))
    fr_only = [str(corpus["fr"])]
    out = distill(
        config(corpus, tiny_st_model, tmp_path / "mine", train=fr_only, start_from="shipped")
    ).out
    before, after = _weights(shipped), _weights(out)
    table0 = dequantize_rows(
        before["0_StaticEmbedding/embeddings"], before["0_StaticEmbedding/weights"]
    )
    table1 = after["0_StaticEmbedding/embedding.weight"]
    assert table1.shape == table0.shape  # the same vocabulary
    moved = ~np.isclose(table1, table0, atol=1e-6).all(axis=1)
    assert 0 < moved.sum() < len(moved)  # the French pairs' pieces moved, the others did not
    heads = [k for k in before if not k.startswith("0_")]
    assert heads and all(np.array_equal(before[k], after[k]) for k in heads)
    card = read_card(out)
    assert {"de", "fr"} <= set(card["languages"])  # German is still on the card
    assert card["student_info"]["start_from"] == str(shipped)
