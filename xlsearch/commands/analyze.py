"""``xlsearch analyze``: a document to translate against the memory (CAT bands, pre-translation
from it)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from xlsearch.commands import Once, percent_arg

XLIFF_SUFFIXES = (".xlf", ".xliff")


def register(sub: Any) -> None:
    """Add ``analyze``."""
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
        "--format",
        choices=("xliff", "po", "text", "docx", "html"),
        help="default: from the extension",
    )
    p.add_argument(
        "--segment",
        choices=("auto", "never", "always"),
        default="auto",
        help="units of several sentences: auto = look each up whole, split into sentences "
        "only where the whole unit has no good match (default); never = keep whole; always "
        "= split all",
    )
    p.add_argument(
        "--encoding",
        help="the file's real encoding (any Python codec, e.g. cp1252) where its PO header "
        "declares another (PO, text, HTML); default: declared, else detected",
    )
    p.add_argument("--report", help="write the report as .md or .json")
    p.add_argument(
        "--out",
        help="write the pre-translated document here (a non-XLIFF document to .xlf: XLIFF 2.0)",
    )
    p.add_argument(
        "--min-fuzzy", type=percent_arg, default=75, help="pre-translate from this %% (75)"
    )
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


def _refuse_overwriting_the_job(document: str, out: str) -> None:
    """A ``ConfigError`` when ``out`` is the job itself: the translator's file would be
    replaced by the pre-translated copy (msgmerge, too, writes over its input only when
    asked with ``-U``)."""
    from xlsearch.engine.errors import ConfigError

    job, target = Path(document).expanduser(), Path(out).expanduser()
    try:
        same = target.exists() and job.exists() and target.samefile(job)
    except OSError:
        same = False
    if same:
        suffix = "".join(job.suffixes[-1:])
        raise ConfigError(
            f"{out} is the job itself: writing there would replace the file you translate",
            hint=f"write to another file, e.g. --out {job.name.removesuffix(suffix)}.pre{suffix}",
        )


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
    from xlsearch.service.shared import require_output, target_languages

    for out, example in ((args.out, "job.xlf"), (args.report, "report.md")):
        if out:
            require_output(out, example)  # a folder or a read-only place: now, not after
            _refuse_overwriting_the_job(args.document, out)
    engine = LocalEngine(model=args.model)
    doc = engine.open_document(
        args.document,
        args.src or "",
        args.tgt or "",
        args.format or "",
        args.segment,
        encoding=args.encoding or "",
    )
    if doc.language_notice:
        print(f"notice: {doc.language_notice}", file=sys.stderr)
    if args.out:
        doc.check_output(args.out)
    if args.out and not doc.tgt:  # else nothing is pre-translated and a copy is written
        others = target_languages(engine, doc.src, args.collection)
        raise ConfigError(
            f"{args.document}: the file does not say its target language, so there is "
            "nothing to pre-translate into",
            hint=f"pass --tgt LANG (e.g. --tgt {others[0] if others else 'fr'}"
            + (f"; your memory has {', '.join(others[:6])})" if others else ")"),
        )
    try:
        engine.check_languages(args.collection, src=doc.src, tgt=doc.tgt)
    except ConfigError as e:  # a language the file names is no option the user gave
        name = Path(args.document).name
        if not args.src:
            e.message = e.message.replace("(--src)", f"({name}'s source language)")
        if not args.tgt:
            e.message = e.message.replace("(--tgt)", f"({name}'s target language)")
        raise
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
            else report.to_markdown(examples=None)  # the file lists every segment
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
        lost = engine.unwritten_segments(doc)  # filled, but their paragraph stays as it was
        n -= lost
        also = f" ({lost} more matched, in paragraphs left as they were: see below)" if lost else ""
        print(f"pre-translated {n} of {len(doc.segments)} segments → {out}{also}", file=sys.stderr)
        drafts = 0 if args.overwrite else engine.drafts_kept(doc)
        if drafts:
            print(  # an unconfirmed draft is the translator's: never replaced unasked
                f"notice: {drafts} segment{'s keep' if drafts > 1 else ' keeps'} the draft "
                "target the file has (not confirmed: "
                + ("a #, fuzzy entry's msgstr" if doc.fmt == "po" else "a draft status or state")
                + f"); --overwrite replaces {'them' if drafts > 1 else 'it'}",
                file=sys.stderr,
            )
        if n and doc.fmt == "docx" and Path(out).suffix.lower() not in XLIFF_SUFFIXES:
            print(  # Word has no review state: a comment on each filled paragraph says it
                f"notice: {out}: its {n} pre-translated sentences are marked by Word comments "
                "(Review ▸ Comments) that say how good each match was",
                file=sys.stderr,
            )
        elif doc.fmt in ("text", "html") and Path(out).suffix.lower() not in XLIFF_SUFFIXES:
            left = len(doc.segments) - n
            rest = f", and the other {left} stay in the source language" if left else ""
            kind = "an HTML page" if doc.fmt == "html" else "a text file"
            if n:
                print(  # a text file or a web page has no place to mark a target for review
                    f"notice: {out}: its {n} pre-translated segments carry no review mark "
                    f"({kind} has none){rest}; for your CAT tool, write XLIFF instead: "
                    f"--out {Path(out).stem}.xlf",
                    file=sys.stderr,
                )
            if doc.fmt == "text" and lost:
                print(  # a link's address is content: never dropped from a sentence
                    f"notice: {out}: translated sentences left in the source language, their "
                    f"links not placeable in the translation: {lost}; --out "
                    f"{Path(out).stem}.xlf keeps the translations for your CAT tool",
                    file=sys.stderr,
                )
            unwritten = engine.unwritten_paragraphs(doc)
            if unwritten:
                print(  # the translation does not hold a link's or a code's words
                    f"notice: {out}: {unwritten} translated paragraphs stay in the source "
                    "language: their links or markup cannot be placed in the translation; "
                    f"--out {Path(out).stem}.xlf keeps them for your CAT tool",
                    file=sys.stderr,
                )
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=1))
    else:
        print(report.to_markdown())
    return 0
