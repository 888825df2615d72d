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

    m = sub.add_parser("models", help="list models (teacher, students, folders); choose the active")
    m.add_argument("--use", metavar="MODEL", help="make MODEL the active model (indexes follow)")
    m.add_argument("--json", action="store_true", help="print JSON")
    m.set_defaults(func=cmd_models)


def cmd_encode(args: argparse.Namespace) -> int:
    """Embed texts and print JSON lines (or save .npy)."""
    from xlsearch.commands.progress import ProgressDisplay as ProgressBar
    from xlsearch.service.local import LocalEngine

    texts = args.texts or [line.rstrip("\n") for line in sys.stdin]
    engine = LocalEngine(
        encoder_options={
            "device": args.device,
            "batch_size": args.batch_size,
            "precision": args.precision,
        }
    )
    engine.encoder(args.model)
    bar = ProgressBar()
    vecs = engine.encode(texts, args.model, on_progress=bar if args.out else None)
    bar.close()
    if args.out:
        import io

        import numpy as np

        from xlsearch.service.shared import write_output

        buf = io.BytesIO()
        np.save(buf, vecs)
        out = args.out if str(args.out).endswith(".npy") else f"{args.out}.npy"  # as np.save
        write_output(out, buf.getvalue())
        print(f"wrote {vecs.shape[0]}×{vecs.shape[1]} to {args.out}", file=sys.stderr)
    else:
        for text, vec in zip(texts, vecs, strict=True):
            print(json.dumps({"text": text, "embedding": [round(float(x), 6) for x in vec]}))
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    """List known models with their cards; optionally set the active model."""
    from xlsearch.service.local import LocalEngine

    engine = LocalEngine()
    if args.use:
        print(f"active model: {engine.set_active_model(args.use)}", file=sys.stderr)
    models = engine.list_models()
    if args.json:
        rows = [
            {
                "name": m.name,
                "spec": m.spec,
                "folder": m.folder,
                "languages": m.languages,
                "size_bytes": m.size,
                "active": m.active,
                "shipped": m.shipped,
                "card": m.card,
            }
            for m in models
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for m in models:
        card = m.card
        langs = ",".join(m.languages)  # all of them: a cut list reads as "not known"
        metrics = card.get("metrics")
        metrics = metrics if isinstance(metrics, dict) else {}
        acc = metrics.get("dev_acc") or metrics.get("tatoeba_mean")
        mark = "*" if m.active else " "
        extra = f"  dev acc {float(acc):.1f}" if acc is not None else ""
        if m.shipped:
            extra += "  (shipped)"
        if m.size is not None:
            extra += f"  {m.size / 1e6:.0f} MB"
        print(
            f"{mark} {m.name:32s} {card.get('kind', '?'):11s} dim {card.get('dim', '?'):>4}"
            f"  langs {langs or '?'}{extra}"
        )
        if m.spec != "bundled:teacher":
            print(f"    {m.spec}")
    runs = engine.unfinished_runs()
    if runs:
        print("unfinished distillation runs (not usable yet):")
        for r in runs:
            print(f"  {r.name}: resume with xlsearch distill --resume --out {r.spec}")
    print("(* = active model; change it with xlsearch models --use NAME)", file=sys.stderr)
    return 0
