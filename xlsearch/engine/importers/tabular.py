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
SCORE_COLUMN = "score"
"""A header cell naming a column of scores, not of a language (``mine --out pairs.tsv``
writes ``en<TAB>de<TAB>score``): its cells are no text."""
NO_TEXT_COLUMNS = frozenset({SCORE_COLUMN, "rank", "collection", "document"})
"""Header cells naming columns that are no text of a language: the score of ``mine --out``,
and the rank, score, collection and document of ``search --out hits.tsv``."""


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


def header_languages(row: list[str]) -> list[str | None] | None:
    """The column languages a header row names (None for a column of ``NO_TEXT_COLUMNS``),
    or None when the row is no header: a cell neither a language tag nor one of those
    names, or fewer than two languages beside them."""
    scores = [c.strip().lower() in NO_TEXT_COLUMNS for c in row]
    tags = [
        None if score else normalize_lang(c) if is_lang_code(c) else None
        for c, score in zip(row, scores, strict=True)
    ]
    if any(not tag and not score for tag, score in zip(tags, scores, strict=True)):
        return None
    named = sum(1 for tag in tags if tag)
    if not named or (any(scores) and named < 2):
        return None
    return tags


def _is_header(row: list[str], langs: list[str] | None) -> bool:
    """Whether ``row`` names the column languages. With ``--lang`` given, only a row of
    those very languages is a header: ``Yes<TAB>Ja`` (Yendang, Japanese) is then data."""
    found = header_languages(row)
    if found is None:
        return False
    tags = [tag for tag in found if tag]
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
    those languages; a ``score``, ``rank``, ``collection`` or ``document`` column, as ``mine``
    and ``search --out`` write, is skipped) wins; else ``ctx.langs``
    (the distillation format: column 1 is the teacher's language, then translations); else
    each cell's language is identified. Rows with another column count are skipped with a
    warning naming the line; blank rows are ignored.
    """
    columns: list[str | None] | None = None
    scores: set[int] = set()  # a header's ``score`` columns: no text
    tu_no = 0
    for number, row in _rows(ctx, delimiter):
        if not any(cell.strip() for cell in row):
            continue
        if columns is None:
            if _is_header(row, ctx.langs):
                columns = header_languages(row)
                scores = {i for i, c in enumerate(row) if c.strip().lower() in NO_TEXT_COLUMNS}
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
            if col in scores:
                continue
            text = normalize(cell)
            if check_text(ctx, text, number):
                yield Record(tu_no, lang, text, number, group=col)
        tu_no += 1
