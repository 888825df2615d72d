"""XLIFF 1.2 (``trans-unit``) and 2.x (``unit/segment``) bilingual files: source and target."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Generator, Iterator
from typing import Any

from xlsearch.engine.importers.base import (
    ReadContext,
    Record,
    keep_lang,
    marked_own,
    normalize_lang,
)
from xlsearch.engine.importers.inline import segment_text_tags, sub_records
from xlsearch.engine.importers.xmlutil import OVER, child, iter_xml

_STARTS = frozenset({"xliff", "file", "group"})
# target states meaning "not translated yet" (1.2 state attribute, 2.x segment state)
UNTRANSLATED_STATES = frozenset({"new", "needs-translation", "initial"})
MEMOQ_UNFINISHED = frozenset({"NotStarted", "PartiallyEdited", "Pretranslated"})
"""memoQ ``mq:status`` values of a target that is not a translation (yet): a pre-translated
row is a suggestion until the translator confirms it (memoQ stores confirmed rows only)."""
LEVERAGED = frozenset(
    {
        "exact-match",
        "fuzzy-match",
        "id-match",
        "leveraged-glossary",
        "leveraged-inherited",
        "leveraged-mt",
        "leveraged-repository",
        "leveraged-tm",
        "mt-suggestion",
        "tm-suggestion",
    }
)
"""XLIFF 1.2 ``state-qualifier`` values of a target a tool put there (a memory or MT match):
with a ``needs-review-*`` state it is a pre-translation nobody has reviewed yet."""
DRAFT = "draft: "
"""How ``_pairs`` marks the state of a target that is an unconfirmed pre-translation."""
_ENDS = frozenset({"trans-unit", "unit", "group", "file"})
_CAPPED = frozenset({"source", "target", "seg-source", "note"})


def read_xliff(ctx: ReadContext) -> Iterator[Record]:
    """Yield source and target of every unit; each 1.2 ``trans-unit`` or 2.x ``segment`` is
    one translation unit, and so is each ``<mrk mtype="seg">`` sentence of a 1.2/SDLXLIFF
    ``seg-source``. Languages: ``file@source-language/target-language`` (1.2),
    ``xliff@srcLang/trgLang`` (2.x), or ``xml:lang`` on source/target. ``alt-trans``
    suggestions are not imported; missing targets are not an error; empty and untranslated
    (``state`` new/needs-translation/initial; memoQ ``mq:status`` NotStarted,
    PartiallyEdited or Pretranslated) targets are skipped with a warning, and so are
    unconfirmed pre-translations (1.2 ``needs-review-*`` with a match ``state-qualifier``,
    SDLXLIFF ``conf="Draft"`` from a memory or MT, 2.x xlsearch's ``subState``): a memory
    holds translations, not suggestions a tool wrote (nor xlsearch's own); units
    marked ``translate="no"`` (on the unit, its group or file) are not imported (counted)."""
    src = trg = root_src = root_trg = None
    tu_no = 0
    file_no = 0
    seen_root = False
    no_stack = [False]  # translate="no" inherited from files and groups (nearest says)
    untranslatable = 0
    for event, elem, line in iter_xml(ctx, _STARTS, _ENDS, _CAPPED):
        if event == "start":
            if elem.tag == "xliff":
                seen_root = True
                src = root_src = normalize_lang(elem.get("srcLang"))
                trg = root_trg = normalize_lang(elem.get("trgLang"))
                continue
            if elem.tag == "file":  # its own languages, never the previous file's
                file_no += 1
                src, trg = file_langs(ctx, elem, root_src, root_trg)
            no_stack.append(_says_no(elem, no_stack[-1]))
            continue
        if not seen_root:
            raise ctx.error(f"not an XLIFF file (<{elem.tag}> outside <xliff>)", line=line)
        if elem.tag in ("file", "group"):
            if len(no_stack) > 1:
                no_stack.pop()
            continue
        if _says_no(elem, no_stack[-1]):  # counted as the analysis counts: by segment
            untranslatable += max(sum(1 for s in elem if s.tag == "segment"), 1)
            continue
        untranslatable += _protected(elem)
        tu_no = yield from _unit(ctx, elem, line, tu_no, src, trg, 2 * file_no)
    if not seen_root:
        raise ctx.error("not an XLIFF file (no <xliff> root element)")
    if untranslatable:
        ctx.warn(f'{untranslatable:,} segments marked translate="no" not imported', skip=False)
        ctx.skipped += untranslatable


def _says_no(elem: ET.Element, inherited: bool) -> bool:
    """Whether ``elem`` (file, group, unit) is not to be translated: its own ``translate``
    when it has one (a unit's ``yes`` overrides its file's ``no``), else what it inherits."""
    own = elem.get("translate")
    return own == "no" if own in ("yes", "no") else inherited


def _all_protected(source: ET.Element) -> bool:
    """Whether all of a 2.x source's text lies inside ``<mrk translate="no">``: a term or a
    code sample the translator leaves as it is, nothing to translate."""
    free = [source.text or ""]
    for c in source:
        if not (c.tag == "mrk" and c.get("translate") == "no"):
            free.append("".join(c.itertext()))
        free.append(c.tail or "")
    return not "".join(free).strip() and bool("".join(source.itertext()).strip())


def _protected(unit: ET.Element) -> int:
    """How many of a 2.x unit's segments are wholly marked ``translate="no"``."""
    if unit.tag != "unit":
        return 0
    sources = (child(s, "source") for s in unit if s.tag == "segment")
    return sum(1 for source in sources if source is not None and _all_protected(source))


def _pairs(
    unit: ET.Element,
) -> Iterator[tuple[str, ET.Element | None, ET.Element | None, str | None]]:
    """(label, source, target, target state) of each segment of a unit (2.x: not the
    segments wholly marked ``translate="no"``, see ``_protected``)."""
    if unit.tag == "unit":  # XLIFF 2.x: segments
        for n, seg in enumerate((s for s in unit if s.tag == "segment"), 1):
            source = child(seg, "source")
            if source is not None and _all_protected(source):
                continue
            state = seg.get("state")
            if marked_own(seg.get("subState")):  # its unconfirmed fill
                state = f"{DRAFT}state={state}, subState={seg.get('subState')}"
            yield (
                f"segment {seg.get('id') or n}",
                child(seg, "source"),
                child(seg, "target"),
                state,
            )
        return
    target = child(unit, "target")
    raw = target.get("state") if target is not None else None
    qualifier = target.get("state-qualifier") if target is not None else None
    state = raw
    if raw and raw.startswith("needs-review") and qualifier in LEVERAGED:
        state = f"{DRAFT}state={raw}, {qualifier}"  # a pre-translation not reviewed yet
    seg_source = child(unit, "seg-source")
    marks = _seg_marks(seg_source) if seg_source is not None else []
    if not marks:
        yield "", child(unit, "source"), target, state
        return
    targets = {m.get("mid"): m for m in _seg_marks(target)} if target is not None else {}
    sdl = _sdl_segs(unit)
    for mark in marks:
        mid = mark.get("mid")
        own = state
        if mid in sdl:  # SDLXLIFF: each sentence's own status says, not the unit's state
            conf, origin = sdl[mid]
            draft = conf == "Draft" and origin in SDL_TOOL_ORIGINS
            own = f"{DRAFT}Trados status Draft, origin {origin}" if draft else raw
        yield f"mrk {mid}", mark, targets.get(mid), own


SDL_TOOL_ORIGINS = frozenset(
    {"tm", "mt", "nmt", "adaptive-mt", "auto-propagated", "document-match", "automated-alignment"}
)
"""SDLXLIFF ``sdl:seg origin`` values of a target a tool put there (not the translator): with
status ``Draft`` a pre-translation nobody confirmed (a translator's own draft is kept)."""


def _sdl_segs(unit: ET.Element) -> dict[str | None, tuple[str, str]]:
    """SDLXLIFF ``sdl:seg`` status and origin of each sentence (``mid``) of a unit."""
    defs = child(unit, "seg-defs")
    if defs is None:
        return {}
    return {seg.get("id"): (seg.get("conf") or "", seg.get("origin") or "") for seg in defs}


def _seg_marks(container: ET.Element) -> list[ET.Element]:
    """The ``<mrk mtype="seg">`` sentence segments in a seg-source/target (an over-long
    container marks them all as over-long)."""
    marks = [m for m in container.iter("mrk") if m.get("mtype") == "seg"]
    if container.get(OVER):
        for m in marks:
            m.set(OVER, container.get(OVER) or "1")
    return marks


_KEY_LIKE = re.compile(r"^(?=.*[A-Za-z]{2})(?=.*[._:/])(?![0-9a-fA-F\-]{16,}$)[\w.\-:/]+$")


def unit_context(elem: ET.Element) -> str:
    """Where a unit's string is used, as the file names it: XLIFF 1.2 ``resname``, 2.x
    ``name``, else an ``id`` that reads as a key (``menu.file.open``, ``btn_save``; not
    ``12``, ``tu1`` nor a hash); '' when none."""
    named = elem.get("resname") or elem.get("name")
    if named:
        return named
    uid = elem.get("id") or ""
    return uid if _KEY_LIKE.match(uid) else ""


def _unit(
    ctx: ReadContext,
    elem: ET.Element,
    line: int,
    tu_no: int,
    src: str | None,
    trg: str | None,
    group: int = 0,
) -> Generator[Record, None, int]:
    """The records of one trans-unit/unit (one unit per segment, then ``<sub>`` units);
    returns the next unit number. Sources and targets of a ``<file>`` without a language
    form one group each (``group``, ``group + 1``): one language guess for all."""
    meta: dict[str, Any] | None = {"unit": elem.get("id")} if elem.get("id") else None
    if unit_context(elem):
        meta = {**(meta or {}), "context": unit_context(elem)}
    subs: list[tuple[str | None, list[str]]] = []
    name = f"{elem.tag} {elem.get('id') or tu_no + 1}"
    for label, source, target, state in _pairs(elem):
        where = f"{name}{', ' + label if label else ''}, line {line}"
        mid = label[4:] if label.startswith("mrk ") else None
        info = unit_meta(elem, mid)
        parts = (("source", source, src), ("target", target, trg))
        for side, (part, node, default) in enumerate(parts):
            if node is None:
                continue
            if part == "target" and state in UNTRANSLATED_STATES:
                ctx.warn(f"untranslated target (state={state}) skipped", element=where)
                continue
            if part == "target" and state and state.startswith(DRAFT):
                what = state.removeprefix(DRAFT)
                ctx.warn(f"unconfirmed pre-translation ({what}) skipped", element=where)
                continue
            if part == "target" and elem.get("status") in MEMOQ_UNFINISHED:
                status = elem.get("status")
                ctx.warn(f"unfinished target (memoQ status {status}) skipped", element=where)
                continue
            lang = normalize_lang(node.get("lang")) or default
            if not keep_lang(ctx, lang):
                continue
            found: list[str] = []
            text, tags = segment_text_tags(ctx, node, f"{part} of {where}", found)
            if text:  # tags: where inline tags stood (see inline.py)
                seg_meta = {**(meta or {}), "tags": tags} if tags else meta
                yield Record(tu_no, lang, text, line, seg_meta, group + side, info)
            if found:
                subs.append((lang, found))
        tu_no += 1
    if subs:
        yield from sub_records(ctx, subs, tu_no, line, {**(meta or {}), "sub_of": tu_no - 1})
        tu_no += max(len(texts) for _, texts in subs)
    return tu_no


def file_langs(
    ctx: ReadContext,
    file: Any,
    root_src: str | None,
    root_trg: str | None,
) -> tuple[str | None, str | None]:
    """(source, target) language of one ``<file>``: its own attributes (1.2), else the
    ``<xliff>`` root's (2.x) — never the previous file's. What the file leaves out comes
    from ``--lang`` when exactly one of its tags is not the other side's language;
    otherwise it stays None and is identified (once for the whole file)."""
    src = normalize_lang(file.get("source-language")) or root_src
    trg = normalize_lang(file.get("target-language")) or root_trg
    from xlsearch.engine.lang.tags import tag_matches

    def fill(known: str | None) -> str | None:
        left = [t for t in ctx.langs if not (known and tag_matches(t, known))]
        return left[0] if len(left) == 1 else None

    if trg is None and ctx.langs:
        trg = fill(src)
    if src is None and ctx.langs:
        src = fill(trg)
    return src, trg


# SDLXLIFF <sdl:seg> values and memoQ trans-unit attributes that mean creation/change
_SDL = {
    "created_on": "created",
    "created_by": "created_by",
    "modified_on": "changed",
    "last_modified_by": "changed_by",
}
_MEMOQ = {"lastchangedtimestamp": "changed", "lastchanginguser": "changed_by"}


def unit_meta(unit, mid: str | None = None) -> dict[str, Any] | None:  # type: ignore[no-untyped-def]
    """A unit's metadata (see ``store.units``): its attributes, notes (1.2 ``<note>``, 2.x
    ``<notes><note>``), props (1.2 ``<prop-group><prop>``, 2.x ``<mda:meta>``, SDLXLIFF
    segment confirmation/origin) and the creation/change date and user where SDLXLIFF
    (``<sdl:seg-defs>``; with ``mid``, the ``sdl:seg`` of that ``seg-source`` sentence) or
    memoQ (``mq:lastchangedtimestamp``) record them."""
    attrs = dict(unit.attrib)
    notes: list[dict[str, str]] = []
    props: list[dict[str, str]] = []
    out: dict[str, Any] = {}
    for c in unit:
        if c.tag == "note":
            notes.append({"text": c.text or "", **dict(c.attrib)})
        elif c.tag == "notes":
            notes += [{"text": n.text or "", **dict(n.attrib)} for n in c if n.tag == "note"]
        elif c.tag == "prop-group":
            props += [
                {"type": p.get("prop-type", ""), "text": p.text or ""} for p in c if p.tag == "prop"
            ]
        elif c.tag == "metadata":
            props += [
                {"type": m.get("type", ""), "text": m.text or ""}
                for m in c.iter("meta")
                if m.get("type")
            ]
        elif c.tag == "seg-defs":
            for seg in c:
                if mid is not None and seg.get("id") != mid:
                    continue
                for key in ("conf", "origin"):
                    if seg.get(key):
                        props.append({"type": f"sdl-{key}", "text": seg.get(key)})
                for v in seg:
                    if v.tag == "value" and v.get("key") in _SDL and v.text:
                        out[_SDL[v.get("key")]] = v.text.strip()
    for attr, key in _MEMOQ.items():
        if attrs.get(attr):
            out[key] = attrs[attr]
    if attrs.get("id"):
        out["tuid"] = attrs["id"]
    for key, value in (("attrs", attrs), ("props", props), ("notes", notes)):
        if value:
            out[key] = value
    return out or None
