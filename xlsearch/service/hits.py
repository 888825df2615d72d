"""Writing search hits and mined pairs to a file: the one writer both fronts use.

A hit becomes one unit (its segment plus its aligned translations, score as ``x-score``, the
memory's unit id as ``x-tu``); a mined pair one two-language unit. TMX and XLIFF go through
the engine's export writer (atomic). Hits as TSV have a header: the search screen's columns
(``HIT_COLUMNS``) or, for the command line, one column per language. Mined pairs as TSV are
``src<TAB>tgt`` rows without a header: distillation input.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from xlsearch.service.api import HIT_COLUMNS, Hit, MinedPair
from xlsearch.service.types import JSONDict, LookupMatches

HitTable = Literal["screen", "languages"]


def hit_rows(hits: Sequence[Hit]) -> list[list[str]]:
    """``HIT_COLUMNS`` then one row per hit: its first translation is the one exported (the
    search screen passes each hit with the translation it shows)."""
    rows = [list(HIT_COLUMNS)]
    for rank, hit in enumerate(hits, 1):
        lang, text = next(iter(hit.translations.items()), ("", ""))
        rows.append([str(rank), f"{hit.score:.4f}", hit.lang, hit.text, lang, text, hit.document])
    return rows


def _segments(item: Hit | MinedPair) -> list[tuple[str, str]]:
    if isinstance(item, MinedPair):
        return [(item.src_lang, item.src_text), (item.tgt_lang, item.tgt_text)]
    return [(item.lang, item.text), *item.translations.items()]


def item_languages(items: Sequence[Hit | MinedPair]) -> list[str]:
    """The languages of the items: those every item has first, then the others; each group
    most frequent first."""
    counts = Counter(lang for i in items for lang in dict(_segments(i)))
    ranked = [lang for lang, _ in counts.most_common()]
    return [g for g in ranked if counts[g] == len(items)] + [
        g for g in ranked if counts[g] < len(items)
    ]


def _language_table(hits: Sequence[Hit], langs: Sequence[str]) -> list[list[str]]:
    """Rows ``rank, score, <langs>, collection, document``; a cell is empty where the hit's
    unit lacks that language (``langs`` are BCP 47 prefixes: ``en`` fills from ``en-US``)."""
    from xlsearch.engine.lang.tags import tag_matches

    rows = []
    for rank, h in enumerate(hits, 1):
        texts = {**h.translations, h.lang: h.text}
        cells = [
            texts.get(lang) or next((t for tag, t in texts.items() if tag_matches(lang, tag)), "")
            for lang in langs
        ]
        rows.append([str(rank), f"{h.score:.4f}", *cells, h.collection, h.document])
    return rows


def write_export(
    items: Sequence[Hit | MinedPair],
    path: str | Path,
    fmt: str | None = None,
    *,
    langs: Sequence[str] | None = None,
    table: HitTable = "screen",
) -> int:
    """Write hits and/or mined pairs as TSV, TMX or XLIFF 1.2 (``fmt``, else from the file
    name); returns the items written.

    ``langs``: the languages to write (TSV columns, XLIFF source and target); default: the
    items' own (``item_languages``), TMX then keeps every segment. ``table``: the TSV layout
    of hits, the search screen's columns or one column per language.
    """
    from xlsearch.engine.export.writer import ExportUnit, export_format, write_tsv, write_units

    out = Path(path).expanduser()
    fmt = export_format(out, fmt.lower().lstrip(".") if fmt else None)
    hits_only = bool(items) and all(isinstance(i, Hit) for i in items)
    if fmt == "tsv" and hits_only:
        hits: Sequence[Hit] = items  # type: ignore[assignment]
        if table == "screen":
            rows = hit_rows(hits)
            return write_tsv(out, rows[0], rows[1:])
        cols = list(langs or item_languages(hits))
        header = ["rank", "score", *cols, "collection", "document"]
        return write_tsv(out, header, _language_table(hits, cols))
    if fmt == "tsv" and items and all(isinstance(i, MinedPair) for i in items):
        pairs: Sequence[MinedPair] = items  # type: ignore[assignment]
        two = list(langs or (pairs[0].src_lang, pairs[0].tgt_lang))[:2]
        # distill, import and check read the header's languages and skip its score column
        scored = ((p.src_text, p.tgt_text, f"{p.score:.4f}") for p in pairs)
        return write_tsv(out, [*two, "score"], scored)
    units = []
    for item in items:
        props = {"x-score": f"{item.score:.4f}"}
        if isinstance(item, Hit) and item.tu_id:
            props["x-tu"] = item.tu_id
        units.append(ExportUnit(_segments(item), props))
    chosen = list(langs or item_languages(items))
    if fmt == "tsv" and not langs:  # the languages every item has, else the two most frequent
        counts = Counter(lang for i in items for lang in dict(_segments(i)))
        every = [lang for lang in chosen if counts[lang] == len(items)]
        chosen = every if len(every) >= 2 else [lang for lang, _ in counts.most_common(2)]
    columns: list[str] | None
    if fmt == "tmx":  # a hit keeps every segment; pairs the languages asked for
        columns = None if hits_only or not langs else list(langs)
    else:
        columns = chosen if fmt == "tsv" else chosen[:2]
    return write_units(out, units, fmt, columns)


def unit_lines(unit: JSONDict) -> list[str]:
    """A hit's memory metadata as short display lines (tuid, dates and users, props, notes)."""
    from xlsearch.engine.store.units import unit_lines as lines

    return lines(unit)


def diff_markup(diff: Sequence[tuple[str, str]]) -> str:
    """A match's word diff in wdiff notation: ``[-deleted-] {+inserted+}``."""
    from xlsearch.engine.tm.matching.fuzzy import diff_markup as markup

    return markup(diff)


def empty_lookup(segment: str, src: str, tgt: str) -> LookupMatches:
    """The answer for a blank line of ``lookup --stdin``: no matches (one answer a line)."""
    from xlsearch.engine.tm.matching.matches import LookupResult

    return LookupResult(segment, src, tgt, [], [])
