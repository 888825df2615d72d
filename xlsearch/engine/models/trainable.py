"""A trainable sentence-embedding model that reads and writes the sentence-transformers format.

A ``SentenceModel`` is a body (a Hugging Face transformer with pooling, or a static
embedding bag over a ``tokenizers`` vocabulary) followed by optional Dense layers and an
optional Normalize — exactly the module chains that ``SentenceTransformer(path)`` loads.
The encoder runs it for inference; distillation trains it. Safetensors only, no pickle.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor, nn

from xlsearch.engine.errors import ModelError
from xlsearch.engine.models.cards import offline
from xlsearch.engine.models.shrink import INT8_SCALE, INT8_TABLE, quantize_rows, table_keys

if TYPE_CHECKING:
    from transformers import PreTrainedModel

ST = "sentence_transformers.models."
ACTIVATIONS: dict[str, type[nn.Module]] = {
    "torch.nn.modules.activation.Tanh": nn.Tanh,
    "torch.nn.modules.linear.Identity": nn.Identity,
    "torch.nn.modules.activation.ReLU": nn.ReLU,
    "torch.nn.modules.activation.GELU": nn.GELU,
}
POOLING_MODES = ("mean", "cls", "max", "mean_sqrt_len")


def _read_json(path: Path) -> Any:
    """A JSON file's value (a ``ModelError`` naming the file when it cannot be read)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ModelError(f"{path} is missing") from exc
    except (OSError, ValueError) as exc:
        raise ModelError(f"{path}: unreadable ({exc})") from exc


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")


def _load_safetensors(path: Path) -> dict[str, Tensor]:
    from safetensors.torch import load_file

    if not path.is_file():
        raise ModelError(f"{path} is missing", hint="xlsearch loads safetensors weights only")
    hint = f"make the model's files readable: chmod -R a+rX {path.parent.parent}"
    if not os.access(path, os.R_OK):
        raise ModelError(f"{path}: permission denied, the weights cannot be read", hint=hint)
    try:
        return load_file(str(path))
    except OSError as exc:
        raise ModelError(
            f"{path}: cannot read the weights ({exc.strerror or exc})", hint=hint
        ) from exc


def _save_safetensors(tensors: dict[str, Tensor], path: Path) -> None:
    """``safetensors`` ``save_file``, then the umask's mode (it writes 0600 files)."""
    from safetensors.torch import save_file

    save_file(tensors, str(path))
    _umask_mode(path)


def _umask_mode(path: Path) -> None:
    """Give ``path`` the mode an ordinary new file gets (0666 less the umask)."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)


class TransformerBody(nn.Module):
    """A Hugging Face encoder + its fast tokenizer, pooled to one vector per sentence."""

    kind = "transformer"

    def __init__(
        self,
        auto_model: PreTrainedModel,
        tokenizer: Any,
        *,
        max_seq_length: int = 128,
        do_lower_case: bool = False,
        pooling: str = "mean",
    ) -> None:
        super().__init__()
        if pooling not in POOLING_MODES:
            raise ModelError(f"unsupported pooling mode {pooling!r}")
        self.auto_model = auto_model
        self.tokenizer = tokenizer
        self.max_seq_length = max_seq_length
        self.do_lower_case = do_lower_case
        self.pooling = pooling

    @property
    def dim(self) -> int:
        return int(self.auto_model.config.hidden_size)

    @classmethod
    def from_folder(
        cls, folder: Path, *, pooling: str = "mean", max_seq_length: int | None = None
    ) -> TransformerBody:
        """Load a Hugging Face model folder (safetensors weights, fast tokenizer)."""
        offline()
        from transformers import AutoModel, AutoTokenizer

        from xlsearch.engine.models.cards import quiet_transformers

        quiet_transformers()

        if not any(folder.glob("*.safetensors")):
            raise ModelError(
                f"{folder}: no .safetensors weights",
                hint="xlsearch never loads pickled weights (pytorch_model.bin); convert them "
                "to safetensors first",
            )
        st_cfg = folder / "sentence_bert_config.json"
        cfg = _read_json(st_cfg) if st_cfg.is_file() else {}
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
            model = AutoModel.from_pretrained(
                str(folder), local_files_only=True, use_safetensors=True
            )
        except Exception as exc:  # transformers raises many kinds
            raise ModelError(f"{folder}: cannot load the transformer ({exc})") from exc
        limit = max_seq_length or cfg.get("max_seq_length") or 256
        limit = min(int(limit), int(getattr(model.config, "max_position_embeddings", limit)))
        return cls(
            model,
            tokenizer,
            max_seq_length=limit,
            do_lower_case=bool(cfg.get("do_lower_case", False)),
            pooling=pooling,
        )

    def tokenize(self, texts: list[str], *, pad: bool = True) -> dict[str, Any]:
        """Tokenize to tensors (``pad``) or to plain id lists for length sorting."""
        if self.do_lower_case:
            texts = [t.lower() for t in texts]
        if pad:
            return dict(
                self.tokenizer(
                    texts,
                    padding=True,
                    truncation=True,
                    max_length=self.max_seq_length,
                    return_tensors="pt",
                )
            )
        return dict(self.tokenizer(texts, truncation=True, max_length=self.max_seq_length))

    def forward(self, features: dict[str, Tensor]) -> Tensor:
        mask = features["attention_mask"]
        inputs = {k: v for k, v in features.items() if k in ("input_ids", "attention_mask")}
        if "token_type_ids" in features:
            inputs["token_type_ids"] = features["token_type_ids"]
        tokens = self.auto_model(**inputs, return_dict=True).last_hidden_state
        if self.pooling == "cls":
            return tokens[:, 0]
        m = mask.unsqueeze(-1).to(tokens.dtype)
        if self.pooling == "max":
            return tokens.masked_fill(m == 0, -1e9).max(dim=1).values
        summed = (tokens * m).sum(dim=1)
        counts = m.sum(dim=1).clamp(min=1e-9)
        if self.pooling == "mean_sqrt_len":
            return summed / counts.sqrt()
        return summed / counts

    def save(self, folder: Path) -> list[dict[str, Any]]:
        """Write the transformer at the folder root and its pooling config; return modules."""
        self.auto_model.save_pretrained(str(folder), safe_serialization=True)
        for f in folder.glob("*.safetensors"):  # safetensors writes 0600 files
            _umask_mode(f)
        self.tokenizer.save_pretrained(str(folder))
        _write_json(
            folder / "sentence_bert_config.json",
            {"max_seq_length": self.max_seq_length, "do_lower_case": self.do_lower_case},
        )
        pool_dir = folder / "1_Pooling"
        pool_dir.mkdir(exist_ok=True)
        _write_json(
            pool_dir / "config.json",
            {
                "word_embedding_dimension": self.dim,
                "pooling_mode_cls_token": self.pooling == "cls",
                "pooling_mode_mean_tokens": self.pooling == "mean",
                "pooling_mode_max_tokens": self.pooling == "max",
                "pooling_mode_mean_sqrt_len_tokens": self.pooling == "mean_sqrt_len",
            },
        )
        return [
            {"name": "0", "path": "", "type": ST + "Transformer"},
            {"name": "1", "path": "1_Pooling", "type": ST + "Pooling"},
        ]


class StaticBody(nn.Module):
    """Mean of token embeddings (an EmbeddingBag) over a ``tokenizers`` vocabulary."""

    kind = "static"

    def __init__(self, tokenizer: Any, embedding: nn.EmbeddingBag, max_tokens: int = 512) -> None:
        super().__init__()
        self.tokenizer = tokenizer
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.embedding = embedding
        self.max_seq_length = max_tokens
        self.stored_int8 = False
        """Whether the folder it was loaded from stored the table as int8 rows (``shrink``)."""

    @property
    def dim(self) -> int:
        return int(self.embedding.embedding_dim)

    @classmethod
    def from_folder(cls, folder: Path) -> StaticBody:
        """Load ``tokenizer.json`` + ``model.safetensors`` (``embedding.weight``)."""
        from tokenizers import Tokenizer

        tok_path = folder / "tokenizer.json"
        if not tok_path.is_file():
            raise ModelError(f"{tok_path} is missing")
        weights = _load_safetensors(folder / "model.safetensors")
        key, scale_key = table_keys(weights, folder / "model.safetensors")
        table = weights[key].float()
        if scale_key is not None:  # int8 rows with one scale each (``shrink``)
            table = table * weights[scale_key].float()[:, None]
        bag = nn.EmbeddingBag.from_pretrained(table, freeze=False, mode="mean")
        body = cls(Tokenizer.from_file(str(tok_path)), bag)
        body.stored_int8 = scale_key is not None
        return body

    def tokenize(self, texts: list[str], *, pad: bool = True) -> dict[str, Any]:
        """Flat ids + offsets, as ``EmbeddingBag`` wants them (``pad`` is ignored)."""
        encodings = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        ids = [e.ids[: self.max_seq_length] for e in encodings]
        lengths = [len(x) for x in ids]
        offsets = [0]
        for n in lengths[:-1]:
            offsets.append(offsets[-1] + n)
        flat = [t for x in ids for t in x]
        return {
            "input_ids": torch.tensor(flat, dtype=torch.long),
            "offsets": torch.tensor(offsets, dtype=torch.long),
            "lengths": torch.tensor(lengths, dtype=torch.long),
        }

    def forward(self, features: dict[str, Tensor]) -> Tensor:
        return self.embedding(features["input_ids"], features["offsets"])

    def save(self, folder: Path, *, int8: bool = False) -> list[dict[str, Any]]:
        """Write ``0_StaticEmbedding``; ``int8``: the table as int8 rows with one scale
        each, as the shipped model stores it (a quarter of the bytes)."""
        sub = folder / "0_StaticEmbedding"
        sub.mkdir(exist_ok=True)
        table = self.embedding.weight.detach().float().contiguous().cpu()
        if int8:
            q, scale = quantize_rows(table.numpy())
            tensors = {INT8_TABLE: torch.from_numpy(q), INT8_SCALE: torch.from_numpy(scale)}
        else:
            tensors = {"embedding.weight": table}
        _save_safetensors(tensors, sub / "model.safetensors")
        self.tokenizer.save(str(sub / "tokenizer.json"))
        return [{"name": "0", "path": "0_StaticEmbedding", "type": ST + "StaticEmbedding"}]


class Dense(nn.Module):
    """``nn.Linear`` + activation, saved like sentence-transformers' Dense module."""

    def __init__(
        self, in_features: int, out_features: int, *, bias: bool = True, activation: str = ""
    ) -> None:
        super().__init__()
        activation = activation or "torch.nn.modules.activation.Tanh"
        if activation not in ACTIVATIONS:
            raise ModelError(f"unsupported Dense activation {activation!r}")
        self.linear = nn.Linear(in_features, out_features, bias=bias)
        self.activation_name = activation
        self.activation = ACTIVATIONS[activation]()

    def forward(self, x: Tensor) -> Tensor:
        return self.activation(self.linear(x))

    @classmethod
    def from_folder(cls, folder: Path) -> Dense:
        cfg = _read_json(folder / "config.json")
        layer = cls(
            int(cfg["in_features"]),
            int(cfg["out_features"]),
            bias=bool(cfg.get("bias", True)),
            activation=cfg.get("activation_function", ""),
        )
        weights = _load_safetensors(folder / "model.safetensors")
        layer.load_state_dict({k: v for k, v in weights.items() if k.startswith("linear.")})
        return layer

    def save(self, folder: Path) -> None:
        folder.mkdir(exist_ok=True)
        _write_json(
            folder / "config.json",
            {
                "in_features": self.linear.in_features,
                "out_features": self.linear.out_features,
                "bias": self.linear.bias is not None,
                "activation_function": self.activation_name,
            },
        )
        state = {k: v.detach().float().contiguous().cpu() for k, v in self.state_dict().items()}
        _save_safetensors(state, folder / "model.safetensors")


class SentenceModel(nn.Module):
    """Body → Dense* → (Normalize): the sentence-transformers module chain, trainable."""

    def __init__(
        self,
        body: TransformerBody | StaticBody,
        dense: list[Dense] | None = None,
        *,
        normalize: bool = True,
    ) -> None:
        super().__init__()
        self.body = body
        self.dense = nn.ModuleList(dense or [])
        self.normalize = normalize

    def layers(self) -> list[Dense]:
        """The ``Dense`` layers after the body, in order."""
        return [layer for layer in self.dense if isinstance(layer, Dense)]

    @property
    def kind(self) -> str:
        """``transformer`` or ``static``."""
        return self.body.kind

    @property
    def dim(self) -> int:
        """Output embedding width."""
        layers = self.layers()
        return layers[-1].linear.out_features if layers else self.body.dim

    @property
    def max_seq_length(self) -> int:
        return int(self.body.max_seq_length)

    @max_seq_length.setter
    def max_seq_length(self, value: int) -> None:
        self.body.max_seq_length = int(value)

    def tokenize(self, texts: list[str], *, pad: bool = True) -> dict[str, Any]:
        """Model inputs for ``texts``."""
        return self.body.tokenize(texts, pad=pad)

    def forward(self, features: dict[str, Tensor]) -> Tensor:
        """Sentence embeddings (L2-normalised when the model ends with Normalize)."""
        x = self.body(features)
        for layer in self.dense:
            x = layer(x)
        if self.normalize:
            x = nn.functional.normalize(x, p=2, dim=-1)
        return x

    def save(
        self, folder: str | Path, card: dict[str, Any] | None = None, *, int8_table: bool = False
    ) -> Path:
        """Write a folder that ``SentenceTransformer(folder)`` and ``load_model`` both load;
        ``int8_table``: a static body's table as int8 rows (``StaticBody.save``)."""
        from xlsearch.engine.models.cards import write_card

        out = Path(folder)
        tmp = out.with_name(out.name + ".saving")
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        int8 = int8_table and isinstance(self.body, StaticBody)
        if isinstance(self.body, StaticBody):
            modules = self.body.save(tmp, int8=int8)
        else:
            modules = self.body.save(tmp)
        if int8 and card is not None:
            table = "int8 rows + float32 scale"
            card = {**card, "storage": {"table": table, "table_dim": self.body.dim}}
        for layer in self.layers():
            idx = len(modules)
            path = f"{idx}_Dense"
            layer.save(tmp / path)
            modules.append({"name": str(idx), "path": path, "type": ST + "Dense"})
        if self.normalize:
            idx = len(modules)
            path = f"{idx}_Normalize"
            (tmp / path).mkdir()
            modules.append({"name": str(idx), "path": path, "type": ST + "Normalize"})
        _write_json(tmp / "modules.json", [{"idx": i, **m} for i, m in enumerate(modules)])
        _write_json(
            tmp / "config_sentence_transformers.json",
            {"__version__": {"xlsearch": "0.1.0"}, "prompts": {}, "similarity_fn_name": "cosine"},
        )
        if card is not None:
            write_card(tmp, {"dim": self.dim, "kind": self.kind, **card})
        elif (out / "xlsearch.json").is_file():
            shutil.copy2(out / "xlsearch.json", tmp / "xlsearch.json")
        old = out.with_name(out.name + ".old")
        if out.exists():
            if old.exists():
                shutil.rmtree(old)
            out.rename(old)
        tmp.rename(out)
        if old.exists():
            shutil.rmtree(old)
        return out


def load_model(folder: str | Path, *, max_seq_length: int | None = None) -> SentenceModel:
    """Load a sentence-transformers folder or a plain Hugging Face folder (mean pooling)."""
    path = Path(folder)
    modules_file = path / "modules.json"
    if not modules_file.is_file():
        if not (path / "config.json").is_file():
            raise ModelError(
                f"{path} is not a model folder",
                hint="expected modules.json (sentence-transformers) or config.json (Hugging Face)",
            )
        whole = TransformerBody.from_folder(path, pooling="mean", max_seq_length=max_seq_length)
        return SentenceModel(whole, normalize=True)

    modules: list[dict[str, Any]] = _read_json(modules_file)
    body: TransformerBody | StaticBody | None = None
    dense: list[Dense] = []
    normalize = False
    pooling = "mean"
    for entry in sorted(modules, key=lambda m: m.get("idx", 0)):
        kind = str(entry.get("type", "")).rsplit(".", 1)[-1]
        sub = path / entry.get("path", "")
        if kind == "Transformer":
            transformer_dir = sub
        elif kind == "Pooling":
            cfg = _read_json(sub / "config.json")
            pooling = _pooling_mode(cfg, sub)
        elif kind == "StaticEmbedding":
            body = StaticBody.from_folder(sub)
        elif kind == "Dense":
            dense.append(Dense.from_folder(sub))
        elif kind == "Normalize":
            normalize = True
        else:
            raise ModelError(
                f"{modules_file}: module type {entry.get('type')!r} is not supported",
                hint="supported: Transformer, Pooling, StaticEmbedding, Dense, Normalize",
            )
    if body is None:
        if "transformer_dir" not in locals():
            raise ModelError(f"{modules_file}: no Transformer or StaticEmbedding module")
        body = TransformerBody.from_folder(
            transformer_dir, pooling=pooling, max_seq_length=max_seq_length
        )
    elif max_seq_length:
        body.max_seq_length = max_seq_length
    return SentenceModel(body, dense, normalize=normalize)


def _pooling_mode(cfg: dict[str, Any], where: Path) -> str:
    for key, mode in (
        ("pooling_mode_mean_tokens", "mean"),
        ("pooling_mode_cls_token", "cls"),
        ("pooling_mode_max_tokens", "max"),
        ("pooling_mode_mean_sqrt_len_tokens", "mean_sqrt_len"),
    ):
        if cfg.get(key):
            return mode
    raise ModelError(f"{where}: unsupported pooling configuration {cfg}")
