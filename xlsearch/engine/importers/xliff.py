"""XLIFF 1.2 (``trans-unit``) and 2.x (``unit/segment``) bilingual files: source and target."""

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

_STARTS = frozenset({"xliff", "file"})
# target states meaning "not translated yet" (1.2 state attribute, 2.x segment state)
_UNTRANSLATED = frozenset({"new", "needs-translation", "initial"})
_ENDS = frozenset({"trans-unit", "unit"})


def read_xliff(ctx: ReadContext) -> Iterator[Record]:
    """Yield source and target of every unit; each 1.2 ``trans-unit`` or 2.x ``segment`` is
    one translation unit. Languages: ``file@source-language/target-language`` (1.2),
    ``xliff@srcLang/trgLang`` (2.x), or ``xml:lang`` on source/target. ``alt-trans``
    suggestions are not imported; missing targets are not an error; empty and untranslated
    (``state`` new/needs-translation/initial) targets are skipped with a warning."""
    src = trg = None
    tu_no = 0
    seen_root = False
    for event, elem, line in iter_xml(ctx, _STARTS, _ENDS):
        if event == "start":
            if elem.tag == "xliff":
                seen_root = True
                src, trg = elem.get("srcLang"), elem.get("trgLang")
            else:
                src = elem.get("source-language") or src
                trg = elem.get("target-language") or trg
            continue
        if not seen_root:
            raise ctx.error(f"not an XLIFF file (<{elem.tag}> outside <xliff>)", line=line)
        pairs = [elem] if elem.tag == "trans-unit" else [s for s in elem if s.tag == "segment"]
        for unit in pairs:
            where = f"{elem.tag} {elem.get('id') or tu_no + 1}, line {line}"
            meta = {"unit": elem.get("id")} if elem.get("id") else None
            for part, default in (("source", src), ("target", trg)):
                node = child(unit, part)
                if node is None:
                    continue
                state = node.get("state") or (unit.get("state") if unit is not elem else None)
                if part == "target" and state in _UNTRANSLATED:
                    ctx.warn(f"untranslated target (state={state}) skipped", element=where)
                    continue
                lang = normalize_lang(node.get("lang") or default)
                if ctx.langs and lang not in ctx.langs:
                    continue
                text = normalize(inline_text(node))
                if check_text(ctx, text, None, element=f"{part} of {where}"):
                    yield Record(tu_no, lang, text, line, meta)
            tu_no += 1
    if not seen_root:
        raise ctx.error("not an XLIFF file (no <xliff> root element)")
