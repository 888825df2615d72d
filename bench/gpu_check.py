"""The GPU path in one prepared command: distil, distil again, evaluate, write one JSON.

On a machine with CUDA, within about 8 minutes: the teacher cache is built on the GPU, the
transformer student (``--student teacher --extend-vocab``, the ``full`` preset) is distilled
on the prepared training pairs, the two-stage static student is distilled from it
(``--targets each``), and both are evaluated: Tatoeba (14 languages), STSb-multi-MT (en×xx
and xx–xx, machine-translated), Bleualign's development document (strict F1, flags) and
lookup recall on the STS benchmark. Every phase's time and every figure go into one JSON
(rewritten after each phase, so a run cut short keeps what it measured).

It needs only torch, transformers, sentencepiece, safetensors, numpy and scipy, and the
folder ``bench/gpu_prepare.py`` writes (the teacher in fp16, a share of ``train/`` and the
evaluation files): nothing on its path imports faiss, sqlite-utils, platformdirs or the
teacher package. On a CPU it runs the same way (``make gpu-check`` with tiny budgets is what
the test suite does at tiny scale).

    python bench/gpu_prepare.py                        # once, where the data is
    python bench/gpu_check.py --json gpu-check.json    # on the GPU machine (make gpu-check)
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from distill_eval import MT_LANGS, STS_CROSS, TRAINED  # noqa: E402
from lookup import near_copies  # noqa: E402

CPU_DEFAULT = {  # the CPU default student, for the comparison in the summary (benchmarks.md)
    "tatoeba_mean14": 83.7,
    "sts_enxx_mean10": 53.3,
    "sts_mono_mean10": 66.3,
    "bleualign_strict_f1": 0.872,
    "lookup_same_semantic@1": 78.6,
    "lookup_cross_semantic@1": 72.0,
}


# -- small helpers ------------------------------------------------------------------------------
class StageClock:
    """Seconds spent in each stage of a distillation's progress events."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.stage: str | None = None
        self.since = time.perf_counter()

    def __call__(self, progress: Any) -> None:
        stage = getattr(progress, "stage", None)
        if stage in (None, "notice") or stage == self.stage:
            return
        self.close()
        self.stage, self.since = stage, time.perf_counter()
        message = str(getattr(progress, "message", "") or "")[:120]
        print(f"  stage {stage}: {message}", file=sys.stderr, flush=True)

    def close(self) -> dict[str, float]:
        if self.stage is not None:
            spent = time.perf_counter() - self.since
            self.seconds[self.stage] = round(self.seconds.get(self.stage, 0.0) + spent, 2)
            self.stage = None
        return self.seconds


def device_name(device: str) -> str:
    import torch

    if device.startswith("cuda") and torch.cuda.is_available():
        return torch.cuda.get_device_name(torch.device(device))
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"CPU: {line.split(':', 1)[1].strip()}, {os.cpu_count()} cores"
    except OSError:
        pass
    return f"CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} cores"


def teacher_fp32(src: Path, dst: Path) -> Path:
    """The prepared fp16 teacher as an fp32 folder (students train in fp32)."""
    import shutil

    from safetensors.torch import load_file, save_file

    for path in src.rglob("*"):
        if path.is_file() and path.name != "model.safetensors":
            (dst / path.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dst / path.relative_to(src))
    weights = load_file(str(src / "model.safetensors"))
    full = {k: (v.float() if v.is_floating_point() else v) for k, v in weights.items()}
    save_file(full, str(dst / "model.safetensors"), metadata={"format": "pt"})
    return dst


# -- evaluation ---------------------------------------------------------------------------------
def tatoeba(enc: Any, dev: Path) -> dict[str, float]:
    """Both directions' nearest-neighbour accuracy per language present (0–100)."""
    from xlsearch.engine.evaluation.metrics import translation_accuracy

    out = {}
    for lang in TRAINED:
        a, b = dev / f"tatoeba.{lang}-eng.{lang}", dev / f"tatoeba.{lang}-eng.eng"
        if a.is_file() and b.is_file():
            x = enc.encode(a.read_text("utf-8").splitlines())
            y = enc.encode(b.read_text("utf-8").splitlines())
            out[lang] = round(float(np.mean(translation_accuracy(x, y))), 2)
    return out


def sts(enc: Any, dev: Path) -> dict[str, float]:
    """Spearman ×100 on STSb-multi-MT test: xx–xx and English sentence 1 × xx sentence 2."""
    import csv

    from scipy.stats import spearmanr

    sets = {}
    for lang in ["en", *MT_LANGS]:
        path = dev / f"stsb-{lang}-test.csv"
        if path.is_file():
            with path.open(encoding="utf-8", newline="") as fh:
                rows = [r for r in csv.reader(fh) if len(r) == 3]
            sets[lang] = ([r[0] for r in rows], [r[1] for r in rows], [float(r[2]) for r in rows])
    emb = {lang: (enc.encode(s[0]), enc.encode(s[1])) for lang, s in sets.items()}
    out = {}
    for lang, (a, b) in emb.items():
        out[f"{lang}-{lang}"] = 100 * spearmanr((a * b).sum(1), sets[lang][2]).statistic
    pairs = [*STS_CROSS, *(("en", x) for x in MT_LANGS if ("en", x) not in STS_CROSS)]
    for x, y in pairs:
        if x in emb and y in emb and len(sets[x][2]) == len(sets[y][2]):
            out[f"{x}-{y}"] = 100 * spearmanr((emb[x][0] * emb[y][1]).sum(1), sets[x][2]).statistic
    return {k: round(float(v), 2) for k, v in out.items()}


def summary(tat: dict[str, float], st: dict[str, float]) -> dict[str, float | None]:
    def mean(values: list[float]) -> float | None:
        return round(float(np.mean(values)), 2) if values else None

    return {
        "tatoeba_mean14": mean([tat[x] for x in TRAINED if x in tat]),
        "tatoeba_min14": min((tat[x] for x in TRAINED if x in tat), default=None),
        "tatoeba_langs": len([x for x in TRAINED if x in tat]),
        "sts_en": st.get("en-en"),
        "sts_enxx_mean10": mean([st[f"en-{x}"] for x in MT_LANGS if f"en-{x}" in st]),
        "sts_mono_mean10": mean([st[f"{x}-{x}"] for x in MT_LANGS if f"{x}-{x}" in st]),
        "sts_cross_mean": mean([st[f"{x}-{y}"] for x, y in STS_CROSS if f"{x}-{y}" in st]),
    }


def bleualign(enc: Any, dev: Path) -> dict[str, float | int]:
    """Bleualign's German–French development document, scored as Vecalign does."""
    from xlsearch.engine.align import AlignConfig, align_documents, read_beads, score_beads
    from xlsearch.engine.importers.document import read_document

    src = read_document(dev / "dev.de", "de", presplit=True)
    tgt = read_document(dev / "dev.fr", "fr", presplit=True)
    gold = read_beads(dev / "dev.defr")
    al = align_documents(src, tgt, enc, AlignConfig(), checkpoint=False)
    right = {(g.src, g.tgt) for g in gold}
    wrong = [b for b in al.beads if (b.src, b.tgt) not in right]
    scores = score_beads(gold, al.beads)
    return {
        **{f"bleualign_{k}": round(v, 4) for k, v in scores.items()},
        "bleualign_beads": len(al.beads),
        "bleualign_wrong": len(wrong),
        "bleualign_flagged": sum(b.flagged for b in al.beads),
        "bleualign_flagged_wrong": sum(b.flagged for b in wrong),
    }


def _sts_rows(path: Path, english: bool) -> list[tuple[str, str, float]]:
    import csv

    rows = []
    with path.open(encoding="utf-8", newline="") as fh:
        if english:  # STSb: TAB-separated, sentence1 and 2 in columns 6 and 7
            for r in csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
                if len(r) >= 7:
                    rows.append((" ".join(r[5].split()), " ".join(r[6].split()), float(r[4])))
        else:
            for r in csv.reader(fh):
                if len(r) >= 3:
                    rows.append((" ".join(r[0].split()), " ".join(r[1].split()), float(r[2])))
    return rows


def _fuzzy() -> Any:
    """The engine's CAT fuzzy module, or None where rapidfuzz is missing (the GPU machine)."""
    try:
        from xlsearch.engine.tm.matching import fuzzy
    except ImportError:
        return None
    return fuzzy


def lookup(enc: Any, dev: Path, xlang: str = "de") -> dict[str, Any]:
    """Recall@1/@5 on STSb test as ``bench/lookup.py --quality`` measures it: the memory holds
    every distinct English sentence; a query is sentence 1 of a pair with gold ≥ 4, the hit its
    sentence 2 (cross language: sentence 1 in ``xlang``, machine-translated; near copies: one
    or two words changed). ``semantic`` ranks the whole memory by cosine. ``combined`` (where
    rapidfuzz is installed) ranks the top cosine and fuzzy candidates with the engine's
    ``Weights`` — exact candidates instead of the store's index and full-text postings, and
    no IDF-overlap feature."""
    en = _sts_rows(dev / "stsbenchmark" / "sts-test.csv", english=True)
    xl_path = dev / "stsb-multi-mt" / f"stsb-{xlang}-test.csv"
    xl = _sts_rows(xl_path, english=False) if xl_path.is_file() else []
    memory = list(dict.fromkeys(t for a, b, _ in en for t in (a, b)))
    vecs = enc.encode(memory)
    pick = [i for i, (a, b, g) in enumerate(en) if g >= 4.0 and a != b]
    cases = {"same": ([en[i][0] for i in pick], [en[i][1] for i in pick], [en[i][0] for i in pick])}
    if len(xl) == len(en):
        cases["cross"] = ([xl[i][0] for i in pick], [en[i][1] for i in pick], cases["same"][2])
    nc = near_copies(memory, 500)
    cases["near"] = ([q for q, _ in nc], [o for _, o in nc], ["\x00"] * len(nc))
    fz = _fuzzy()
    if fz is not None:
        from xlsearch.engine.tm.matching.matches import DEFAULT_WEIGHTS as W
    out: dict[str, Any] = {"memory": len(memory), "combined": fz is not None}
    for name, (queries, gold, exclude) in cases.items():
        if not queries:
            continue
        sims = enc.encode(queries) @ vecs.T
        sem, comb = [], []
        for i, q in enumerate(queries):
            order = [j for j in np.argsort(-sims[i])[:64] if memory[j] != exclude[i]]
            sem.append([memory[j] for j in order[:5]])
            if fz is None:
                continue
            fuzzy_all = fz.fuzzy_many(q, memory)
            top_fuzzy = [
                j for j in np.argsort(-np.asarray(fuzzy_all))[:21] if memory[j] != exclude[i]
            ]
            cands = list(dict.fromkeys([*order[:60], *top_fuzzy[:20]]))
            texts = [memory[j] for j in cands]
            chars = fz.char_similarity_many(q, texts)
            keys = []
            for j, c in zip(cands, chars, strict=True):
                f, cos = fuzzy_all[j], float(sims[i][j])
                if name == "cross":
                    keys.append(((f < 100, -W.cross(f, cos), -f), memory[j]))
                else:
                    keys.append((W.rank_key(f, cos, c), memory[j]))
            comb.append([t for _, t in sorted(keys, key=lambda kv: kv[0])[:5]])
        for label, ranked in (("semantic", sem), ("combined", comb)):
            if ranked:
                for k in (1, 5):
                    hit = np.mean([g in r[:k] for r, g in zip(ranked, gold, strict=True)])
                    out[f"{name}_{label}@{k}"] = round(100.0 * float(hit), 1)
        out[f"{name}_queries"] = len(queries)
    return out


def evaluate(folder: Path, data: Path, device: str, batch: int) -> tuple[dict, dict]:
    """Every figure of one model, and the seconds each evaluation took."""
    from xlsearch.engine.models.encoder import load_encoder

    seconds: dict[str, float] = {}
    figures: dict[str, Any] = {}
    t = time.perf_counter()
    enc = load_encoder(folder, device=device, batch_size=batch)
    seconds["load"] = round(time.perf_counter() - t, 2)

    def timed(name: str, fn: Callable[[], dict]) -> dict:
        start = time.perf_counter()
        result = fn()
        seconds[name] = round(time.perf_counter() - start, 2)
        return result

    tat = timed("tatoeba", lambda: tatoeba(enc, data / "dev" / "tatoeba"))
    st = timed("sts", lambda: sts(enc, data / "dev" / "stsb-multi-mt"))
    figures |= summary(tat, st) | {"tatoeba": tat, "sts": st}
    figures |= timed("bleualign", lambda: bleualign(enc, data / "dev" / "bleualign"))
    figures["lookup"] = timed("lookup", lambda: lookup(enc, data / "dev"))
    return figures, seconds


# -- the run ------------------------------------------------------------------------------------
def vocabulary_on_all_cores() -> int:
    """The static student's SentencePiece training on every core this process may use (the
    engine gives it 2 threads, a laptop's share; here it would take minutes of the budget)."""
    import functools

    from xlsearch.engine.distill import students

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = max(2, int(cores or 2))
    students.train_sentencepiece = functools.partial(students.train_sentencepiece, threads=threads)
    return threads


def distill_phase(cfg_kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Run one distillation; its time split by stage (``teacher_cache``: the teacher's
    embeddings of every target sentence, built on the device) and its training time."""
    from xlsearch.engine.distill import DistillConfig, distill

    clock = StageClock()
    start = time.perf_counter()
    res = distill(DistillConfig(**cfg_kwargs), on_progress=clock)
    stages = clock.close()
    return res, {
        "total": round(time.perf_counter() - start, 2),
        "teacher_cache": stages.get("teacher", 0.0),
        "train": round(res.train_seconds, 2),
        "stages": stages,  # from progress events: "distill" starts at the first logged step
    }


def run_record(res: Any) -> dict[str, Any]:
    return {
        "steps": res.steps,
        "max_steps": res.max_steps,
        "planned_steps": res.planned_steps,
        "stopped_early": res.stopped_early,
        "pairs_per_s": round(res.pairs_per_s, 1),
        "train_seconds": round(res.train_seconds, 1),
        "dev": {k: v for k, v in res.metrics.items() if isinstance(v, int | float)},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--prepared", default=str(REPO / ".gpu"), help="gpu_prepare.py's folder")
    ap.add_argument("--json", default=str(REPO / "bench" / "out" / "gpu-check.json"))
    ap.add_argument("--work", default="", help="models and caches (default: a temp folder)")
    ap.add_argument("--device", default="auto", help="auto (cuda if present), cuda, cpu")
    ap.add_argument("--stage1-minutes", type=float, default=2.0, help="transformer training")
    ap.add_argument("--stage2-minutes", type=float, default=1.0, help="static training")
    ap.add_argument("--stage1-steps", type=int, default=0, help="cap (0: the preset's)")
    ap.add_argument("--stage2-steps", type=int, default=0, help="cap (0: the preset's)")
    ap.add_argument("--stage1-batch", type=int, default=0, help="0: the full preset's (64)")
    ap.add_argument("--vocab-size", type=int, default=0, help="static pieces (0: default)")
    ap.add_argument("--dev-per-lang", type=int, default=200, help="held-out pairs a language")
    ap.add_argument("--eval-batch", type=int, default=256)
    ap.add_argument("--max-seq-length", type=int, default=128)
    ap.add_argument(
        "--deadline-minutes",
        type=float,
        default=8.0,
        help="the static training is shortened so that the whole run ends by then",
    )
    ap.add_argument(
        "--reserve-minutes",
        type=float,
        default=2.5,
        help="kept for the static student's set-up and both evaluations",
    )
    ap.add_argument(
        "--trace-every",
        type=float,
        default=0.0,
        help="print every thread's stack to stderr every N seconds (0: never)",
    )
    args = ap.parse_args(argv)
    if args.trace_every > 0:  # where a phase spends its time, when it overruns its budget
        import faulthandler

        faulthandler.dump_traceback_later(args.trace_every, repeat=True, file=sys.stderr)

    prepared = Path(args.prepared).resolve()
    data, teacher16 = prepared / "data", prepared / "teacher"
    if not (teacher16 / "model.safetensors").is_file() or not (data / "train").is_dir():
        print(f"error: {prepared}: run bench/gpu_prepare.py first", file=sys.stderr)
        return 2
    work = Path(args.work or tempfile.mkdtemp(prefix="gpu-check-")).resolve()
    os.environ["XLSEARCH_HOME"] = str(work / "home")  # never the user folders (platformdirs)
    os.environ["XLSEARCH_BENCH_DATA"] = str(data)
    import torch

    device = args.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    out_json = Path(args.json)
    out_json.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    manifest = prepared / "manifest.json"
    result: dict[str, Any] = {
        "device": device_name(device),
        "device_kind": device,
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "prepared": json.loads(manifest.read_text("utf-8")) if manifest.is_file() else {},
        "settings": {  # no paths of the machine it ran on: the JSON may be committed
            k: v for k, v in vars(args).items() if k not in ("prepared", "json", "work")
        }
        | {"device": device},
        "phases": {},
        "runs": {},
        "figures": {},
        "errors": {},
        "cpu_default_student": CPU_DEFAULT,
    }

    def save(phase: str, seconds: Any) -> None:
        result["phases"][phase] = seconds
        result["elapsed_s"] = round(time.perf_counter() - t0, 1)
        out_json.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"[{result['elapsed_s']:6.1f}s] {phase}: {seconds}", file=sys.stderr, flush=True)

    def attempt(phase: str, fn: Callable[[], Any]) -> Any:
        """Run one phase; a failure is recorded (and the phases that need it skipped)."""
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001 - one failed phase must not lose the others
            import traceback

            tail = traceback.format_exc().replace(str(REPO), ".").strip().splitlines()[-6:]
            result["errors"][phase] = [f"{type(exc).__name__}: {exc}", *tail]
            save(phase, None)
            return None

    start = time.perf_counter()
    teacher = teacher_fp32(teacher16, work / "teacher")
    save("teacher_fp32", round(time.perf_counter() - start, 2))

    train = sorted(str(p) for p in (data / "train").glob("*.tsv*"))
    common = dict(
        train=train,
        device=device,
        eval_steps=0,
        ckpt_steps=0,
        log_steps=20,
        dev_per_lang=args.dev_per_lang,
        max_seq_length=args.max_seq_length,
    )
    done = attempt(
        "distill_transformer",
        lambda: distill_phase(
            common
            | dict(
                teacher=str(teacher),
                student="teacher",
                extend_vocab=True,
                preset="full",
                out=str(work / "xf-student"),
                time_limit_min=args.stage1_minutes,
                max_steps=args.stage1_steps or None,
                batch_size=args.stage1_batch or None,
            )
        ),
    )

    def evaluate_phase(name: str, folder: Path) -> None:
        """Evaluate one student as soon as it exists (a later phase cut short keeps it)."""
        done = attempt(f"evaluate_{name}", lambda: evaluate(folder, data, device, args.eval_batch))
        if done is not None:
            result["figures"][name], seconds = done
            save(f"evaluate_{name}", seconds)

    if done is not None:
        stage1, seconds = done
        result["runs"]["transformer"] = run_record(stage1)
        save("distill_transformer", seconds)
        evaluate_phase("transformer", Path(stage1.out))

        left = args.deadline_minutes - (time.perf_counter() - t0) / 60 - args.reserve_minutes
        minutes = round(max(0.25, min(args.stage2_minutes, left)), 2)
        result["settings"]["stage2_minutes_used"] = minutes
        result["settings"]["vocabulary_threads"] = vocabulary_on_all_cores()
        extra = {"vocab_size": args.vocab_size} if args.vocab_size else {}
        done = attempt(
            "distill_static_2stage",
            lambda: distill_phase(
                common
                | extra
                | dict(
                    teacher=str(stage1.out),
                    targets="each",
                    student="static",
                    preset="quick",
                    out=str(work / "static-2stage"),
                    time_limit_min=minutes,
                    max_steps=args.stage2_steps or None,
                )
            ),
        )
        if done is not None:
            stage2, seconds = done
            result["runs"]["static_2stage"] = run_record(stage2)
            save("distill_static_2stage", seconds)
            evaluate_phase("static_2stage", Path(stage2.out))
    result["total_s"] = round(time.perf_counter() - t0, 1)
    save("done", result["total_s"])
    for name, f in result["figures"].items():
        print(
            f"{name}: Tatoeba {f['tatoeba_mean14']} ({f['tatoeba_langs']} langs), STS en×xx "
            f"{f['sts_enxx_mean10']}, xx–xx {f['sts_mono_mean10']}, Bleualign strict F1 "
            f"{f['bleualign_strict_f1']}, lookup same/cross @1 "
            f"{f['lookup'].get('same_semantic@1')}/{f['lookup'].get('cross_semantic@1')}"
        )
    for phase, lines in result["errors"].items():
        print(f"error in {phase}: {lines[0]}", file=sys.stderr)
    print(f"wrote {out_json} ({result['total_s']:.0f} s on {result['device']})")
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
