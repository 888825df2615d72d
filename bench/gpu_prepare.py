"""Make the folder ``bench/gpu_check.py`` needs on a GPU machine that has no xlsearch data.

The GPU machine has torch, transformers, sentence-transformers, sentencepiece and safetensors,
but not the teacher package nor the benchmark data, and at most 64 MiB of the working tree
travels to it. This writes, into an ignored folder (default ``.gpu/``):

* ``teacher/`` — the bundled teacher (all-MiniLM-L6-v2) as a sentence-transformers folder
  with its weights in fp16 (~45 MB; ``gpu_check`` turns them back into fp32 to train);
* ``data/train/en-XX.tsv.gz`` — up to N random pairs of every training file (the smaller
  files whole), N as large as the budget allows;
* ``data/dev/`` — what the check evaluates on, in the layout of the benchmark data:
  Tatoeba (the 14 trained languages), STSb and STSb-multi-MT test, Bleualign's dev document;
* ``manifest.json`` — sizes, pair counts and where each file came from.

    python bench/gpu_prepare.py [--data ../shared/data] [--out .gpu] [--budget-mib 62]

The budget counts the tracked files of the working tree too; the run stops with exit status
2 (and a one-line reason) if the folder cannot fit.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from distill_eval import MT_LANGS, TRAINED  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024
TEACHER_FILES = [
    "config.json",
    "config_sentence_transformers.json",
    "modules.json",
    "sentence_bert_config.json",
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "1_Pooling/config.json",
]


def tree_bytes(repo: Path = REPO) -> int:
    """Bytes of the tracked files of the working tree (what travels besides the folder)."""
    try:
        names = subprocess.run(
            ["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True
        ).stdout.split(b"\0")
    except (OSError, subprocess.CalledProcessError):
        return 0
    return sum(
        (repo / n.decode()).stat().st_size for n in names if n and (repo / n.decode()).is_file()
    )


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def teacher_folder(spec: str) -> Path:
    """The teacher's model folder (``bundled:teacher``: inside the installed package)."""
    from xlsearch.engine.models.cards import resolve_model_path

    return resolve_model_path(spec)


def write_teacher_fp16(src: Path, dst: Path) -> int:
    """Copy the teacher folder's configuration and tokenizer, its weights cast to fp16."""
    import torch
    from safetensors.torch import load_file, save_file

    dst.mkdir(parents=True, exist_ok=True)
    for name in TEACHER_FILES:
        if (src / name).is_file():
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src / name, dst / name)
    weights = load_file(str(src / "model.safetensors"))
    half = {
        k: (v.to(torch.float16) if v.is_floating_point() else v).contiguous()
        for k, v in weights.items()
    }
    save_file(half, str(dst / "model.safetensors"), metadata={"format": "pt"})
    return sum(v.numel() for v in half.values())


def copy_dev(data: Path, dst: Path) -> dict[str, int]:
    """The evaluation files, in the benchmark data's own layout (plain text)."""
    wanted = [f"tatoeba/tatoeba.{x}-eng.{x}" for x in TRAINED]
    wanted += [f"tatoeba/tatoeba.{x}-eng.eng" for x in TRAINED]
    wanted += [f"stsb-multi-mt/stsb-{x}-test.csv" for x in ["en", *MT_LANGS]]
    wanted += ["stsbenchmark/sts-test.csv", "bleualign/dev.de", "bleualign/dev.fr"]
    wanted += ["bleualign/dev.defr"]
    out = {}
    for rel in wanted:
        src = data / "dev" / rel
        if not src.is_file():
            raise SystemExit(f"error: {src}: missing (is --data the benchmark data folder?)")
        (dst / "dev" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst / "dev" / rel)
        out[rel] = src.stat().st_size
    return out


def read_lines(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [line for line in fh if line.strip()]


def write_train(data: Path, dst: Path, budget: int, seed: int) -> tuple[int, dict[str, int]]:
    """Up to ``cap`` random pairs of every ``train/*.tsv.gz`` (all of the smaller files), the
    largest ``cap`` whose files fit ``budget`` bytes: small languages are kept whole."""
    files = sorted((data / "train").glob("*.tsv.gz"))
    if not files:
        raise SystemExit(f"error: {data / 'train'}: no *.tsv.gz training files")
    lines = {p.name: read_lines(p) for p in files}
    per_line = {p.name: p.stat().st_size / max(len(lines[p.name]), 1) for p in files}

    def estimate(cap: int) -> float:
        return sum(min(len(rows), cap) * per_line[n] for n, rows in lines.items())

    lo, hi = 1, max(len(rows) for rows in lines.values())
    while lo < hi:  # the largest cap whose estimated size fits
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if estimate(mid) <= budget else (lo, mid - 1)
    cap, folder = lo, dst / "train"
    for _ in range(8):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        counts = {}
        for name, rows in lines.items():
            rng = random.Random(f"{seed}:{name}")
            keep = sorted(rng.sample(range(len(rows)), min(len(rows), cap)))
            with gzip.open(folder / name, "wt", encoding="utf-8", compresslevel=9) as fh:
                fh.writelines(rows[i] for i in keep)
            counts[name] = len(keep)
        size = folder_bytes(folder)
        if size <= budget:
            return cap, counts
        cap = int(cap * 0.95)
    raise SystemExit(f"error: the training pairs do not fit {budget / MIB:.1f} MiB")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(REPO / ".gpu"))
    ap.add_argument("--teacher", default="bundled:teacher")
    ap.add_argument("--budget-mib", type=float, default=62.0, help="tree + folder, at most")
    ap.add_argument("--train-mib", type=float, default=0.0, help="training share (0: the rest)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    data, out = Path(args.data).resolve(), Path(args.out).resolve()
    if not (data / "train").is_dir() or not (data / "dev").is_dir():
        print(f"error: {data}: not the benchmark data folder (train/ and dev/)", file=sys.stderr)
        return 2
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    params = write_teacher_fp16(teacher_folder(args.teacher), out / "teacher")
    dev = copy_dev(data, out / "data")
    tree = tree_bytes() if out.is_relative_to(REPO) else 0
    room = int(args.budget_mib * MIB) - tree - folder_bytes(out) - 64 * 1024  # manifest
    train_budget = int(args.train_mib * MIB) if args.train_mib else room
    if train_budget <= 0 or train_budget > room:
        print(
            f"error: no room for training data: tree {tree / MIB:.1f} MiB + teacher and dev "
            f"{folder_bytes(out) / MIB:.1f} MiB of {args.budget_mib} MiB",
            file=sys.stderr,
        )
        return 2
    cap, counts = write_train(data, out / "data", train_budget, args.seed)
    manifest = {
        "teacher": {"spec": args.teacher, "dtype": "float16", "parameters": params},
        "train": {"cap": cap, "seed": args.seed, "pairs": counts},
        "dev": sorted(dev),
        "bytes": {
            "teacher": folder_bytes(out / "teacher"),
            "train": folder_bytes(out / "data" / "train"),
            "dev": folder_bytes(out / "data" / "dev"),
            "tree": tree,
        },
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    total = folder_bytes(out) + tree
    print(
        f"{out}: teacher {manifest['bytes']['teacher'] / MIB:.1f} MiB (fp16), "
        f"train {manifest['bytes']['train'] / MIB:.1f} MiB ({sum(counts.values()):,} pairs, "
        f"at most {cap:,} a file), dev {manifest['bytes']['dev'] / MIB:.1f} MiB; with the "
        f"tree {total / MIB:.1f} MiB of {args.budget_mib} MiB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
