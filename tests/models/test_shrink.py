"""Smaller static students: int8 rows and a narrower table give (nearly) the vectors of
their parent, on the numpy path (no torch) and on the training loader alike."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.models.test_static_encoder import TEXTS, _perturbed_static, _torch_vectors


def test_int8_rows_keep_the_vectors_and_shrink_the_table(tmp_path: Path) -> None:
    from xlsearch.engine.models.shrink import folder_bytes, shrink_static
    from xlsearch.engine.models.static_encoder import StaticEncoder

    parent = _perturbed_static(tmp_path, "mlp")
    small = shrink_static(parent, tmp_path / "int8")
    table = lambda f: f / "0_StaticEmbedding" / "model.safetensors"  # noqa: E731
    assert table(small).stat().st_size < 0.35 * table(parent).stat().st_size
    assert folder_bytes(small) < folder_bytes(parent)
    a, b = StaticEncoder(parent).encode(TEXTS), StaticEncoder(small).encode(TEXTS)
    assert isinstance(StaticEncoder(small).table, np.memmap)  # int8 rows stay on disk
    assert np.isfinite(b).all()
    assert (a * b).sum(1)[[0, 1, 2, 3, 8]].min() > 0.999
    # the training loader reads the same int8 table (a continued student starts from it)
    assert np.allclose(_torch_vectors(small, TEXTS), b, atol=1e-4)


def test_narrower_table_absorbed_by_the_head(tmp_path: Path) -> None:
    from xlsearch.engine.models.shrink import shrink_static
    from xlsearch.engine.models.static_encoder import StaticEncoder

    parent = _perturbed_static(tmp_path, "mlp")
    full = shrink_static(parent, tmp_path / "same", int8=False, dim=24)
    narrow = shrink_static(parent, tmp_path / "d8", int8=False, dim=8)
    a = StaticEncoder(parent).encode(TEXTS[:4])
    assert np.allclose(StaticEncoder(full).encode(TEXTS[:4]), a, atol=1e-4)  # all components
    enc = StaticEncoder(narrow)
    assert enc.table.shape[1] == 8 and enc.dim == StaticEncoder(parent).dim
    assert np.isfinite(enc.encode(TEXTS)).all()


def test_int8_student_encodes_without_torch(tmp_path: Path) -> None:
    from xlsearch.engine.models.shrink import shrink_static

    small = shrink_static(_perturbed_static(tmp_path, "mlp"), tmp_path / "int8")
    code = (
        "import sys; from xlsearch.engine.models.encoder import load_encoder; "
        f"v = load_encoder({str(small)!r}).encode(['a cat', 'un chat']); "
        "assert v.shape[0] == 2; assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_int8_copy_loads_in_plain_sentence_transformers(tmp_path: Path) -> None:
    """`SentenceTransformer(path)`, no trust_remote_code: the same vectors as xlsearch's."""
    from sentence_transformers import SentenceTransformer

    from xlsearch.engine.models.shrink import shrink_static
    from xlsearch.engine.models.static_encoder import StaticEncoder

    small = shrink_static(_perturbed_static(tmp_path, "mlp"), tmp_path / "int8")
    texts = [t for t in TEXTS if len(t) < 200]  # xlsearch cuts a text at max_seq_length
    theirs = SentenceTransformer(str(small), device="cpu").encode(texts)
    assert np.allclose(theirs, StaticEncoder(small).encode(texts), atol=1e-5)


def test_int8_folders_of_the_older_layout_still_load(tmp_path: Path) -> None:
    from safetensors.numpy import load_file, save_file

    from xlsearch.engine.models.shrink import shrink_static
    from xlsearch.engine.models.static_encoder import StaticEncoder

    small = shrink_static(_perturbed_static(tmp_path, "mlp"), tmp_path / "int8")
    expected = StaticEncoder(small).encode(TEXTS)
    path = small / "0_StaticEmbedding" / "model.safetensors"
    w = load_file(str(path))
    save_file({"embedding.weight": w["embeddings"], "embedding.scale": w["weights"]}, str(path))
    assert np.allclose(StaticEncoder(small).encode(TEXTS), expected, atol=1e-6)
    assert np.allclose(_torch_vectors(small, TEXTS), expected, atol=1e-4)
