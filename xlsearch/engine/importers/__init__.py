"""File importers: each turns one file into a stream of ``Record``s (see ``base``)."""

from __future__ import annotations

from collections.abc import Iterator

from xlsearch.engine.importers.base import (
    FORMATS,
    ReadContext,
    Record,
    detect_format,
    langs_option,
    normalize,
    normalize_lang,
)

__all__ = [
    "FORMATS",
    "ReadContext",
    "Record",
    "detect_format",
    "langs_option",
    "normalize",
    "normalize_lang",
    "read_records",
]


def read_records(ctx: ReadContext, fmt: str) -> Iterator[Record]:
    """Stream the records of ``ctx.path`` in format ``fmt`` (one of ``FORMATS``); text
    decoded with the wrong codec is refused or repaired (``mojibake``)."""
    from xlsearch.engine.importers.mojibake import guard

    return guard(ctx, _records(ctx, fmt))


def _records(ctx: ReadContext, fmt: str) -> Iterator[Record]:
    if fmt == "tmx":
        from xlsearch.engine.importers.tmx import read_tmx

        return read_tmx(ctx)
    if fmt == "xliff":
        from xlsearch.engine.importers.xliff import read_xliff

        return read_xliff(ctx)
    if fmt == "po":
        from xlsearch.engine.importers.po import read_po

        return read_po(ctx)
    if fmt in ("tsv", "csv"):
        from xlsearch.engine.importers.tabular import read_tabular

        return read_tabular(ctx, "\t" if fmt == "tsv" else ",")
    if fmt == "jsonl":
        from xlsearch.engine.importers.jsonl import read_jsonl

        return read_jsonl(ctx)
    if fmt in ("markdown", "docx", "html"):
        from xlsearch.engine.importers.document import read_document_records

        return read_document_records(ctx, fmt)
    from xlsearch.engine.importers.text import read_text

    return read_text(ctx)
