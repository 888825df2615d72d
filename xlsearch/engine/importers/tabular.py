"""TSV/CSV (comma or, as Excel writes it in many locales, semicolon): a header of language
codes, or the distillation format (languages given)."""

from __future__ import annotations

import csv
import itertools
from collections.abc import Iterator

from xlsearch.engine.importers.base import (
    MAX_SEGMENT_CHARS,
    ReadContext,
    Record,
    check_text,
    is_lang_code,
    iter_lines,
    normalize,
    normalize_lang,
)

SNIFF_LINES = 20


def _csv_delimiter(sample: list[str], complete: bool, columns: int | None) -> str:
    """``,``, or ``;`` (the CSV Excel writes in most European locales) when the sample's
    rows split into a steady number of cells by ``;`` but not by ``,`` — that number being
    ``columns`` when the languages are given (``--lang en,de``), else any ≥ 2."""

    def steady(delimiter: str) -> bool:
        try:
            rows = [r for r in csv.reader(sample, delimiter=delimiter) if any(c.strip() for c in r)]
        except csv.Error:  # e.g. a bare CR: the reader proper reports it with its line
            return False
        if not complete and len(rows) > 1:
            rows = rows[:-1]  # perhaps cut inside a quoted field
        counts = {len(r) for r in rows}
        return len(counts) == 1 and (counts == {columns} if columns else min(counts) >= 2)

    return ";" if not steady(",") and steady(";") else ","


def _rows(ctx: ReadContext, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    lines = iter_lines(ctx)
    if delimiter == ",":
        head = list(itertools.islice(lines, SNIFF_LINES))
        columns = len(ctx.langs) if ctx.langs else None
        delimiter = _csv_delimiter([line for _, line in head], len(head) < SNIFF_LINES, columns)
        lines = itertools.chain(head, lines)
    if delimiter == "\t":
        for number, line in lines:
            yield number, line.split("\t")
        return
    state = {"line": 0}

    def feed() -> Iterator[str]:
        for number, line in lines:
            state["line"] = number
            yield line + "\n"

    # long fields reach check_text (a warning) instead of failing the whole file
    csv.field_size_limit(max(csv.field_size_limit(), 16 * MAX_SEGMENT_CHARS))
    reader = csv.reader(feed(), delimiter=delimiter)
    try:
        start = 1
        for row in reader:
            yield start, row
            start = state["line"] + 1
    except csv.Error as exc:
        raise ctx.error(f"malformed CSV: {exc}", line=state["line"]) from exc


def _is_header(row: list[str], langs: list[str] | None) -> bool:
    """Whether ``row`` names the column languages. With ``--lang`` given, only a row of
    those very languages is a header: ``Yes<TAB>Ja`` (Yendang, Japanese) is then data."""
    tags = [normalize_lang(c) if is_lang_code(c) else None for c in row]
    if not all(tags):
        return False
    if not langs:
        return True
    from xlsearch.engine.lang.tags import tag_matches

    return all(
        any(tag_matches(want, tag) or tag_matches(tag, want) for want in langs)
        for tag in tags
        if tag
    )


def read_tabular(ctx: ReadContext, delimiter: str = "\t") -> Iterator[Record]:
    """Yield one translation unit per row.

    Column languages: a first row of language codes (``en<TAB>de``; with ``ctx.langs``, of
    those languages) wins; else ``ctx.langs``
    (the distillation format: column 1 is the teacher's language, then translations); else
    each cell's language is identified. Rows with another column count are skipped with a
    warning naming the line; blank rows are ignored.
    """
    columns: list[str | None] | None = None
    tu_no = 0
    for number, row in _rows(ctx, delimiter):
        if not any(cell.strip() for cell in row):
            continue
        if columns is None:
            if _is_header(row, ctx.langs):
                columns = [normalize_lang(c) for c in row]
                continue
            if ctx.langs:
                if len(ctx.langs) != len(row):
                    raise ctx.error(
                        f"{len(row)} columns but {len(ctx.langs)} languages given "
                        f"({','.join(ctx.langs)})",
                        line=number,
                    )
                columns = list(ctx.langs)
            else:
                columns = [None] * len(row)
        if len(row) != len(columns):
            ctx.warn(f"{len(row)} columns instead of {len(columns)}; row skipped", line=number)
            continue
        for col, (lang, cell) in enumerate(zip(columns, row, strict=True)):
            text = normalize(cell)
            if check_text(ctx, text, number):
                yield Record(tu_no, lang, text, number, group=col)
        tu_no += 1
