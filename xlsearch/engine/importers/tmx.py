"""TMX 1.4 (and 1.1–1.3) translation memories: one record per ``tuv``; inline codes follow
``inline``'s rule (whitespace codes become whitespace), ``<sub>`` texts become units."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

from xlsearch.engine.importers.base import ReadContext, Record, keep_lang, normalize_lang
from xlsearch.engine.importers.dates import parse_date
from xlsearch.engine.importers.inline import TEXT_CODE, segment_text_tags, sub_records
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
    unit = unit_meta(tu)
    context = _context_prop(unit)
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
        if not keep_lang(ctx, lang):
            continue
        seg = child(tuv, "seg")
        if seg is None:
            ctx.warn("<tuv> without <seg> skipped", element=where)
            continue
        found: list[str] = []
        text, tags = segment_text_tags(ctx, seg, where, found, keep_xml=True)
        if text:
            seg_meta = _annotations(tuv, skip=("lang",))
            codes = [t for t in tags or () if t[1] == TEXT_CODE]  # placeholders' codes
            tags = [t for t in tags or () if t[1] != TEXT_CODE]
            if tags:  # where the inline codes stood: the lookup puts them back into targets
                seg_meta = {**(seg_meta or {}), "tags": tags}
            if codes:  # the placeholders' codes as written, for an export
                seg_meta = {**(seg_meta or {}), "codes": codes}
            if context:  # a PO msgctxt or XLIFF resname exported as a prop: matched on
                seg_meta = {**(seg_meta or {}), "context": context}
            yield Record(tu_no, lang, text, line, seg_meta, unit=unit)
        if found:
            subs.append((lang, found))
    if nvar == 0:
        ctx.warn("<tu> without <tuv> skipped", element=f"tu {tu_no + 1}, line {line}")
    if not subs:
        return 1
    yield from sub_records(ctx, subs, tu_no + 1, line, {**(meta or {}), "sub_of": tu_no})
    return 1 + max(len(texts) for _, texts in subs)


def _attrs(elem, skip: tuple[str, ...] = ()) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """An element's attributes as written (``lang`` back to ``xml:lang``)."""
    return {("xml:lang" if k == "lang" else k): v for k, v in elem.attrib.items() if k not in skip}


def _annotations(elem, skip: tuple[str, ...] = ()) -> dict[str, Any] | None:  # type: ignore[no-untyped-def]
    """``{"attrs", "props", "notes"}`` of a ``tu`` or ``tuv``, exactly as written (None if
    it has none): props and notes keep their order and their own attributes."""
    props, notes = [], []
    for c in elem:
        if c.tag == "prop":
            props.append({"text": c.text or "", **_attrs(c)})
        elif c.tag == "note":
            notes.append({"text": c.text or "", **_attrs(c)})
    out: dict[str, Any] = {}
    attrs = _attrs(elem, skip)
    for key, value in (("attrs", attrs), ("props", props), ("notes", notes)):
        if value:
            out[key] = value
    return out or None


_WHO = (
    ("tuid", "tuid"),
    ("created", "creationdate"),
    ("created_by", "creationid"),
    ("changed", "changedate"),
    ("changed_by", "changeid"),
)


def _context_prop(unit: dict[str, Any] | None) -> str:
    """The unit's context: its ``<prop type="x-context">`` (what xlsearch's export writes
    for a PO ``msgctxt`` or an XLIFF ``resname``; the type in any case, ``x-Context`` as
    other tools write it), '' when it has none."""
    for prop in (unit or {}).get("props") or ():
        if str(prop.get("type", "")).lower() == "x-context" and (prop.get("text") or "").strip():
            return str(prop["text"]).strip()
    return ""


def unit_meta(tu) -> dict[str, Any] | None:  # type: ignore[no-untyped-def]
    """A ``tu``'s metadata (see ``store.units``): tuid, creation/change date and user,
    props and notes. Dates and users the ``tu`` does not carry come from its ``tuv``s (as
    OmegaT writes them on the target): the earliest creation, the latest change."""
    meta = _annotations(tu) or {}
    attrs = meta.get("attrs", {})
    for key, attr in _WHO:
        if attrs.get(attr):
            meta[key] = attrs[attr]
    tuvs = [t for t in tu if t.tag == "tuv"]
    if "created" not in meta:
        dated = [t for t in tuvs if parse_date(t.get("creationdate"))]
        if dated:
            first = min(dated, key=lambda t: parse_date(t.get("creationdate")) or "")
            meta["created"] = first.get("creationdate")
            meta.setdefault("created_by", first.get("creationid"))
    if "changed" not in meta:
        dated = [t for t in tuvs if parse_date(t.get("changedate"))]
        if dated:
            last = max(dated, key=lambda t: parse_date(t.get("changedate")) or "")
            meta["changed"] = last.get("changedate")
            meta.setdefault("changed_by", last.get("changeid"))
    return {k: v for k, v in meta.items() if v} or None
