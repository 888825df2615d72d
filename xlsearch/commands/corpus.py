"""``xlsearch import/collections/delete/export``: the corpus store from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from xlsearch.commands import Once

FORMATS = ("tmx", "xliff", "po", "tsv", "csv", "text", "jsonl", "markdown", "docx", "html")


def register(sub: Any) -> None:
    """Add the corpus commands."""
    p = sub.add_parser(
        "import",
        help="import TMX, XLIFF, PO, TSV/CSV, text, JSONL, Markdown, DOCX or HTML files",
        description="Import files (or every known file under a folder). Re-importing an "
        "unchanged file does nothing; a changed file updates only what changed.",
    )
    p.add_argument("files", nargs="+", type=Path, help="files or folders")
    p.add_argument(
        "--collection", "-c", action=Once, default="default", help="collection (default: default)"
    )
    p.add_argument("--format", choices=FORMATS, help="input format (default: by extension)")
    p.add_argument(
        "--lang",
        help="comma-separated BCP 47 tags: TSV/CSV columns without a header, the language of "
        "every segment (text, JSONL), source,target (PO), or the languages to keep (TMX, "
        "XLIFF; prefixes: en keeps en-GB) — which also name what a file leaves out (an XLIFF "
        "without target-language, a tuv without xml:lang)",
    )
    p.add_argument(
        "--paragraphs", action="store_true", help="text: split paragraphs into sentences"
    )
    p.add_argument(
        "--encoding",
        help="the file's encoding (any Python codec, e.g. cp1252, shift_jis); overrides the "
        "XML declaration or PO header; default: declared, else detected",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="also check each bilingual file's translations (the rule, consistency and language "
        "checks of xlsearch check) and report what they flag; nothing is dropped",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar or warnings")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("collections", help="list collections, or the documents of one")
    p.add_argument("name", nargs="?", help="show this collection's documents")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_collections)

    p = sub.add_parser("delete", help="delete a collection or a document from the store")
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--collection", "-c", help="delete this collection")
    group.add_argument("--document", type=int, help="delete the document with this id")
    p.set_defaults(func=cmd_delete)

    p = sub.add_parser(
        "export", help="export a collection's translation units as TMX, XLIFF or TSV"
    )
    p.add_argument("out", type=Path, help="output file (.tmx, .xlf/.xliff or .tsv)")
    p.add_argument("--collection", "-c", action=Once, help="collection (default: all)")
    p.add_argument(
        "--lang",
        help="comma-separated BCP 47 prefixes (en = en, en-GB, en-US …), first one first: "
        "TSV writes units with the first and any other (columns: those present), TMX units "
        "with at least two of them, XLIFF (source,target) units with both",
    )
    p.add_argument("--format", choices=("tmx", "xliff", "tsv"), help="default: by extension")
    p.add_argument(
        "--xliff-version", choices=("1.2", "2.0"), default="1.2", help="XLIFF (default 1.2)"
    )
    from xlsearch.commands.search import add_unit_filters

    add_unit_filters(p)
    p.set_defaults(func=cmd_export)


def cmd_import(args: argparse.Namespace) -> int:
    """Import files; one line per file, warnings after it; exit 2 if any file failed."""
    from xlsearch.commands import error_line
    from xlsearch.commands.progress import ProgressDisplay as ProgressBar
    from xlsearch.engine.errors import CancelledError, StoreError, XLSearchError
    from xlsearch.service.local import LocalEngine
    from xlsearch.service.options import import_paths

    files = import_paths(args.files)
    if not files:
        from xlsearch.engine.errors import DataError
        from xlsearch.service.options import importable_suffixes

        raise DataError(
            f"{', '.join(map(str, args.files))}: no file to import in this folder",
            hint=f"xlsearch imports {' '.join(importable_suffixes())} (also .gz)",
        )
    failed = 0
    engine = LocalEngine()
    for path in files:
        bar = None if args.quiet else ProgressBar()
        try:
            report = engine.import_file(
                path,
                args.collection,
                args.format,
                args.lang,
                on_progress=bar,
                paragraphs=args.paragraphs,
                encoding=args.encoding,
            )
        except (CancelledError, StoreError):  # the store itself failed: stop here
            raise
        except XLSearchError as exc:
            if bar:
                bar.close()
            print(error_line(exc), file=sys.stderr)
            failed += 1
            continue
        if bar:
            bar.close()
        change = f"+{report.added} -{report.removed}" if report.status != "unchanged" else "="
        print(
            f"{report.status:<9} {report.path}: {change} ({report.segments:,} segments, "
            f"{report.seconds:.1f}s)"
            + (
                f", {report.problem_count} warning{'s' if report.problem_count != 1 else ''}"
                if report.problem_count
                else ""
            )
        )
        if not args.quiet:
            for warning in report.problems[:10]:
                print(f"  warning: {warning}", file=sys.stderr)
            if report.problem_count > 10:
                print(f"  … {report.problem_count - 10} more warnings", file=sys.stderr)
        if args.check:
            _check_imported(engine, path, args.lang)
    return 2 if failed else 0


def _check_imported(engine: Any, path: Path, langs: str | None) -> None:
    """``import --check``: one line of what the checks flag in an imported file."""
    from collections import Counter

    from xlsearch.engine.errors import XLSearchError
    from xlsearch.service.options import langs_option

    given = langs_option(langs) or []
    src, tgt = (given + [None, None])[:2]
    try:
        report = engine.check_files([str(path)], src=src, tgt=tgt, semantic=False)
    except XLSearchError as exc:
        if "no targets to check" not in str(exc.message):  # a monolingual document: no line
            print(f"  check: not checked ({' '.join(str(exc.message).split())})")
        return
    counts = report.counts()
    kinds = Counter(f.kind for f in report.flags if f.severity != "info")
    top = ", ".join(f"{n} {k}" for k, n in kinds.most_common(5))
    print(
        f"  check: {report.checked:,} units, {counts['error']} errors, "
        f"{counts['warning']} warnings"
        + (f" ({top}); xlsearch check {path} lists them" if top else "")
    )


def cmd_collections(args: argparse.Namespace) -> int:
    """Print collections (or one collection's documents)."""
    from xlsearch.service.local import LocalEngine

    engine = LocalEngine()
    if args.name:
        docs = engine.document_rows(args.name)
        if args.json:
            print(json.dumps(docs, ensure_ascii=False, indent=2))
            return 0
        for d in docs:
            langs = ", ".join(f"{k} {v:,}" for k, v in _counts(d["languages"]).items())
            print(f"{d['id']:>5}  {d['format']:<6} {d['segment_count']:>9,}  {d['path']}")
            print(f"{'':>13}{langs}  (imported {d['imported_at']})")
        return 0
    cols = engine.collection_rows()
    if args.json:
        print(json.dumps(cols, ensure_ascii=False, indent=2))
        return 0
    if not cols:
        print("no collections yet: xlsearch import FILE… [--collection NAME]")
        return 0
    print(f"{'collection':<20} {'docs':>5} {'segments':>10}  languages")
    for c in cols:
        counts = _counts(c["languages"])
        langs = ", ".join(f"{k} {v:,}" for k, v in list(counts.items())[:8])
        more = " …" if len(counts) > 8 else ""
        print(f"{c['name']:<20} {c['documents']:>5} {c['segments']:>10,}  {langs}{more}")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    """Delete a collection or a document."""
    from xlsearch.service.local import LocalEngine

    engine = LocalEngine()
    if args.collection:
        print(engine.delete_collection(args.collection))
    else:
        print(engine.delete_document(args.document))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Export translation units of a collection; says what it left out."""
    from xlsearch.commands.progress import progress_display
    from xlsearch.commands.search import unit_filter
    from xlsearch.service.local import LocalEngine
    from xlsearch.service.options import langs_option

    langs = langs_option(args.lang) or None
    units = unit_filter(args)
    with progress_display() as bar:
        report = LocalEngine().export_collection(
            args.out,
            args.collection,
            langs,
            args.format,
            xliff_version=args.xliff_version,
            units=units,
            on_progress=bar,
        )
    print(report.describe())
    return 0


def _counts(value: object) -> dict[str, int]:
    """Segment counts by language, as a row of the store lists them."""
    return value if isinstance(value, dict) else {}
