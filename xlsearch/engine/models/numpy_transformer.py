"""A BERT sentence encoder without torch, for the few sentences of a short command.

``xlsearch sts`` with the bundled teacher spent ~5 s of its ~6 s importing torch and
transformers to embed two sentences. ``NumpyTransformer`` runs the same sentence-transformers
folder (Transformer with a BERT body → mean Pooling → Normalize) in numpy: ``tokenizers``
(the fast tokenizer transformers itself uses, from ``tokenizer.json``) and the safetensors
weights read with safetensors' numpy API. The forward pass is BERT's, in float32, so the
vectors are the torch path's in fp32 to within rounding (tested: cosines within 1e-4).

It is meant for a handful of sentences (one at a time, no padding); bulk encoding keeps the
torch ``Encoder`` (batched, threaded, bf16 where the CPU has it).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import ModelError
from xlsearch.engine.models.cards import model_id, read_card
from xlsearch.engine.models.static_encoder import (
    gelu,
    l2_normalize,
    load_weights,
    module_kind,
    read_modules,
)

MAX_TEXTS = 64
"""Above this many texts the torch ``Encoder`` is faster than loading it is slow."""


def is_numpy_bert(folder: str | os.PathLike[str]) -> bool:
    """True when the folder is a model this module runs exactly: a BERT body (absolute
    positions, GELU) with a fast tokenizer, mean pooling and (optionally) Normalize."""
    path = Path(folder)
    try:
        modules = read_modules(path)
    except ModelError:
        return False
    if not modules or module_kind(modules[0]) != "Transformer" or modules[0].get("path", ""):
        return False
    kinds = [module_kind(m) for m in modules[1:]]
    if kinds not in (["Pooling"], ["Pooling", "Normalize"]):
        return False
    try:
        cfg = json.loads((path / "config.json").read_text(encoding="utf-8"))
        pooling = json.loads(
            (path / modules[1].get("path", "") / "config.json").read_text(encoding="utf-8")
        )
    except (OSError, ValueError):
        return False
    mean_only = pooling.get("pooling_mode_mean_tokens") and not any(
        v for k, v in pooling.items() if k.startswith("pooling_mode_") and "mean_tokens" not in k
    )
    return bool(
        mean_only
        and cfg.get("model_type") == "bert"
        and cfg.get("hidden_act") == "gelu"
        and cfg.get("position_embedding_type", "absolute") == "absolute"
        and (path / "tokenizer.json").is_file()
        and (path / "model.safetensors").is_file()
    )


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return ((x - mean) / np.sqrt(var + eps)) * weight + bias


class NumpyTransformer:
    """The ``Encoder`` interface (``encode``, ``dim``, ``id``, ``path``, ``card``) for a BERT
    sentence-transformers model, in numpy (see the module's docstring)."""

    kind = "transformer"
    precision = "fp32"

    def __init__(self, path: str | os.PathLike[str], *, max_seq_length: int | None = None):
        from tokenizers import Tokenizer

        self.path = Path(path)
        self.id = model_id(self.path)
        self.card: dict[str, Any] = read_card(self.path)
        cfg = json.loads((self.path / "config.json").read_text(encoding="utf-8"))
        st_path = self.path / "sentence_bert_config.json"
        st = json.loads(st_path.read_text(encoding="utf-8")) if st_path.is_file() else {}
        limit = int(max_seq_length or st.get("max_seq_length") or 256)
        self.max_seq_length = min(limit, int(cfg.get("max_position_embeddings", limit)))
        self.do_lower_case = bool(st.get("do_lower_case", False))
        self.heads = int(cfg["num_attention_heads"])
        self.layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.tokenizer = Tokenizer.from_file(str(self.path / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.max_seq_length)
        weights = load_weights(self.path / "model.safetensors")
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
        self.w = {k[len(prefix) :]: v for k, v in weights.items() if k.startswith(prefix)}
        self.dim = int(cfg["hidden_size"])

    def _p(self, name: str) -> np.ndarray:
        try:
            return np.asarray(self.w[name], dtype=np.float32)
        except KeyError as exc:
            raise ModelError(f"{self.path / 'model.safetensors'}: no {name!r} tensor") from exc

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self._p(f"{name}.weight").T + self._p(f"{name}.bias")

    def _embed(self, ids: list[int]) -> np.ndarray:
        x = (
            self._p("embeddings.word_embeddings.weight")[ids]
            + self._p("embeddings.position_embeddings.weight")[: len(ids)]
            + self._p("embeddings.token_type_embeddings.weight")[0]
        )
        x = _layer_norm(
            x,
            self._p("embeddings.LayerNorm.weight"),
            self._p("embeddings.LayerNorm.bias"),
            self.eps,
        )
        h = self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}"
            n, d = x.shape
            q, k, v = (
                self._linear(x, f"{p}.attention.self.{w}").reshape(n, h, d // h).transpose(1, 0, 2)
                for w in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(d // h))
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            attn = scores / scores.sum(axis=-1, keepdims=True)
            ctx = (attn @ v).transpose(1, 0, 2).reshape(n, d)
            x = _layer_norm(
                x + self._linear(ctx, f"{p}.attention.output.dense"),
                self._p(f"{p}.attention.output.LayerNorm.weight"),
                self._p(f"{p}.attention.output.LayerNorm.bias"),
                self.eps,
            )
            inner = gelu(self._linear(x, f"{p}.intermediate.dense"))
            x = _layer_norm(
                x + self._linear(inner, f"{p}.output.dense"),
                self._p(f"{p}.output.LayerNorm.weight"),
                self._p(f"{p}.output.LayerNorm.bias"),
                self.eps,
            )
        return np.asarray(x.mean(axis=0), dtype=np.float32)

    def encode(self, texts: Sequence[str], **_: Any) -> np.ndarray:
        """Embed ``texts`` → ``(len(texts), dim)`` float32, each row L2-normalised."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            text = text if isinstance(text, str) else str(text)
            if self.do_lower_case:
                text = text.lower()
            out[i] = self._embed(self.tokenizer.encode(text).ids)
        return l2_normalize(out) if len(texts) else out
