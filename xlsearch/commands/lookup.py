"""``xlsearch lookup``: the memory's matches for one segment, or for each line of stdin."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from xlsearch.commands import Once, count_arg, percent_arg


def register(sub: Any) -> None:
    """Add ``lookup``."""
    p = sub.add_parser(
        "lookup",
        help="look a segment up in the translation memory (fuzzy %%, semantic, diff, target)",
        description="CAT-style lookup: the memory's units whose source matches the segment, "
        "ranked by fuzzy % and semantic similarity, with a word diff (wdiff notation: "
        "[-deleted-] {+inserted+}), the stored target, number/tag/placeholder flags and a "
        "separate group of cross-language matches.",
    )
    p.add_argument("segment", nargs="?", help="the source segment to translate")
    p.add_argument(
        "--stdin",
        action="store_true",
        help="read segments from standard input, one a line, and answer each as it comes "
        "(a result block each, blank-line separated; one JSON line each with --json): the "
        "model loads once, for scripts and CAT tool hooks",
    )
    p.add_argument(
        "--stdin-json",
        action="store_true",
        help='with --stdin: each line a JSON object {"segment": "…", "context": "…"} (the '
        'context optional: a PO msgctxt, also taken as "msgctxt"), for a hook that knows each '
        "segment's context",
    )
    p.add_argument("--src", required=True, help="source language of the segment (e.g. en)")
    p.add_argument("--tgt", default="", help="target language (shows the stored target)")
    p.add_argument("--collection", "-c", action=Once, help="the memory (default: all collections)")
    p.add_argument("--k", type=count_arg, default=5, help="matches to show (default 5)")
    p.add_argument("--cross", type=int, default=3, help="cross-language matches (default 3)")
    p.add_argument(
        "--min-fuzzy", type=percent_arg, default=0, help="hide matches below this fuzzy %%"
    )
    p.add_argument(
        "--context",
        "--msgctxt",
        default="",
        metavar="CONTEXT",
        help="the segment's context (a PO msgctxt; with --stdin, every line's): a 100 %% "
        "match stored with it is a 101 %% match and comes first, one stored with another "
        "context or none is 99 %%",
    )
    p.add_argument("--model", help="model (default: the active model)")
    p.add_argument("--fuzzy-only", action="store_true", help="no model: rank by fuzzy %% only")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_lookup)


def cmd_lookup(args: argparse.Namespace) -> int:
    """Print the matches of one segment (or of each line of stdin with ``--stdin``)."""

    from xlsearch.commands.progress import ProgressDisplay as ProgressBar
    from xlsearch.engine.errors import ConfigError
    from xlsearch.service.hits import empty_lookup
    from xlsearch.service.local import LocalEngine
    from xlsearch.service.options import normalize_lang
    from xlsearch.service.shared import split_tags
    from xlsearch.service.types import SegmentCodes

    if args.stdin == (args.segment is not None):
        raise ConfigError(
            "give one segment, or --stdin to read segments one a line",
            hint="xlsearch lookup 'the segment' --src en, or … | xlsearch lookup --stdin --src en",
        )
    src = normalize_lang(args.src) or args.src
    tgt = normalize_lang(args.tgt) or args.tgt
    engine = LocalEngine(model=args.model)
    engine.check_languages(args.collection, src=src, tgt=tgt)
    if not args.fuzzy_only:
        engine.encoder()
        notice = engine.toy_notice(args.collection)
        if notice:
            print(f"notice: {notice}", file=sys.stderr)
        said = engine.language_notice([src, tgt])
        if said is not None:
            print(f"notice: {said.text()}", file=sys.stderr)
    bar = ProgressBar()
    if args.stdin_json and not args.stdin:
        raise ConfigError(
            "--stdin-json reads the segments from standard input",
            hint="… | xlsearch lookup --stdin --stdin-json --src en",
        )
    segments: Iterable[str | tuple[str, str] | _BadLine] = [args.segment]
    if args.stdin:
        segments = _json_lines(_stdin_lines()) if args.stdin_json else _stdin_lines()
    note = ""
    failed = 0
    for n, segment in enumerate(segments):
        if isinstance(segment, _BadLine):  # answered with its error; the next lines go on
            failed += 1
            print(f"error: {segment.message}", file=sys.stderr)
            if args.json:
                bad = {"segment": None, "line": segment.number, "error": segment.message}
                print(json.dumps(bad, ensure_ascii=False))
            else:
                if n:
                    print()
                print(f"error: {segment.message}")
            sys.stdout.flush()
            continue
        context = args.context
        if isinstance(segment, tuple):  # --stdin-json: the line's own context, if it has one
            segment, own = segment
            context = own or context
        if args.stdin and not segment.strip():  # one answer per line, blank ones too
            res = empty_lookup(segment, src, tgt)
        else:
            plain, tags = split_tags(segment)  # inline tags: compared as the memory's codes
            res = engine.lookup(
                plain,
                src,
                tgt,
                args.collection,
                args.k,
                cross=args.cross,
                min_fuzzy=args.min_fuzzy,
                semantic=not args.fuzzy_only,
                on_progress=bar,
                doc_segment=SegmentCodes(len(tags or ()), tags, context),
            )
        if args.stdin and args.json:
            print(json.dumps(res.to_dict(), ensure_ascii=False))
        elif args.json:
            print(json.dumps(res.to_dict(), ensure_ascii=False, indent=1))
        else:
            if n:
                print()
            _print_result(res, tgt)
        if not args.json:
            if res.note and res.note != note:  # once, not for every line of stdin
                print(f"note: {res.note}", file=sys.stderr)
            note = res.note
            print(f"({res.ms:.0f} ms)", file=sys.stderr)
        sys.stdout.flush()  # a hook reading the pipe gets each answer as it is ready
    return 2 if failed else 0


class _BadLine:
    """A line of stdin that cannot be looked up: it gets its error as its answer."""

    def __init__(self, number: int, message: str) -> None:
        self.number, self.message = number, message


def _stdin_lines() -> Iterator[str | _BadLine]:
    """Lines of stdin as they arrive (no read-ahead), without their line ends; a line that
    is not UTF-8 comes as a ``_BadLine`` naming it (a CAT tool's hook keeps one answer per
    line, and the lines after it are still answered)."""
    for number, raw in enumerate(iter(sys.stdin.buffer.readline, b""), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield _BadLine(
                number,
                f"standard input, line {number}: not UTF-8 text ({exc.reason}) (hint: convert "
                "it first, e.g. iconv -f WINDOWS-1252 -t UTF-8)",
            )
            continue
        yield line.removeprefix("\ufeff").rstrip("\r\n")


def _json_lines(lines: Iterable[str | _BadLine]) -> Iterator[tuple[str, str] | _BadLine]:
    """``--stdin-json``: each line's (segment, context); a line that is not such an object
    comes as a ``_BadLine`` naming it."""
    for number, line in enumerate(lines, 1):
        if isinstance(line, _BadLine):
            yield line
            continue
        try:
            item = json.loads(line) if line.strip() else {"segment": ""}
        except json.JSONDecodeError as exc:
            item = exc.msg
        if not isinstance(item, dict) or not isinstance(item.get("segment"), str):
            yield _BadLine(
                number,
                f'standard input, line {number}: not a JSON object with a "segment" string '
                '(hint: {"segment": "_Cancel", "context": "dialog buttons"})',
            )
            continue
        unknown = [k for k in item if k not in _JSON_KEYS]
        contexts = {str(item[k]) for k in ("context", "msgctxt") if item.get(k) not in (None, "")}
        if unknown or len(contexts) > 1:
            what = (
                f"unknown key {', '.join(json.dumps(k) for k in unknown)}"
                if unknown
                else '"context" and "msgctxt" differ'
            )
            yield _BadLine(
                number,
                f"standard input, line {number}: {what} (the keys: "
                '"segment", and "context" or gettext\'s "msgctxt")',
            )
            continue
        yield item["segment"], next(iter(contexts), "")


_JSON_KEYS = ("segment", "context", "msgctxt")
"""The keys of a ``--stdin-json`` line (``msgctxt``: gettext's word for the context)."""


def _print_result(res: Any, tgt: str) -> None:
    """One lookup result as a text block."""
    from xlsearch.service.hits import diff_markup

    if not res.matches and not res.cross:
        print("no matches")
    for rank, m in enumerate(res.matches, 1):
        sem = "" if m.semantic is None else f"  semantic {m.semantic:.2f}"
        copies = f", {m.copies} copies" if m.copies > 1 else ""
        print(f"{rank}. fuzzy {m.fuzzy:3d}%{sem}  score {m.score:.1f}  [{m.collection}{copies}]")
        print(f"   {m.source_lang}: {diff_markup(m.diff) if m.diff else m.source}")
        print(f"   {m.target_lang or tgt or '?'}: {m.target or '(no target)'}")
        if m.original_target:
            print(f"   (memory: {m.original_target})")
        if any(m.contexts):
            where = ", ".join(f"{repr(c) if c else '(none)'} ×{n}" for c, n in m.contexts.items())
            print(f"   context: {where}")
        for flag in m.flags:
            print(f"   ⚠ {flag}")
    if getattr(res, "fragments", None):
        print("fragments your memory translates (to insert; never written for you):")
        for f in res.fragments:
            print(f"   {f.source} → {f.target}  ({f.evidence})")
    if res.cross:
        print("cross-language matches (the memory has the meaning in another language):")
        for m in res.cross:
            print(f" · semantic {m.semantic or 0:.2f}  {m.source_lang}: {m.source}")
            print(f"   {m.target_lang or tgt or '?'}: {m.target or '(no target)'}")
