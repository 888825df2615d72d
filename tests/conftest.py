"""Shared fixtures: offline guard, a private XLSEARCH_HOME, tiny random models."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from helpers.faults import SmallDisk

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

WORDS = (
    "the a cat dog house tree runs sleeps big small red green hello world good morning "
    "der die das katze hund haus baum läuft schläft groß klein rot grün hallo welt guten "
    "le la chat chien maison arbre court dort grand petit rouge vert bonjour monde "
    "кошка собака дом дерево привет мир 猫 狗 房子 树 你好 世界 . , ? !"
).split()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with a slow test first, then the UI tests, then the rest (each file's order
    kept): ``make test`` runs the files on two workers (pytest-xdist ``--dist loadfile``, in
    this order), so the longest work starts first and both workers end together."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    ui = Path(__file__).parent / "tui"

    def rank(item: pytest.Item) -> int:
        return 0 if item.path in slow else 1 if ui in item.path.parents else 2

    items.sort(key=rank)


class _NetworkBlocked(RuntimeError):
    pass


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to open a non-local socket fails loudly (no hub downloads in tests)."""
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and (
            host.startswith("127.") or host in ("localhost", "::1") or host.startswith("/")
        ):
            return real_connect(self, address)  # type: ignore[arg-type]
        if self.family == socket.AF_UNIX:
            return real_connect(self, address)  # type: ignore[arg-type]
        raise _NetworkBlocked(f"network access attempted in a test: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture(autouse=True, scope="session")
def _shared_langid_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One unpacked language-identifier model for the whole run (68 MB; each test has its
    own XLSEARCH_HOME, and subprocesses inherit this)."""
    folder = tmp_path_factory.mktemp("langid")
    old = os.environ.get("XLSEARCH_LANGID_CACHE")
    os.environ["XLSEARCH_LANGID_CACHE"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("XLSEARCH_LANGID_CACHE", None)
    else:
        os.environ["XLSEARCH_LANGID_CACHE"] = old


@pytest.fixture(autouse=True)
def _tmp_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own XLSEARCH_HOME (never the user's real data)."""
    home = tmp_path_factory.mktemp("xlhome")
    monkeypatch.setenv("XLSEARCH_HOME", str(home))
    # tests run on tiny models: the shipped student is off unless a test turns it on
    monkeypatch.setenv("XLSEARCH_SHIPPED_MODEL", "")
    # fragments from the co-occurrence aligner: deterministic, and no eflomal run (~0.5 s)
    # per tiny memory; tests/tm/test_fragments.py runs eflomal itself
    monkeypatch.setenv("XLSEARCH_ALIGNER", "cooc")
    return home


def _build_tiny_bert(folder: Path) -> Path:
    """A 2-layer, 32-wide random BERT with an in-test WordPiece tokenizer (HF folder)."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])}
    for w in WORDS:
        vocab.setdefault(w, len(vocab))
        for ch in w:
            vocab.setdefault(ch, len(vocab))
            vocab.setdefault("##" + ch, len(vocab))
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    from tokenizers.processors import TemplateProcessing

    tok.post_processor = TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=64,
    )
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=37,
        max_position_embeddings=64,
    )
    model = BertModel(config).eval()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(folder), safe_serialization=True)
    fast.save_pretrained(str(folder))
    return folder


def _build_tiny_static(folder: Path) -> Path:
    """A random 16-wide static (embedding-bag) model in sentence-transformers format."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    from xlsearch.engine.models.trainable import SentenceModel, StaticBody

    vocab = {"[UNK]": 0}
    for w in WORDS:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(len(vocab), 16, mode="mean")
    model = SentenceModel(StaticBody(tok, bag), normalize=True)
    return model.save(folder, card={"teacher": "test", "languages": ["en", "de"]})


@pytest.fixture(scope="session")
def _tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny-models")
    hf = _build_tiny_bert(root / "tiny-hf")
    from xlsearch.engine.models.trainable import load_model

    st = load_model(hf).save(root / "tiny-st", card={"teacher": "test", "languages": ["en"]})
    return {"hf": hf, "st": st, "static": _build_tiny_static(root / "tiny-static")}


@pytest.fixture()
def tiny_hf_model(_tiny_models: dict[str, Path], tmp_path: Path) -> Path:
    """A tiny random BERT in plain Hugging Face format (a per-test copy)."""
    return Path(shutil.copytree(_tiny_models["hf"], tmp_path / "tiny-hf"))


@pytest.fixture()
def tiny_st_model(_tiny_models: dict[str, Path], tmp_path: Path) -> Path:
    """The tiny BERT in sentence-transformers format, with a card (a per-test copy)."""
    return Path(shutil.copytree(_tiny_models["st"], tmp_path / "tiny-st"))


@pytest.fixture()
def tiny_static_model(_tiny_models: dict[str, Path], tmp_path: Path) -> Path:
    """A tiny random static embedding-bag model (a per-test copy)."""
    return Path(shutil.copytree(_tiny_models["static"], tmp_path / "tiny-static"))


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[SmallDisk]:
    """A 16 MB tmpfs (root only, else the test is skipped), unmounted afterwards."""
    from helpers.faults import mounted_small_disk

    yield from mounted_small_disk(tmp_path)
