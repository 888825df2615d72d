"""Student kinds: ``static`` (SentencePiece embedding bag), ``teacher`` (the teacher, fine-tuned,
optionally with an extended vocabulary) and ``checkpoint:<folder>`` (any local model).

``bootstrap`` (the teacher's body under a new SentencePiece vocabulary) is deliberately not
offered: a measured CPU run did worse than the raw teacher and no GPU run showed it winning.
"""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from xlsearch.engine.errors import ConfigError, ModelError
from xlsearch.engine.progress import Progress, ProgressCallback, no_progress

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel

IDENTITY = "torch.nn.modules.linear.Identity"
TANH = "torch.nn.modules.activation.Tanh"


def parse_student(spec: str) -> tuple[str, str | None]:
    """``static`` | ``teacher`` | ``checkpoint:<folder>`` → (kind, folder)."""
    if spec in ("static", "teacher"):
        return spec, None
    if spec.startswith("checkpoint:") and len(spec) > len("checkpoint:"):
        return "checkpoint", spec.split(":", 1)[1]
    if spec == "bootstrap":
        raise ConfigError(
            "the 'bootstrap' student was removed",
            hint="measured on CPU it did worse than the raw teacher; use static, teacher "
            "(with --extend-vocab) or checkpoint:<folder>",
        )
    raise ConfigError(
        f"unknown student {spec!r}", hint="choose static, teacher or checkpoint:<folder>"
    )


# ---------------------------------------------------------------- static student


def train_sentencepiece(
    texts: Iterable[str], workdir: Path, *, vocab_size: int, seed: int = 0, threads: int = 2
) -> Any:
    """Train a unigram SentencePiece model on lower-cased ``texts``; return the processor."""
    import sentencepiece as spm

    workdir.mkdir(parents=True, exist_ok=True)
    corpus = workdir / "spm-corpus.txt"
    n = 0
    with open(corpus, "w", encoding="utf-8") as fh:
        for t in texts:
            fh.write(t.lower().replace("\n", " ") + "\n")
            n += 1
    if n == 0:
        raise ModelError("no text to train a vocabulary on")
    prefix = workdir / "spm"
    kwargs: dict[str, Any] = dict(
        input=str(corpus),
        model_prefix=str(prefix),
        model_type="unigram",
        vocab_size=vocab_size,
        character_coverage=0.9995,
        normalization_rule_name="identity",  # texts are NFKC-normalised and lower-cased already
        input_sentence_size=2_000_000,
        shuffle_input_sentence=True,
        num_threads=threads,
        unk_id=0,
        bos_id=-1,
        eos_id=-1,
        pad_id=-1,
        hard_vocab_limit=False,  # tiny corpora (tests) get a smaller vocabulary, not an error
        minloglevel=2,
    )
    try:
        spm.set_random_generator_seed(seed + 1)
        spm.SentencePieceTrainer.train(**kwargs)
    except RuntimeError as exc:  # e.g. vocab_size larger than the corpus supports
        raise ModelError(f"SentencePiece training failed: {exc}") from exc
    corpus.unlink(missing_ok=True)
    return spm.SentencePieceProcessor(model_file=str(prefix) + ".model")


def spm_to_tokenizer(sp: Any) -> Any:
    """The same unigram model as a ``tokenizers.Tokenizer`` (NFKC + lowercase + Metaspace)."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers

    vocab = [(sp.id_to_piece(i), float(sp.get_score(i))) for i in range(sp.get_piece_size())]
    tok = Tokenizer(models.Unigram(vocab, unk_id=sp.unk_id(), byte_fallback=False))
    tok.normalizer = normalizers.Sequence(
        [normalizers.NFKC(), normalizers.Lowercase(), normalizers.Replace(Regex(r"\s+"), " ")]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    return tok


def build_static(
    texts: Iterable[str],
    workdir: Path,
    *,
    dim: int,
    vocab_size: int = 64000,
    head: str = "mlp",
    teacher: Any = None,
    cache: Any = None,
    init: str = "pairs",
    pairs: tuple[list[str], list[str], Any] | None = None,
    sif: float = 1e-3,
    seed: int = 0,
    on_progress: ProgressCallback | None = None,
) -> Any:
    """A static student: SentencePiece vocab → EmbeddingBag(mean) → head → Normalize.

    ``init``: ``pairs`` — each piece starts as the mean teacher embedding of the training
    sentences (either side) it occurs in (``pairs`` = sources, translations, teacher rows of
    the sources): a closed-form first guess at the distillation target that needs no extra
    teacher call; ``pieces`` — the ``teacher``'s embedding of the piece text, as in model2vec
    (one teacher call per piece: cheap on a GPU, slow on a busy CPU); ``random``. Both
    teacher-based inits scale rows by a SIF weight ``sif / (sif + p(piece))``.
    ``head``: ``mlp`` = Dense(tanh)+Dense(identity)
    initialised to (nearly) the identity, ``linear`` = one Dense(identity), ``none``.
    """
    import torch

    from xlsearch.engine.models.trainable import Dense, SentenceModel, StaticBody

    on_progress = on_progress or no_progress
    on_progress(Progress("vocab", 0, None, f"training a {vocab_size:,}-piece vocabulary"))
    sp = train_sentencepiece(texts, workdir, vocab_size=vocab_size, seed=seed)
    tok = spm_to_tokenizer(sp)
    n = sp.get_piece_size()
    on_progress(Progress("vocab", n, n, f"{n:,} pieces"))
    gen = torch.Generator().manual_seed(seed)
    table = torch.randn(n, dim, generator=gen) * (0.1 / math.sqrt(dim))
    scores = np.array([sp.get_score(i) for i in range(n)], dtype=np.float64)
    sif_w = torch.from_numpy((sif / (sif + np.exp(scores))).astype(np.float32))
    if init == "pairs" and pairs is not None:
        sums, counts = pair_sums(tok, pairs, n, dim)
        seen = counts > 0
        table[seen] = (sums[seen] / counts[seen, None]) * sif_w[seen, None]
    elif init == "pieces" and teacher is not None:
        pieces = [sp.id_to_piece(i).replace("▁", " ").strip() for i in range(n)]
        known = [i for i, p in enumerate(pieces) if p and i != sp.unk_id()]
        words = [pieces[i] for i in known]
        if cache is not None:
            cache.ensure(words, teacher, on_progress=on_progress)
            vecs = cache.get(words)
        else:
            vecs = teacher.encode(words)
        table[known] = torch.from_numpy(vecs.astype(np.float32)) * sif_w[known, None]
        if teacher.dim != dim:
            raise ModelError(f"static dim {dim} must equal the teacher's {teacher.dim}")
    bag = torch.nn.EmbeddingBag.from_pretrained(table, freeze=False, mode="mean")
    body = StaticBody(tok, bag)
    layers: list[Dense] = []
    if head == "mlp":
        layers = [Dense(dim, dim, activation=TANH), Dense(dim, dim, activation=IDENTITY)]
        scale = 4.0  # tanh(x/… ) ≈ x/…: the pair starts as the identity map
        with torch.no_grad():
            layers[0].linear.weight.copy_(torch.eye(dim) * scale)
            layers[0].linear.bias.zero_()
            layers[1].linear.weight.copy_(torch.eye(dim) / scale)
            layers[1].linear.bias.zero_()
    elif head == "linear":
        layers = [Dense(dim, dim, activation=IDENTITY)]
        with torch.no_grad():
            layers[0].linear.weight.copy_(torch.eye(dim))
            layers[0].linear.bias.zero_()
    elif head != "none":
        raise ConfigError(f"unknown head {head!r}", hint="mlp, linear or none")
    return SentenceModel(body, layers, normalize=True)


def pair_sums(
    tok: Any, pairs: tuple[list[str], list[str], Any], n: int, dim: int, chunk: int = 8192
) -> tuple[Any, Any]:
    """Per piece: the sum of the teacher vectors of the sentences containing it (weighted
    1/len per occurrence) and that weight's total — both sides map to the source's vector."""
    import torch

    src, tgt, vectors = pairs
    sums = torch.zeros(n, dim)
    counts = torch.zeros(n)
    for start in range(0, len(src), chunk):
        t = torch.from_numpy(np.asarray(vectors[start : start + chunk], dtype=np.float32))
        for texts in (src[start : start + chunk], tgt[start : start + chunk]):
            encs = tok.encode_batch(texts, add_special_tokens=False)
            ids = [e.ids for e in encs]
            lens = torch.tensor([len(x) for x in ids], dtype=torch.long)
            flat = torch.tensor([i for x in ids for i in x], dtype=torch.long)
            sent = torch.repeat_interleave(torch.arange(len(ids)), lens)
            w = (1.0 / lens.clamp(min=1).float())[sent]
            sums.index_add_(0, flat, t[sent] * w[:, None])
            counts.index_add_(0, flat, w)
    return sums, counts


# ---------------------------------------------------------------- teacher student


def find_unknown(
    tokenizer: Any, texts: Iterable[str], *, limit: int = 300_000
) -> tuple[Counter[str], Counter[str]]:
    """Words the teacher's WordPiece turns into [UNK] and the characters responsible.

    Above ``limit`` texts an evenly spaced sample is scanned, so every language (file) is
    represented, not only the first files (counts are then per sample)."""
    backend = tokenizer.backend_tokenizer
    vocab = backend.get_vocab()
    unk_id = vocab.get(tokenizer.unk_token or "[UNK]")
    items = list(texts)
    if len(items) > limit:
        items = [items[i * len(items) // limit] for i in range(limit)]
    word_counts: Counter[str] = Counter()
    for t in items:
        norm = backend.normalizer.normalize_str(t) if backend.normalizer else t
        word_counts.update(w for w, _ in backend.pre_tokenizer.pre_tokenize_str(norm))
    unk_words: Counter[str] = Counter()
    unk_chars: Counter[str] = Counter()
    for w, c in word_counts.items():
        if any(tk.id == unk_id for tk in backend.model.tokenize(w)):
            unk_words[w] += c
            for ch in set(w):
                if ch not in vocab or "##" + ch not in vocab:
                    unk_chars[ch] += c
    return unk_words, unk_chars


def build_teacher_student(
    teacher_path: Path,
    texts: Iterable[str] | None,
    workdir: Path,
    *,
    extend_vocab: bool = False,
    max_new_words: int = 20000,
    min_count: int = 3,
    on_progress: ProgressCallback | None = None,
) -> tuple[Any, dict[str, Any]]:
    """A trainable copy of the teacher; with ``extend_vocab`` new WordPiece entries for every
    unknown character (``c`` and ``##c``) and the most frequent unknown words, each
    initialised as the mean of the teacher's input embeddings of its known characters (or
    of [UNK]). English tokenisation is unchanged: only [UNK]-producing words are affected."""
    import torch
    from transformers import AutoTokenizer

    from xlsearch.engine.models.trainable import SentenceModel, TransformerBody, load_model

    on_progress = on_progress or no_progress
    base = load_model(teacher_path)
    body = base.body
    if not isinstance(body, TransformerBody):
        raise ModelError(f"{teacher_path}: --student teacher needs a transformer teacher")
    info: dict[str, Any] = {"new_tokens": 0}
    if not extend_vocab or texts is None:
        return base, info
    on_progress(Progress("vocab", 0, None, "finding what the teacher's vocabulary lacks"))
    tok = body.tokenizer
    unk_words, unk_chars = find_unknown(tok, texts)
    vocab = tok.backend_tokenizer.get_vocab()
    new: list[str] = []
    for ch, c in unk_chars.most_common():
        if c < min_count:
            break
        for piece in (ch, "##" + ch):
            if piece not in vocab:
                new.append(piece)
    new_set = set(new)
    for w, c in unk_words.most_common(max_new_words):
        if c < min_count:
            break
        if len(w) > 1 and w not in vocab and w not in new_set:
            new.append(w)
    folder = workdir / "extended-tokenizer"
    if folder.exists():
        shutil.rmtree(folder)
    tok.save_pretrained(str(folder))
    spec = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    table = spec["model"]["vocab"]
    start = max(table.values()) + 1
    for i, piece in enumerate(new):
        table[piece] = start + i
    (folder / "tokenizer.json").write_text(json.dumps(spec, ensure_ascii=False), "utf-8")
    vocab_txt = folder / "vocab.txt"
    if vocab_txt.is_file():
        ordered = sorted(table.items(), key=lambda kv: kv[1])
        vocab_txt.write_text("".join(p + "\n" for p, _ in ordered), encoding="utf-8")
    new_tok = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    emb = input_embeddings(body.auto_model).detach()
    unk = emb[vocab[tok.unk_token]]
    rows = []
    for piece in new:
        text = piece[2:] if piece.startswith("##") else piece
        ids = [vocab[c] for c in text if c in vocab] + [
            vocab["##" + c] for c in text if "##" + c in vocab and c not in vocab
        ]
        rows.append(emb[ids].mean(0) if ids else unk)
    model = body.auto_model
    model.resize_token_embeddings(start + len(new))
    if new:
        with torch.no_grad():
            input_embeddings(model)[start:] = torch.stack(rows)
    body.tokenizer = new_tok
    info.update(
        new_tokens=len(new),
        unknown_chars=len(unk_chars),
        unknown_words=len(unk_words),
        examples=new[:20],
    )
    on_progress(Progress("vocab", len(new), len(new), f"{len(new):,} tokens added"))
    return SentenceModel(body, base.layers(), normalize=True), info


# ---------------------------------------------------------------- checkpoint student


def build_checkpoint_student(folder: str, teacher_dim: int) -> Any:
    """Any local HF / sentence-transformers model; a trainable Dense(identity) projection is
    appended when its width differs from the teacher's."""
    import torch

    from xlsearch.engine.models.cards import resolve_model_path
    from xlsearch.engine.models.trainable import Dense, SentenceModel, load_model

    model = load_model(resolve_model_path(folder))
    if model.dim != teacher_dim:
        proj = Dense(model.dim, teacher_dim, activation=IDENTITY)
        torch.nn.init.xavier_uniform_(proj.linear.weight)
        torch.nn.init.zeros_(proj.linear.bias)
        model = SentenceModel(model.body, [*model.layers(), proj], normalize=True)
    model.normalize = True
    return model


def continue_static(spec: str, teacher_dim: int) -> tuple[Any, dict[str, Any]]:
    """A static student to train on (``shipped``, a name or a folder): its vocabulary, table
    (int8 rows scaled back to float32) and head, as they are."""
    from xlsearch.engine.models.cards import read_card, resolve_model_path
    from xlsearch.engine.models.trainable import StaticBody, load_model

    path = resolve_model_path(spec)
    model = load_model(path)
    body = model.body
    if not isinstance(body, StaticBody):
        raise ConfigError(
            f"--init {spec}: {path} is not a static student",
            hint="continue a static student (xlsearch models lists them), e.g. --init shipped",
        )
    if model.dim != teacher_dim:
        raise ConfigError(
            f"--init {spec}: its vectors are {model.dim}-wide, the teacher's {teacher_dim}",
            hint="continue a student of this teacher",
        )
    card = read_card(path)
    info = {
        "start_from": str(path),
        "start_languages": [str(x) for x in card.get("languages", [])],
        "start_pairs": sum(int(d.get("pairs", 0) or 0) for d in card.get("data", [])),
        "vocab_size": int(body.embedding.num_embeddings),
        "start_storage": "int8" if body.stored_int8 else "float32",
    }
    return model, info


def input_embeddings(model: PreTrainedModel) -> torch.Tensor:
    """A transformer's token embedding table (its rows are the vocabulary's vectors)."""
    import torch

    weight = model.get_input_embeddings().weight
    if not isinstance(weight, torch.Tensor):
        raise ModelError("the teacher has no token embedding table")
    return weight
