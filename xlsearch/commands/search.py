"""``xlsearch index``, ``search``, ``sts`` and ``mine``: the vector index and its uses."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from xlsearch.commands import Once
from xlsearch.service.options import MINE_THRESHOLD as DEFAULT_THRESHOLD

KIND_CHOICES = ("auto", "flat", "hnsw", "ivf", "sq8", "ivfpq")
MODE_CHOICES = ("semantic", "lexical", "hybrid", "phrase", "regex")


def register(sub: Any) -> None:
    """Add the index/search/sts/mine commands."""
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
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="search the corpus in any language")
    p.add_argument("query")
    p.add_argument("--lang", action="append", help="target language(s), repeatable or a,b")
    p.add_argument("--k", type=int, default=10, help="number of hits (default 10)")
    p.add_argument("--mode", choices=MODE_CHOICES, default="semantic")
    p.add_argument("--case-sensitive", action="store_true", help="lexical/phrase/regex modes")
    p.add_argument(
        "--collection",
        "-c",
        action=Once,
        help="search one collection (default: all)",
        hint="leave it out to search all collections",
    )
    p.add_argument("--document", type=int, action="append", help="restrict to document id(s)")
    p.add_argument("--model", help="model (default: the active model)")
    p.add_argument(
        "--variants",
        action="store_true",
        help="every matching segment (default: one hit per translation unit, its best one)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per hit")
    p.add_argument(
        "--no-repair",
        action="store_true",
        help="refuse a stale or missing index instead of (re)indexing on the spot",
    )
    p.add_argument(
        "--out",
        help="also write the hits to .tsv (header; columns: rank, score, the --lang "
        "languages, collection, document), .tmx or .xlf (XLIFF 1.2)",
    )
    add_unit_filters(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("sts", help="semantic similarity of two sentences (cosine and 0-5)")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--model", help="model (default: the active model)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_sts)

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
    p.add_argument("--show", type=int, default=20, help="pairs to print (default 20)")
    p.set_defaults(func=cmd_mine)


def add_unit_filters(p: Any) -> None:
    """The translation-unit metadata filters (search, export)."""
    g = p.add_argument_group("memory metadata filters (applied before ranking)")
    g.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a unit field equals VALUE (case-insensitive, * = wildcard): a prop type "
        "(client, project, domain …; x- and :Type dropped), tuid, note, created-by, "
        "changed-by; repeat: different keys must all match, one key = any of its values",
    )
    g.add_argument("--created-after", metavar="DATE", help="created on or after DATE")
    g.add_argument("--created-before", metavar="DATE", help="created before DATE")
    g.add_argument(
        "--changed-after", metavar="DATE", help="last changed (else created) on or after DATE"
    )
    g.add_argument("--changed-before", metavar="DATE", help="last changed before DATE")
    g.add_argument("--created-by", action="append", default=[], metavar="USER", help="creator")
    g.add_argument(
        "--changed-by", action="append", default=[], metavar="USER", help="last changed by"
    )


def unit_filter(args: argparse.Namespace) -> Any:
    """The memory filter of the parsed metadata options (None when none is given)."""
    from xlsearch.service.options import unit_filter as build

    return build(
        args.where,
        created_after=args.created_after,
        created_before=args.created_before,
        changed_after=args.changed_after,
        changed_before=args.changed_before,
        created_by=args.created_by,
        changed_by=args.changed_by,
    )


def _langs(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [x.strip() for v in values for x in v.split(",") if x.strip()]


def _engine(model: str | None = None, **encoder_options: Any) -> Any:
    """The service engine over the user's store; ``model`` (``--model``) for this run."""
    from xlsearch.service.local import LocalEngine

    return LocalEngine(model=model, encoder_options=encoder_options)


def cmd_index(args: argparse.Namespace) -> int:
    """Build or update indexes; embeds only texts without a cached vector."""
    from xlsearch.commands.progress import progress_display

    engine = _engine(args.model, device=args.device, batch_size=args.batch_size)
    engine.encoder()  # a missing model fails before anything else
    names = args.collection or [c.name for c in engine.collections() if c.segments]
    if not names:
        print("nothing to index: import files first (xlsearch import FILE…)", file=sys.stderr)
        return 1
    for name in names:
        with progress_display() as bar:
            st = engine.build_index(name, on_progress=bar, kind=args.kind, rebuild=args.rebuild)
        print(
            f"{name}: {st.vectors:,} vectors ({st.kind}), +{st.added:,} "
            f"-{st.removed:,}{' rebuilt' if st.rebuilt else ''} → {st.folder}"
        )
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    """Print the top hits (text or JSON lines); ``--out`` also writes them to a file."""
    from xlsearch.commands.progress import progress_display
    from xlsearch.service.coverage import mark_unseen
    from xlsearch.service.hits import unit_lines

    langs = _langs(args.lang)
    engine = _engine(args.model)
    needs_model = args.mode in ("semantic", "hybrid")
    with progress_display() as bar:
        if needs_model:
            engine.encoder()  # loaded (or refused) before the search reports progress
        hits = engine.search(
            args.query,
            args.mode,
            langs or (),
            args.collection,
            args.k,
            unit_filter(args) or "",
            variants=args.variants,
            documents=args.document,
            case_sensitive=args.case_sensitive,
            repair=not args.no_repair,
            on_progress=bar,
        )
        why = None if hits else engine.why_no_hits(args.collection, langs or ())
    notice = engine.toy_notice(args.collection) if needs_model else None
    if notice:  # after the search: an unknown collection is an error, not a notice first
        print(f"notice: {notice}", file=sys.stderr)
    unseen: list[str] = []
    if needs_model:
        said = engine.language_notice([*(langs or ()), *(h.lang for h in hits)], [args.query])
        if said is not None:
            unseen = said.unseen
            print(f"notice: {said.text()}", file=sys.stderr)
    if args.out:
        from pathlib import Path

        from xlsearch.service.hits import write_export

        write_export(hits, args.out, langs=langs, table="languages")
        print(f"wrote {len(hits)} hits to {Path(args.out)}", file=sys.stderr)
    if args.json:
        for h in hits:
            print(json.dumps(h.to_dict(), ensure_ascii=False))
        return 0
    if needs_model:
        print(f"model: {engine.model_label()}", file=sys.stderr)
    if not hits:
        print("no hits")
        if why:
            print(f"  ({why})", file=sys.stderr)
    for rank, h in enumerate(hits, 1):
        print(f"{rank:>3}. {h.score:.3f} [{mark_unseen(h.lang, unseen)}] {h.text}")
        copies = f"  [{h.copies} copies]" if h.copies > 1 else ""
        print(f"       {h.collection}:{h.path}{copies}")
        for line in unit_lines(h.unit):
            print(f"       {line}")
        for t in h.aligned:
            print(f"       ↳ {t['lang']}: {t['text']}")
    return 0


def cmd_sts(args: argparse.Namespace) -> int:
    """Print cosine and the 0–5 score (the model's STS calibration, else 5 × clip(cos, 0, 1))."""
    engine = _engine(args.model)
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


def cmd_mine(args: argparse.Namespace) -> int:
    """Mine pairs and print or export them."""
    from xlsearch.commands.progress import progress_display

    if args.out:
        from xlsearch.service.shared import require_output

        require_output(args.out, "pairs.tmx")  # a folder or a read-only place: before mining
    engine = _engine(args.model)
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
        )
    s = engine.mined
    print(
        f"{s['pairs']:,} pairs from {s['src']:,} {args.src} × {s['tgt']:,} {args.tgt} "
        f"segments (margin {args.margin} ≥ {args.threshold}, k={args.k})",
        file=sys.stderr,
    )
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
