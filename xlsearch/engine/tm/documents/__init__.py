"""Documents to translate: XLIFF, PO, text, Markdown and DOCX read into segments, their
targets set, and saved back in their format (``document``: the model; ``formats``: each
format's reader and writer)."""

from __future__ import annotations

from pathlib import Path

from xlsearch.engine.errors import DataError
from xlsearch.engine.tm.documents.document import (
    FORMATS,
    SEGMENT_MODES,
    DocSegment,
    Document,
    detect,
)


def open_document(
    path: str | Path,
    src: str | None = None,
    tgt: str | None = None,
    fmt: str | None = None,
    segment: str = "auto",
    encoding: str | None = None,
) -> Document:
    """Read a document to translate. ``src``/``tgt`` override the file's languages (needed
    for text and DOCX, whose source language is otherwise detected). ``segment``: one of
    ``SEGMENT_MODES`` (``auto`` and ``never`` keep XLIFF units and PO entries whole here).
    ``encoding``: the file's real encoding when its declaration (or the guess) is wrong."""
    if segment not in SEGMENT_MODES:
        raise DataError(
            f"unknown segmentation {segment!r}; choose one of {', '.join(SEGMENT_MODES)}"
        )
    from xlsearch.engine.tm.documents import formats

    p = Path(path).expanduser()
    from xlsearch.engine.runtime.pathcheck import require_file

    require_file(p, "name the document to translate, one file (.xlf, .po, .txt, .md, .docx, .html)")
    kind = detect(p, fmt)
    from xlsearch.engine.importers.limits import check_file, check_segments

    check_file(p)
    doc = formats.load(kind, p, src, encoding)
    check_segments(str(p), [s.source for s in doc.segments])
    _refuse_mojibake(p, doc)
    from xlsearch.engine.importers.base import normalize_lang
    from xlsearch.engine.lang.tags import primary

    asked = normalize_lang(tgt)
    if asked and doc.tgt and primary(asked) != primary(doc.tgt):  # not a file's other language
        raise DataError(
            f"{p}: the file is a job into {doc.tgt}, not {asked}",
            hint=f"leave the target language (--tgt) out: the file's {doc.tgt} is used; or get "
            f"a job file for {asked} from your CAT tool",
        )
    doc.src = normalize_lang(src) or doc.src
    doc.tgt = asked or doc.tgt
    if not doc.segments:  # first: an empty file says no language either
        raise DataError(f"{p}: no segments to translate")
    if not doc.src:
        raise DataError(f"{p}: the file does not say its source language", hint="pass --src")
    doc.language_notice = language_notice(doc, "--src" if src else "the file says so")
    if segment == "always":
        doc.split_all()
    elif segment == "never":
        doc.merge_all()
    return doc


def _refuse_mojibake(path: Path, doc: Document) -> None:
    """A ``DataError`` when the job's text comes out garbled (``importers.mojibake``): a
    file whose declared encoding lies would be translated, and written back, garbled."""
    from xlsearch.engine.importers.mojibake import repaired, shown

    for seg in doc.segments:
        for text in (seg.source, seg.target):
            fixed, real = repaired(text) if text else (text, None)
            if real is None:
                continue
            fix = (
                'make its header say so ("Content-Type: text/plain; charset=UTF-8")'
                if doc.fmt == "po"
                else "save it again in the encoding it declares (UTF-8 is safest)"
            )
            raise DataError(
                f"{path}: the text comes out garbled ({shown(text)} is {shown(fixed)} in "
                f"{real}): the file is not in the encoding it declares",
                hint=fix,
            )


SURE = 0.9
"""A job's text is another language than its source language when identified this surely…"""
EVIDENCE_CHARS = 60
"""…on at least this much text (a few short UI strings are no evidence)."""


def language_notice(doc: Document, origin: str) -> str | None:
    """One line when the job's text plainly reads as another language than ``doc.src`` (set
    by ``origin``: ``--src`` or the file): a memory in ``doc.src`` has no match for any of it,
    and without the line the analysis just says "no match" for every segment."""
    from xlsearch.engine.lang.identify import UNDETERMINED, classify
    from xlsearch.engine.lang.tags import primary

    sample = "\n".join(s.source for s in doc.segments[:200] if not s.locked)[:5000]
    if len(sample) < EVIDENCE_CHARS:
        return None
    lang, prob = classify(sample)
    if lang == UNDETERMINED or prob < SURE or lang == primary(doc.src):
        return None
    return (
        f"{doc.path.name}: its text reads as {lang}, not {doc.src} ({origin}): an {doc.src} "
        f"memory has no match for it; pass --src {lang} if that is its language"
    )


__all__ = [
    "FORMATS",
    "SEGMENT_MODES",
    "DocSegment",
    "Document",
    "detect",
    "language_notice",
    "open_document",
]
