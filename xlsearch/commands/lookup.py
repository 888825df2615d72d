"""``xlsearch lookup``, ``analyze`` and ``serve``: translating with the memory."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from xlsearch.commands import Once


def _count(text: str) -> int:
    """argparse type: a whole number >= 1 (``--k 0`` showed 'no matches')."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _percent(text: str) -> int:
    """argparse type: a fuzzy % 0-100 (``--min-fuzzy 150`` silently filled nothing)."""
    value = int(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"a fuzzy % is 0-100, not {value}")
    return value


def register(sub: Any) -> None:
    """Add the lookup/analyze/serve commands."""
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
    p.add_argument("--src", required=True, help="source language of the segment (e.g. en)")
    p.add_argument("--tgt", default="", help="target language (shows the stored target)")
    p.add_argument("--collection", "-c", action=Once, help="the memory (default: all collections)")
    p.add_argument("--k", type=_count, default=5, help="matches to show (default 5)")
    p.add_argument("--cross", type=int, default=3, help="cross-language matches (default 3)")
    p.add_argument("--min-fuzzy", type=_percent, default=0, help="hide matches below this fuzzy %%")
    p.add_argument("--model", help="model (default: the active model)")
    p.add_argument("--fuzzy-only", action="store_true", help="no model: rank by fuzzy %% only")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_lookup)

    p = sub.add_parser(
        "analyze",
        help="analyse a document against the memory (CAT bands + semantic band), pre-translate",
        description="Segment and word counts per CAT band (100, 95-99, 85-94, 75-84, 50-74, no "
        "match), repetitions, and the semantic band: segments with no fuzzy match >= 75 % "
        "that have a semantic match above --threshold. --out writes the document with the best "
        "match per segment (marked for review); a semantic match is written only where the "
        "model's calibration gives it 95 % precision for the language pair (xlsearch eval "
        "MODEL --calibrate), else it stays a suggestion in the report.",
    )
    p.add_argument("document", help="XLIFF 1.2/2.x, PO, plain text or DOCX")
    p.add_argument("--collection", "-c", action=Once, help="the memory (default: all collections)")
    p.add_argument("--src", help="source language (default: from the file / detected)")
    p.add_argument("--tgt", help="target language (default: from the file)")
    p.add_argument(
        "--format", choices=("xliff", "po", "text", "docx"), help="default: from the extension"
    )
    p.add_argument(
        "--segment",
        choices=("auto", "never", "always"),
        default="auto",
        help="units of several sentences: auto = look each up whole, split into sentences "
        "only where the whole unit has no good match (default); never = keep whole; always "
        "= split all",
    )
    p.add_argument("--report", help="write the report as .md or .json")
    p.add_argument(
        "--out",
        help="write the pre-translated document here (a non-XLIFF document to .xlf: XLIFF 2.0)",
    )
    p.add_argument("--min-fuzzy", type=_percent, default=75, help="pre-translate from this %% (75)")
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="cosine of the semantic band, the suggestions listed (default 0.80)",
    )
    p.add_argument("--no-semantic-fill", action="store_true", help="pre-translate fuzzy only")
    p.add_argument("--overwrite", action="store_true", help="replace existing targets too")
    p.add_argument("--model", help="model (default: the active model)")
    p.add_argument("--fuzzy-only", action="store_true", help="no model (CAT bands only)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--quiet", "-q", action="store_true", help="no progress bars (notices still print)"
    )
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser(
        "serve",
        help="serve the app in a web browser (localhost) and open it",
        description="The same Textual app, served on localhost with textual-serve. Only the "
        "printed address (it holds a fresh key each run) opens it.",
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: this machine only)"
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other machines can reach (anyone there with the address can use "
        "the app as you; plain HTTP)",
    )
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.set_defaults(func=cmd_serve)


XLIFF_SUFFIXES = (".xlf", ".xliff")


def cmd_lookup(args: argparse.Namespace) -> int:
    """Print the matches of one segment (or of each line of stdin with ``--stdin``)."""
    from types import SimpleNamespace

    from xlsearch.commands.progress import ProgressDisplay as ProgressBar
    from xlsearch.engine.errors import ConfigError
    from xlsearch.service.hits import empty_lookup
    from xlsearch.service.local import LocalEngine
    from xlsearch.service.options import normalize_lang
    from xlsearch.service.shared import split_tags

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
    segments = _stdin_lines() if args.stdin else [args.segment]
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
                doc_segment=SimpleNamespace(tags=len(tags or ()), source_tags=tags),
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


def _print_result(res: Any, tgt: str) -> None:
    """One lookup result as a text block."""
    from xlsearch.service.hits import diff_markup

    if not res.matches and not res.cross:
        print("no matches")
    for rank, m in enumerate(res.matches, 1):
        sem = "" if m.semantic is None else f"  semantic {m.semantic:.2f}"
        copies = f", {m.copies} copies" if m.copies > 1 else ""
        print(f"{rank}. fuzzy {m.fuzzy:3d}%{sem}  score {m.score:.1f}  [{m.collection}{copies}]")
        print(f"   {m.source_lang}: {diff_markup(m.diff)}")
        print(f"   {m.target_lang or tgt or '?'}: {m.target or '(no target)'}")
        if m.original_target:
            print(f"   (memory: {m.original_target})")
        for flag in m.flags:
            print(f"   ⚠ {flag}")
    if getattr(res, "fragments", None):
        print("fragments your memory translates (to insert; never written for you):")
        for f in res.fragments:
            print(f"   {f.source} → {f.target}  (×{f.count}, {f.how})")
    if res.cross:
        print("cross-language matches (the memory has the meaning in another language):")
        for m in res.cross:
            print(f" · semantic {m.semantic or 0:.2f}  {m.source_lang}: {m.source}")
            print(f"   {m.target_lang or tgt or '?'}: {m.target or '(no target)'}")


def cmd_analyze(args: argparse.Namespace) -> int:
    """Analyse a document; optionally write the report and the pre-translated document."""
    from xlsearch.commands.progress import NoticeLines
    from xlsearch.commands.progress import ProgressDisplay as ProgressBar
    from xlsearch.engine.errors import ConfigError
    from xlsearch.service.local import LocalEngine

    if args.report and Path(args.report).suffix.lower() not in (
        ".md",
        ".markdown",
        ".txt",
        ".json",
    ):
        raise ConfigError(
            f"{args.report}: the report is written as Markdown or JSON",
            hint="name it report.md or report.json",
        )
    from xlsearch.service.shared import require_output

    for out, example in ((args.out, "job.xlf"), (args.report, "report.md")):
        if out:
            require_output(out, example)  # a folder or a read-only place: now, not after
    engine = LocalEngine(model=args.model)
    doc = engine.open_document(
        args.document, args.src or "", args.tgt or "", args.format or "", args.segment
    )
    if doc.language_notice:
        print(f"notice: {doc.language_notice}", file=sys.stderr)
    if args.out:
        doc.check_output(args.out)
    if args.out and not doc.tgt:  # else nothing is pre-translated and a copy is written
        raise ConfigError(
            f"{args.document}: the file does not say its target language, so there is "
            "nothing to pre-translate into",
            hint="pass --tgt LANG (e.g. --tgt en)",
        )
    engine.check_languages(args.collection, src=doc.src, tgt=doc.tgt)
    if not args.fuzzy_only:
        engine.encoder()
    bar = NoticeLines() if args.quiet else ProgressBar()
    try:
        report = engine.analyze(
            doc,
            args.collection,
            on_progress=bar,
            segment=args.segment,
            threshold=args.threshold,
            semantic=not args.fuzzy_only,
        )
    finally:
        bar.close()
    if args.report:
        path = Path(args.report).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)  # as --out does
        text = (
            json.dumps(report.to_dict(), ensure_ascii=False, indent=1)
            if path.suffix.lower() == ".json"
            else report.to_markdown()
        )
        from xlsearch.service.shared import write_output

        write_output(path, text)
        print(f"report written to {path}", file=sys.stderr)
    if args.out:
        n = engine.pretranslate(
            doc,
            report,
            min_fuzzy=args.min_fuzzy,
            semantic=not args.no_semantic_fill,
            overwrite=args.overwrite,
        )
        out = engine.save_document(doc, args.out)
        print(f"pre-translated {n} of {len(doc.segments)} segments → {out}", file=sys.stderr)
        if n and doc.fmt in ("text", "docx") and Path(out).suffix.lower() not in XLIFF_SUFFIXES:
            left = len(doc.segments) - n
            rest = f", and the other {left} stay in the source language" if left else ""
            print(  # a text or Word file has no place to mark a target for review
                f"notice: {out}: its {n} pre-translated segments carry no review mark (a text "
                f"or Word file has none){rest}; for your CAT tool, write XLIFF instead: "
                f"--out {Path(out).stem}.xlf",
                file=sys.stderr,
            )
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=1))
    else:
        print(report.to_markdown())
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the TUI over HTTP (textual-serve) and open the browser."""
    from xlsearch.tui.serve import serve

    serve(args.host, args.port, open_browser=not args.no_browser, allow_remote=args.allow_remote)
    return 0
