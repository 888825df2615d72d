"""Preparing a run: output folders, teacher, data, teacher cache and the initial student."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.distill.config import DistillConfig
from xlsearch.engine.distill.data import ParallelData, load_parallel
from xlsearch.engine.errors import ConfigError
from xlsearch.engine.progress import Progress
from xlsearch.engine.runtime import locations


def resolve_kind(cfg: DistillConfig, device: str) -> str:
    """The student spec, with ``auto`` → ``teacher`` on CUDA, else ``static``."""
    if cfg.student == "auto":
        return "teacher" if device.startswith("cuda") else "static"
    return cfg.student


def output_paths(cfg: DistillConfig, student: str) -> tuple[Path, Path]:
    """(model folder, run folder ``<model>.run`` holding checkpoints and the metrics log)."""
    if cfg.out:
        out = Path(cfg.out).expanduser().resolve()
    else:
        name = cfg.name or re.sub(r"[^A-Za-z0-9_.-]+", "-", f"student-{student}").strip("-")
        out = locations.models_dir() / name
    return out, out.with_name(out.name + ".run")


def token_filter(teacher: Any, limit: int) -> Any:
    """``too_long(texts) -> list[bool]``: more than ``limit`` teacher tokens (specials incl.).

    Only texts longer than ``limit - 2`` characters are tokenised: a WordPiece token covers
    at least one character, so shorter texts cannot exceed the limit.
    """
    model = getattr(teacher, "model", None)
    body = getattr(model, "body", None)

    def too_long(texts: list[str]) -> list[bool]:
        flags = [False] * len(texts)
        idx = [i for i, t in enumerate(texts) if len(t) > limit - 2]
        if not idx or body is None:
            return flags
        for start in range(0, len(idx), 4096):
            part = idx[start : start + 4096]
            if body.kind == "transformer":
                enc = body.tokenizer([texts[i] for i in part], add_special_tokens=True)
                lengths = [len(x) for x in enc["input_ids"]]
            else:
                lengths = body.tokenize([texts[i] for i in part])["lengths"].tolist()
            for i, n in zip(part, lengths, strict=True):
                flags[i] = n > limit
        return flags

    return too_long


def read_data(cfg: DistillConfig, teacher: Any) -> ParallelData:
    """Read and check every training file (DataError before any training)."""
    if not cfg.train:
        raise ConfigError("no training data", hint="--train a.tsv [b.tsv.gz:2 …]")
    data = load_parallel(
        list(cfg.train),
        dev_per_lang=cfg.dev_per_lang,
        dev_file=cfg.dev,
        langs=cfg.langs,
        too_long=token_filter(teacher, cfg.max_seq_length),
        seed=cfg.seed,
        mono=list(cfg.mono),
        clean=cfg.clean or cfg.clean_thorough or bool(cfg.clean_report),
    )
    if cfg.clean_report and not cfg.clean_thorough:  # thorough: after ``crossfit_clean``
        from xlsearch.engine.distill.data import write_clean_report

        write_clean_report(cfg.clean_report, data.reports)
    return data


def crossfit_clean(
    cfg: DistillConfig,
    data: ParallelData,
    teacher: Any,
    cache: Any,
    workdir: Path,
    on_progress: Any,
    cancel: Any,
) -> None:
    """``--clean thorough``: drop from each language's (rule-cleaned) training pairs those
    two cross-fitted quick students find misaligned (``crossfit``), counted and listed in the
    file reports like the rule drops; then write ``--clean-report``."""
    import shutil

    from xlsearch.engine.distill.crossfit import crossfit_drops

    for k, g in enumerate(data.groups):
        if g.mono:
            continue
        cache.ensure(g.src, teacher, on_progress=on_progress, cancel=cancel)
        vectors = np.asarray(cache.vectors[teacher_rows(cache, g.src)], dtype=np.float32)
        found = crossfit_drops(
            g.src, g.tgt, vectors, workdir / f"crossfit-{k}", seed=cfg.seed,
            on_progress=on_progress, cancel=cancel,
        )  # fmt: skip
        shutil.rmtree(workdir / f"crossfit-{k}", ignore_errors=True)
        if not found.why:
            continue
        rep = data.reports[g.file]
        for i in sorted(found.why):
            rep.cleaned.append(("misaligned-model", found.why[i], g.src[i], g.tgt[i]))
        rep.drop("--clean: misaligned-model", len(found.why))
        g.src = [x for i, x in enumerate(g.src) if i not in found.why]
        g.tgt = [x for i, x in enumerate(g.tgt) if i not in found.why]
        on_progress(
            Progress(
                "clean", 2, 2, f"{g.lang}: cross-fitted students dropped {len(found.why):,} of "
                f"{len(found.margin):,} pairs in {found.seconds:.0f} s",
            )
        )  # fmt: skip
    if cfg.clean_report:
        from xlsearch.engine.distill.data import write_clean_report

        write_clean_report(cfg.clean_report, data.reports)


def total_steps(cfg: DistillConfig, sizes: list[int], weights: list[int], world: int) -> int:
    """``max_steps``, or ``epochs`` passes over the most-visited-last group, in steps."""
    if cfg.max_steps:
        return int(cfg.max_steps)
    per_round = sum(weights)
    rounds = max(s / w for s, w in zip(sizes, weights, strict=True))
    examples = (cfg.epochs or 1.0) * rounds * per_round
    return max(1, math.ceil(examples / ((cfg.batch_size or 1) * cfg.accum * world)))


def build_student(
    cfg: DistillConfig,
    student: str,
    data: ParallelData,
    teacher: Any,
    cache: Any,
    workdir: Path,
    on_progress: Any,
) -> tuple[Any, dict[str, Any]]:
    """A fresh student of the requested kind (see ``students``)."""
    from xlsearch.engine.distill import students

    if cfg.start_from:
        return students.continue_static(cfg.start_from, teacher.dim)
    kind, folder = students.parse_student(student)
    if kind == "static":
        model = students.build_static(
            vocab_texts(data, cfg.vocab_balance, cfg.seed),
            workdir,
            dim=teacher.dim,
            vocab_size=cfg.vocab_size,
            head=cfg.head,
            teacher=teacher,
            cache=cache,
            init=cfg.init,
            pairs=_pairs_for_init(data, cache) if cfg.init == "pairs" else None,
            sif=cfg.sif,
            seed=cfg.seed,
            on_progress=on_progress,
        )
        return model, {"vocab_size": int(model.body.embedding.num_embeddings)}
    if kind == "teacher":
        return students.build_teacher_student(
            Path(teacher.path),
            data.all_texts() if cfg.extend_vocab else None,
            workdir,
            extend_vocab=cfg.extend_vocab,
            max_new_words=cfg.max_new_words,
            on_progress=on_progress,
        )
    assert folder is not None
    return students.build_checkpoint_student(folder, teacher.dim), {"base": folder}


def vocab_texts(data: ParallelData, balance: float, seed: int = 0) -> Any:
    """The vocabulary's corpus: every text, or (``balance`` > 0) an equal share per language
    — the teacher's side counts as one language — with small languages repeated at most
    ``balance`` times, so that a 5k-pair language is not left a handful of pieces."""
    if balance <= 0:
        return data.all_texts()
    by_lang: dict[str, list[str]] = {}
    for g in [*data.groups, *data.dev]:
        if not g.mono:
            by_lang.setdefault("\0teacher", []).extend(g.src)
        by_lang.setdefault(g.lang, []).extend(g.tgt)
    uniq = [list(dict.fromkeys(v)) for v in by_lang.values()]
    share = sum(len(v) for v in uniq) // max(1, len(uniq))
    rng = np.random.default_rng(seed)
    out: list[str] = []
    for texts in uniq:
        n = min(share, int(len(texts) * balance))
        reps, rest = divmod(n, len(texts))
        out += texts * reps + [texts[i] for i in rng.permutation(len(texts))[:rest]]
    return out


def _pairs_for_init(data: ParallelData, cache: Any) -> tuple[list[str], list[str], Any]:
    src = [s for g in data.groups for s in g.src]
    tgt = [t for g in data.groups for t in g.tgt]
    rows = cache.rows(src)
    keep = rows >= 0
    if not keep.all():
        src = [s for s, k in zip(src, keep, strict=True) if k]
        tgt = [t for t, k in zip(tgt, keep, strict=True) if k]
    return src, tgt, np.asarray(cache.vectors[rows[keep]], dtype=np.float32)


def teacher_rows(cache: Any, texts: list[str]) -> np.ndarray:
    """Cache rows of ``texts`` (all must be present)."""
    rows = cache.rows(texts)
    if (rows < 0).any():
        raise RuntimeError(f"{int((rows < 0).sum())} source sentences missing from the cache")
    return rows


DEV_POINTS = 10
"""Dev evaluations a run makes at least (its curve, in the app and the log)."""


def dev_interval(eval_steps: int | None, max_steps: int) -> int:
    """Steps between dev evaluations: ``eval_steps``, made shorter when a run would get
    fewer than ``DEV_POINTS`` of them (a 486-step run at 500 drew one dot); 0 = only at
    the end, as asked."""
    if not eval_steps:
        return 0
    return max(1, min(int(eval_steps), max_steps // DEV_POINTS))
