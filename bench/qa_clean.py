"""``distill --clean`` on training data with 10 % of its pairs corrupted.

From ``train/en-LANG.tsv.gz``: N training pairs and 1,000 clean dev pairs (never trained
on). A tenth of the training pairs is corrupted — a third shifted (the next line's
target), a third copied (the English source as target), a third in another language (a
target of ``train/en-OTHER``). Three static students with the same settings: clean data,
corrupted data, corrupted data with ``--clean``; the dev accuracy of each (the card's
best dev accuracy, translation retrieval both ways on the same dev pairs) and the share of
the loss ``--clean`` recovers.

    nice python bench/qa_clean.py [--lang de] [--other fr] [--pairs 12000] [--steps 1500]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import REPO, data_dir  # noqa: E402


def read(path: Path, n: int) -> list[tuple[str, str]]:
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 2 and parts[0] and parts[1]:
                out.append((parts[0], parts[1]))
            if len(out) >= n:
                break
    return out


def write(path: Path, pairs: list[tuple[str, str]]) -> None:
    path.write_text("".join(f"{s}\t{t}\n" for s, t in pairs), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lang", default="de")
    ap.add_argument("--other", default="fr")
    ap.add_argument("--pairs", type=int, default=12000)
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "qa-clean")
    args = ap.parse_args()
    rng = random.Random(7)
    pairs = read(data_dir() / "train" / f"en-{args.lang}.tsv.gz", args.pairs + 1000)
    rng.shuffle(pairs)
    dev, train = pairs[:1000], pairs[1000:]
    others = [t for _, t in read(data_dir() / "train" / f"en-{args.other}.tsv.gz", 20000)]
    bad = list(train)
    picks = rng.sample(range(len(bad) - 1), len(bad) // 10)
    kinds = {}
    for k, i in enumerate(picks):
        s, t = bad[i]
        if k % 3 == 0:
            bad[i] = (s, train[i + 1][1])
            kinds[i] = "shifted"
        elif k % 3 == 1:
            bad[i] = (s, s)
            kinds[i] = "copy"
        else:
            bad[i] = (s, rng.choice(others))
            kinds[i] = "other-language"
    args.out.mkdir(parents=True, exist_ok=True)
    write(args.out / "dev.tsv", dev)
    write(args.out / "clean.tsv", train)
    write(args.out / "corrupted.tsv", bad)
    exe = str(Path(sys.executable).parent / "xlsearch")
    results = {}
    for name, data, extra in (
        ("clean", "clean.tsv", []),
        ("corrupted", "corrupted.tsv", []),
        ("corrupted+clean", "corrupted.tsv", ["--clean"]),
    ):
        model = args.out / f"student-{name}"
        cmd = [
            exe, "distill", "--train", str(args.out / data), "--dev", str(args.out / "dev.tsv"),
            "--student", "static", "--max-steps", str(args.steps), "--out", str(model),
            "--vocab-size", "8000", *extra,
        ]  # fmt: skip
        t = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True)
        took = time.perf_counter() - t
        notes = [
            line for line in res.stderr.splitlines() + res.stdout.splitlines() if "--clean" in line
        ]
        card = (
            json.loads((model / "xlsearch.json").read_text())
            if (model / "xlsearch.json").exists()
            else {}
        )
        acc = card.get("metrics", {}).get("dev_acc")
        results[name] = {
            "dev_acc": acc,
            "seconds": round(took),
            "notes": notes,
            "rc": res.returncode,
        }
        print(
            name,
            acc,
            f"{took:.0f}s",
            notes[:2],
            res.stderr.strip().splitlines()[-1:] if res.returncode else "",
        )
    a, b, c = (results[k]["dev_acc"] for k in ("clean", "corrupted", "corrupted+clean"))
    if None not in (a, b, c) and a != b:
        share = 100 * (c - b) / (a - b)
        print(f"recovered {share:.0f} % of the loss: {a:.1f} clean, {b:.1f} corrupted, {c:.1f}")
    (args.out / "results.json").write_text(
        json.dumps(
            {
                "args": vars(args) | {"out": str(args.out)},
                "results": results,
                "corrupted": len(kinds),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
