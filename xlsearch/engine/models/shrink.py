"""Making a static student smaller on disk: int8 rows and a narrower table (numpy only).

* **int8 rows**: each row of the embedding table is stored as int8 with one float32 scale
  (``max |row| / 127``); the numpy encoder multiplies back only the rows a text uses, so the
  table stays memory-mapped and a lookup reads a few kilobytes of it. The tensors are named
  as model2vec names a quantised table (``embeddings`` int8, per-row ``weights``), a layout
  sentence-transformers' own ``StaticEmbedding.load`` folds back into float32 rows: the folder
  loads with a plain ``SentenceTransformer(path)``.
* **a narrower table** (``dim``): the rows are projected on their ``dim`` principal
  components, and the first Dense layer of the head absorbs the projection (``W·P``) and the
  mean (its bias), so the head's output width is unchanged.

Both keep the sentence-transformers folder layout (``modules.json``, ``0_StaticEmbedding``,
``N_Dense``). Folders written before the model2vec names (``embedding.weight`` int8 +
``embedding.scale``) still load in xlsearch.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import ModelError

TABLE = "embedding.weight"
"""A float table's tensor (sentence-transformers' ``StaticEmbedding`` state)."""
INT8_TABLE = "embeddings"
"""An int8 table, under model2vec's name (see the module doc)."""
INT8_SCALE = "weights"
"""The per-row scales of ``INT8_TABLE``, under model2vec's name."""
OLD_SCALE = "embedding.scale"
"""The per-row scale beside an int8 ``embedding.weight`` in folders written before."""


def table_keys(weights: Mapping[str, Any], where: Path) -> tuple[str, str | None]:
    """The names of the table tensor and of its per-row scales (None: a float table)."""
    if INT8_TABLE in weights:
        if INT8_SCALE in weights and "mapping" not in weights:
            return INT8_TABLE, INT8_SCALE
        raise ModelError(f"{where}: a model2vec table with a vocabulary mapping is not supported")
    if TABLE in weights:
        return TABLE, OLD_SCALE if OLD_SCALE in weights else None
    raise ModelError(f"{where}: no 'embedding.weight' (or int8 'embeddings') tensor")


def quantize_rows(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``table ≈ q * scale[:, None]``: int8 rows and one float32 scale per row."""
    table = np.asarray(table, dtype=np.float32)
    peak = np.abs(table).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(table / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale


def dequantize_rows(q: np.ndarray, scale: np.ndarray | None) -> np.ndarray:
    """float32 rows back from int8 rows and their scales (``scale`` None: already float)."""
    rows = np.asarray(q, dtype=np.float32)
    return rows if scale is None else rows * np.asarray(scale, dtype=np.float32)[:, None]


def _read(path: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return dict(load_file(str(path)))


def _save(tensors: dict[str, np.ndarray], path: Path) -> None:
    from safetensors.numpy import save_file

    save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, str(path))


def shrink_static(
    folder: str | Path,
    out: str | Path,
    *,
    int8: bool = True,
    dim: int | None = None,
    card: dict[str, Any] | None = None,
) -> Path:
    """Write a smaller copy of the static student in ``folder`` to ``out``.

    ``dim``: project the table on this many principal components (None: keep its width).
    ``card``: entries merged into the copy's ``xlsearch.json`` (e.g. what was done).
    """
    src, dst = Path(folder), Path(out)
    modules = json.loads((src / "modules.json").read_text(encoding="utf-8"))
    modules.sort(key=lambda m: m.get("idx", 0))
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if not kinds or kinds[0] != "StaticEmbedding":
        raise ModelError(f"{src}: not a static student (no StaticEmbedding module first)")
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    body = dst / modules[0]["path"]
    weights = _read(body / "model.safetensors")
    key, scale_key = table_keys(weights, body / "model.safetensors")
    table = dequantize_rows(weights[key], weights[scale_key] if scale_key else None)
    if dim is not None and dim < table.shape[1]:
        if "Dense" not in kinds:
            raise ModelError(f"{src}: a narrower table needs a Dense head to absorb it")
        mean = table.mean(axis=0)
        centred = table - mean
        # principal directions of the rows (the Gram matrix is only width × width)
        _, vecs = np.linalg.eigh((centred.T @ centred).astype(np.float64))
        proj = vecs[:, ::-1][:, :dim].astype(np.float32)  # width × dim
        table = centred @ proj
        dense = dst / modules[kinds.index("Dense")]["path"]
        cfg = json.loads((dense / "config.json").read_text(encoding="utf-8"))
        head = _read(dense / "model.safetensors")
        w = head["linear.weight"].astype(np.float32)  # out × width
        bias = head.get("linear.bias")
        bias = np.zeros(w.shape[0], np.float32) if bias is None else bias.astype(np.float32)
        head["linear.bias"] = (bias + w @ mean).astype(np.float32)
        head["linear.weight"] = (w @ proj).astype(np.float32)
        cfg["in_features"] = dim
        cfg["bias"] = True
        (dense / "config.json").write_text(json.dumps(cfg, indent=2), encoding="utf-8")
        _save(head, dense / "model.safetensors")
    tensors: dict[str, np.ndarray]
    if int8:
        q, scale = quantize_rows(table)
        tensors = {INT8_TABLE: q, INT8_SCALE: scale}
    else:
        tensors = {TABLE: table.astype(np.float32)}
    _save(tensors, body / "model.safetensors")
    card_path = dst / "xlsearch.json"
    data = json.loads(card_path.read_text(encoding="utf-8")) if card_path.is_file() else {}
    data["storage"] = {"table": "int8 rows + float32 scale" if int8 else "float32"}
    data["storage"]["table_dim"] = int(table.shape[1])
    data.update(card or {})
    card_path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return dst


def folder_bytes(folder: str | Path) -> int:
    """Bytes on disk of every file under ``folder``."""
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())
