"""Benchmark (a): distil a student on ../shared/data/train, evaluate on Tatoeba and STSb.

Run (after bench/distill_cache.py built the teacher cache in the same XLSEARCH_HOME):
  XLSEARCH_HOME=/work/xlhome-bench python bench/distill_quality.py --student static \
      --minutes 15 --max-steps 6000
Pairs whose English side is not in the teacher cache are skipped and counted (so a
partially built cache can be used on a busy machine); the table says how many were used.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from distill_eval import STS_CROSS, TRAINED, UNTRAINED, data_root, sts, summary, tatoeba  # noqa: E402


def cached_subset(tmp: Path, teacher: str, max_per_lang: int) -> tuple[list[str], int, int]:
    """Write per-language TSVs holding only pairs with a cached English side."""
    from xlsearch.engine import load_encoder
    from xlsearch.engine.distill.data import TrainFile, read_tsv
    from xlsearch.engine.distill.setup import token_filter
    from xlsearch.engine.distill.teacher_cache import TeacherCache

    enc = load_encoder(teacher, device="cpu")
    cache = TeacherCache.for_encoder(enc)
    files, total, used = [], 0, 0
    for path in sorted((data_root() / "train").glob("*.tsv*")):
        groups, _ = read_tsv(TrainFile(path), 0, too_long=token_filter(enc, 128))
        g = groups[0]
        ok = [i for i, r in enumerate(cache.rows(g.src)) if r >= 0]
        total += len(g.src)
        if max_per_lang:
            ok = ok[:max_per_lang]
        used += len(ok)
        out = tmp / path.name.replace(".gz", "")
        out.write_text("".join(f"{g.src[i]}\t{g.tgt[i]}\n" for i in ok), "utf-8")
        if ok:
            files.append(str(out))
    return files, total, used


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--student", default="static")
    ap.add_argument("--teacher", default="bundled:teacher")
    ap.add_argument("--minutes", type=float, default=15.0, help="training time limit")
    ap.add_argument("--max-steps", type=int, default=0)
    ap.add_argument("--batch-size", type=int)
    ap.add_argument("--lr", type=float)
    ap.add_argument("--emb-lr", type=float)
    ap.add_argument("--vocab-size", type=int, default=64000)
    ap.add_argument("--head", default="mlp")
    ap.add_argument("--init", default="pairs", help="static piece init: pairs|pieces|random")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1 on a busy box)")
    ap.add_argument("--sif", type=float, default=1e-3)
    ap.add_argument("--extend-vocab", action="store_true")
    ap.add_argument("--ema", action="store_true")
    ap.add_argument("--contrastive", type=float, help="InfoNCE weight (0 = off; preset default)")
    ap.add_argument("--sim-kd", type=float, help="similarity-structure weight (preset default)")
    ap.add_argument("--vocab-balance", type=float, help="static: per-language vocab budget")
    ap.add_argument("--mono", nargs="*", default=[], help="monolingual files (two-stage)")
    ap.add_argument("--targets", default="source", help="source | each (multilingual teacher)")
    ap.add_argument("--calibrate-sts", default="", help="STS file to calibrate the result on")
    ap.add_argument("--warmup", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ema-tau-base", type=float, default=0.99999)
    ap.add_argument("--schedule", default="linear")
    ap.add_argument("--max-per-lang", type=int, default=0, help="cap pairs per language")
    ap.add_argument("--train-dir", help="train on these TSVs as they are (default: train/ ∩ cache)")
    ap.add_argument("--eval-steps", type=int, default=0)
    ap.add_argument("--dev-per-lang", type=int, default=300)
    ap.add_argument("--sts", action="store_true", help="also STSb-multi-MT Spearman")
    ap.add_argument("--out", default="")
    ap.add_argument("--json", help="write all results here")
    args = ap.parse_args()

    from xlsearch.engine import load_encoder
    from xlsearch.engine.distill import DistillConfig, distill

    tmp = Path(tempfile.mkdtemp(prefix="distill-bench-"))
    if args.train_dir:  # every pair of these files; distill caches what is missing
        files = sorted(str(p) for p in Path(args.train_dir).glob("*.tsv*"))
        total = used = 0
    else:
        files, total, used = cached_subset(tmp, args.teacher, args.max_per_lang)
    out = Path(args.out or tmp / "student")
    cfg = DistillConfig(
        train=files,
        teacher=args.teacher,
        student=args.student,
        out=str(out),
        vocab_size=args.vocab_size,
        vocab_balance=args.vocab_balance or 0.0,
        head=args.head,
        init=args.init,
        sif=args.sif,
        extend_vocab=args.extend_vocab,
        batch_size=args.batch_size,
        lr=args.lr,
        emb_lr=args.emb_lr,
        schedule=args.schedule,
        max_steps=args.max_steps or None,
        time_limit_min=args.minutes,
        eval_steps=args.eval_steps,
        dev_per_lang=args.dev_per_lang,
        ema=args.ema,
        contrastive=args.contrastive,
        sim_kd=args.sim_kd,
        mono=list(args.mono),
        targets=args.targets,
        calibrate_sts=args.calibrate_sts,
        warmup=args.warmup,
        seed=args.seed,
        ema_tau_base=args.ema_tau_base,
        log_steps=50,
        threads=args.threads,
    )
    t0 = time.perf_counter()
    last = [0.0]

    def show(p: object) -> None:
        now = time.perf_counter()
        if now - last[0] > 60 or "dev_acc" in p.metrics:  # type: ignore[attr-defined]
            last[0] = now
            m = {k: round(v, 5) if isinstance(v, float) else v for k, v in p.metrics.items()}  # type: ignore[attr-defined]
            print(f"  [{now - t0:6.0f}s] {p.stage} {p.done}/{p.total} {p.message} {m}", flush=True)  # type: ignore[attr-defined]

    c0 = time.process_time()
    res = distill(cfg, on_progress=show)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0  # all threads of this process: vocab, init and training
    enc = load_encoder(res.out, device="cpu")
    t1 = time.perf_counter()
    tat = tatoeba(enc, TRAINED + UNTRAINED)
    st = sts(enc) if args.sts else None
    t_eval = time.perf_counter() - t1
    summ = summary(tat, st)
    from xlsearch.engine.models.cards import update_card

    figures = {f"tatoeba_{k}": round(v, 2) for k, v in tat.items()}
    figures |= {f"stsb_{k}": round(v, 2) for k, v in (st or {}).items()}
    figures |= {k: round(v, 2) for k, v in summ.items()}
    update_card(res.out, metrics=figures)  # the student's card carries its dev figures
    curve = [
        json.loads(x)
        for x in (res.run_dir / "metrics.jsonl").read_text().splitlines()
        if "dev_acc" in x
    ]
    print(f"\nstudent={args.student} pairs used {used:,} of {total:,} (cached English sides)")
    print(
        f"steps {res.steps:,}/{res.max_steps:,}, training {res.train_seconds / 60:.1f} min, "
        f"{res.pairs_per_s:,.0f} pairs/s, run wall {wall / 60:.1f} min (incl. vocab/init), "
        f"eval {t_eval:.0f}s; process CPU {cpu / 60:.1f} min (all threads, incl. vocab/init)"
    )
    print("\n| " + " | ".join(TRAINED) + " | mean14 |")
    print("|" + "---|" * (len(TRAINED) + 1))
    print(
        "| "
        + " | ".join(f"{tat[x]:.1f}" for x in TRAINED)
        + f" | **{summ['tatoeba_mean14']:.1f}** |"
    )
    print("\nuntrained: " + ", ".join(f"{x} {tat[x]:.1f}" for x in UNTRAINED))
    if st:
        print(
            "STSb-multi-MT test Spearman×100: " + ", ".join(f"{k} {v:.1f}" for k, v in st.items())
        )
        print(
            f"cross-lingual mean ({', '.join('-'.join(p) for p in STS_CROSS)}): "
            f"{summ['sts_cross_mean']:.1f}; STSb-multi-MT en×xx mean (10) "
            f"{summ['sts_enxx_mean10']:.1f}, mono mean (10) {summ['sts_mono_mean10']:.1f}; "
            f"Tatoeba min over 14 {summ['tatoeba_min14']:.1f}"
        )
    print("\nlearning curve (dev = held-out pairs of train/, mean of both directions):")
    print("| step | train min | dev acc | dev MSE×100 |\n|---|---|---|---|")
    for r in curve:
        print(
            f"| {r['step']} | {r.get('train_s', 0) / 60:.1f} | {r['dev_acc']:.1f} "
            f"| {r['dev_mse']:.4f} |"
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "args": vars(args),
                    "tatoeba": tat,
                    "sts": st,
                    "summary": summ,
                    "curve": curve,
                    "steps": res.steps,
                    "train_s": res.train_seconds,
                    "run_wall_s": wall,
                    "run_cpu_s": cpu,
                    "pairs_per_s": res.pairs_per_s,
                    "pairs_used": used,
                    "pairs_total": total,
                    "out": str(res.out),
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
