"""``xlsearch search``: search the corpus in any language; the memory metadata filters."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from xlsearch.commands import Once, local_engine

MODE_CHOICES = ("semantic", "lexical", "hybrid", "phrase", "regex")


def register(sub: Any) -> None:
    """Add ``search``."""
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


def cmd_search(args: argparse.Namespace) -> int:
    """Print the top hits (text or JSON lines); ``--out`` also writes them to a file."""
    from xlsearch.commands.progress import progress_display
    from xlsearch.service.coverage import mark_unseen
    from xlsearch.service.hits import unit_lines

    langs = _langs(args.lang)
    engine = local_engine(args.model)
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
