"""``xlsearch index``, ``search``, ``sts`` and ``mine``: the vector index and its uses."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from xlsearch.commands import Once

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
    p.add_argument("--threshold", type=float, default=1.06, help="minimum margin score")
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
    """The ``UnitFilter`` of the parsed metadata options (None when none is given)."""
    from xlsearch.engine.store.units import UnitFilter

    f = UnitFilter.build(
        args.where,
        created_after=args.created_after,
        created_before=args.created_before,
        changed_after=args.changed_after,
        changed_before=args.changed_before,
        created_by=args.created_by,
        changed_by=args.changed_by,
    )
    return f or None


def _langs(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [x.strip() for v in values for x in v.split(",") if x.strip()]


def _why_no_hits(store: Any, collection: str | None, langs: list[str] | None) -> str | None:
    """The plain reason a search found nothing, when there is one: an empty store or
    collection, or ``--lang`` tags that match no stored language (a typo, ``--lang jp``)."""
    from xlsearch.engine.lang.tags import tag_matches

    have = store.languages(collection)
    where = f"collection '{collection}'" if collection else "the store"
    if not have:
        return f"{where} is empty: xlsearch import FILE… --collection NAME"
    if langs and not any(tag_matches(want, tag) for want in langs for tag in have):
        return f"{where} has no segment in {', '.join(langs)}; it has {', '.join(have)}"
    return None


def _encoder(spec: str | None, **kw: Any) -> Any:
    from xlsearch.engine.models.catalog import active_model
    from xlsearch.engine.models.encoder import load_encoder

    return load_encoder(spec or active_model(), **kw)


def cmd_index(args: argparse.Namespace) -> int:
    """Build or update indexes; embeds only texts without a cached vector."""
    from xlsearch.commands.progress import progress_display
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.store import Store

    enc = _encoder(args.model, device=args.device, batch_size=args.batch_size)
    with Store() as store:
        names = args.collection or [c["name"] for c in store.collections() if c["segments"]]
        if not names:
            print("nothing to index: import files first (xlsearch import FILE…)", file=sys.stderr)
            return 1
        for name in names:
            with progress_display() as bar:
                oi = build_index(
                    store, enc, name, kind=args.kind, rebuild=args.rebuild, on_progress=bar
                )
            st = oi.stats
            print(
                f"{name}: {oi.count:,} vectors ({oi.vi.kind}), +{st['added']:,} "
                f"-{st['removed']:,}{' rebuilt' if st['rebuilt'] else ''} → {oi.folder}"
            )
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    """Print the top hits (text or JSON lines); ``--out`` also writes them to a file."""
    from xlsearch.commands.progress import progress_display
    from xlsearch.engine.search.searcher import Searcher, model_label
    from xlsearch.engine.store import Store
    from xlsearch.engine.store.units import unit_lines

    langs = _langs(args.lang)
    with Store() as store, progress_display() as bar:
        needs_model = args.mode in ("semantic", "hybrid")
        enc = _encoder(args.model) if needs_model else None
        searcher = Searcher(store, enc, repair=not args.no_repair, on_progress=bar)
        from xlsearch.engine.tm.fill_policy import print_toy_notice

        print_toy_notice(enc, store, args.collection)
        hits = searcher.search(
            args.query,
            args.k,
            mode=args.mode,
            langs=langs,
            collection=args.collection,
            documents=args.document,
            case_sensitive=args.case_sensitive,
            units=unit_filter(args),
            variants=args.variants,
        )
        why = None if hits else _why_no_hits(store, args.collection, langs)
    if args.out:
        from xlsearch.engine.search.mining import write_hits

        path = write_hits(hits, args.out, langs)
        print(f"wrote {len(hits)} hits to {path}", file=sys.stderr)
    if args.json:
        for h in hits:
            print(json.dumps(h.to_dict(), ensure_ascii=False))
        return 0
    if enc is not None:
        print(f"model: {model_label(enc)}", file=sys.stderr)
    if not hits:
        print("no hits")
        if why:
            print(f"  ({why})", file=sys.stderr)
    for rank, h in enumerate(hits, 1):
        print(f"{rank:>3}. {h.score:.3f} [{h.lang}] {h.text}")
        print(f"       {h.collection}:{h.path}")
        for line in unit_lines(h.unit):
            print(f"       {line}")
        for t in h.translations:
            print(f"       ↳ {t['lang']}: {t['text']}")
    return 0


def cmd_sts(args: argparse.Namespace) -> int:
    """Print cosine and the 0–5 score (the model's STS calibration, else 5 × clip(cos, 0, 1))."""
    from xlsearch.engine.search.searcher import sts

    res = sts(args.a, args.b, _encoder(args.model))
    if args.json:
        print(json.dumps({"cosine": res.cosine, "score": res.score, "calibrated": res.calibrated}))
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
    from xlsearch.engine.search.mining import mine_store, write_pairs
    from xlsearch.engine.store import Store

    enc = _encoder(args.model)
    with Store() as store, progress_display() as bar:
        res = mine_store(
            store,
            enc,
            args.src,
            args.tgt,
            collection=args.collection,
            tgt_collection=args.tgt_collection,
            k=args.k,
            margin=args.margin,
            retrieval=args.retrieval,
            threshold=args.threshold,
            exact=not args.fast,
            on_progress=bar,
        )
    s = res.stats
    print(
        f"{s['pairs']:,} pairs from {s['src']:,} {args.src} × {s['tgt']:,} {args.tgt} "
        f"segments (margin {args.margin} ≥ {args.threshold}, k={args.k})",
        file=sys.stderr,
    )
    if args.out and not res.pairs:
        print(f"nothing written to {args.out} (try a lower --threshold)", file=sys.stderr)
    elif args.out:
        path = write_pairs(res.pairs, args.out, args.src, args.tgt)
        print(f"wrote {len(res.pairs):,} pairs to {path}", file=sys.stderr)
    for p in res.pairs[: args.show]:
        print(f"{p['score']:.4f}\t{p['src_text']}\t{p['tgt_text']}")
    return 0
