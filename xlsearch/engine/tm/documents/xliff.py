"""XLIFF 1.2 and 2.x documents to translate: read segments, write chosen targets back.

The whole tree is kept (lxml, entities and network off) so saving changes only the targets
xlsearch set and the match records next to them; everything else round-trips.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from xlsearch.engine.errors import DataError
from xlsearch.engine.importers.base import marked_own
from xlsearch.engine.importers.xliff import unit_context
from xlsearch.engine.lang.sentences import gap_after
from xlsearch.engine.tm.documents.confirmation import (
    confirmed_12,
    confirmed_20,
    unit_state_12,
    write_memoq_status,
)
from xlsearch.engine.tm.documents.tags import local_name, set_target
from xlsearch.engine.tm.documents.xliff_text import (
    child_element,
    element_text,
    namespace_of,
    tag_places,
)

NS12 = "urn:oasis:names:tc:xliff:document:1.2"
NS20 = "urn:oasis:names:tc:xliff:document:2.0"
NS_MTC = "urn:oasis:names:tc:xliff:matches:2.0"
NS_SDL = "http://sdl.com/FileTypes/SdlXliff/1.0"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def _parse(path: Path) -> Any:
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_blank_text=False)
    try:
        return etree.parse(str(path), parser)
    except etree.XMLSyntaxError as exc:
        line = exc.lineno or (exc.position[0] if exc.position else 0)
        from xlsearch.engine.importers.xmlutil import MALFORMED_HINT

        raise DataError(f"{path}:{line}: malformed XML: {exc.msg}", hint=MALFORMED_HINT) from exc
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc}") from exc


def load(path: Path, split: bool = True) -> Any:
    """Read an XLIFF 1.2 or 2.x file into a ``Document``. ``split``: split untranslated
    units of several sentences now (``xliff_segment``); else they stay whole until
    :func:`split_segment` splits one (an analysis does where the whole unit has no match)."""
    from xlsearch.engine.importers.base import normalize_lang
    from xlsearch.engine.tm.documents.document import Document
    from xlsearch.engine.tm.documents.xliff_segment import segment20

    tree = _parse(path)
    root = tree.getroot()
    if local_name(root.tag) != "xliff":
        raise DataError(f"{path}: not an XLIFF file (root <{local_name(root.tag)}>)")
    ns = namespace_of(root)
    segs: list[Any] = []
    resegmented: list[Any] = []
    untranslatable: list[str] = []
    src = tgt = ""
    if root.get("version", "").startswith("2") or ns == NS20:
        src, tgt = root.get("srcLang", ""), root.get("trgLang", "")
        for unit in root.iter(f"{{{ns}}}unit" if ns else "unit"):
            if not _translatable(unit):
                untranslatable += _sources(unit)
                continue
            if split:
                found = segment20(unit, src)  # several sentences in one segment: split
                if found is not None:
                    resegmented.append(found)
            segs += _segments20(unit, len(segs), untranslatable)
    else:
        for file in root.iter(f"{{{ns}}}file" if ns else "file"):
            src = src or file.get("source-language", "")
            tgt = tgt or file.get("target-language", "")
            for tu in file.iter(f"{{{ns}}}trans-unit" if ns else "trans-unit"):
                if not _translatable(tu):
                    untranslatable += _sources(tu)
                    continue
                lang = file.get("source-language", "") or src
                segs.extend(_units12(tu, len(segs), lang, split))
    if not segs:
        if untranslatable:
            raise DataError(
                f"{path}: nothing to translate: all {len(untranslatable)} segments are marked "
                'translate="no"'
            )
        raise DataError(f"{path}: no translatable segments (no trans-unit / unit)")
    langs = normalize_lang(src) or "", normalize_lang(tgt) or ""
    doc = Document(path, "xliff", *langs, segs, tree, resegmented)
    doc.untranslatable = untranslatable
    doc.written_as = _written_as(path)
    return doc


def _written_as(path: Path) -> tuple[bool, bool, bytes]:
    """How the file was written, for ``dump`` to write it back so: a UTF-8 BOM (Trados),
    CRLF line ends (Windows tools), and its XML declaration when it declares UTF-8 (an
    XML parser keeps none of them)."""
    import codecs

    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
    bom = head.startswith(codecs.BOM_UTF8)
    body = head[len(codecs.BOM_UTF8) :] if bom else head
    end = body.find(b"\n")
    crlf = end > 0 and body[end - 1 : end] == b"\r"
    m = re.match(rb"<\?xml[^>]*\?>\s*", body)  # with what follows it up to the root
    utf8 = m is not None and re.search(rb"""encoding\s*=\s*["']utf-?8["']""", m.group(), re.I)
    return bom, crlf, m.group() if m and utf8 else b""


def _as_written(doc: Any, data: bytes) -> bytes:
    """``data`` (lxml's UTF-8 serialisation) with the file's own BOM, line ends and XML
    declaration (``_written_as``): only the units that changed differ."""
    import codecs

    bom, crlf, declaration = doc.written_as
    if declaration:
        data = re.sub(rb"^<\?xml[^>]*\?>\s*", lambda _m: declaration, data, count=1)
    if crlf:  # a parser reads CRLF as LF: the text is the same, the file as it was
        data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    return codecs.BOM_UTF8 + data if bom else data


def _sources(unit: Any) -> list[str]:
    """The source text of each segment of a unit not to translate (2.x: its segments; 1.2:
    the trans-unit), for the analysis' count — the import counts them the same way."""
    if local_name(unit.tag) == "unit":
        segs = [s for s in unit if local_name(s.tag) == "segment"]
        sources = [child_element(s, "source") for s in segs]
    else:
        sources = [child_element(unit, "source")]
    return [element_text(s)[0] if s is not None else "" for s in sources] or [""]


def _segments20(unit: Any, start: int, untranslatable: list[str] | None = None) -> list[Any]:
    """The ``DocSegment``s of a 2.x unit, numbered from ``start``; a segment whose whole
    source is marked ``translate="no"`` (an ``mrk``) goes to ``untranslatable``."""
    from xlsearch.engine.tm.documents.document import DocSegment

    out: list[Any] = []
    for seg in list(unit):
        if local_name(seg.tag) != "segment":
            continue
        source = child_element(seg, "source")
        if source is None:
            continue
        text, tags = element_text(source)
        if untranslatable is not None and text and _all_protected(source):
            untranslatable.append(text)
            continue
        target = child_element(seg, "target")
        key = unit.get("id", "") + (f"/{seg.get('id')}" if seg.get("id") else "")
        target_text = element_text(target)[0] if target is not None else ""
        out.append(
            DocSegment(
                start + len(out),
                key,
                text,
                target_text,
                seg.get("state", ""),
                tags,
                source_tags=tag_places(source, text, tags),
                confirmed=confirmed_20(seg, target_text),
                ref=seg,
                context=unit_context(unit),
                context_is_key=False,
            )
        )
    return out


def _all_protected(source: Any) -> bool:
    """Whether all of a 2.x source's text lies inside ``<mrk translate="no">`` (a term, a
    code sample the translator must leave as it is: nothing to translate)."""
    free = [source.text or ""]
    for child in source:
        if not (local_name(child.tag) == "mrk" and child.get("translate") == "no"):
            free.append(element_text(child)[0])
        free.append(child.tail or "")
    return not "".join(free).strip()


def split_segment(doc: Any, index: int) -> list[Any] | None:
    """Split segment ``index`` of ``doc`` (a whole unit, untranslated, several sentences)
    into one segment a sentence, as a CAT tool does on import (``xliff_segment``): the new
    ``DocSegment``s, numbered from ``index``, or None when it stays whole."""
    from xlsearch.engine.tm.documents.xliff_segment import segment12, segment20

    seg = doc.segments[index]
    if seg.target.strip() or seg.locked:
        return None
    if isinstance(seg.ref, tuple):  # 1.2: a trans-unit without seg-source
        tu, mid = seg.ref
        if mid is not None or child_element(tu, "seg-source") is not None:
            return None
        if segment12(tu, doc.src) is None:
            return None
        return _units12(tu, index, doc.src, False)
    unit = seg.ref.getparent()
    found = segment20(unit, doc.src) if unit is not None else None
    if found is None:
        return None
    doc.resegmented.append(found)
    return _segments20(unit, index)


def _translatable(tu: Any) -> bool:
    """``translate`` of the unit, else of its nearest ``group`` (2.0: or ``file``) that says."""
    for elem in (tu, *tu.iterancestors()):
        if elem.get("translate") in ("yes", "no"):
            return elem.get("translate") == "yes"
        if local_name(elem.tag) == "file":
            break
    return True


def _units12(tu: Any, start: int, lang: str = "", split: bool = True) -> list[Any]:
    """The segments of one 1.2 trans-unit: one, or one per ``seg-source`` ``mrk`` — which an
    untranslated paragraph unit gets with ``split``, one a sentence, as a CAT tool segments
    it on import (``xliff_segment``; written to the file only with a target)."""
    from xlsearch.engine.tm.documents.document import DocSegment

    target = child_element(tu, "target")
    state = target.get("state", "") if target is not None else ""
    seg_source = child_element(tu, "seg-source")
    if split and seg_source is None and (target is None or not element_text(target)[0]):
        from xlsearch.engine.tm.documents.xliff_segment import segment12

        seg_source = segment12(tu, lang)
    tid = tu.get("id", "")
    locked = _locked(tu)
    if seg_source is not None:
        marks = [
            m for m in seg_source.iter() if local_name(m.tag) == "mrk" and m.get("mtype") == "seg"
        ]
        if marks:
            tmarks = {}
            if target is not None:
                tmarks = {
                    m.get("mid"): m
                    for m in target.iter()
                    if local_name(m.tag) == "mrk" and m.get("mtype") == "seg"
                }
            out: list[DocSegment] = []
            for m in marks:
                text, tags = element_text(m)
                tm = tmarks.get(m.get("mid"))
                target_text = element_text(tm)[0] if tm is not None else ""
                out.append(
                    DocSegment(
                        start + len(out),
                        f"{tid}/{m.get('mid')}",
                        text,
                        target_text,
                        state,
                        tags,
                        source_tags=tag_places(m, text, tags),
                        locked=locked(m.get("mid")),
                        confirmed=confirmed_12(tu, m.get("mid"), state, target_text),
                        ref=(tu, m.get("mid")),
                        context=unit_context(tu),
                        context_is_key=False,
                    )
                )
            return out
    source = child_element(tu, "source")
    if source is None:
        return []
    text, tags = element_text(source)
    target_text = element_text(target)[0] if target is not None else ""
    return [
        DocSegment(
            start,
            tid,
            text,
            target_text,
            state,
            tags,
            source_tags=tag_places(source, text, tags),
            locked=locked(None),
            confirmed=confirmed_12(tu, None, state, target_text),
            ref=(tu, None),
            context=unit_context(tu),
            context_is_key=False,
        )
    ]


def _locked(tu: Any) -> Any:
    """``mid -> bool``: is that segment of ``tu`` locked (memoQ: the unit; Trados: its
    ``sdl:seg``, any of them for a unit without segments)?"""
    if any(local_name(k) == "locked" and v in ("locked", "true") for k, v in tu.attrib.items()):
        return lambda _mid: True
    ids = {s.get("id") for s in tu.iter(f"{{{NS_SDL}}}seg") if s.get("locked") == "true"}
    return lambda mid: bool(ids) and (mid is None or mid in ids)


def _qualifier(seg: Any) -> str:
    if seg.origin == "edited" and seg.quality is None:
        return ""
    if seg.origin == "semantic":
        return "leveraged-tm"
    return "exact-match" if (seg.quality or 0) >= 100 else "fuzzy-match"


_WEAKEST_FIRST = ("leveraged-tm", "fuzzy-match", "exact-match")


def _unit_qualifier(segs: Sequence[Any]) -> str:
    """A 1.2 target's qualifier is the unit's (``segs``: its segments): that of its weakest
    segment set by xlsearch (one 87 % segment makes the unit a fuzzy match, whatever the
    others are); none while a segment of the unit is still empty (half a target is no match
    of any kind)."""
    if any(not s.target.strip() for s in segs):
        return ""
    found = {_qualifier(s) for s in segs if s.origin}
    return next((q for q in _WEAKEST_FIRST if q in found), "")


def _origin(seg: Any) -> str:
    """Where a match came from: a semantic fill's quality is a cosine × 100, not a fuzzy %,
    and says so (``xlsearch-semantic``) for the translator's CAT tool."""
    return "xlsearch-semantic" if seg.origin == "semantic" else "xlsearch"


def _write12(doc: Any, seg: Any, unit: Sequence[Any]) -> None:
    """Write ``seg``'s target into its 1.2 ``trans-unit``; ``unit``: the segments of that
    unit (its state and qualifier are theirs)."""
    from lxml import etree

    tu, mid = seg.ref
    ns = namespace_of(tu)
    q = (lambda n: f"{{{ns}}}{n}") if ns else (lambda n: n)
    target = child_element(tu, "target")
    if target is None:
        target = _empty_segmented_target(tu, q) if mid is not None else None
        target = etree.Element(q("target")) if target is None else target
        anchor = child_element(tu, "seg-source")
        if anchor is None:  # not ``or``: an lxml element without children is falsy
            anchor = child_element(tu, "source")
        anchor.addnext(target)
        if anchor.tail and anchor.tail.strip() == "":
            target.tail = anchor.tail
    if doc.tgt:
        target.set(XML_LANG, doc.tgt)
    if mid is None:
        set_target(target, seg.target, child_element(tu, "source"), seg.tag_hint)
    else:
        seg_source = child_element(tu, "seg-source")
        source = next(
            (
                m
                for m in (tu if seg_source is None else seg_source).iter()
                if local_name(m.tag) == "mrk" and m.get("mtype") == "seg" and m.get("mid") == mid
            ),
            None,
        )
        marks = [m for m in target.iter() if local_name(m.tag) == "mrk" and m.get("mid") == mid]
        if marks:
            set_target(marks[0], seg.target, source, seg.tag_hint)
            if marks[0].tail:  # no space after a Japanese or Chinese sentence
                marks[0].tail = gap_after(seg.target, marks[0].tail, doc.tgt)
        else:
            mrk = etree.SubElement(target, q("mrk"), mtype="seg", mid=mid)
            set_target(mrk, seg.target, source, seg.tag_hint)
    target.set("state", unit_state_12(unit))
    qualifier = _unit_qualifier(unit)
    if qualifier:
        target.set("state-qualifier", qualifier)
    elif target.get("state-qualifier") in _WEAKEST_FIRST:  # xlsearch's, from an earlier save
        del target.attrib["state-qualifier"]
    _set_sdl_status(tu, mid, seg)
    write_memoq_status(tu, seg)
    for old in [c for c in tu if local_name(c.tag) == "alt-trans" and c.get("mid") == mid]:
        if old.get("origin", "").startswith("xlsearch"):  # saved before in this session
            tu.remove(old)
    if seg.quality is not None and seg.match_source:
        alt = etree.Element(q("alt-trans"), origin=_origin(seg))
        _insert_before_foreign(tu, target, alt)
        alt.set("match-quality", f"{seg.quality:.0f}")
        if mid is not None:
            alt.set("mid", mid)
        etree.SubElement(alt, q("source")).text = seg.match_source
        alt_t = etree.SubElement(alt, q("target"))
        alt_t.text = seg.target
        if doc.tgt:
            alt_t.set(XML_LANG, doc.tgt)
        if seg.repairs:  # the target was fitted to this segment: not the memory's own words
            note = etree.SubElement(alt, q("note"), {"from": "xlsearch"})
            note.text = "; ".join(seg.repairs)


def _empty_segmented_target(tu: Any, q: Any) -> Any:
    """A new target shaped like ``seg-source``: its segments' ``mrk``s empty, what lies
    between them (spaces, inline codes) as it is, so sentences never run together."""
    seg_source = child_element(tu, "seg-source")
    if seg_source is None:
        return None
    target = copy.deepcopy(seg_source)
    target.tag, target.tail = q("target"), None
    target.attrib.clear()
    for mrk in target.iter(q("mrk")):
        if mrk.get("mtype") == "seg":
            for child in list(mrk):
                mrk.remove(child)
            mrk.text = None
    return target


def _set_sdl_status(tu: Any, mid: str | None, seg: Any) -> None:
    """Trados (SDLXLIFF) takes a segment's status from ``sdl:seg``, not from XLIFF ``state``:
    Draft, from a TM (or typed), with the fuzzy % when it is one."""
    for sdl_seg in tu.iter(f"{{{NS_SDL}}}seg"):
        if mid is not None and sdl_seg.get("id") != mid:
            continue
        sdl_seg.set("conf", "Translated" if seg.confirmed else "Draft")
        sdl_seg.set("origin", "interactive" if seg.origin in ("edited", "") else "tm")
        sdl_seg.set("origin-system", "xlsearch")
        if seg.origin == "fuzzy" and seg.quality is not None:
            sdl_seg.set("percent", f"{seg.quality:.0f}")
        elif "percent" in sdl_seg.attrib:
            del sdl_seg.attrib["percent"]
        return


def _insert_before_foreign(tu: Any, target: Any, elem: Any) -> None:
    """Put ``elem`` after ``target`` and its notes/alt-trans but before the elements of other
    namespaces (Trados' ``sdl:seg-defs``), which XLIFF 1.2 wants last in a trans-unit."""
    ns = namespace_of(tu)
    after = False
    for child in tu:
        if child is target:
            after = True
        elif after and isinstance(child.tag, str) and namespace_of(child) != ns:
            child.addprevious(elem)
            if elem.getprevious() is not None and elem.getprevious().tail:
                elem.tail = elem.getprevious().tail
            return
    tu.append(elem)


def written_tags(seg: Any) -> int:
    """How many inline codes ``seg``'s target is saved with (``set_target`` on a scratch
    target, counted as a check of the saved file counts them): an in-app check sees a code
    the save cannot place. -1 when the segment is not an XLIFF one or cannot be read."""
    from lxml import etree

    try:
        if isinstance(seg.ref, tuple):
            tu, mid = seg.ref
            source = child_element(tu, "source")
            if mid is not None:
                seg_source = child_element(tu, "seg-source")
                source = next(
                    (
                        m
                        for m in (tu if seg_source is None else seg_source).iter()
                        if local_name(m.tag) == "mrk" and m.get("mid") == mid
                    ),
                    None,
                )
        else:
            source = child_element(seg.ref, "source")
        scratch = etree.Element("target")
        set_target(scratch, seg.target, source, seg.tag_hint)
        return element_text(scratch)[1]
    except Exception:  # noqa: BLE001 - an odd element: the tag check is skipped
        return -1


def _write20(doc: Any, seg: Any) -> None:
    from lxml import etree

    elem = seg.ref
    ns = namespace_of(elem)
    q = (lambda n: f"{{{ns}}}{n}") if ns else (lambda n: n)
    target = child_element(elem, "target")
    if target is None:
        target = etree.Element(q("target"))
        source = child_element(elem, "source")
        source.addnext(target)
        target.tail = source.tail
    set_target(target, seg.target, child_element(elem, "source"), seg.tag_hint)
    _tighten_ignorable(elem, seg.target, doc.tgt, q)
    elem.set("state", "translated")
    label = seg.origin + (f"-{seg.quality:.0f}" if seg.quality is not None else "")
    if seg.confirmed:  # the translator's own: no xlsearch sub-state
        if marked_own(elem.get("subState")):
            del elem.attrib["subState"]
    else:
        elem.set("subState", f"xlsearch:{label}")
    unit = elem.getparent()
    if seg.quality is not None and seg.match_source and elem.get("id") and unit is not None:
        matches = next((c for c in unit if c.tag == f"{{{NS_MTC}}}matches"), None)
        if matches is None:
            matches = etree.Element(f"{{{NS_MTC}}}matches", nsmap={"mtc": NS_MTC})
            unit.insert(0, matches)
        match = etree.SubElement(matches, f"{{{NS_MTC}}}match", ref=f"#{elem.get('id')}")
        match.set("matchQuality", f"{seg.quality:.2f}")
        match.set("origin", _origin(seg))
        match.set("type", "tm")
        etree.SubElement(match, q("source")).text = seg.match_source
        etree.SubElement(match, q("target")).text = seg.target


def _tighten_ignorable(segment: Any, text: str, lang: str, q: Any) -> None:
    """After a Japanese or Chinese sentence, the spaces of the ``ignorable`` that follows
    it get an empty ``target`` (a merger then writes none), as ``gap_after`` says."""
    from lxml import etree

    nxt = segment.getnext()
    if nxt is None or local_name(nxt.tag) != "ignorable":
        return
    src = child_element(nxt, "source")
    gap = (src.text or "") if src is not None and not len(src) else ""
    if not gap or gap_after(text, gap, lang) == gap:
        return
    tgt = child_element(nxt, "target")
    if tgt is None:
        tgt = etree.SubElement(nxt, q("target"))
    tgt.text = gap_after(text, gap, lang)


def dump(doc: Any) -> bytes:
    """The document's XLIFF with every changed target written. A ``seg-source`` xlsearch
    made is written only for units that got a target: the file is otherwise as it was."""
    from lxml import etree

    units: dict[int, list[Any]] = {}  # a 1.2 unit's segments, gathered once (not per write)
    for seg in doc.segments:
        if isinstance(seg.ref, tuple):
            units.setdefault(id(seg.ref[0]), []).append(seg)
    for seg in doc.segments:
        if not seg.changed:
            continue
        if isinstance(seg.ref, tuple):
            _write12(doc, seg, units[id(seg.ref[0])])
        else:
            _write20(doc, seg)
        seg.changed = False
    _declare_target(doc)
    from xlsearch.engine.tm.documents.xliff_segment import as_loaded

    with as_loaded(doc):  # what xlsearch segmented, unless translated, is written as it was
        return _as_written(doc, etree.tostring(doc.handle, xml_declaration=True, encoding="UTF-8"))


def _declare_target(doc: Any) -> None:
    """Write a target language given by the user (``--tgt``) where the file has none, as the
    targets' ``xml:lang`` already says: CAT tools need it to open the file."""
    if not doc.tgt:
        return
    root = doc.handle.getroot()
    if root.get("version", "").startswith("2") or namespace_of(root) == NS20:
        if not root.get("trgLang"):
            root.set("trgLang", doc.tgt)
        return
    for file in root.iter(f"{{{namespace_of(root)}}}file" if namespace_of(root) else "file"):
        if not file.get("target-language"):
            file.set("target-language", doc.tgt)


def as_xliff2(doc: Any) -> bytes:
    """Any document as a new XLIFF 2.0 file: one unit per segment (id = position), and one
    per further form of a PO plural entry (``u3-1``: ``msgid_plural`` and ``msgstr[1]`` …)."""
    from lxml import etree

    from xlsearch.engine.tm.documents.simple import as_written, po_fit

    root = etree.Element(f"{{{NS20}}}xliff", nsmap={None: NS20, "mtc": NS_MTC})
    root.set("version", "2.0")
    root.set("srcLang", doc.src)
    if doc.tgt:
        root.set("trgLang", doc.tgt)
    file = etree.SubElement(root, f"{{{NS20}}}file", id="f1", original=doc.path.name)
    for seg in doc.segments:
        source, target = as_written(doc, seg, keep_links=False)  # Markdown keeps its markup
        fill = doc.fmt == "po" and seg.changed  # a PO fill: laid out as the PO writer does
        if fill and target:
            target = po_fit(doc, seg, source, target, seg.line_breaks)
        _unit20(doc, file, seg, f"u{seg.index + 1}", source, target)
        if seg.plurals and seg.plural_source:
            forms = _plural_targets(seg)
            for k in range(1, seg.plurals):
                form = forms[k - 1] if k - 1 < len(forms) and seg.target else ""
                if fill and form:
                    form = po_fit(doc, seg, seg.plural_source, form)
                other = replace(seg, source=seg.plural_source, target=form, match_source="")
                other.key = f"{seg.key} (msgstr[{k}])"
                _unit20(doc, file, other, f"u{seg.index + 1}-{k}", other.source, form)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _plural_targets(seg: Any) -> list[str]:
    """A PO plural entry's forms after the first: those pre-translation wrote, else the
    file's own ``msgstr[1]`` …"""
    if seg.plural_targets:
        return list(seg.plural_targets)
    found = getattr(seg.ref, "msgstr_plural", None) or {}
    return [str(found[k]) for k in sorted(found) if k]


def _unit20(doc: Any, file: Any, seg: Any, uid: str, source: str, target: str) -> None:
    """One XLIFF 2.0 unit of ``as_xliff2``: name (a PO msgctxt), location note, segment."""
    from lxml import etree

    from xlsearch.engine.export.xliff import xml_chars

    unit = etree.SubElement(file, f"{{{NS20}}}unit", id=uid)
    if seg.context:  # a PO msgctxt: the unit's name, read back as its context
        unit.set("name", xml_chars(seg.context))
    if seg.key:
        notes = etree.SubElement(unit, f"{{{NS20}}}notes")
        where = xml_chars(seg.key.replace("\x04", ": "))  # gettext's msgctxt separator
        etree.SubElement(notes, f"{{{NS20}}}note", category="location").text = where
    s = etree.SubElement(unit, f"{{{NS20}}}segment", id="s" + uid[1:])
    etree.SubElement(s, f"{{{NS20}}}source").text = source
    if target:
        etree.SubElement(s, f"{{{NS20}}}target").text = target
        if seg.changed or seg.origin:
            _write20(doc, replace(seg, ref=s, target=target))
        else:
            s.set("state", "translated")
