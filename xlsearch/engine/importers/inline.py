"""Segment text from TMX/XLIFF inline markup: codes dropped unless they stand for whitespace.

The rule: text of the segment and of text-bearing elements (``g hi mrk pc``) is kept;
native-code elements (TMX/XLIFF 1.2 ``bpt ept ph it ut``; XLIFF 1.2 ``x bx ex``; XLIFF 2.0
``ph sc ec``) are dropped, except that a code standing for whitespace becomes that
whitespace: a line/page break by type (``ctype="lb"``, ``type="lb"``, ``subType="xlf:lb"``),
an ``equiv``/``equiv-text`` of whitespace, or native content that is whitespace, an HTML
line break or block tag (``<br>``, ``</p>``), an RTF ``\\par``/``\\line``/``\\tab``, or a memoQ
``<mq:ch val=" "/>``. Any other code joins its neighbours as written (``<b>S</b>ave`` is
"Save"); so a code between two words keeps them apart only when it stands for whitespace.
``<cp hex="…"/>`` becomes its character. ``<sub>`` text inside a code is not part of the
sentence: it is collected separately (the importers make it a unit of its own).
"""

from __future__ import annotations

import functools
import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator

from xlsearch.engine.importers.base import (
    MAX_SEGMENT_CHARS,
    ReadContext,
    Record,
    check_text,
    normalize,
)
from xlsearch.engine.importers.xmlutil import OVER, TEXT_CAP

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


def inline_text(elem: ET.Element, subs: list[str] | None = None, _depth: int = 0) -> str:
    """The text of a segment element under the rule above (not yet normalised).

    ``subs`` receives the text of each ``<sub>`` inside a code, in document order.
    Iterative, so absurdly deep nesting cannot overflow the stack.
    """
    parts: list[str] = [elem.text or ""]
    stack: list[tuple[ET.Element, bool]] = [(c, False) for c in reversed(elem)]
    while stack:
        node, done = stack.pop()
        if done:  # after the children: this node's tail belongs to its parent's text
            parts.append(node.tail or "")
            continue
        stack.append((node, True))
        tag = node.tag
        if tag in CODES:
            parts.append(_code_space(node))
            if subs is not None and _depth < _MAX_SUB_DEPTH:
                subs.extend(inline_text(c, subs, _depth + 1) for c in node if c.tag == "sub")
            continue
        if tag == "cp":
            parts.append(_cp(node))
            continue
        if tag in _SKIP or (tag == "mrk" and node.get("mtype") == "x-sdl-deleted"):
            continue
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
        ctx.warn(
            f"segment of more than {TEXT_CAP:,} characters skipped (limit {MAX_SEGMENT_CHARS:,})",
            element=where,
        )
        return None
    text = normalize(inline_text(node, subs))
    return text if check_text(ctx, text, None, element=where) else None
