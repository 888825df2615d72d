"""``xlsearch align SRC TGT``: align a document and its translation into a memory."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    """Add the ``align`` command."""
    p = sub.add_parser(
        "align",
        help="align a document and its translation (TXT, Markdown, DOCX, HTML) sentence by "
        "sentence into TMX, TSV or a collection",
        description="Split both documents into sentences, embed sentences and runs of "
        "sentences, and find the best beads (1-1, 1-2, 2-1, 1-0, 0-1 …) by dynamic "
        "programming (Vecalign-style, linear in length). Low-confidence beads are flagged. "
        "A cancelled run (Ctrl+C) resumes its encoding when started again.",
    )
    p.add_argument("src", type=Path, help="source document (.txt, .md, .docx, .html)")
    p.add_argument("tgt", type=Path, help="its translation")
    p.add_argument("--src-lang", help="source language (default: identified)")
    p.add_argument("--tgt-lang", help="target language (default: identified)")
    p.add_argument("--out", "-o", type=Path, help="write .tmx, .tsv (distillation input) or .beads")
    p.add_argument("--collection", "-c", help="save the aligned pairs into this collection")
    p.add_argument("--beads", type=Path, help="also write the beads in Vecalign's format")
    p.add_argument(
        "--presplit", action="store_true", help="one sentence per line as given (no splitting)"
    )
    p.add_argument("--model", help="model folder or bundled:teacher (default: the active model)")
    p.add_argument(
        "--lengths", action="store_true", help="no model: Gale-Church sentence lengths only"
    )
    p.add_argument("--skip-flagged", action="store_true", help="leave low-confidence beads out")
    p.add_argument("--max-side", type=int, default=4, help="most sentences on one side (4)")
    p.add_argument("--max-total", type=int, default=5, help="most sentences in a bead (5)")
    p.add_argument("--del-penalty", type=float, help="cost of an unaligned sentence")
    p.add_argument("--show", type=int, default=0, help="print the first N beads")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_align)


def cmd_align(args: argparse.Namespace) -> int:
    """Align, write the outputs asked for, print a summary."""
    from xlsearch.commands.progress import ProgressDisplay as ProgressBar
    from xlsearch.engine.errors import ConfigError
    from xlsearch.service.local import LocalEngine
    from xlsearch.service.options import langs_option

    if not args.out and not args.collection and not args.beads and not args.show:
        raise ConfigError(
            "nowhere to put the alignment", hint="give --out FILE, --collection NAME or --beads"
        )
    src_lang = next(iter(langs_option(args.src_lang)), None)
    tgt_lang = next(iter(langs_option(args.tgt_lang)), None)
    from xlsearch.service.shared import require_output

    if args.out:
        require_output(args.out, "pairs.tmx")  # a folder named as the output: now, not after
    if args.beads:
        require_output(args.beads, "doc.beads")
    engine = LocalEngine(model=args.model)
    bar = None if args.quiet else ProgressBar()
    alignment = engine.align(
        args.src,
        args.tgt,
        src_lang,
        tgt_lang,
        args.presplit,
        on_progress=bar,
        max_side=args.max_side,
        max_total=args.max_total,
        del_penalty=args.del_penalty,
        lengths=args.lengths,
        outputs=[args.out] if args.out else [],
    )
    if bar:
        bar.close()
    src, tgt = alignment.src, alignment.tgt
    for warning in alignment.warnings:
        print(f"notice: {warning}", file=sys.stderr)
    types = Counter(f"{len(b.src)}-{len(b.tgt)}" for b in alignment.beads)
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(types.items(), key=lambda kv: -kv[1]))
    secs = " ".join(f"{k} {v:.1f}s" for k, v in alignment.seconds.items())
    print(
        f"{len(src):,} {src.lang} + {len(tgt):,} {tgt.lang} sentences -> "
        f"{len(alignment.beads):,} beads ({kinds}); {alignment.flagged:,} flagged"
        + (f"; {secs}" if secs else "")
        + ("; paragraph anchors" if alignment.anchors else "")
    )
    for bead in alignment.beads[: args.show]:
        s, t = alignment.texts(bead)
        mark = "!" if bead.flagged else " "
        print(f"{mark} {bead.line():<24} {s[:60]!r} | {t[:60]!r}")
    saved = engine.write_alignment(
        alignment,
        args.collection or "",
        args.out or "",
        beads_path=args.beads or "",
        include_flagged=not args.skip_flagged,
    )
    if args.out:
        print(
            f"wrote {saved.written:,} "
            f"{'beads' if args.out.suffix in ('.beads', '.align') else 'units'} to {args.out}"
        )
    if args.beads:
        print(f"wrote {saved.beads:,} beads to {args.beads}")
    if saved.imported is not None:
        r = saved.imported
        print(f"{r.status} {r.path} in collection {args.collection!r}: {r.segments:,} segments")
    if not args.quiet and alignment.flagged:
        print(
            f"{alignment.flagged} low-confidence beads: check them in the app (Align screen)",
            file=sys.stderr,
        )
    return 0
