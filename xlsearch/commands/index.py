"""``xlsearch index``: build or update the vector index of collections."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from xlsearch.commands import local_engine

KIND_CHOICES = ("auto", "flat", "hnsw", "ivf", "sq8", "ivfpq")


def register(sub: Any) -> None:
    """Add ``index``."""
    p = sub.add_parser("index", help="build or update the vector index of collections")
    p.add_argument(
        "--collection", "-c", action="append", help="collection (repeatable; default: all)"
    )
    p.add_argument("--model", help="model folder or bundled:teacher (default: the active model)")
    p.add_argument(
        "--kind",
        choices=KIND_CHOICES,
        default="auto",
        help="index kind: auto (flat < 50k, ivf, ivfpq beyond RAM), flat (exact), "
        "hnsw, ivf, sq8 (IVF + 8-bit codes), ivfpq (IVF + product quantiser)",
    )
    p.add_argument("--rebuild", action="store_true", help="rebuild from scratch (vectors cached)")
    p.add_argument("--device", default="auto", help="auto, cpu, cuda, mps")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument(
        "--cluster",
        metavar="local|auto|ADDRESS",
        help="build on a Ray cluster (pip install xlsearch[cluster]): local starts one here, "
        "auto joins the one `ray start` runs here, else HOST:6379 or ray://HOST:10001; an IVF "
        "index is built where the data is (every node must see XLSEARCH_HOME at the same "
        "path: docs/scale.md)",
    )
    p.add_argument(
        "--shard-size",
        type=int,
        default=None,
        metavar="N",
        help="segments per cluster task and part store (default 20000); finished parts and "
        "shards are kept if killed",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_index)


def cmd_index(args: argparse.Namespace) -> int:
    """Build or update indexes; embeds only texts without a cached vector."""
    from xlsearch.commands.progress import progress_display

    engine = local_engine(args.model, device=args.device, batch_size=args.batch_size)
    engine.encoder()  # a missing model fails before anything else
    names = args.collection or [c.name for c in engine.collections() if c.segments]
    if not names:
        print("nothing to index: import files first (xlsearch import FILE…)", file=sys.stderr)
        return 1
    for name in names:
        with progress_display(args.quiet) as bar:
            st = engine.build_index(
                name,
                on_progress=bar,
                kind=args.kind,
                rebuild=args.rebuild,
                cluster=args.cluster,
                shard=args.shard_size,
            )
        print(
            f"{name}: {st.vectors:,} vectors ({st.kind}), +{st.added:,} "
            f"-{st.removed:,}{' rebuilt' if st.rebuilt else ''} → {st.folder}"
        )
    return 0
