"""Sentence alignment: quality on Bleualign's de–fr dev document, speed and memory at scale.

    python bench/align.py quality --model PATH --model bundled:teacher --lengths
    python bench/align.py scale --model PATH --sizes 1000 10000 50000

``quality``: strict/lax precision, recall, F1 (Vecalign's scoring) of each model's beads on
``$XLSEARCH_BENCH_DATA/dev/bleualign`` (presplit sentences, gold beads), plus the
Gale–Church length baseline. ``scale``: synthetic document pairs built from
``train/en-de.tsv.gz`` pairs (English side = source, German = target; 3 % of target
sentences deleted, 3 % unrelated sentences inserted, 5 % of neighbouring target sentences
joined into 2–1 beads; ``--blocks 0.01``: also blocks of 3–10 unrelated sentences on one
side before 1 % of beads); each size runs in a fresh process and reports wall time (encoding
included), peak RSS over the process's RSS before aligning, and strict F1 against the
synthetic gold. Data is read from the benchmark folder only; nothing is written there.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _data import data_dir, machine  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def quality(args: argparse.Namespace) -> None:
    from xlsearch.engine.align import (
        AlignConfig,
        align_documents,
        align_lengths,
        read_beads,
        score_beads,
    )
    from xlsearch.engine.importers.document import read_document

    folder = data_dir() / "dev" / "bleualign"
    src = read_document(folder / "dev.de", "de", presplit=True)
    tgt = read_document(folder / "dev.fr", "fr", presplit=True)
    gold = read_beads(folder / "dev.defr")
    rows = []
    config = AlignConfig(
        runs=args.runs, gap_extend=args.gap_extend, number_weight=args.number_weight
    )
    for spec in args.model:
        from xlsearch.engine.models.encoder import load_encoder

        enc = load_encoder(spec, threads=args.threads)
        start = time.monotonic()
        al = align_documents(src, tgt, enc, config, checkpoint=False)
        seconds = time.monotonic() - start
        flagged_wrong = sum(
            b.flagged for b in al.beads if (b.src, b.tgt) not in {(g.src, g.tgt) for g in gold}
        )
        rows.append(
            (spec, score_beads(gold, al.beads), seconds, al.flagged, flagged_wrong, len(al.beads))
        )
    if args.lengths:
        start = time.monotonic()
        beads = align_lengths(src.sentences, tgt.sentences)
        rows.append(
            (
                "lengths (Gale-Church)",
                score_beads(gold, beads),
                time.monotonic() - start,
                0,
                0,
                len(beads),
            )
        )
    print(
        f"Bleualign dev de-fr: {len(src)} + {len(tgt)} sentences, {len(gold)} gold beads;"
        f" {machine()}"
    )
    print(
        "| model | strict P | strict R | strict F1 | lax P | lax R | lax F1 | s | flagged (wrong) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for spec, s, secs, flagged, fw, _ in rows:
        print(
            f"| {spec} | {s['strict_precision']:.3f} | {s['strict_recall']:.3f} | "
            f"**{s['strict_f1']:.3f}** | {s['lax_precision']:.3f} | {s['lax_recall']:.3f} | "
            f"{s['lax_f1']:.3f} | {secs:.1f} | {flagged} ({fw}) |"
        )


def synthetic(
    n: int, seed: int = 0, blocks: float = 0.0
) -> tuple[list[str], list[str], list[tuple[tuple, tuple]]]:
    """A document pair of ``n`` source sentences with deletions, insertions and 2–1 joins;
    with ``blocks`` > 0, before that share of beads a block of 3–10 unrelated sentences
    (captions, a footnote block) on one side (its own random stream: ``blocks=0`` gives the
    same documents as before)."""
    rng = random.Random(seed)
    block_rng = random.Random(seed + 7919)
    pairs: list[tuple[str, str]] = []
    with gzip.open(data_dir() / "train" / "en-de.tsv.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            cells = line.rstrip("\n").split("\t")
            if len(cells) >= 2 and cells[0].strip() and cells[1].strip():
                pairs.append((" ".join(cells[0].split()), " ".join(cells[1].split())))
    rng.shuffle(pairs)
    need = n + n // 10 + int(n * blocks * 12)
    while len(pairs) < need:
        pairs += pairs[: need - len(pairs)]
    body, extra = pairs[:n], pairs[n:need]
    src: list[str] = []
    tgt: list[str] = []
    gold: list[tuple[tuple, tuple]] = []
    k = 0
    while k < len(body):
        if blocks and block_rng.random() < blocks:
            on_target = block_rng.random() < 0.5
            for _ in range(block_rng.randint(3, 10)):
                if not extra:
                    break
                pair = extra.pop()
                if on_target:
                    gold.append(((), (len(tgt),)))
                    tgt.append(pair[1])
                else:
                    gold.append(((len(src),), ()))
                    src.append(pair[0])
        r = rng.random()
        if r < 0.03:  # deleted in translation
            gold.append(((len(src),), ()))
            src.append(body[k][0])
            k += 1
        elif r < 0.06:  # inserted by the translator
            gold.append(((), (len(tgt),)))
            tgt.append(extra.pop()[1] if extra else body[k][1])
        elif r < 0.11 and k + 1 < len(body):  # two sentences translated as one
            gold.append(((len(src), len(src) + 1), (len(tgt),)))
            src += [body[k][0], body[k + 1][0]]
            tgt.append(f"{body[k][1]} {body[k + 1][1]}")
            k += 2
        else:
            gold.append(((len(src),), (len(tgt),)))
            src.append(body[k][0])
            tgt.append(body[k][1])
            k += 1
    return src, tgt, gold


def one_scale(args: argparse.Namespace) -> None:
    """One size in this process; prints a JSON line."""
    import torch

    from xlsearch.engine.align import AlignConfig, Bead, align_documents, score_beads
    from xlsearch.engine.importers.document import Document
    from xlsearch.engine.models.encoder import load_encoder

    torch.set_num_threads(args.threads)
    src, tgt, gold = synthetic(args.one, blocks=args.blocks)
    enc = load_encoder(args.model[0], threads=args.threads)
    enc.encode(["warm up"])
    a = Document.from_sentences(src, "en", "src.txt")
    b = Document.from_sentences(tgt, "de", "tgt.txt")
    base_rss = rss_mb()
    start = time.monotonic()
    config = AlignConfig(
        runs=args.runs, gap_extend=args.gap_extend, number_weight=args.number_weight
    )
    al = align_documents(a, b, enc, config, checkpoint=False)
    seconds = time.monotonic() - start
    scores = score_beads([Bead(s, t) for s, t in gold], al.beads)
    right = set(gold)
    wrong = [(tuple(b.src), tuple(b.tgt)) not in right for b in al.beads]
    print(
        json.dumps(
            {
                "n_src": len(src),
                "n_tgt": len(tgt),
                "seconds": seconds,
                "encode_s": al.seconds["encode"],
                "search_s": al.seconds["search"],
                "base_rss_mb": base_rss,
                "peak_rss_mb": peak_mb(),
                "strict_f1": scores["strict_f1"],
                "lax_f1": scores["lax_f1"],
                "beads": len(al.beads),
                "wrong": sum(wrong),
                "flagged": sum(b.flagged for b in al.beads),
                "flagged_wrong": sum(b.flagged and w for b, w in zip(al.beads, wrong, strict=True)),
            }
        )
    )


def scale(args: argparse.Namespace) -> None:
    print(
        f"synthetic en-de documents from train pairs; {machine()}; threads {args.threads}; "
        f"gap_extend {args.gap_extend}, number_weight {args.number_weight}, blocks {args.blocks}"
    )
    print(
        "| sentences (src + tgt) | wall s (encode + search) | RSS before MB | peak RSS MB | "
        "extra MB | strict F1 | lax F1 | flagged (wrong) of beads (wrong) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        cmd = [
            sys.executable,
            __file__,
            "scale",
            "--one",
            str(n),
            "--threads",
            str(args.threads),
            "--runs",
            args.runs,
            "--gap-extend",
            str(args.gap_extend),
            "--number-weight",
            str(args.number_weight),
            "--blocks",
            str(args.blocks),
            "--model",
            args.model[0],
        ]
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if out.returncode:
            print(out.stderr[-2000:], file=sys.stderr)
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"| {r['n_src']:,} + {r['n_tgt']:,} | {r['seconds']:.1f} ({r['encode_s']:.1f} + "
            f"{r['search_s']:.1f}) | {r['base_rss_mb']:.0f} | {r['peak_rss_mb']:.0f} | "
            f"{r['peak_rss_mb'] - r['base_rss_mb']:.0f} | {r['strict_f1']:.3f} | "
            f"{r['lax_f1']:.3f} | {r['flagged']} ({r['flagged_wrong']}) of {r['beads']:,} "
            f"({r['wrong']}) |",
            flush=True,
        )


def main() -> None:
    from xlsearch.engine.align import AlignConfig

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("quality", "scale"))
    parser.add_argument("--model", action="append", default=[], help="model (repeatable)")
    parser.add_argument("--lengths", action="store_true", help="add the Gale-Church baseline")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", choices=("encode", "average"), default="average")
    defaults = AlignConfig()
    parser.add_argument(
        "--gap-extend",
        type=float,
        default=defaults.gap_extend,
        help="AlignConfig.gap_extend (1 = linear gaps)",
    )
    parser.add_argument(
        "--number-weight",
        type=float,
        default=defaults.number_weight,
        help="AlignConfig.number_weight (0 = off)",
    )
    parser.add_argument(
        "--blocks",
        type=float,
        default=0.0,
        help="scale: share of beads preceded by a block of 3-10 unrelated sentences",
    )
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.what == "quality":
        quality(args)
    elif args.one:
        one_scale(args)
    else:
        scale(args)


if __name__ == "__main__":
    main()
