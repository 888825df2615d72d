"""``xlsearch mine``: parallel sentences between two languages (LASER margin)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from xlsearch.commands import Once, local_engine
from xlsearch.service.options import MINE_THRESHOLD as DEFAULT_THRESHOLD


def register(sub: Any) -> None:
    """Add ``mine``."""
    p = sub.add_parser("mine", help="mine parallel sentences between two languages (LASER margin)")
    p.add_argument("--src", required=True, help="source language code")
    p.add_argument("--tgt", required=True, help="target language code")
    p.add_argument(
        "--collection",
        "-c",
        action=Once,
        help="collection to mine (default: all)",
        hint="mine between two collections with --collection SRC --tgt-collection TGT",
    )
    p.add_argument("--tgt-collection", action=Once, help="mine targets from another collection")
    p.add_argument(
        "--threshold",
        type=float,
        default=DEFAULT_THRESHOLD,
        help=f"minimum margin score (default {DEFAULT_THRESHOLD})",
    )
    p.add_argument("--k", type=int, default=4, help="neighbourhood size (default 4)")
    p.add_argument("--margin", choices=("ratio", "distance", "absolute"), default="ratio")
    p.add_argument("--retrieval", choices=("max", "fwd", "bwd", "intersect"), default="max")
    p.add_argument("--model", help="model (default: the active model)")
    p.add_argument("--fast", action="store_true", help="approximate (IVF) k-NN for big sides")
    p.add_argument(
        "--out", help="write pairs to .tmx, .xlf (XLIFF 1.2) or .tsv (TSV = distillation input)"
    )
    p.add_argument(
        "--cluster",
        metavar="local|auto|ADDRESS",
        help="encode and mine on a Ray cluster (pip install xlsearch[cluster]); a stopped run "
        "resumes by shard pair when run again; see docs/scale.md",
    )
    p.add_argument("--show", type=int, default=20, help="pairs to print (default 20)")
    p.set_defaults(func=cmd_mine)


def cmd_mine(args: argparse.Namespace) -> int:
    """Mine pairs and print or export them."""
    from xlsearch.commands.progress import progress_display

    if args.out:
        from xlsearch.service.shared import require_output

        require_output(args.out, "pairs.tmx")  # a folder or a read-only place: before mining
    engine = local_engine(args.model)
    engine.encoder()
    said = engine.language_notice([args.src, args.tgt])
    if said is not None:  # before the work: its pairs will be mostly wrong
        print(f"notice: {said.text()}", file=sys.stderr)
    with progress_display() as bar:
        pairs = engine.mine(
            args.src,
            args.tgt,
            args.collection,
            args.threshold,
            on_progress=bar,
            tgt_collection=args.tgt_collection,
            k=args.k,
            margin=args.margin,
            retrieval=args.retrieval,
            exact=not args.fast,
            cluster=args.cluster,
        )
    s = engine.mined
    print(
        f"{s['pairs']:,} pairs from {s['src']:,} {args.src} × {s['tgt']:,} {args.tgt} "
        f"segments (margin {args.margin} ≥ {args.threshold}, k={args.k})",
        file=sys.stderr,
    )
    if s.get("precision_notice"):
        print(f"notice: {s['precision_notice']}", file=sys.stderr)
    if args.out and not pairs:
        print(f"nothing written to {args.out} (try a lower --threshold)", file=sys.stderr)
    elif args.out:
        from pathlib import Path

        from xlsearch.service.hits import write_export

        write_export(pairs, args.out, langs=[args.src, args.tgt])
        print(f"wrote {len(pairs):,} pairs to {Path(args.out)}", file=sys.stderr)
    for p in pairs[: args.show]:
        print(f"{p.score:.4f}\t{p.src_text}\t{p.tgt_text}")
    return 0
