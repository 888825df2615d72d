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
    from xlsearch.engine.align import AlignConfig, align_documents, align_lengths, write_beads
    from xlsearch.engine.align.core import Alignment
    from xlsearch.engine.align.output import (
        output_format,
        require_pairs,
        save_to_collection,
        write_alignment,
    )
    from xlsearch.engine.errors import ConfigError
    from xlsearch.engine.importers import langs_option
    from xlsearch.engine.importers.document import read_document, require_text

    if not args.out and not args.collection and not args.beads and not args.show:
        raise ConfigError(
            "nowhere to put the alignment", hint="give --out FILE, --collection NAME or --beads"
        )
    src_lang = (langs_option(args.src_lang) or [None])[0]
    tgt_lang = (langs_option(args.tgt_lang) or [None])[0]
    from xlsearch.engine.runtime.pathcheck import require_output

    if args.out:
        require_output(args.out, "pairs.tmx")
        output_format(args.out)  # an unknown kind fails now, not after the alignment
    if args.beads:
        require_output(args.beads, "doc.beads")
    src = require_text(read_document(args.src, src_lang, presplit=args.presplit))
    tgt = require_text(read_document(args.tgt, tgt_lang, presplit=args.presplit))
    config = AlignConfig(max_side=args.max_side, max_total=args.max_total)
    if args.del_penalty is not None:
        config.del_penalty = args.del_penalty
    bar = None if args.quiet else ProgressBar()
    if args.lengths:
        beads = align_lengths(src.sentences, tgt.sentences, config)
        alignment = Alignment(src, tgt, beads, "lengths (Gale-Church)")
    else:
        from xlsearch.engine.models.catalog import active_model
        from xlsearch.engine.models.encoder import load_encoder

        encoder = load_encoder(args.model or active_model())
        alignment = align_documents(src, tgt, encoder, config, on_progress=bar)
    if bar:
        bar.close()
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
    keep = not args.skip_flagged
    if args.collection or (args.out and output_format(args.out) != "beads"):
        require_pairs(alignment, keep)
    if args.out:
        n = write_alignment(alignment, args.out, include_flagged=keep)
        print(
            f"wrote {n:,} {'beads' if args.out.suffix in ('.beads', '.align') else 'units'}"
            f" to {args.out}"
        )
    if args.beads:
        write_beads(args.beads, alignment.beads)
        print(f"wrote {len(alignment.beads):,} beads to {args.beads}")
    if args.collection:
        tmx = args.out if args.out and args.out.suffix.lower() == ".tmx" else None
        report = save_to_collection(alignment, args.collection, tmx, keep)
        print(
            f"{report.status} {report.path} in collection {args.collection!r}: "
            f"{report.segments:,} segments"
        )
    if not args.quiet and alignment.flagged:
        print(
            f"{alignment.flagged} low-confidence beads: check them in the app (Align screen)",
            file=sys.stderr,
        )
    return 0
