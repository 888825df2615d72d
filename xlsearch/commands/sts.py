"""``xlsearch sts``: the semantic similarity of two sentences (cosine and 0-5)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from xlsearch.commands import local_engine


def register(sub: Any) -> None:
    """Add ``sts``."""
    p = sub.add_parser("sts", help="semantic similarity of two sentences (cosine and 0-5)")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--model", help="model (default: the active model)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_sts)


def cmd_sts(args: argparse.Namespace) -> int:
    """Print cosine and the 0–5 score (the model's STS calibration, else 5 × clip(cos, 0, 1))."""
    engine = local_engine(args.model)
    res = engine.sts(args.a, [args.b])[0]
    said = engine.language_notice(texts=[args.a, args.b])
    if said is not None:
        print(f"notice: {said.text()}", file=sys.stderr)
    if args.json:
        out = {"cosine": res.cosine, "score": res.score, "calibrated": res.calibrated}
        print(json.dumps({**out, "untrained_languages": said.unseen if said else []}))
    else:
        how = (
            "calibrated on STS data"
            if res.calibrated
            else "uncalibrated: 5 × clip(cosine, 0, 1); see xlsearch eval --calibrate-sts"
        )
        print(f"cosine {res.cosine:.4f}  score {res.score:.2f}/5  ({how})")
    return 0
