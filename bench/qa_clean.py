"""``distill --clean`` on training data with 10 % of its pairs corrupted.

From ``train/en-LANG.tsv.gz`` (file order kept for the corruption): ``--dev`` clean pairs
held out (their sources never trained on) and ``--pairs`` training pairs, both drawn at
random. A tenth of the training pairs is corrupted: a third shifted (the target of the
file's next line), a third copied (the English source as target), a third in another
language (a target of ``train/en-OTHER``). Three static students with the same settings
and the same number of steps (evaluated once, at the end): clean data, corrupted data,
corrupted data with ``--clean`` (and ``--clean thorough``); per ``--seeds``. The metric:
translation retrieval among all dev pairs (mean of both directions), on the final models.
Also what ``--clean`` dropped, by kind, against the known corrupted pairs (the same function
``distill`` calls).

    nice -n 10 python bench/qa_clean.py [--lang de] [--other fr] [--pairs 30000]
        [--dev 3000] [--steps 150] [--seeds 0 1] [--runs clean corrupted corrupted+clean
        corrupted+thorough perfect clean-less-drops]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import REPO, data_dir, machine  # noqa: E402


def read(path: Path, n: int | None = None) -> list[tuple[str, str]]:
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 2 and parts[0].strip() and parts[1].strip():
                out.append((parts[0], parts[1]))
            if n is not None and len(out) >= n:
                break
    return out


def write(path: Path, pairs: list[tuple[str, str]]) -> None:
    path.write_text("".join(f"{s}\t{t}\n" for s, t in pairs), encoding="utf-8")


def make_data(
    lang: str, other: str, n_train: int, n_dev: int, seed: int = 7
) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[tuple[str, str]], dict[int, str]]:
    """dev (clean), train (clean), train (corrupted) and the corrupted rows' kinds."""
    rng = random.Random(seed)
    lines = read(data_dir() / "train" / f"en-{lang}.tsv.gz")
    order = list(range(len(lines) - 1))  # the last line has no next line to shift from
    rng.shuffle(order)
    dev = [lines[i] for i in order[:n_dev]]
    dev_src = {s for s, _ in dev}
    rows = [i for i in order[n_dev:] if lines[i][0] not in dev_src][:n_train]
    train = [lines[i] for i in rows]
    others = [t for _, t in read(data_dir() / "train" / f"en-{other}.tsv.gz", 20000)]
    bad = list(train)
    kinds: dict[int, str] = {}
    for k, j in enumerate(rng.sample(range(len(bad)), len(bad) // 10)):
        s = bad[j][0]
        if k % 3 == 0:
            bad[j] = (s, lines[rows[j] + 1][1])
            kinds[j] = "shifted"
        elif k % 3 == 1:
            bad[j] = (s, s)
            kinds[j] = "copy"
        else:
            bad[j] = (s, rng.choice(others))
            kinds[j] = "other-language"
    return dev, train, bad, kinds


def dev_accuracy(model_dir: Path, dev: list[tuple[str, str]]) -> float:
    """Translation retrieval among all dev pairs, mean of both directions (0-100)."""
    import numpy as np

    from xlsearch.engine.evaluation.metrics import translation_accuracy
    from xlsearch.engine.models.encoder import load_encoder

    enc = load_encoder(str(model_dir))
    s = np.asarray(enc.encode([s for s, _ in dev]), dtype=np.float32)
    t = np.asarray(enc.encode([t for _, t in dev]), dtype=np.float32)
    a, b = translation_accuracy(s, t)
    return (a + b) / 2


def drops(
    bad: list[tuple[str, str]], kinds: dict[int, str], lang: str
) -> tuple[dict[str, object], list[int]]:
    """What ``--clean`` drops of the corrupted training data, against the known corruption
    (pairs the reader drops itself, identical sides, left out as distill does), and the
    clean pairs it drops (rows of ``bad``)."""
    from xlsearch.engine.qa.clean import find_noisy

    rows = [j for j, (s, t) in enumerate(bad) if s.strip() != t.strip()]
    t0 = time.perf_counter()
    rep = find_noisy([bad[j][0] for j in rows], [bad[j][1] for j in rows], "en", lang)
    took = time.perf_counter() - t0
    false_drops = sorted(rows[k] for k in rep.kind if rows[k] not in kinds)
    table: Counter[tuple[str, str]] = Counter()
    examples: dict[str, list[str]] = {}
    for k, kind in rep.kind.items():
        truth = kinds.get(rows[k], "clean")
        table[(kind, truth)] += 1
        if truth == "clean" and len(examples.setdefault(kind, [])) < 3:
            s, t = bad[rows[k]]
            examples[kind].append(f"{s[:70]} | {t[:70]} | {rep.why[k]}")
    corrupted = Counter(kinds[j] for j in rows if j in kinds)
    caught = Counter(kinds[rows[k]] for k in rep.kind if rows[k] in kinds)
    n_drop = len(rep.kind)
    n_true = sum(caught.values())
    found: dict[str, object] = {
        "seconds": round(took, 1),
        "pairs": len(rows),
        "dropped": n_drop,
        "precision": round(100 * n_true / max(1, n_drop), 1),
        "clean_dropped": n_drop - n_true,
        "recall": {k: f"{caught[k]}/{v}" for k, v in corrupted.items()},
        "by_kind": {f"{a} <- {b}": n for (a, b), n in sorted(table.items())},
        "clean_examples": examples,
    }
    return found, false_drops


def model_drops(report: Path, bad: list[tuple[str, str]], kinds: dict[int, str]) -> dict[str, int]:
    """What ``--clean thorough``'s cross-fitted students dropped (``--clean-report``), by
    the known corruption."""
    truth = {(" ".join(s.split()), " ".join(t.split())): kinds.get(j, "clean")
             for j, (s, t) in enumerate(bad)}  # fmt: skip
    out: Counter[str] = Counter()
    if report.is_file():
        for line in report.read_text(encoding="utf-8").splitlines()[1:]:
            parts = line.split("\t")
            if len(parts) == 5 and parts[1] == "misaligned-model":
                out[truth.get((parts[3], parts[4]), "?")] += 1
    return dict(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lang", default="de")
    ap.add_argument("--other", default="fr")
    ap.add_argument("--pairs", type=int, default=30000)
    ap.add_argument("--dev", type=int, default=3000)
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument(
        "--runs", nargs="+", default=["clean", "corrupted", "corrupted+clean"],
        help="also: corrupted+thorough (--clean thorough), perfect (the corrupted pairs "
        "removed by hand: what a perfect filter leaves), clean-less-drops (the clean data "
        "less the clean pairs --clean drops)",
    )  # fmt: skip
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "qa-clean")
    args = ap.parse_args()
    dev, train, bad, kinds = make_data(args.lang, args.other, args.pairs, args.dev)
    args.out.mkdir(parents=True, exist_ok=True)
    write(args.out / "dev.tsv", dev)
    write(args.out / "clean.tsv", train)
    write(args.out / "corrupted.tsv", bad)
    print(machine(), f"load {os.getloadavg()[0]:.1f}", time.strftime("%Y-%m-%d %H:%M"))
    found, false_list = drops(bad, kinds, args.lang)
    false_drops = set(false_list)
    print(json.dumps(found, indent=1, ensure_ascii=False))
    write(args.out / "perfect.tsv", [p for j, p in enumerate(bad) if j not in kinds])
    write(
        args.out / "clean-less-drops.tsv", [p for j, p in enumerate(train) if j not in false_drops]
    )
    exe = str(Path(sys.executable).parent / "xlsearch")
    results: dict[str, dict[str, object]] = {}
    runs = {
        "clean": ("clean.tsv", []),
        "corrupted": ("corrupted.tsv", []),
        "corrupted+clean": ("corrupted.tsv", ["--clean"]),
        "corrupted+thorough": ("corrupted.tsv", ["--clean", "thorough"]),
        "perfect": ("perfect.tsv", []),
        "clean-less-drops": ("clean-less-drops.tsv", []),
    }
    for seed in args.seeds:
        for name in args.runs:
            data, extra = runs[name]
            model = args.out / f"student-{name}-{seed}"
            dropped = args.out / f"dropped-{name}-{seed}.tsv"
            if "--clean" in extra:
                extra = [*extra, "--clean-report", str(dropped)]
            cmd = [
                exe, "distill", "--train", str(args.out / data), "--dev", str(args.out / "dev.tsv"),
                "--student", "static", "--max-steps", str(args.steps), "--eval-steps", "0",
                "--time-limit", "0", "--out", str(model), "--vocab-size", str(args.vocab_size),
                "--seed", str(seed), "--quiet", *extra,
            ]  # fmt: skip
            load = os.getloadavg()[0]
            t = time.perf_counter()
            res = subprocess.run(cmd, capture_output=True, text=True)
            took = time.perf_counter() - t
            notes = [ln for ln in (res.stderr + res.stdout).splitlines() if "--clean" in ln]
            acc = dev_accuracy(model, dev) if res.returncode == 0 else None
            by_model = model_drops(dropped, bad, kinds) if "thorough" in extra else None
            results[f"{name}/{seed}"] = {
                "model_drops": by_model,
                "dev_acc": None if acc is None else round(acc, 2),
                "seconds": round(took),
                "load": round(load, 1),
                "notes": notes,
                "rc": res.returncode,
            }
            print(name, seed, acc, f"{took:.0f}s load {load:.1f}", notes[:1],
                  res.stderr.strip().splitlines()[-1:] if res.returncode else "")  # fmt: skip
    for seed in args.seeds:
        for run in ("corrupted+clean", "corrupted+thorough"):
            a, b, c = (
                results.get(f"{k}/{seed}", {}).get("dev_acc") for k in ("clean", "corrupted", run)
            )
            if isinstance(a, float) and isinstance(b, float) and isinstance(c, float) and a != b:
                share = 100 * (c - b) / (a - b)
                print(f"seed {seed}: clean {a:.2f}, corrupted {b:.2f}, {run} {c:.2f}: "
                      f"recovered {share:.0f} % of the loss")  # fmt: skip
    (args.out / "results.json").write_text(
        json.dumps(
            {"args": vars(args) | {"out": str(args.out)}, "drops": found, "results": results},
            indent=1,
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
