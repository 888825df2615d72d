"""Fast sentence encoder: ``load_encoder(spec).encode(texts)`` → L2-normalised float32 rows.

Matches ``SentenceTransformer(path).encode(texts, normalize_embeddings=True)`` to < 1e-4 in
fp32: it tokenizes every text once, sorts by *token* count (least padding), pads each batch
from the pre-tokenized ids and runs under ``torch.inference_mode``. On CPU, ``precision``
``bf16`` (autocast) and ``int8`` (dynamic quantisation) trade a little accuracy for speed
where the CPU has the instructions for them; ``auto`` picks per CPU (``engine/runtime/cpu.py``) and
``docs/benchmarks.md`` has the measured trade-off.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from xlsearch.engine.errors import ConfigError
from xlsearch.engine.models.cards import model_id, offline, read_card, resolve_model_path
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress
from xlsearch.engine.runtime import cpu
from xlsearch.engine.runtime.cpu import configure_threads, retune

if TYPE_CHECKING:
    from xlsearch.engine.models.static_encoder import StaticEncoder

PRECISIONS = ("fp32", "bf16", "int8")
"""fp32 (exact), bf16 (autocast on CPU; weights on GPU, the GPU default), int8 (dynamic
quantisation, CPU). ``auto`` = bf16/fp16 on GPU; on CPU bf16 where the CPU has native bf16
(AMX, AVX-512 BF16), else fp32 (bf16 is emulated, ~5× slower, on AVX2-only CPUs) —
``engine/runtime/cpu.py``."""


def pick_device(device: str = "auto") -> str:
    """``auto`` → cuda, then mps, then cpu; an explicit device must exist here
    (``ConfigError`` naming it, not torch's assertion deep inside a run)."""
    import torch

    if device != "auto":
        _check_device(torch, device)
        return device
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def _check_device(torch: Any, device: str) -> None:
    kind, _, index = device.partition(":")
    fix = "use --device auto (or cpu), or the device setting 'auto'"
    if kind not in ("cpu", "cuda", "mps") or (index and not index.isdigit()):
        raise ConfigError(f"unknown device {device!r}: choose auto, cpu, cuda, cuda:N or mps")
    if kind == "cuda":
        if not torch.cuda.is_available():
            why = "this torch has no CUDA build" if not torch.version.cuda else "no GPU is visible"
            raise ConfigError(f"device {device!r} is not available: {why}", hint=fix)
        if index and int(index) >= torch.cuda.device_count():
            raise ConfigError(
                f"device {device!r} is not available: {torch.cuda.device_count()} GPU(s) here",
                hint=fix,
            )
    if kind == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise ConfigError(f"device {device!r} is not available (Apple GPUs only)", hint=fix)


def device_description(device: str = "auto") -> str:
    """Human-readable device name (GPU model or ``CPU (n threads)``)."""
    import torch

    dev = pick_device(device)
    if dev.startswith("cuda"):
        return f"GPU: {torch.cuda.get_device_name(torch.device(dev))}"
    if dev == "mps":
        return "GPU: Apple MPS"
    return cpu_threads_description(torch.get_num_threads())


def cpu_threads_description(threads: int) -> str:
    """``CPU, 1 of 2 cores (1 busy elsewhere; follows the load)``: the threads in
    use and why that many (the automatic count leaves cores that others keep busy)."""
    cpus = cpu.cpu_count()
    policy = cpu.configure_threads()
    unit = "core" if threads == 1 else "cores"
    if policy.source in ("setting", cpu.THREADS_ENV, "OMP_NUM_THREADS"):
        how = {"setting": "the threads setting or --threads"}.get(policy.source, policy.source)
        return f"CPU, {threads} thread{'s' * (threads != 1)} of {cpus} cores (set by {how})"
    if threads < cpus:
        return f"CPU, {threads} of {cpus} cores ({cpus - threads} busy elsewhere; follows the load)"
    return f"CPU, {threads} {unit}"


class Encoder:
    """Inference wrapper around a ``SentenceModel``."""

    def __init__(
        self,
        model: Any,
        *,
        path: Path | None = None,
        device: str = "auto",
        batch_size: int = 32,
        quantize: bool = False,
        precision: str = "auto",
    ) -> None:
        import torch

        if quantize:
            precision = "int8"
        if precision not in ("auto", *PRECISIONS):
            raise ConfigError(f"precision must be auto or one of {', '.join(PRECISIONS)}")
        self.path = path
        self.id = model_id(path) if path is not None else "in-memory"
        from xlsearch.engine.models.cards import weights_stamp

        self.loaded_stamp = weights_stamp(Path(path)) if path is not None else None
        """The weight files as loaded (``cards.model_folder_state`` compares)."""
        self.card: dict[str, Any] = read_card(path) if path is not None else {}
        self.device = pick_device(device)
        self.batch_size = batch_size
        self.quantized = False
        self.autocast_bf16 = False
        model = model.eval()
        self.dtype = torch.float32
        transformer = model.kind == "transformer"
        if self.device != "cpu":
            # GPUs: half precision by default (bf16 where supported), fp32 on request.
            model = model.to(self.device)
            if transformer and precision != "fp32":
                cuda = self.device.startswith("cuda")
                bf16 = cuda and torch.cuda.is_bf16_supported()
                self.dtype = torch.bfloat16 if bf16 else torch.float16
                model = model.to(self.dtype)
        elif transformer:
            if precision == "auto":  # bf16 where native (AMX, AVX-512 BF16), else fp32
                precision = cpu.cpu_precision()
            if precision == "int8":
                model = _quantize_int8(model)
                self.quantized = True
            self.autocast_bf16 = precision == "bf16"
        self.precision = {torch.bfloat16: "bf16", torch.float16: "fp16"}.get(self.dtype, "fp32")
        if self.quantized:
            self.precision = "int8"
        elif self.autocast_bf16:
            self.precision = "bf16"
        self.model = model

    @property
    def dim(self) -> int:
        """Embedding width."""
        return int(self.model.dim)

    @property
    def kind(self) -> str:
        """``transformer`` or ``static``."""
        return str(self.model.kind)

    @property
    def max_seq_length(self) -> int:
        return int(self.model.max_seq_length)

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> np.ndarray:
        """Embed ``texts`` → ``(len(texts), dim)`` float32, each row L2-normalised."""
        import torch

        on_progress = on_progress or no_progress
        texts = [t if isinstance(t, str) else str(t) for t in texts]
        n = len(texts)
        out = np.zeros((n, self.dim), dtype=np.float32)
        if n == 0:
            return out
        bs = batch_size or self.batch_size
        if self.kind == "static":
            bs = max(bs, 1024)  # a bag of embeddings is cheap: big batches amortise overhead
        autocast = torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.autocast_bf16)
        with torch.inference_mode(), autocast:
            if self.kind == "transformer":
                ids = self.model.tokenize(texts, pad=False)
                lengths = np.fromiter((len(x) for x in ids["input_ids"]), dtype=np.int64)
                order = np.argsort(-lengths, kind="stable")
            else:
                ids = None
                order = np.arange(n)
            for start in range(0, n, bs):
                if cancel is not None:
                    cancel.raise_if_cancelled()
                retune()  # follow the machine's load (automatic thread count only)
                idx = order[start : start + bs]
                if ids is not None:
                    features = self._pad(ids, idx)
                else:
                    features = self.model.tokenize([texts[i] for i in idx])
                features = {k: v.to(self.device) for k, v in features.items()}
                emb = self.model(features).float()
                emb = torch.nn.functional.normalize(emb, p=2, dim=-1)
                out[idx] = emb.cpu().numpy()
                on_progress(Progress("encode", min(start + bs, n), n))
        return out

    def _pad(self, ids: dict[str, Any], idx: np.ndarray) -> dict[str, Any]:
        tok = self.model.body.tokenizer
        batch = {k: [v[i] for i in idx] for k, v in ids.items()}
        return dict(tok.pad(batch, padding=True, return_tensors="pt"))

    def similarity(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """Cosine similarity matrix between two lists of texts."""
        return self.encode(a) @ self.encode(b).T


def _quantize_int8(model: Any) -> Any:
    """Dynamic int8 quantisation of every Linear, with per-channel weight scales.

    Per-channel scales keep MiniLM's outlier channels usable (per-tensor scales cost far more
    accuracy); activations are quantised per batch at run time.
    """
    import warnings

    import torch
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return quantize_dynamic(
            model, {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8
        )


def load_encoder(
    spec: str | os.PathLike[str] = "bundled:teacher",
    *,
    device: str = "auto",
    batch_size: int = 32,
    max_seq_length: int | None = None,
    quantize: bool = False,
    precision: str = "auto",
    threads: int = 0,
) -> Encoder | StaticEncoder:
    """Load a local model (``bundled:teacher``, a folder, or a name under ``./models``).

    Never downloads: ``HF_HUB_OFFLINE=1`` is set and a missing folder is a ``ModelError``.
    A static student on the CPU runs in numpy (``StaticEncoder``): no torch import.
    """
    offline()
    path = resolve_model_path(spec)
    configure_threads(threads)  # before torch loads (a no-op count change if it has)
    if device in ("auto", "cpu"):
        from xlsearch.engine.models.static_encoder import StaticEncoder, is_static

        if is_static(path):  # numpy: no torch import, same vectors
            return StaticEncoder(path, batch_size=batch_size, max_seq_length=max_seq_length)
    cpu.settle_threads()  # the measured thread count, before torch reads it
    from xlsearch.engine.models.trainable import load_model

    model = load_model(path, max_seq_length=max_seq_length)
    return Encoder(
        model,
        path=path,
        device=device,
        batch_size=batch_size,
        quantize=quantize,
        precision=precision,
    )
