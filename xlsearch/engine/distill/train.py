"""The distillation loop (Reimers & Gurevych 2020; EMA teacher of Ham & Kim 2021).

Per batch: loss = MSE(M̂(s), M(s)) + MSE(M̂(t), M(s)) — ``loss_src`` and ``loss_tgt`` —
plus, only when ``contrastive`` > 0, λ·InfoNCE(M̂(t), M̂(s)) with in-batch negatives.
A multilingual teacher (two-stage: a transformer student teaching a static one) may also
give each translation its own target (``targets="each"``: MSE(M̂(t), M(t))) and teach
monolingual sentences x of any language (``mono``: MSE(M̂(x), M(x)), no InfoNCE term).
``sim_kd`` > 0 adds μ·``sim_kd_loss``: the in-batch cosine matrices of the student
(translations × sources, translations × translations) regressed on the teacher's — graded
similarity, which InfoNCE alone pushes towards "translation or not".
One entry point, ``distill(config, on_progress, cancel, resume)``; the CLI, the TUI and
``torchrun`` all call it.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.distill import checkpoint as ck
from xlsearch.engine.distill import ddp
from xlsearch.engine.distill import setup as su
from xlsearch.engine.distill.config import (
    DistillConfig,
    DistillResult,
    apply_preset,
    check_config,
)
from xlsearch.engine.distill.dev import evaluate_dev
from xlsearch.engine.distill.losses import info_nce, sim_kd_loss
from xlsearch.engine.distill.sampler import PairStream
from xlsearch.engine.distill.teacher_cache import TeacherCache
from xlsearch.engine.distill.teacher_cache import sentence_cost as est_cost
from xlsearch.engine.errors import ConfigError
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress
from xlsearch.engine.runtime.cpu import cache_precision, configure_threads, retune


def _lr_lambda(cfg: DistillConfig, total: list[int]) -> Any:
    """The learning-rate factor per step; ``total[0]`` may shrink during the run (a time
    budget fitted to the machine's speed), and the decay follows it."""

    def f(step: int) -> float:
        warm = int(cfg.warmup * total[0])
        if step < warm:
            return (step + 1) / (warm + 1)
        if cfg.schedule == "constant":
            return 1.0
        frac = (step - warm) / max(1, total[0] - warm)
        if cfg.schedule == "cosine":
            return 0.5 * (1.0 + math.cos(math.pi * min(frac, 1.0)))
        return max(0.0, 1.0 - frac)

    return f


def _fit_steps(
    step: int,
    timed: int,
    train_s: float,
    budget_s: float,
    total: int,
    paced_s: float | None = None,
) -> int:
    """The step count that fits ``budget_s`` seconds of training at the pace of the last
    ``timed`` steps (``paced_s`` seconds; default ``train_s``, the seconds so far), never
    below the next step nor above ``total``. Re-estimated as the run goes, up or down: the
    pace follows the machine's load."""
    spent = train_s if paced_s is None else paced_s
    if train_s <= 0 or timed <= 0 or spent <= 0:
        return total
    pace = spent / timed
    left = max(0.0, budget_s - train_s)
    return max(step + 1, min(total, step + int(left / pace)))


def _optimizers(model: Any, cfg: DistillConfig, sparse: bool) -> list[Any]:
    import torch

    lr = _preset_value(cfg.lr, "lr")
    if model.kind == "static":
        emb = model.body.embedding.weight
        emb_lr = _preset_value(cfg.emb_lr, "emb_lr")
        rest = [p for p in model.parameters() if p is not emb and p.requires_grad]
        if sparse:
            opts: list[torch.optim.Optimizer] = [torch.optim.SparseAdam([emb], lr=emb_lr)]
            if rest:
                opts.append(torch.optim.AdamW(rest, lr=lr, weight_decay=cfg.weight_decay))
            return opts
        groups = [{"params": [emb], "lr": emb_lr, "weight_decay": 0.0}]
        if rest:
            groups.append({"params": rest, "lr": lr})
        return [torch.optim.AdamW(groups, lr=lr, weight_decay=cfg.weight_decay)]
    return [torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=cfg.weight_decay)]


def _preset_value(value: float | None, name: str) -> float:
    """A setting the preset fills (``apply_preset``): set by the time training starts."""
    if value is None:
        raise ConfigError(f"{name} is not set", hint="give it, or a preset that sets it")
    return value


def distill(
    config: DistillConfig,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    *,
    resume: bool = False,
) -> DistillResult:
    """Distil a multilingual student from ``config``; see ``DistillConfig`` for every knob.

    Progress: stages ``read``, ``teacher`` (cache), ``vocab``, ``distill`` (per ``log_steps``
    with metrics step, epoch, loss, loss_src, loss_tgt, lr, pairs_per_s, eta_s, and dev_acc,
    dev_mse after each evaluation) and ``eval``. A cancel (or SIGINT in the CLI) saves a
    checkpoint and a usable model and returns with ``cancelled=True``; ``resume=True``
    continues the run in ``<out>.run`` at the same step with the same data order.
    """
    from xlsearch.engine.models.cards import offline
    from xlsearch.engine.models.encoder import pick_device

    offline()
    cfg = check_config(copy.deepcopy(config))
    configure_threads(cfg.threads)  # before torch loads: passive waits, free cores
    import torch

    device = pick_device(cfg.device)
    dist = ddp.setup(device)
    if dist.active and device.startswith("cuda"):
        device = f"cuda:{dist.local_rank}"
        torch.cuda.set_device(device)
    try:
        return _run(cfg, device, dist, on_progress or no_progress, cancel, resume)
    finally:
        ddp.teardown(dist)


def _refuse_existing(out: Path, run_dir: Path) -> None:
    """A new run never overwrites a model or an unfinished run of the same name."""
    from xlsearch.engine.errors import ModelError
    from xlsearch.engine.models.cards import read_card

    try:
        finished = bool(read_card(out).get("finished"))
    except ModelError:  # an unreadable card: treat the run as unfinished
        finished = False
    if finished:
        raise ConfigError(
            f"a model named {out.name!r} already exists ({out})",
            hint="choose another --name (or --out), or delete that folder and "
            f"{run_dir.name} beside it",
        )
    raise ConfigError(
        f"{run_dir} holds an unfinished run of {out.name!r}",
        hint=f"continue it: xlsearch distill --resume --out {out}; or choose another --name",
    )


def _clean_notices(data: Any, report: ProgressCallback) -> None:
    """One notice per training file that ``--clean`` dropped pairs of: how many, of which
    kinds, and an example of the commonest."""
    for r in data.reports:
        cleaned = {
            k[len("--clean: ") :]: n for k, n in r.dropped.items() if k.startswith("--clean")
        }
        if cleaned:
            ranked = sorted(cleaned.items(), key=lambda x: -x[1])
            what = ", ".join(f"{n:,} {k}" for k, n in ranked)
            n_dropped = sum(cleaned.values())
            eg = next((c for c in r.cleaned if c[0] == ranked[0][0]), None)
            example = f"; e.g. {eg[2][:60]!r} → {eg[3][:60]!r}: {eg[1]}" if eg else ""
            report(
                Progress(
                    "notice",
                    message=f"{r.path}: --clean dropped {n_dropped:,} of {r.pairs:,} pairs "
                    f"({what}){example}",
                )
            )


def _run(
    cfg: DistillConfig,
    device: str,
    dist: ddp.Dist,
    report: ProgressCallback,
    cancel: CancelToken | None,
    resume: bool,
) -> DistillResult:
    import torch

    from xlsearch.engine.distill import estimate as est
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.models.trainable import StaticBody, load_model

    clock = est.StageClock(probe=est.cpu_probe() if dist.main else 0.0)
    if not dist.main:
        report = no_progress
    student = su.resolve_kind(cfg, device)
    out, run_dir = su.output_paths(cfg, student)
    meta = ck.read_meta(run_dir)
    if resume:
        if meta is None:
            raise ConfigError(f"nothing to resume: no checkpoint in {run_dir}")
        limit, steps = cfg.time_limit_min, cfg.max_steps
        cfg = DistillConfig.from_dict(meta["config"])
        cfg.time_limit_min = limit
        cfg.max_steps = steps or cfg.max_steps  # an explicit new total (changes the schedule)
        student = su.resolve_kind(cfg, device)
    elif meta is not None:
        _refuse_existing(out, run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    if student != "static" and not device.startswith(("cuda", "mps")) and not resume:
        report(
            Progress(
                "notice",
                message=f"the {student.split(':')[0]} student on a CPU is a transformer "
                "fine-tuning: tens of pairs/s (the static student: thousands); it is meant "
                "for a GPU",
            )
        )
    report(Progress("read", 0, None, "reading training data"))
    precision = cfg.teacher_precision
    if precision == "auto" and device == "cpu":
        precision = cache_precision()  # int8 on AVX2-only CPUs, bf16 where native
    teacher = load_encoder(cfg.teacher, device=device, batch_size=128, precision=precision)
    clock.mark("loaded")
    data = su.read_data(cfg, teacher)
    clock.mark("read")
    report(Progress("read", 1, 1, data.summary()))
    for line in filter(None, (r.notice() for r in data.reports)):
        report(Progress("notice", message=line))
    if not cfg.clean_thorough:
        _clean_notices(data, report)
    # only rank 0 opens (and may create) the cache before the barrier; the others after it
    cache = TeacherCache.for_encoder(teacher) if dist.main else None
    if cfg.ema and student == "static" and not resume:
        raise ConfigError(
            "--ema needs a student that starts as a good teacher",
            hint="use --student teacher, or checkpoint:<a student distilled with the fixed "
            "teacher> (Ham & Kim 2021 start the EMA teacher from the student)",
        )
    need = [s for g in data.dev for s in g.src[: cfg.eval_max_pairs]]
    each = cfg.targets == "each"
    if not cfg.ema:
        need = data.source_texts()
        if each:
            need += [t for g in [*data.groups, *data.dev] for t in g.tgt if not g.mono]
    if dist.main:
        assert cache is not None
        missing = [t for t, row in zip(need, cache.rows(need), strict=True) if row < 0]
        clock.work_encoded = float(
            est_cost(np.fromiter((len(t) for t in set(missing)), float, len(set(missing)))).sum()
        )
        cache_stats = cache.ensure(need, teacher, on_progress=report, cancel=cancel)
        if cache_stats["encoded"]:
            _log(run_dir / "metrics.jsonl", {"teacher_cache": cache_stats})
    dist.barrier()
    clock.mark("cache")
    if cache is None:  # the other ranks open it now, after rank 0 made it
        cache = TeacherCache.for_encoder(teacher)
    if cfg.clean_thorough:
        if dist.active:
            raise ConfigError(
                "--clean thorough runs in one process",
                hint="clean with one process first (--clean-report), or use --clean",
            )
        su.crossfit_clean(cfg, data, teacher, cache, run_dir / "clean-work", report, cancel)
        _clean_notices(data, report)
        clock.mark("cache")  # the learnt stage rates leave the cleaning out
    info: dict[str, Any] = {}
    if resume:
        model = load_model(run_dir / ck.CKPT / "model")
        info = meta.get("student_info", {}) if meta else {}
    elif dist.active:
        if dist.main:
            model, info = su.build_student(
                cfg, student, data, teacher, cache, run_dir / "init-work", report
            )
            model.save(run_dir / "init", card={"student_info": info})
        dist.barrier()
        model = load_model(run_dir / "init")
    else:
        model, info = su.build_student(
            cfg, student, data, teacher, cache, run_dir / "init-work", report
        )
    clock.mark("built")
    apply_preset(cfg, model.kind)
    if cfg.freeze_head and isinstance(model.body, StaticBody):  # only the new pieces' rows move
        for p in model.parameters():
            if p is not model.body.embedding.weight:
                p.requires_grad_(False)
    sizes = [len(g.src) for g in data.groups]
    weights = [data.files[g.file].weight for g in data.groups]
    max_steps = su.total_steps(cfg, sizes, weights, dist.world)
    planned = max_steps
    cfg.max_steps = max_steps
    stream = PairStream(sizes, weights, cfg.seed)
    rows = [su.teacher_rows(cache, g.src) for g in data.groups] if not cfg.ema else []
    rows_t = [su.teacher_rows(cache, g.tgt) for g in data.groups] if each and not cfg.ema else []
    mono_group = np.array([g.mono for g in data.groups], dtype=bool)
    dev_teacher = [cache.get(g.src[: cfg.eval_max_pairs]) for g in data.dev]

    model.to(device).train()
    sparse = model.kind == "static" and not dist.active and not device.startswith("cuda")
    if isinstance(model.body, StaticBody):
        model.body.embedding.sparse = sparse
    ema_model = None
    if cfg.ema:
        ema_dir = run_dir / ck.CKPT / "ema"
        ema_model = load_model(ema_dir) if resume and ema_dir.is_dir() else copy.deepcopy(model)
        ema_model.to(device).eval().requires_grad_(False)
    opts = _optimizers(model, cfg, sparse)
    total = [max_steps]
    scheds = [torch.optim.lr_scheduler.LambdaLR(o, _lr_lambda(cfg, total)) for o in opts]
    step = examples = 0
    best: dict[str, Any] = {}
    history: list[dict[str, float]] = []
    if resume and meta is not None:
        ck.load_state(run_dir, opts, scheds)
        step, examples = int(meta["step"]), int(meta["examples"])
        best, history = meta.get("best", {}), meta.get("history", [])
    net: Any = model
    if dist.active:
        from torch.nn.parallel import DistributedDataParallel

        net = DistributedDataParallel(
            model, find_unused_parameters=model.kind != "static", broadcast_buffers=False
        )
    log_path = run_dir / "metrics.jsonl"
    if dist.main:
        _trim_log(log_path, step)
    languages = data.languages
    if info.get("start_languages"):  # a continued student still knows its first languages
        languages = sorted({*info["start_languages"], *languages})
    config = {k: v for k, v in cfg.to_dict().items() if k not in ("train",)}
    card_base = {
        "finished": False,  # until the run ends without a cancel (see the end of _run)
        "teacher": teacher.id,
        "student": student,
        "languages": languages,
        "data": [
            {"path": str(f.path), "pairs": r.pairs, "weight": f.weight}
            | ({"mono": True} if i >= len(cfg.train) else {})
            for i, (f, r) in enumerate(zip(data.files, data.reports, strict=False))
        ],
        "targets": cfg.targets,
        "preset": cfg.preset,
        "ema": cfg.ema,
        "student_info": info,
        "config": config,
    }

    # a continued student: the student it started from (the anchor's targets, the merge)
    start = starting_student(cfg, teacher.dim, device) if cfg.start_from else None
    share = float(cfg.merge or 1.0) if start is not None else 1.0

    def save_best(metrics: dict[str, Any]) -> None:
        config["max_steps"] = cfg.max_steps  # fitted to a time limit, perhaps
        with merged(model, start, share):
            # stored as the student it started from is (the shipped one: int8 rows)
            int8 = info.get("start_storage") == "int8"
            model.save(out, card={**card_base, "metrics": metrics}, int8_table=int8)

    def evaluate() -> dict[str, Any]:
        report(Progress("eval", 0, None, "dev evaluation"))
        with merged(model, start, share):  # the model as it is saved
            res = evaluate_dev(
                model, data.dev, dev_teacher, device=device, max_pairs=cfg.eval_max_pairs
            )
        res["step"] = step
        return res

    def evaluate_and_keep_best() -> dict[str, Any]:
        """Evaluate on the dev split, log it, and save the model when it is the best yet."""
        nonlocal best
        res = evaluate()
        history.append({k: v for k, v in res.items() if k != "per_lang"})
        _log(log_path, {**res, "train_s": round(train_s, 2)})
        if res["dev_acc"] > best.get("dev_acc", -1.0):
            best = res
            save_best(res)
        return res

    def checkpoint() -> None:
        ck.save_checkpoint(
            run_dir,
            model=model,
            ema=ema_model,
            optimizers=opts,
            schedulers=scheds,
            step=step,
            examples=examples,
            config=cfg.to_dict(),
            extra={"best": best, "history": history[-200:], "student_info": info},
        )

    use_amp = cfg.amp and device.startswith("cuda")
    ctr = float(cfg.contrastive or 0.0)
    skd = float(cfg.sim_kd or 0.0)
    B, world = int(cfg.batch_size or 1), dist.world
    pin = device.startswith("cuda")
    targets = _Targets(cache, rows, rows_t, ema_model, each, device, pin, use_amp)
    dense_params = [
        p
        for p in model.parameters()
        if not (sparse and isinstance(model.body, StaticBody) and p is model.body.embedding.weight)
    ]
    train_s, t_start, cancelled, early = 0.0, time.perf_counter(), False, False
    budget_s, fit_from = float(cfg.time_limit_min or 0.0) * 60, step
    planned, warm = max_steps, (step, 0.0)  # the pace is timed after the first 10 steps
    window = [time.perf_counter(), step]
    last_loss = (float("nan"), float("nan"))
    report(Progress("distill", step, max_steps))  # training runs: a stop now checkpoints
    while step < max_steps:
        stop = cancel is not None and cancel.cancelled
        limit_hit = budget_s > 0 and train_s > budget_s * 1.05  # the fit's safety net
        if dist.broadcast_flag(stop or limit_hit):
            cancelled, early = stop, limit_hit and not stop
            break
        retune()  # follow the machine's load (automatic thread count only)
        t0 = time.perf_counter()
        parts = dict.fromkeys(("src", "tgt", "ctr", "skd"), 0.0)
        for micro in range(cfg.accum):
            base = ((step * cfg.accum + micro) * world + dist.rank) * B
            groups, idx = stream.take(base, B)
            src = [data.groups[g].src[i] for g, i in zip(groups, idx, strict=True)]
            tgt = [data.groups[g].tgt[i] for g, i in zip(groups, idx, strict=True)]
            if start is not None and cfg.anchor:  # the starting student's own vectors
                target = target_t = start_vectors(start, src, targets)
            else:
                target, target_t = teacher_targets(targets, groups, idx, src, tgt)
            pair = np.flatnonzero(~mono_group[groups])  # monolingual rows have no translation
            loss, got = batch_loss(net, model, src, tgt, target, target_t, pair, cfg, targets)
            (loss / cfg.accum).backward()
            for k, v in got.items():
                parts[k] += v / cfg.accum
        ls, lt, lc, lk = parts["src"], parts["tgt"], parts["ctr"], parts["skd"]
        optimizer_step(opts, scheds, dense_params, cfg.clip)
        step += 1
        examples += B * cfg.accum * world
        if budget_s > 0 and step - fit_from == 10:
            warm = (step, train_s)  # a GPU's first steps (start-up, allocations) are slow
        if budget_s > 0 and step - fit_from >= 20 and step % 10 == 0:
            fitted = _fit_steps(
                step, step - warm[0], train_s, budget_s, planned, paced_s=train_s - warm[1]
            )
            fitted = dist.broadcast_int(fitted)  # every rank stops at the same step
            if fitted != max_steps:  # a slow start no longer cuts the run for good
                max_steps = total[0] = cfg.max_steps = fitted
        if ema_model is not None:
            ck.ema_update(ema_model, model, ck.ema_tau(step, max_steps, cfg.ema_tau_base))
        train_s += time.perf_counter() - t0
        last_loss = (ls, lt)
        if step % cfg.log_steps == 0 or step == max_steps:
            now = time.perf_counter()
            rate = (step - window[1]) * B * cfg.accum * world / max(now - window[0], 1e-9)
            window[:] = [now, step]
            m = {
                "step": step,
                "epoch": round(stream.epoch_of(examples), 4),
                "loss": ls + lt + ctr * lc + skd * lk,
                "loss_src": ls,
                "loss_tgt": lt,
                **({"loss_ctr": lc} if ctr > 0 else {}),
                **({"loss_skd": lk} if skd > 0 else {}),
                "lr": scheds[-1].get_last_lr()[0],
                "pairs_per_s": rate,
                "eta_s": (max_steps - step) * B * cfg.accum * world / max(rate, 1e-9),
            }
            if dist.main:
                _log(log_path, {**m, "train_s": round(train_s, 2)})
            report(Progress("distill", step, max_steps, metrics=m))
        every = su.dev_interval(cfg.eval_steps, max_steps)
        if dist.main and every and step % every == 0 and step < max_steps:
            res = evaluate_and_keep_best()
            report(
                Progress(
                    "distill",
                    step,
                    max_steps,
                    metrics={"step": step, "dev_acc": res["dev_acc"], "dev_mse": res["dev_mse"]},
                )
            )
        if cfg.ckpt_steps and step % cfg.ckpt_steps == 0 and step < max_steps:
            if dist.main:
                checkpoint()
            dist.barrier()
    clock.mark("trained")
    if dist.main:
        if data.dev and not cancelled:
            evaluate_and_keep_best()
        if not (out / "modules.json").is_file() or (not data.dev and not cancelled):
            save_best(best or {"step": step})
        if not cancelled:
            from xlsearch.engine.models.cards import update_card

            update_card(out, finished=True)
            _calibrate_fills(out, data.dev, device, report)
        checkpoint()
        if cfg.calibrate_sts and not cancelled:
            _calibrate(out, cfg.calibrate_sts, device, report, cancel)
        if (run_dir / "init-work").exists():
            import shutil

            shutil.rmtree(run_dir / "init-work", ignore_errors=True)
    clock.mark("end")
    if dist.main and not cancelled and not resume and not early:
        clock.pairs = sum(r.pairs for r in data.reports)
        clock.examples, clock.steps, clock.train_s = examples, step, train_s
        clock.evals = len(history) - 1 if data.dev else 0  # the last one is the end's
        kind = "static" if model.kind == "static" else "transformer"
        kind = "continue" if cfg.start_from else kind  # no vocabulary to build
        dev_kind = "cpu" if device == "cpu" else "gpu"
        try:
            est.store_rates(dev_kind, kind, clock.rates(est.load_rates(dev_kind, kind)))
        except OSError:
            pass  # an estimate is a nicety: a read-only cache folder must not fail a run
    dist.barrier()
    total_s = time.perf_counter() - t_start
    return DistillResult(
        out=out,
        run_dir=run_dir,
        steps=step,
        max_steps=max_steps,
        cancelled=cancelled,
        stopped_early=early,
        planned_steps=planned,
        metrics=best,
        pairs_per_s=(examples / max(train_s, 1e-9)) if train_s else 0.0,
        train_seconds=train_s,
        history=history
        + [{"total_s": total_s, "last_loss": last_loss[0], "last_loss_tgt": last_loss[1]}],
        card=_written_card(out),
    )


def _written_card(out: Path) -> dict[str, Any]:
    """The card of the model written to ``out`` ({} when none was written)."""
    from xlsearch.engine.models.cards import read_card

    return read_card(out) if out.is_dir() else {}


@dataclass
class _Targets:
    """Where a batch's teacher vectors come from: the teacher cache (rows per group, and per
    target sentence with ``--targets each``) or, with ``--ema``, the EMA teacher model."""

    cache: Any
    rows: list[Any]
    rows_t: list[Any]
    ema_model: Any
    each: bool
    device: str
    pin: bool
    use_amp: bool


def teacher_targets(
    tg: _Targets, groups: Any, idx: Any, src: list[str], tgt: list[str]
) -> tuple[Any, Any]:
    """The teacher's vectors for a batch's sources, and for its targets (the sources' own
    unless ``--targets each``)."""
    import torch

    if tg.ema_model is not None:
        with torch.no_grad(), torch.autocast("cuda", torch.bfloat16, enabled=tg.use_amp):
            feats = _to(tg.ema_model.tokenize(src + tgt if tg.each else src), tg.device, tg.pin)
            both = tg.ema_model(feats).float()
        return both[: len(src)], both[len(src) :] if tg.each else both
    r = np.array([tg.rows[g][i] for g, i in zip(groups, idx, strict=True)])
    target = torch.from_numpy(np.asarray(tg.cache.vectors[r], dtype=np.float32))
    target = _to({"t": target}, tg.device, tg.pin)["t"]
    if not tg.each:
        return target, target
    r = np.array([tg.rows_t[g][i] for g, i in zip(groups, idx, strict=True)])
    t_vec = torch.from_numpy(np.asarray(tg.cache.vectors[r], dtype=np.float32))
    return target, _to({"t": t_vec}, tg.device, tg.pin)["t"]


def starting_student(cfg: DistillConfig, teacher_dim: int, device: str) -> Any:
    """The static student a continued run started from (``--init``), frozen: read again from
    its folder, so that a resumed run finds it too."""
    from xlsearch.engine.distill.students import continue_static

    start, _ = continue_static(cfg.start_from, teacher_dim)
    return start.to(device).eval().requires_grad_(False)


def start_vectors(start: Any, src: list[str], tg: _Targets) -> Any:
    """The starting student's own vectors of a batch's sources (``anchor``): the targets of a
    continued student, so that the place its other languages were aligned to stays put."""
    import torch

    with torch.no_grad():
        return start(_to(start.tokenize(src), tg.device, tg.pin)).float()


@contextlib.contextmanager
def merged(model: Any, start: Any, share: float) -> Iterator[None]:
    """Inside the block the student's table is ``start + share × (trained − start)``
    (weight-space ensembling, WiSE-FT: Wortsman et al. 2022); the trained table after it."""
    if start is None or share >= 1.0:
        yield
        return
    import torch

    weight = model.body.embedding.weight
    with torch.no_grad():
        trained = weight.detach().clone()
        weight.mul_(share).add_(start.body.embedding.weight, alpha=1.0 - share)
    try:
        yield
    finally:
        with torch.no_grad():
            weight.copy_(trained)


def batch_loss(
    net: Any,
    model: Any,
    src: list[str],
    tgt: list[str],
    target: Any,
    target_t: Any,
    pair: Any,
    cfg: DistillConfig,
    tg: _Targets,
) -> tuple[Any, dict[str, float]]:
    """The objective for one micro-batch: MSE(student(src), teacher(src)) +
    MSE(student(tgt), teacher(src)) (Reimers & Gurevych 2020), plus the optional in-batch
    contrastive term over the translated rows ``pair`` and the similarity-KD term. Returns
    the loss and its parts (floats, for the log)."""
    import torch

    feats = _to(model.tokenize(src + tgt), tg.device, tg.pin)
    with torch.autocast("cuda", torch.bfloat16, enabled=tg.use_amp):
        emb = net(feats).float()
    loss_src = torch.nn.functional.mse_loss(emb[: len(src)], target)
    loss_tgt = torch.nn.functional.mse_loss(emb[len(src) :], target_t)
    loss = loss_src + loss_tgt
    parts = {"src": loss_src.item(), "tgt": loss_tgt.item()}
    ctr, skd = float(cfg.contrastive or 0.0), float(cfg.sim_kd or 0.0)
    if ctr > 0 and len(pair) > 1:
        sel = torch.from_numpy(pair).to(emb.device)
        loss_ctr = info_nce(
            emb[len(src) :][sel], emb[: len(src)][sel], [src[i] for i in pair],
            cfg.contrastive_scale,
        )  # fmt: skip
        loss = loss + ctr * loss_ctr
        parts["ctr"] = loss_ctr.item()
    if skd > 0:
        loss_skd = sim_kd_loss(emb[: len(src)], emb[len(src) :], target, target_t)
        loss = loss + skd * loss_skd
        parts["skd"] = loss_skd.item()
    return loss, parts


def optimizer_step(
    opts: list[Any], scheds: list[Any], dense_params: list[Any], clip: float
) -> None:
    """Clip the dense gradients, step every optimizer and schedule, clear the gradients."""
    import torch

    if clip > 0 and dense_params:
        torch.nn.utils.clip_grad_norm_(dense_params, clip)
    for o in opts:
        o.step()
    for s in scheds:
        s.step()
    for o in opts:
        o.zero_grad(set_to_none=True)


def _calibrate(out: Path, sts_file: str, device: str, report: Any, cancel: Any) -> None:
    """Fit the saved student's STS calibration (``evaluation/sts_calibration.py``) into its card."""
    from xlsearch.engine.evaluation import sts_calibration as calibration
    from xlsearch.engine.models.encoder import load_encoder

    report(Progress("calibrate", 0, None, f"STS calibration on {Path(sts_file).name}"))
    cal = calibration.calibrate(load_encoder(out, device=device), sts_file, cancel=cancel)
    report(Progress("calibrate", 1, 1, f"STS calibration: MAE {cal['mae']:.2f} on 0–5"))


def _calibrate_fills(out: Path, dev: list[Any], device: str, report: Any) -> None:
    """Fit the saved student's semantic-fill calibration on its dev split (``fill_policy``):
    the cosine at which a stored target is a translation with 95 % precision, per pair."""
    from xlsearch.engine.calibration import fill as fill_policy
    from xlsearch.engine.models.encoder import load_encoder

    groups = fill_policy.groups_from_parallel(dev)
    if not groups:
        return
    report(Progress("calibrate", 0, None, "semantic-fill calibration on the dev split"))
    enc = load_encoder(out, device=device)
    cal = fill_policy.fit(groups, enc.encode, data="dev split")
    fill_policy.store(enc.id, out, cal)
    report(Progress("calibrate", 1, 1, fill_summary(cal["pairs"])))


def fill_summary(pairs: dict[str, Any]) -> str:
    """One line on the semantic-fill calibration: the pairs calibrated, and for the others
    the real reason (too few held-out pairs, or no cosine reaching the precision bound)."""
    done = sorted(k for k, v in pairs.items() if v.get("threshold") is not None)
    why = "; ".join(
        f"{k}: {v.get('why', 'not calibrated')}"
        for k, v in sorted(pairs.items())
        if v.get("threshold") is None
    )
    if done:
        return f"semantic fills calibrated for {', '.join(done)}" + (
            f" (not for {why})" if why else ""
        )
    return f"no semantic fills ({why}): semantic matches stay suggestions"


def _to(features: dict[str, Any], device: str, pin: bool) -> dict[str, Any]:
    if device == "cpu":
        return features
    return {
        k: (v.pin_memory() if pin else v).to(device, non_blocking=pin) for k, v in features.items()
    }


def _log(path: Path, record: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")


def _trim_log(path: Path, step: int) -> None:
    """On resume, drop log lines written after the checkpoint's step."""
    if not path.is_file():
        return
    keep = [
        ln for ln in path.read_text("utf-8").splitlines() if json.loads(ln).get("step", 0) <= step
    ]
    path.write_text("".join(ln + "\n" for ln in keep), "utf-8")
