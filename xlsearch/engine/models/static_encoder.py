"""Static students without torch: a gather, a mean and a few matrix products in numpy.

A static student (``modules.json``: StaticEmbedding → Dense* → Normalize) is a token
embedding table, a ``tokenizers`` vocabulary and a small head. ``StaticEncoder`` reads the
same safetensors files with safetensors' numpy API and gives the vectors the torch path
(``Encoder`` over ``model.SentenceModel``) gives, to within float32 rounding, without
importing torch: a fresh ``xlsearch lookup`` then starts in a fraction of a second.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import ModelError
from xlsearch.engine.models.cards import model_id, read_card
from xlsearch.engine.models.shrink import table_keys
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress

ST = "sentence_transformers.models."
BATCH = 1024
"""Texts per batch: a bag of embeddings is cheap, big batches amortise the overhead."""


def gelu(x: np.ndarray) -> np.ndarray:
    erf = np.frompyfunc(math.erf, 1, 1)
    erfs = np.asarray(erf(x / math.sqrt(2.0)), dtype=np.float32)
    return (0.5 * x * (1.0 + erfs)).astype(np.float32)


ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "torch.nn.modules.activation.Tanh": np.tanh,
    "torch.nn.modules.linear.Identity": lambda x: x,
    "torch.nn.modules.activation.ReLU": lambda x: np.maximum(x, 0, dtype=np.float32),
    "torch.nn.modules.activation.GELU": gelu,
}
DEFAULT_ACTIVATION = "torch.nn.modules.activation.Tanh"


def read_modules(folder: Path) -> list[dict[str, Any]] | None:
    """The folder's sentence-transformers module list (None: not that format)."""
    path = folder / "modules.json"
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"{path}: unreadable ({exc})") from exc
    if not isinstance(data, list):
        raise ModelError(f"{path}: expected a list of modules")
    return sorted(data, key=lambda m: m.get("idx", 0))


def module_kind(entry: dict[str, Any]) -> str:
    return str(entry.get("type", "")).rsplit(".", 1)[-1]


def is_static(folder: str | os.PathLike[str]) -> bool:
    """True when the folder is a static model this module can run: StaticEmbedding, then
    only Dense layers with a known activation and Normalize."""
    try:
        modules = read_modules(Path(folder))
    except ModelError:
        return False
    if not modules or module_kind(modules[0]) != "StaticEmbedding":
        return False
    for entry in modules[1:]:
        kind = module_kind(entry)
        if kind == "Normalize":
            continue
        if kind != "Dense":
            return False
        cfg_path = Path(folder) / entry.get("path", "") / "config.json"
        try:
            cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False  # the torch loader reports it
        if (cfg.get("activation_function") or DEFAULT_ACTIVATION) not in ACTIVATIONS:
            return False
    return True


_DTYPES = {
    "F32": np.float32,
    "F16": np.float16,
    "F64": np.float64,
    "I64": np.int64,
    "I8": np.int8,
}


def _mapped(path: Path) -> dict[str, np.ndarray] | None:
    """The tensors of a safetensors file memory-mapped, not read: a lookup touches a few
    rows of a 200 MB embedding table, and reading all of it cost 0.1 s a process. The
    format is an 8-byte little-endian header length, a JSON header (dtype, shape and byte
    range of each tensor) and the raw bytes. None when a tensor needs a conversion numpy
    cannot map (bf16) or the header does not fit the file: ``load_file`` then reads it (and
    names the problem)."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(8)
        if len(head) != 8:
            return None
        n = int.from_bytes(head, "little")
        if n <= 0 or 8 + n > size:
            return None
        header = json.loads(fh.read(n))
    base = 8 + n
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info.get("dtype"))
        start, end = (int(x) for x in info["data_offsets"])
        shape = tuple(int(x) for x in info["shape"])
        count = int(np.prod(shape)) if shape else 1
        if dtype is None or base + end > size or end - start != count * np.dtype(dtype).itemsize:
            return None
        if count == 0:
            out[name] = np.zeros(shape, dtype=dtype)
            continue
        out[name] = np.memmap(path, dtype=dtype, mode="r", offset=base + start, shape=shape)
    return out


def load_weights(path: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    if not path.is_file():
        raise ModelError(f"{path} is missing", hint="xlsearch loads safetensors weights only")
    hint = f"make the model's files readable: chmod -R a+rX {path.parent.parent}"
    if not os.access(path, os.R_OK):
        raise ModelError(f"{path}: permission denied, the weights cannot be read", hint=hint)
    try:
        mapped = _mapped(path)
    except (OSError, ValueError, KeyError, TypeError):
        mapped = None  # load_file below says what is wrong
    if mapped is not None:
        return mapped
    try:
        return load_file(str(path))
    except OSError as exc:
        raise ModelError(
            f"{path}: cannot read the weights ({exc.strerror or exc})", hint=hint
        ) from exc
    except Exception as exc:  # safetensors' own error for a damaged file
        raise ModelError(f"{path}: not a readable safetensors file ({exc})") from exc


class _Dense:
    """``y = act(x Wᵀ + b)``, as sentence-transformers' Dense module."""

    def __init__(self, folder: Path) -> None:
        cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        weights = load_weights(folder / "model.safetensors")
        if "linear.weight" not in weights:
            raise ModelError(f"{folder / 'model.safetensors'}: no 'linear.weight' tensor")
        self.weight_t = np.ascontiguousarray(weights["linear.weight"].astype(np.float32).T)
        bias = weights.get("linear.bias")
        self.bias = None if bias is None else bias.astype(np.float32)
        want = (int(cfg["in_features"]), int(cfg["out_features"]))
        if self.weight_t.shape != want:
            raise ModelError(
                f"{folder}: weights are {self.weight_t.shape[::-1]}, config says {want[::-1]}"
            )
        self.activation = ACTIVATIONS[cfg.get("activation_function") or DEFAULT_ACTIVATION]

    @property
    def out_features(self) -> int:
        return int(self.weight_t.shape[1])

    def __call__(self, x: np.ndarray) -> np.ndarray:
        y = x @ self.weight_t
        if self.bias is not None:
            y += self.bias
        return self.activation(y)


def l2_normalize(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (``torch.nn.functional.normalize``: eps 1e-12)."""
    norms = np.sqrt(np.einsum("ij,ij->i", x, x, dtype=np.float32))
    return x / np.maximum(norms, np.float32(1e-12))[:, None]


def _bag_sums(rows: np.ndarray, lengths: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Per text, the sum of its consecutive ``rows`` (``lengths`` of them), added token by
    token in order, as torch's sum runs (the same floats as ``np.add.at``, ~4× faster):
    position by position over the texts still that long, longest first."""
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    order = np.argsort(-lengths, kind="stable")
    first = starts[order]
    longer = len(lengths) - np.cumsum(np.bincount(lengths, minlength=int(lengths.max()) + 1))
    acc = np.zeros_like(out)
    for pos in range(int(lengths.max())):
        k = int(longer[pos])  # texts with more than ``pos`` tokens: the first k in order
        np.add(acc[:k], rows[first[:k] + pos], out=acc[:k])
    out[order] = acc
    return out


class StaticEncoder:
    """The ``Encoder`` interface (``encode``, ``dim``, ``id``, ``card`` …) for a static model,
    in numpy: tokenize, mean of the rows of the embedding table, Dense head, normalise."""

    kind = "static"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        batch_size: int = 32,
        max_seq_length: int | None = None,
    ) -> None:
        from tokenizers import Tokenizer

        self.path = Path(path)
        self.id = model_id(self.path)
        from xlsearch.engine.models.cards import weights_stamp

        self.loaded_stamp = weights_stamp(self.path)
        """The weight files as loaded (``cards.model_folder_state`` compares)."""
        self.card: dict[str, Any] = read_card(self.path)
        self.device = "cpu"
        self.batch_size = batch_size
        self.precision = "fp32"
        self.quantized = False
        self.autocast_bf16 = False
        modules = read_modules(self.path) or []
        body = self.path / modules[0].get("path", "")
        tok_path = body / "tokenizer.json"
        if not tok_path.is_file():
            raise ModelError(f"{tok_path} is missing")
        try:
            self.tokenizer = Tokenizer.from_file(str(tok_path))
        except Exception as exc:  # tokenizers raises its own Exception type
            raise ModelError(f"{tok_path}: unreadable tokenizer ({exc})") from exc
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        weights = load_weights(body / "model.safetensors")
        key, scale_key = table_keys(weights, body / "model.safetensors")
        table = weights[key]
        scale = weights[scale_key] if scale_key else None
        if scale is not None:  # int8 rows (``shrink``): scaled back only where a text uses them
            if table.dtype != np.int8 or scale.shape != (len(table),):
                raise ModelError(f"{body / 'model.safetensors'}: bad int8 table or scales")
            self.table: np.ndarray = table
            self.scale: np.ndarray | None = np.asarray(scale, dtype=np.float32)
        else:
            self.table = np.ascontiguousarray(table, dtype=np.float32)
            self.scale = None
        self.max_seq_length = int(max_seq_length or 512)
        self.dense = [
            _Dense(self.path / m.get("path", "")) for m in modules[1:] if module_kind(m) == "Dense"
        ]
        self.normalize = any(module_kind(m) == "Normalize" for m in modules)

    @property
    def dim(self) -> int:
        """Embedding width."""
        return self.dense[-1].out_features if self.dense else int(self.table.shape[1])

    def _embed(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts, add_special_tokens=False)
        limit = self.max_seq_length
        return self._embed_ids([e.ids[:limit] for e in encodings])

    def _embed_ids(self, ids: list[list[int]]) -> np.ndarray:
        lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
        x = np.zeros((len(ids), self.table.shape[1]), dtype=np.float32)
        full = lengths > 0
        if full.any():
            flat = np.fromiter((t for row in ids for t in row), dtype=np.int64)
            if flat.size and (flat.min() < 0 or flat.max() >= len(self.table)):
                raise ModelError(f"{self.path}: the tokenizer yields ids beyond the table")
            if self.scale is not None:
                x = self._int8_sums(flat, lengths)
            else:
                x = _bag_sums(self.table[flat], lengths, x)
            x[full] /= lengths[full, None].astype(np.float32)
        for layer in self.dense:
            x = layer(x)
        return l2_normalize(x) if self.normalize else x

    def _int8_sums(self, flat: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Per text, the sum of its tokens' rows of an int8 table: each distinct token's
        row widened and scaled once, then a sparse (texts × tokens) count product, where
        widening every token's row took ~3× the time (20,000 sentences: 2.2 -> 0.6 CPU-s)."""
        from scipy import sparse

        assert self.scale is not None
        uniq, col = np.unique(flat, return_inverse=True)
        rows = self.table[uniq].astype(np.float32) * self.scale[uniq, None]
        ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        counts = sparse.csr_matrix(
            (np.ones(len(flat), dtype=np.float32), col.reshape(-1), ptr),
            shape=(len(lengths), len(uniq)),
        )
        return np.asarray(counts @ rows, dtype=np.float32)

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> np.ndarray:
        """Embed ``texts`` → ``(len(texts), dim)`` float32, each row L2-normalised."""
        on_progress = on_progress or no_progress
        texts = [t if isinstance(t, str) else str(t) for t in texts]
        n = len(texts)
        out = np.zeros((n, self.dim), dtype=np.float32)
        bs = max(batch_size or self.batch_size, BATCH)
        for start in range(0, n, bs):
            if cancel is not None:
                cancel.raise_if_cancelled()
            stop = min(start + bs, n)
            out[start:stop] = l2_normalize(self._embed(texts[start:stop]))
            on_progress(Progress("encode", stop, n))
        return out

    def encode_prefixes(
        self,
        texts: Sequence[str],
        cuts: Sequence[int],
        *,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Embed ``texts`` and, where ``cuts[i] > 0``, their first ``cuts[i]`` characters
        (ending at a space: a whole-word prefix), tokenised once: the prefix's tokens are
        the first of the text's (the tokenizer splits at spaces), so its vector is what
        ``encode`` gives the prefix written alone. Rows without a cut are zeros."""
        import bisect

        on_progress = on_progress or no_progress
        n = len(texts)
        full = np.zeros((n, self.dim), dtype=np.float32)
        part = np.zeros((n, self.dim), dtype=np.float32)
        bs = BATCH
        limit = self.max_seq_length
        for start in range(0, n, bs):
            if cancel is not None:
                cancel.raise_if_cancelled()
            stop = min(start + bs, n)
            encodings = self.tokenizer.encode_batch(
                [str(t) for t in texts[start:stop]], add_special_tokens=False
            )
            ids = [e.ids[:limit] for e in encodings]
            full[start:stop] = l2_normalize(self._embed_ids(ids))
            rows = [i for i in range(stop - start) if cuts[start + i] > 0]
            if rows:
                heads = []
                for i in rows:
                    starts = [a for a, _ in encodings[i].offsets]
                    heads.append(ids[i][: bisect.bisect_left(starts, cuts[start + i])])
                part[[start + i for i in rows]] = l2_normalize(self._embed_ids(heads))
            on_progress(Progress("encode", stop, n))
        return full, part

    def similarity(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """Cosine similarity matrix between two lists of texts."""
        return self.encode(a) @ self.encode(b).T
