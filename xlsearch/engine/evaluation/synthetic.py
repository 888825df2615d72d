"""A BUCC-style mining task built by hiding known parallel pairs among unrelated sentences."""

from __future__ import annotations

import random
from collections.abc import Sequence

from xlsearch.engine.evaluation.readers import MiningSplit, MiningTask, ParallelSet


def build_bucc_style(
    pairs: ParallelSet,
    *,
    gold_per_split: int | None = None,
    src_distractors: Sequence[str] = (),
    tgt_distractors: Sequence[str] = (),
    seed: int = 0,
) -> MiningTask:
    """Hide parallel pairs among distractors on each side; split into train and test halves.

    Rows of ``pairs`` are shuffled; each split gets ``gold_per_split`` pairs (default: a
    quarter of the rows). Leftover rows become one-sided distractors (their source side or
    their target side, never both), plus the given extra distractors. Distractors equal to a
    gold sentence of the same side are dropped; duplicates are dropped. Sentence ids are
    shuffled so they reveal nothing. The task is labelled "BUCC-style".
    """
    rng = random.Random(seed)
    rows = [i for i in range(len(pairs.src)) if pairs.src[i].strip() and pairs.tgt[i].strip()]
    rng.shuffle(rows)
    n_gold = gold_per_split if gold_per_split is not None else max(1, len(rows) // 4)
    n_gold = min(n_gold, len(rows) // 2)
    gold_rows = [rows[:n_gold], rows[n_gold : 2 * n_gold]]
    rest = rows[2 * n_gold :]
    src_only = [pairs.src[i] for i in rest[0::2]] + list(src_distractors)
    tgt_only = [pairs.tgt[i] for i in rest[1::2]] + list(tgt_distractors)
    rng.shuffle(src_only)
    rng.shuffle(tgt_only)
    splits = []
    for part, g in enumerate(gold_rows):
        gold_src = [pairs.src[i] for i in g]
        gold_tgt = [pairs.tgt[i] for i in g]
        d_src = _distinct(src_only[part::2], set(gold_src))
        d_tgt = _distinct(tgt_only[part::2], set(gold_tgt))
        splits.append(_make_split(gold_src, gold_tgt, d_src, d_tgt, rng, tag=f"s{part}"))
    name = f"{pairs.src_lang or pairs.name}-{pairs.tgt_lang or 'en'}"
    return MiningTask(name, splits[0], splits[1], label="BUCC-style")


def _distinct(items: Sequence[str], exclude: set[str]) -> list[str]:
    seen = set(exclude)
    out = []
    for t in items:
        if t.strip() and t not in seen:
            seen.add(t)
            out.append(t)
    return out


def _make_split(
    gold_src: list[str],
    gold_tgt: list[str],
    d_src: list[str],
    d_tgt: list[str],
    rng: random.Random,
    tag: str,
) -> MiningSplit:
    src_texts = gold_src + d_src
    tgt_texts = gold_tgt + d_tgt
    src_ids = [f"{tag}-a{k:06d}" for k in rng.sample(range(len(src_texts)), len(src_texts))]
    tgt_ids = [f"{tag}-b{k:06d}" for k in rng.sample(range(len(tgt_texts)), len(tgt_texts))]
    gold = {(src_ids[i], tgt_ids[i]) for i in range(len(gold_src))}
    src = dict(sorted(zip(src_ids, src_texts, strict=True)))
    tgt = dict(sorted(zip(tgt_ids, tgt_texts, strict=True)))
    return MiningSplit(src, tgt, gold)
