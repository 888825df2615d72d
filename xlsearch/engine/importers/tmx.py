"""TMX 1.4 (and 1.1–1.3) translation memories: one record per ``tuv``, inline codes stripped."""

from __future__ import annotations

from collections.abc import Iterator

from xlsearch.engine.importers.base import (
    ReadContext,
    Record,
    check_text,
    normalize,
    normalize_lang,
)
from xlsearch.engine.importers.xmlutil import child, inline_text, iter_xml

_STARTS = frozenset({"tmx"})
_ENDS = frozenset({"tu", "header"})


def read_tmx(ctx: ReadContext) -> Iterator[Record]:
    """Yield the segments of a TMX file; each ``tu`` is one translation unit.

    Languages come from ``tuv@xml:lang`` (or ``lang``), else ``tu@srclang``; with ``ctx.langs``
    only those languages are kept.
    """
    tu_no = 0
    seen_root = False
    for event, elem, line in iter_xml(ctx, _STARTS, _ENDS):
        if event == "start":
            seen_root = True
            continue
        if not seen_root:
            raise ctx.error(f"not a TMX file (<{elem.tag}> outside <tmx>)", line=line)
        if elem.tag == "header":
            continue
        yield from _tu(ctx, elem, tu_no, line)
        tu_no += 1
    if not seen_root:
        raise ctx.error("not a TMX file (no <tmx> root element)")


def _tu(ctx: ReadContext, tu, tu_no: int, line: int) -> Iterator[Record]:  # type: ignore[no-untyped-def]
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
        text = normalize(inline_text(seg))
        if check_text(ctx, text, None, element=where):
            yield Record(tu_no, lang, text, line, meta)
    if nvar == 0:
        ctx.warn("<tu> without <tuv> skipped", element=f"tu {tu_no + 1}, line {line}")
