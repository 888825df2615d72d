"""Continuing a static student on new pairs (``distill --init``): its vocabulary and head
are kept, only the rows of the new pairs' pieces move, its languages stay on its card, and the
sentences it already placed move less than with the teacher's targets and the whole change."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers.distill import EN, config

from xlsearch.engine.distill import distill
from xlsearch.engine.errors import ConfigError, ModelError


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
    # saved as the student it started from is: int8 rows with one scale each (not float32
    # rows four times the size), and a row that did not move is the very same int8 row
    assert after["0_StaticEmbedding/embeddings"].dtype == np.int8
    assert "0_StaticEmbedding/embedding.weight" not in after
    table1 = dequantize_rows(
        after["0_StaticEmbedding/embeddings"], after["0_StaticEmbedding/weights"]
    )
    assert table1.shape == table0.shape  # the same vocabulary
    moved = ~np.isclose(table1, table0, atol=1e-6).all(axis=1)
    assert 0 < moved.sum() < len(moved)  # the French pairs' pieces moved, the others did not
    heads = [k for k in before if not k.startswith("0_")]
    assert heads and all(np.array_equal(before[k], after[k]) for k in heads)
    card = read_card(out)
    assert {"de", "fr"} <= set(card["languages"])  # German is still on the card
    assert card["student_info"]["start_from"] == str(shipped)
    assert card["config"]["anchor"] is True and card["config"]["merge"] == 0.6
    assert card["storage"]["table"] == "int8 rows + float32 scale"

    # the teacher's targets and the whole change (the settings before anchor and merge) move
    # the English sentences, which every other language was aligned to, further
    raw = distill(
        config(
            corpus,
            tiny_st_model,
            tmp_path / "raw",
            train=fr_only,
            start_from="shipped",
            anchor=False,
            merge=1.0,
        )  # fmt: skip
    ).out
    from xlsearch.engine.models.encoder import load_encoder

    def drift(folder: Path) -> float:
        """Mean cosine distance of English sentences from where the shipped student put them."""
        a, b = load_encoder(shipped).encode(EN), load_encoder(folder).encode(EN)
        return float(np.mean(1.0 - (a * b).sum(axis=1)))

    assert 0.0 < drift(out) < 0.5 * drift(raw)


def test_anchor_and_merge_need_a_student_to_continue() -> None:
    from xlsearch.engine.distill.config import DistillConfig, check_config

    with pytest.raises(ConfigError, match="--init"):
        check_config(DistillConfig(train=["a.tsv"], merge=0.5))
    with pytest.raises(ConfigError, match="merge"):
        check_config(DistillConfig(train=["a.tsv"], start_from="shipped", merge=1.5))
    assert check_config(DistillConfig(train=["a.tsv"], start_from="shipped", merge=1.0))
