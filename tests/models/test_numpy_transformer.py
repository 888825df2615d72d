"""The numpy BERT (a short command's teacher, no torch): the torch path's vectors in fp32,
and ``xlsearch sts`` with a BERT model in a fresh process imports no torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from xlsearch.engine.models.numpy_transformer import NumpyTransformer, is_numpy_bert

TEXTS = [
    "The cat sleeps on the mat.",
    "Die Katze schläft auf der Matte.",
    "猫在睡觉。",
    "",
    "hello " * 300,  # longer than max_seq_length: truncated as the torch path truncates
    "HELLO world, Good Morning!",
]


def _torch_fp32(folder: Path | str, texts: list[str], max_seq_length: int) -> np.ndarray:
    from xlsearch.engine.models.encoder import load_encoder

    enc = load_encoder(folder, device="cpu", precision="fp32", max_seq_length=max_seq_length)
    return np.asarray(enc.encode(texts))


def test_numpy_bert_gives_the_torch_vectors(tiny_st_model: Path) -> None:
    assert is_numpy_bert(tiny_st_model)
    got = NumpyTransformer(tiny_st_model, max_seq_length=64).encode(TEXTS)
    want = _torch_fp32(tiny_st_model, TEXTS, 64)
    assert got.shape == want.shape and got.dtype == np.float32
    assert np.abs(got - want).max() < 1e-4
    assert np.abs(got @ got.T - want @ want.T).max() < 1e-4  # the cosines sts prints


def test_the_bundled_teacher_in_numpy_matches_torch() -> None:
    from xlsearch.engine.models.cards import resolve_model_path

    path = resolve_model_path("bundled:teacher")
    assert is_numpy_bert(path)
    texts = TEXTS[:3] + TEXTS[4:5]
    got = NumpyTransformer(path, max_seq_length=128).encode(texts)
    want = _torch_fp32("bundled:teacher", texts, 128)
    assert np.abs(got - want).max() < 1e-4


def test_other_models_are_not_taken_for_a_numpy_bert(
    tiny_static_model: Path, tiny_hf_model: Path
) -> None:
    assert not is_numpy_bert(tiny_static_model)
    assert not is_numpy_bert(tiny_hf_model)  # no sentence-transformers modules: torch path


RUN = """
import json, sys
from xlsearch.cli import main
rc = main(json.loads(sys.argv[1]))
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"torch", "transformers",
               "sentence_transformers", "sklearn"})
print("RESULT", json.dumps({"rc": rc, "heavy": heavy}))
"""


@pytest.mark.slow
def test_sts_with_a_bert_model_imports_no_torch(tmp_path: Path, tiny_st_model: Path) -> None:
    env = {**os.environ, "XLSEARCH_HOME": str(tmp_path / "home")}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2])] + sys.path)
    args = ["sts", "a cat", "a dog", "--model", str(tiny_st_model)]
    proc = subprocess.run(
        [sys.executable, "-c", RUN, json.dumps(args)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), "")
    assert json.loads(line[7:] or "{}") == {"rc": 0, "heavy": []}, proc.stderr[-2000:]
    assert "cosine" in proc.stdout
