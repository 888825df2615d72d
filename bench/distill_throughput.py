"""Benchmark (b): training pairs/s of our distillation loop vs sentence-transformers' own
MSE distillation (SentenceTransformerTrainer + losses.MSELoss) — same static student, same
pairs, same batch size, same machine, one run (alternating rounds).

Run: XLSEARCH_HOME=/work/xlhome-bench python bench/distill_throughput.py --student-folder F
(F: a static student, e.g. the one bench/distill_quality.py saved; teacher cache required).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from distill_eval import data_root  # noqa: E402


def load_pairs(n: int, teacher: str, seed: int = 0) -> tuple[list[str], list[str], np.ndarray]:
    """``n`` random cached pairs from all of train/ (English, translation, teacher vector)."""
    from xlsearch.engine import load_encoder
    from xlsearch.engine.distill.data import TrainFile, read_tsv
    from xlsearch.engine.distill.teacher_cache import TeacherCache

    cache = TeacherCache.for_encoder(load_encoder(teacher, device="cpu"))
    src, tgt = [], []
    for path in sorted((data_root() / "train").glob("*.tsv*")):
        g = read_tsv(TrainFile(path), 0)[0][0]
        for s, t, r in zip(g.src, g.tgt, cache.rows(g.src), strict=True):
            if r >= 0:
                src.append(s)
                tgt.append(t)
    order = np.random.default_rng(seed).permutation(len(src))[:n]
    src, tgt = [src[i] for i in order], [tgt[i] for i in order]
    return src, tgt, cache.get(src)


def run_ours(folder: Path, tsv: Path, steps: int, batch: int, lr: float, home: Path) -> float:
    from xlsearch.engine.distill import DistillConfig, distill

    out = home / f"ours-{time.monotonic_ns()}"
    cfg = DistillConfig(
        train=[str(tsv)],
        student=f"checkpoint:{folder}",
        out=str(out),
        batch_size=batch,
        lr=lr,
        emb_lr=lr,
        max_steps=steps,
        contrastive=0.0,  # the same objective as losses.MSELoss
        dev_per_lang=0,
        eval_steps=0,
        ckpt_steps=0,
        log_steps=steps,
        device="cpu",
    )
    res = distill(cfg)
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(res.run_dir, ignore_errors=True)
    return res.pairs_per_s


def run_st(folder: Path, src, tgt, labels, steps: int, batch: int, lr: float, tmp: Path) -> float:
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformer,
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
        losses,
    )

    model = SentenceTransformer(str(folder), device="cpu")
    ds = Dataset.from_dict({"english": src, "non_english": tgt, "label": labels.tolist()})
    args = SentenceTransformerTrainingArguments(
        output_dir=str(tmp / "st-out"),
        per_device_train_batch_size=batch,
        max_steps=steps,
        learning_rate=lr,
        warmup_ratio=0.05,
        save_strategy="no",
        logging_steps=steps,
        report_to="none",
        dataloader_num_workers=0,
        use_cpu=True,
        disable_tqdm=True,
    )
    trainer = SentenceTransformerTrainer(
        model=model, args=args, train_dataset=ds, loss=losses.MSELoss(model)
    )
    out = trainer.train()
    return steps * batch / out.metrics["train_runtime"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--student-folder", required=True)
    ap.add_argument("--teacher", default="bundled:teacher")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()

    import torch

    folder = Path(args.student_folder)
    n = args.steps * args.batch_size
    src, tgt, labels = load_pairs(n, args.teacher)
    tmp = Path(tempfile.mkdtemp(prefix="distill-tp-"))
    tsv = tmp / "pairs.tsv"
    tsv.write_text("".join(f"{s}\t{t}\n" for s, t in zip(src, tgt, strict=True)), "utf-8")
    ours, st = [], []
    for r in range(args.rounds):
        ours.append(run_ours(folder, tsv, args.steps, args.batch_size, args.lr, tmp))
        st.append(run_st(folder, src, tgt, labels, args.steps, args.batch_size, args.lr, tmp))
        print(f"round {r + 1}: ours {ours[-1]:,.0f} pairs/s, sentence-transformers {st[-1]:,.0f}")
    shutil.rmtree(tmp, ignore_errors=True)
    o, s = float(np.median(ours)), float(np.median(st))
    print(
        f"\nstudent {folder.name}, {len(src):,} pairs, batch {args.batch_size}, "
        f"{args.steps} steps, torch threads {torch.get_num_threads()}"
    )
    print("| trainer | pairs/s (median of rounds) | ratio |\n|---|---|---|")
    print(f"| sentence-transformers Trainer + MSELoss | {s:,.0f} | 1.00 |")
    print(f"| xlsearch distill | {o:,.0f} | **{o / s:.2f}×** |")


if __name__ == "__main__":
    main()
