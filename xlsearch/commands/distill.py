"""``xlsearch distill``: make the English teacher multilingual (knowledge distillation)."""

from __future__ import annotations

import argparse
from typing import Any

DESCRIPTION = """\
Distil a multilingual student from an English teacher and parallel sentences
(Reimers & Gurevych 2020): the student learns M̂(s) ≈ M(s) and M̂(t) ≈ M(s) for each pair.

Training data: TSV files (plain or .gz), column 1 a sentence in the teacher's language,
further columns its translations; FILE:N gives a file weight N. Batches draw roughly equally
from each file. A dev split (1,000 pairs per language) is held out unless --dev is given.

Students:
  static              SentencePiece vocabulary trained on your TSVs → embedding bag → small
                      head; thousands of pairs/s on a CPU; encodes very fast (CPU default)
  teacher             a copy of the teacher, fine-tuned (--extend-vocab adds tokens for what
                      its WordPiece vocabulary maps to [UNK]: CJK, Arabic, …); the GPU path
                      to top quality (default with CUDA)
  checkpoint:FOLDER   any local Hugging Face / sentence-transformers model (a projection is
                      added when its width differs from the teacher's)
  ('bootstrap' — the teacher's body under a new vocabulary — is not offered: measured on
  CPU it did worse than the raw teacher, and no GPU run has shown it winning.)

Your memory on top of the shipped model: --init shipped continues the multilingual student
that comes with xlsearch on your pairs (its vocabulary and head kept, only the rows of your
pairs' pieces trained), so your language pair gets better and the others stay.

Ctrl-C saves a checkpoint and a usable model; --resume continues at the same step with the
same data order. Runs unchanged under `torchrun --nproc_per_node N` (DDP).
"""


def register(sub: Any) -> None:
    """Add ``xlsearch distill``."""
    p = sub.add_parser(
        "distill",
        help="distil a multilingual student from the English teacher and parallel TSVs",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--train", nargs="+", metavar="FILE[:W]", help="training TSVs (.gz ok)")
    p.add_argument(
        "--teacher", default="bundled:teacher",
        help="teacher model: the English bundled one, or a local multilingual model folder "
        "(two-stage: a transformer student teaching a static one)",
    )  # fmt: skip
    p.add_argument(
        "--mono", nargs="+", metavar="FILE[:W]", default=[],
        help="monolingual sentences (one a line, any language; language from the name, e.g. "
        "news.de.txt): taught with the teacher's own embeddings — for a multilingual teacher",
    )  # fmt: skip
    p.add_argument(
        "--targets", default="source", choices=["source", "each"],
        help="target of a translation: the teacher's embedding of its source (paper) or of "
        "itself (each; a multilingual teacher)",
    )  # fmt: skip
    p.add_argument(
        "--student",
        default="auto",
        help="static | teacher | checkpoint:FOLDER (default: teacher with CUDA, else static)",
    )
    p.add_argument(
        "--init", metavar="MODEL", default="",
        help="continue a static student on your pairs instead of starting a new one: "
        "'shipped' (the multilingual student that comes with xlsearch), a model name or "
        "folder; its vocabulary and head are kept, so its other languages stay",
    )  # fmt: skip
    p.add_argument(
        "--anchor", action=argparse.BooleanOptionalAction, default=None,
        help="with --init: teach your pairs the starting student's own vector of each source "
        "sentence, not the teacher's, so that its other languages keep their place "
        "(default: on)",
    )  # fmt: skip
    p.add_argument(
        "--merge", type=float, metavar="SHARE",
        help="with --init: keep this share of the change, between the starting student "
        "(0) and the trained one (1); default 0.6: its other languages lose at most a few "
        "tenths of a point",
    )  # fmt: skip
    p.add_argument("--out", default="", help="output model folder (default: models dir/NAME)")
    p.add_argument("--name", default="", help="model name when --out is not given")
    p.add_argument("--preset", default="quick", choices=["quick", "full"])
    p.add_argument("--resume", action="store_true", help="continue the run in OUT.run")
    p.add_argument("--dev", help="dev TSV (default: held out from the training files)")
    p.add_argument("--dev-per-lang", type=int, default=1000, help="held-out pairs per language")
    p.add_argument("--langs", nargs="+", help="keep only these target languages")
    p.add_argument(
        "--clean",
        nargs="?",
        const="rules",
        choices=["rules", "thorough"],
        help="drop training pairs that xlsearch check flags without a model: a target copied "
        "from the source, in another language, misaligned (its words are not the usual "
        "translations of the source's, learnt from your pairs), far too short or long, "
        "placeholders lost; says how many of each. --clean thorough: then also the pairs two "
        "quick students, each trained on one half of the pairs, find misaligned in the other "
        "half (about a minute more per 10,000 pairs on a CPU)",
    )
    p.add_argument(
        "--clean-report", metavar="FILE", default="",
        help="with --clean (implied): write every dropped pair to FILE (TSV: file, kind, why, "
        "source, target)",
    )  # fmt: skip
    p.add_argument("--max-seq-length", type=int, default=128, help="drop longer pairs (tokens)")
    p.add_argument("--max-steps", type=int, help="optimizer steps (default from --epochs)")
    p.add_argument("--epochs", type=float, help="passes over the largest language")
    p.add_argument(
        "--time-limit",
        type=float,
        help="minutes of training: the schedule is fitted to end within them "
        "(quick static preset: 15; 0 = no limit)",
    )
    p.add_argument("--batch-size", type=int, help="pairs per step and process")
    p.add_argument("--accum", type=int, default=1, help="gradient accumulation steps")
    p.add_argument("--lr", type=float, help="peak learning rate (AdamW)")
    p.add_argument("--emb-lr", type=float, help="static: embedding-table learning rate")
    p.add_argument("--schedule", default="linear", choices=["linear", "cosine", "constant"])
    p.add_argument("--warmup", type=float, default=0.05, help="warm-up fraction of steps")
    p.add_argument("--vocab-size", type=int, default=128000, help="static: vocabulary pieces")
    p.add_argument(
        "--vocab-balance", type=float, default=4.0,
        help="static: equal vocabulary-corpus share per language, small ones repeated at most "
        "this many times (default 4; 0 = texts as they are)",
    )  # fmt: skip
    p.add_argument("--head", default="mlp", choices=["mlp", "linear", "none"], help="static")
    p.add_argument("--extend-vocab", action="store_true", help="teacher: add [UNK] tokens")
    p.add_argument("--ema", action="store_true", help="EMA teacher (Ham & Kim 2021)")
    p.add_argument(
        "--contrastive",
        type=float,
        help="weight of an in-batch InfoNCE term (0 = pure MSE; default: 0.01 static, 0 others)",
    )
    p.add_argument("--contrastive-scale", type=float, default=20.0, help="InfoNCE scale")
    p.add_argument(
        "--sim-kd", type=float,
        help="weight of the similarity-structure term: in-batch cosines regressed on the "
        "teacher's (graded similarity; 0 = off; default: the preset's)",
    )  # fmt: skip
    p.add_argument("--ema-tau-base", type=float, default=0.99999, help="EMA τ_base")
    p.add_argument("--eval-steps", type=int, help="dev evaluation every N steps")
    p.add_argument("--ckpt-steps", type=int, help="checkpoint every N steps")
    p.add_argument("--log-steps", type=int, default=10, help="log / progress every N steps")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar (notices print)")
    p.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N")
    p.add_argument(
        "--threads", type=int, default=0, help="CPU threads (0 = automatic: the free cores)"
    )
    p.add_argument(
        "--teacher-precision",
        default="auto",
        choices=["auto", "fp32", "bf16", "int8"],
        help="teacher cache precision (auto: bf16 on CPUs with native bf16, else int8 on AVX2)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--calibrate-sts", metavar="FILE", default="",
        help="STS file (e.g. STS-benchmark sts-train.csv): fit the student's 0-5 STS score",
    )  # fmt: skip
    p.set_defaults(func=cmd_distill)


def cmd_distill(args: argparse.Namespace) -> int:
    """Run a distillation with a progress bar; Ctrl-C (SIGTERM, SIGHUP) saves and stops."""
    import signal
    import sys
    import threading

    from xlsearch.commands.progress import NoticeLines
    from xlsearch.commands.progress import ProgressDisplay as ProgressBar
    from xlsearch.engine.errors import ConfigError
    from xlsearch.engine.progress import CancelToken
    from xlsearch.service import shutdown
    from xlsearch.service.api import DistillConfig
    from xlsearch.service.local import LocalEngine

    if not args.train and not args.resume:
        raise ConfigError("--train is required", hint="xlsearch distill --train a.tsv b.tsv.gz:2")
    config = DistillConfig(
        train=list(args.train or []),
        teacher=args.teacher,
        preset=args.preset,
        device=args.device,
        start_from=args.init,
        anchor=args.anchor,
        merge=args.merge,
        mono=list(args.mono),
        student="static" if args.init and args.student == "auto" else args.student,
        targets=args.targets,
        dev=args.dev,
        dev_per_lang=args.dev_per_lang,
        langs=args.langs,
        clean=bool(args.clean),
        clean_thorough=args.clean == "thorough",
        clean_report=args.clean_report,
        max_seq_length=args.max_seq_length,
        out=args.out,
        name=args.name,
        vocab_size=args.vocab_size,
        vocab_balance=args.vocab_balance,
        head=args.head,
        extend_vocab=args.extend_vocab,
        batch_size=args.batch_size,
        accum=args.accum,
        lr=args.lr,
        emb_lr=args.emb_lr,
        warmup=args.warmup,
        schedule=args.schedule,
        epochs=args.epochs,
        max_steps=args.max_steps,
        time_limit_min=args.time_limit,
        seed=args.seed,
        ema=args.ema,
        contrastive=args.contrastive,
        contrastive_scale=args.contrastive_scale,
        sim_kd=args.sim_kd,
        ema_tau_base=args.ema_tau_base,
        eval_steps=args.eval_steps,
        ckpt_steps=args.ckpt_steps,
        log_steps=args.log_steps,
        threads=args.threads,
        teacher_precision=args.teacher_precision,
        calibrate_sts=args.calibrate_sts,
    )
    cancel = CancelToken()
    training = threading.Event()  # set at the first training step: a checkpoint can be saved

    def on_stop(signum: int, frame: Any) -> None:
        """Ctrl-C, SIGTERM, SIGHUP: once training runs, save a checkpoint and stop; before
        (or a second time), stop at once."""
        name = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
        if cancel.cancelled or not training.is_set():
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            shutdown.arm(signum)
            raise shutdown.Terminated(signum)
        if signum != signal.SIGINT:  # the watchdog waits for the checkpoint
            shutdown.arm(signum, grace=shutdown.CHECKPOINT_GRACE_S)
        print(f"\nstopping: saving a checkpoint ({name} again to abort)", file=sys.stderr)
        cancel.cancel()

    def on_progress(p: Any) -> None:
        if p.stage == "distill" and not training.is_set():
            training.set()
            shutdown.set_grace(shutdown.CHECKPOINT_GRACE_S)  # a stop saves a checkpoint
        bar(p)

    stops = (signal.SIGINT, *shutdown.STOP_SIGNALS)
    previous = {sig: signal.signal(sig, on_stop) for sig in stops}
    engine = LocalEngine()
    if not args.resume:
        guess = engine.estimate_distill(config)
        print(f"time: {guess.text}", file=sys.stderr, flush=True)
    bar = NoticeLines() if args.quiet else ProgressBar()
    try:
        result = engine.distill(config, on_progress, cancel, resume=args.resume)
    finally:
        bar.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    m = result.metrics
    dev = f"; best dev accuracy {m['dev_acc']:.1f}, MSE×100 {m['dev_mse']:.4f}" if m else ""
    state = "stopped" if result.cancelled or result.stopped_early else "done"
    print(
        f"{state} at step {result.steps:,}/{result.max_steps:,} "
        f"({result.pairs_per_s:,.0f} pairs/s){dev}\nmodel: {result.out}"
    )
    if not result.cancelled and result.steps < result.planned_steps:
        print(
            "schedule fitted to the time limit: "
            f"{result.steps:,} of {result.planned_steps:,} planned steps (--time-limit 0: all)"
        )
    if result.cancelled:
        print(
            "this run is unfinished (not listed as a model); "
            f"resume: xlsearch distill --resume --out {result.out}"
        )
        if shutdown.armed():  # SIGTERM / SIGHUP
            print(shutdown.stopped_line(shutdown.armed_by()), file=sys.stderr)
            return 128 + shutdown.armed_by()
        return 130
    if result.stopped_early:
        print(f"time limit reached; to train on: xlsearch distill --resume --out {result.out}")
    print(switch_hint(str(result.out)))
    return 0


def switch_hint(out: Any) -> str:
    """How to make a new model the active one (distilling never does it by itself)."""
    from xlsearch.service.local import LocalEngine

    name = LocalEngine().use_name(out)
    return (
        f"the active model is unchanged; to search with this one: xlsearch models --use {name} "
        "(collections are re-indexed for it on first use)"
    )
