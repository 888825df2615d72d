"""TMX 1.4 (and 1.1–1.3) translation memories: one record per ``tuv``; inline codes follow
``inline``'s rule (whitespace codes become whitespace), ``<sub>`` texts become units."""

from __future__ import annotations

from collections.abc import Generator, Iterator

from xlsearch.engine.importers.base import ReadContext, Record, normalize_lang
from xlsearch.engine.importers.inline import segment_text, sub_records
from xlsearch.engine.importers.xmlutil import child, iter_xml

_STARTS = frozenset({"tmx"})
_ENDS = frozenset({"tu", "header"})
_CAPPED = frozenset({"seg", "note", "prop"})


def read_tmx(ctx: ReadContext) -> Iterator[Record]:
    """Yield the segments of a TMX file; each ``tu`` is one translation unit.

    Languages come from ``tuv@xml:lang`` (or ``lang``), else ``tu@srclang``; with ``ctx.langs``
    only those languages are kept.
    """
    tu_no = 0
    seen_root = False
    for event, elem, line in iter_xml(ctx, _STARTS, _ENDS, _CAPPED):
        if event == "start":
            seen_root = True
            continue
        if not seen_root:
            raise ctx.error(f"not a TMX file (<{elem.tag}> outside <tmx>)", line=line)
        if elem.tag == "header":
            continue
        tu_no += yield from _tu(ctx, elem, tu_no, line)
    if not seen_root:
        raise ctx.error("not a TMX file (no <tmx> root element)")


def _tu(ctx: ReadContext, tu, tu_no: int, line: int) -> Generator[Record, None, int]:  # type: ignore[no-untyped-def]
    """The records of one ``tu`` (then of its ``<sub>`` units); returns unit numbers used."""
    subs: list[tuple[str | None, list[str]]] = []
    meta = {"tuid": tu.get("tuid")} if tu.get("tuid") else None
    fallback = tu.get("srclang")
    nvar = 0
    for tuv in tu:
        if tuv.tag != "tuv":
            continue
        nvar += 1
        where = f"tu {tu_no + 1}, line {line}"
        tag = tuv.get("lang") or fallback
        lang = normalize_lang(tag)
        if tag and lang is None:
            ctx.warn(f"unreadable language {tag!r}; identifying it", element=where, skip=False)
        if ctx.langs and lang not in ctx.langs:
            continue
        seg = child(tuv, "seg")
        if seg is None:
            ctx.warn("<tuv> without <seg> skipped", element=where)
            continue
        found: list[str] = []
        text = segment_text(ctx, seg, where, found)
        if text:
            yield Record(tu_no, lang, text, line, meta)
        if found:
            subs.append((lang, found))
    if nvar == 0:
        ctx.warn("<tu> without <tuv> skipped", element=f"tu {tu_no + 1}, line {line}")
    if not subs:
        return 1
    yield from sub_records(ctx, subs, tu_no + 1, line, {**(meta or {}), "sub_of": tu_no})
    return 1 + max(len(texts) for _, texts in subs)
