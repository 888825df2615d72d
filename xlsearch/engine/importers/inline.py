"""Segment text from TMX/XLIFF inline markup: codes dropped unless they stand for whitespace.

The rule: text of the segment and of text-bearing elements (``g hi mrk pc``) is kept;
native-code elements (TMX/XLIFF 1.2 ``bpt ept ph it ut``; XLIFF 1.2 ``x bx ex``; XLIFF 2.0
``ph sc ec``) are dropped, except that a code standing for whitespace becomes that
whitespace: a line/page break by type (``ctype="lb"``, ``type="lb"``, ``subType="xlf:lb"``),
an ``equiv``/``equiv-text`` of whitespace, or native content that is whitespace, an HTML
line break or block tag (``<br>``, ``</p>``), an RTF ``\\par``/``\\line``/``\\tab``, or a memoQ
``<mq:ch val=" "/>``. Any other code joins its neighbours as written (``<b>S</b>ave`` is
"Save"); so a code between two words keeps them apart only when it stands for whitespace.
``<cp hex="…"/>`` becomes its character. A code that stands for a placeholder of the text
(``<ph>%{email}</ph>``, memoQ's ``mq:rxt``, ``equiv-text="{0}"``: see ``placeholders``)
becomes that placeholder: it is text of the sentence, not a code. ``<sub>`` text inside a
code is not part of the sentence: it is collected separately (the importers make it a unit
of its own).
"""

from __future__ import annotations

import functools
import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

from xlsearch.engine.importers.base import (
    ReadContext,
    Record,
    check_text,
    normalize,
)
from xlsearch.engine.importers.limits import SEGMENT, SKIPPED
from xlsearch.engine.importers.placeholders import PLACEHOLDER_CODES, code_placeholder
from xlsearch.engine.importers.xmlutil import OVER

CODES = frozenset({"bpt", "ept", "ph", "it", "ut", "x", "bx", "ex", "sc", "ec"})
_SKIP = frozenset({"sm", "em"})  # XLIFF 2.0 annotation markers (empty)
_BREAK = frozenset(
    {"lb", "pb", "cb", "x-lb", "x-pb", "x-br", "x-linebreak", "linebreak", "xlf:lb", "xlf:pb"}
)
_TAB = frozenset({"x-tab", "tab", "xlf:tab", "x-tabulator"})
_HTML_BREAK = re.compile(
    r"<\s*/?\s*(?:br|p|div|li|ul|ol|dl|dd|dt|tr|td|th|table|tbody|thead|h[1-6]|hr|"
    r"blockquote|pre|section|article|header|footer|caption|figcaption|address)\b[^>]*>",
    re.IGNORECASE,
)
_RTF_BREAK = re.compile(r"\\(?:par|line|tab|cell|row|sect|page)(?![a-z])")
_MQ_CH = re.compile(r"""<mq:ch\s+val\s*=\s*["']([^"']*)["']\s*/?>""")
_MAX_SUB_DEPTH = 8


def _code_space(node: ET.Element) -> str:
    """The whitespace (or character) a code element stands for, else ""."""
    attrib = node.attrib
    if attrib:
        for attr in ("ctype", "type", "subType"):
            value = attrib.get(attr)
            if value:
                value = value.lower()
                if value in _BREAK:
                    return "\n"
                if value in _TAB:
                    return "\t"
        for attr in ("equiv-text", "equiv"):
            value = attrib.get(attr)
            if value and (value.isspace() or value in ("\\n", "\\t")):
                return "\n" if value == "\\n" else "\t" if value == "\\t" else value
    native = node.text or ""
    if len(node):
        native += "".join(c.tail or "" for c in node)
    return _native_space(native) if native else ""


@functools.lru_cache(maxsize=4096)
def _native_space(native: str) -> str:
    """What a code's native content stands for (cached: the same codes recur)."""
    if native.isspace():
        return native
    native = native.strip()
    unescaped = html.unescape(native)
    if unescaped.isspace():
        return unescaped
    mq = _MQ_CH.fullmatch(native)
    if mq:
        return html.unescape(mq.group(1))
    if _HTML_BREAK.search(native) or _RTF_BREAK.search(native):
        return "\n"
    return ""


def _cp(node: ET.Element) -> str:
    try:
        return chr(int(node.get("hex") or "", 16))
    except (ValueError, OverflowError):
        return ""


MARK = "\ue000"
"""Where an inline code stood, in the text before normalising (``inline_text(tags=…)``)."""
OPEN_CODES = frozenset({"bpt", "bx", "sc"})
CLOSE_CODES = frozenset({"ept", "ex", "ec"})
PAIRED_TEXT = frozenset({"g", "pc"})
"""XLIFF tags around text: an ``open`` and a ``close`` code where they start and end."""


TEXT_CODE = "text"
"""The kind of a code that stands for text: a placeholder (its id is the placeholder's text,
which the segment's text holds from its offset on) or whitespace (its id ``" "``: a line
break ``<ph>&lt;br/&gt;</ph>`` is a space of the text) — kept only with ``keep_xml``, for
an export to write the code back in its place (``segment_text_tags``)."""


def _kind(tag: str) -> str:
    return "open" if tag in OPEN_CODES else "close" if tag in CLOSE_CODES else "ph"


def _tag_id(node: ET.Element, n: int) -> str:
    """The id that pairs a code with the same code on the other side of the unit (TMX
    ``i``/``x``, XLIFF ``rid``/``id``/``startRef``), else its position ``n``."""
    for attr in ("i", "rid", "startRef", "x", "id"):
        value = node.get(attr)
        if value:
            return f"{attr}:{value}" if attr in ("x", "id") else f"i:{value}"
    return f"n:{n}"


def _xml(node: ET.Element) -> str:
    """The element as written, without its tail (the common code without children is
    written directly: ``ET.tostring`` costs ~30 µs a code)."""
    if len(node):
        tail, node.tail = node.tail, None
        try:
            return ET.tostring(node, encoding="unicode")
        finally:
            node.tail = tail
    attrs = "".join(f' {k}="{_escape(v, True)}"' for k, v in node.attrib.items())
    if node.text:
        return f"<{node.tag}{attrs}>{_escape(node.text)}</{node.tag}>"
    return f"<{node.tag}{attrs}/>"


def _escape(value: str, attr: bool = False) -> str:
    """XML escaping with ``str.replace`` (C speed; ``saxutils`` costs more than the rest)."""
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if attr:
        value = value.replace('"', "&quot;").replace("\n", "&#10;").replace("\t", "&#9;")
    return value


def tag_anchors(text: str) -> tuple[str, list[int], list[bool]]:
    """``text`` (normalised, with ``MARK`` where codes stood) without the marks, the offset
    of each mark in it, and whether a space after the mark was dropped (``a <x/> b`` is
    ``a b`` with the code at 2, spaced); a space left doubled or at an edge by a removed mark
    goes, so the text equals the normalised text without codes."""
    pieces = text.split(MARK)
    out = pieces[0]
    offsets: list[int] = []
    spaced: list[bool] = []
    for piece in pieces[1:]:
        offsets.append(len(out))
        drop = piece.startswith(" ") and (not out or out.endswith(" "))
        spaced.append(drop)
        out += piece[1:] if drop else piece
    plain = out.rstrip(" ")
    return plain, [min(o, len(plain)) for o in offsets], spaced


def inline_text(
    elem: ET.Element,
    subs: list[str] | None = None,
    _depth: int = 0,
    tags: list[list[Any]] | None = None,
) -> str:
    """The text of a segment element under the rule above (not yet normalised).

    ``subs`` receives the text of each ``<sub>`` inside a code, in document order. With
    ``tags``, each code that does not stand for whitespace leaves a ``MARK`` in the text and
    its ``[kind, id]`` in ``tags`` (see ``tag_anchors``). Iterative, so absurdly deep
    nesting cannot overflow the stack.
    """
    parts: list[str] = [elem.text or ""]
    stack: list[tuple[ET.Element, bool]] = [(c, False) for c in reversed(elem)]
    while stack:
        node, done = stack.pop()
        if done:  # after the children: this node's tail belongs to its parent's text
            if tags is not None and node.tag in PAIRED_TEXT:
                tags.append(["close", _tag_id(node, len(tags))])
                parts.append(MARK)
            parts.append(node.tail or "")
            continue
        stack.append((node, True))
        tag = node.tag
        if tag in CODES:
            placeholder = code_placeholder(node) if tag in PLACEHOLDER_CODES else ""
            if placeholder:  # text of the sentence (``placeholders``), not a code
                if tags is not None:  # where it stood, for an export (``TEXT_CODE``)
                    tags.append([TEXT_CODE, placeholder, _xml(node)])
                    parts.append(MARK)
                parts.append(placeholder)
                continue
            space = _code_space(node)
            if tags is not None and not space:
                tags.append([_kind(tag), _tag_id(node, len(tags)), _xml(node)])
                space = MARK
            elif tags is not None:  # whitespace of the text, as written (for an export)
                tags.append([TEXT_CODE, " ", _xml(node)])
                parts.append(MARK)
            parts.append(space)
            if subs is not None and _depth < _MAX_SUB_DEPTH:
                subs.extend(inline_text(c, subs, _depth + 1) for c in node if c.tag == "sub")
            continue
        if tag == "cp":
            parts.append(_cp(node))
            continue
        if tag in _SKIP or (tag == "mrk" and node.get("mtype") == "x-sdl-deleted"):
            continue
        if tags is not None and tag in PAIRED_TEXT:
            tags.append(["open", _tag_id(node, len(tags))])
            parts.append(MARK)
        parts.append(node.text or "")
        stack.extend((c, False) for c in reversed(node))
    return "".join(parts)


def sub_records(
    ctx: ReadContext, subs: list[tuple[str | None, list[str]]], first_tu: int, line: int, meta: dict
) -> Iterator[Record]:
    """``<sub>`` texts as units of their own: the k-th sub of every language is unit
    ``first_tu + k``, tied to its parent by ``meta["sub_of"]``."""
    for k in range(max((len(texts) for _, texts in subs), default=0)):
        for lang, texts in subs:
            text = normalize(texts[k]) if k < len(texts) else ""
            if text and check_text(ctx, text, line):
                yield Record(first_tu + k, lang, text, line, meta)


def segment_text(
    ctx: ReadContext, node: ET.Element, where: str, subs: list[str] | None = None
) -> str | None:
    """Normalised text of a segment element, or None (with a warning) when it is empty or
    too long (including text cut while streaming, see ``xmlutil.TEXT_CAP``)."""
    if node.get(OVER):
        ctx.warn(SEGMENT.message() + SKIPPED, element=where)
        return None
    text = normalize(inline_text(node, subs))
    return text if check_text(ctx, text, None, element=where) else None


def segment_text_tags(
    ctx: ReadContext,
    node: ET.Element,
    where: str,
    subs: list[str] | None = None,
    keep_xml: bool = False,
) -> tuple[str | None, list[list[Any]] | None]:
    """``segment_text`` and where the element's inline codes stand in that text, in one pass
    (an import's hot path): ``[[offset, kind, id, spaced], …]`` — ``kind`` ``open``/``close``/
    ``ph``, ``spaced`` 1 when a space followed the code — and, with ``keep_xml`` (TMX), a
    fifth item: the code as written, so an export can put it back. Tags are None without
    codes, or when they cannot be placed exactly. A code standing for a placeholder is text
    of the segment; with ``keep_xml`` it is listed too, as ``[offset, TEXT_CODE, its text,
    spaced, xml]``."""
    if node.get(OVER) or not len(node):
        return segment_text(ctx, node, where, subs), None
    tags: list[list[Any]] = []
    raw = inline_text(node, subs, tags=tags)
    if raw.count(MARK) != len(tags):  # the text itself holds the mark character
        text = segment_text(ctx, node, where, None)
        return text, None
    text = normalize(raw.replace(MARK, ""))
    if not check_text(ctx, text, None, element=where):
        return None, None
    return text, _anchored(raw, text, tags, keep_xml)


def _anchored(raw: str, text: str, tags: list[list[Any]], keep_xml: bool) -> list[list[Any]] | None:
    """``[[offset, kind, id, spaced(, xml)], …]`` for the codes marked in ``raw``; codes of
    placeholders (kind ``TEXT_CODE``) only with ``keep_xml``."""
    if not tags:
        return None
    plain, offsets, spaced = tag_anchors(normalize(raw))
    if plain != text or len(offsets) != len(tags):
        return None
    out = [[o, *t[:2], int(sp)] for o, t, sp in zip(offsets, tags, spaced, strict=True)]
    if keep_xml:
        for entry, tag in zip(out, tags, strict=True):
            if len(tag) > 2:
                entry.append(tag[2])
    else:
        out = [entry for entry in out if entry[1] != TEXT_CODE]
    return out or None


def text_tags(node: Any) -> tuple[str, list[list[Any]] | None]:
    """A segment element's text and its codes' places, as an import stores them
    (``[[offset, kind, id, spaced], …]``; None without codes) — for a document being
    translated, to compare its tags with a memory match's (``analysis``)."""
    tags: list[list[Any]] = []
    raw = inline_text(node, None, tags=tags)
    if raw.count(MARK) != len(tags):
        return normalize(inline_text(node, None)), None
    text = normalize(raw.replace(MARK, ""))
    return text, _anchored(raw, text, tags, False)
