"""Tiny parallel corpora and a small distillation config for the distillation tests."""

from __future__ import annotations

import json
import random
from pathlib import Path

from xlsearch.engine.distill import DistillConfig

EN = (
    "the cat sleeps|the dog runs|a big house|a small tree|good morning world|hello world|"
    "the red house|a green tree|the big dog sleeps|the small cat runs"
).split("|")


DE = (
    "die katze schläft|der hund läuft|ein großes haus|ein kleiner baum|guten morgen welt|"
    "hallo welt|das rote haus|ein grüner baum|der große hund schläft|die kleine katze läuft"
).split("|")


FR = (
    "le chat dort|le chien court|une grande maison|un petit arbre|bonjour monde|bonjour "
    "le monde|la maison rouge|un arbre vert|le grand chien dort|le petit chat court"
).split("|")


def write_pairs(path: Path, tgt: list[str], n: int, seed: int = 0) -> Path:
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            j, k = rng.randrange(len(EN)), rng.randrange(len(EN))
            fh.write(f"{EN[j]} and {EN[k]} {i}\t{tgt[j]} & {tgt[k]} {i}\n")
    return path


def config(corpus: dict[str, Path], teacher: Path, out: Path, **kw: object) -> DistillConfig:
    base: dict[str, object] = dict(
        train=[str(corpus["de"]), str(corpus["fr"]) + ":2"],
        teacher=str(teacher),
        student="static",
        out=str(out),
        vocab_size=120,
        vocab_balance=0.0,  # 120 pieces on 2 tiny languages: the corpus as it is
        batch_size=16,
        max_steps=24,
        eval_steps=0,
        ckpt_steps=0,
        log_steps=1,
        dev_per_lang=16,
        device="cpu",
    )
    base.update(kw)
    return DistillConfig(**base)  # type: ignore[arg-type]


def log_lines(run_dir: Path) -> list[dict]:
    lines = (run_dir / "metrics.jsonl").read_text().splitlines()
    return [json.loads(x) for x in lines]
