"""``xlsearch encode`` and ``xlsearch models``: model loading from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(sub: Any) -> None:
    """Add the model commands."""
    p = sub.add_parser("encode", help="embed sentences (one per line on stdin or as arguments)")
    p.add_argument("texts", nargs="*", help="sentences; read from stdin when none are given")
    p.add_argument("--model", default="bundled:teacher", help="model folder or bundled:teacher")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument(
        "--precision",
        default="auto",
        choices=["auto", "fp32", "bf16", "int8"],
        help="auto = fp32 on CPU, bf16/fp16 on GPU; bf16/int8 are faster on CPU, slightly lossy",
    )
    p.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N, mps")
    p.add_argument("--out", help="write a .npy file instead of JSON lines on stdout")
    p.set_defaults(func=cmd_encode)


def cmd_encode(args: argparse.Namespace) -> int:
    """Embed texts and print JSON lines (or save .npy)."""
    from xlsearch.cli import ProgressBar
    from xlsearch.engine.encoder import load_encoder

    texts = args.texts or [line.rstrip("\n") for line in sys.stdin]
    enc = load_encoder(
        args.model, device=args.device, batch_size=args.batch_size, precision=args.precision
    )
    bar = ProgressBar()
    vecs = enc.encode(texts, on_progress=bar if args.out else None)
    bar.close()
    if args.out:
        import numpy as np

        np.save(args.out, vecs)
        print(f"wrote {vecs.shape[0]}×{vecs.shape[1]} to {args.out}", file=sys.stderr)
    else:
        for text, vec in zip(texts, vecs, strict=True):
            print(json.dumps({"text": text, "embedding": [round(float(x), 6) for x in vec]}))
    return 0
