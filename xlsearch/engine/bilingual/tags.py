"""Tag transfer: put the source's inline tags into a plain-text target taken from the memory.

The memory stores segments as plain text, so a match's target has no tags; a CAT tool then
reports the source's tags as missing. Before a target is written back, the tags whose place
in the target is clear are transferred, as CAT tools do for matches:

* a paired tag around text (XLIFF 1.2 ``g``, 2.x ``pc``; begin/end codes ``bpt``/``ept``,
  ``bx``/``ex``, ``sc``/``ec`` with only text between them) wraps the same text in the
  target when it occurs there exactly once (a product name, a UI label, a number);
* a code at the very start or end of the source goes to the start or end of the target.

Anything else (a tag around translated words, a code inside the sentence) stays out: a
wrong place is worse than a missing tag, which the translator's CAT tool shows.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

_TEXT_TAGS = frozenset({"g", "pc"})
_BEGIN = frozenset({"bpt", "bx", "sc"})
_END = frozenset({"ept", "ex", "ec"})
_CODES = frozenset({"bpt", "ept", "ph", "it", "ut", "x", "bx", "ex", "sc", "ec"})


def _local(tag: Any) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


@dataclass
class _Wrap:
    """Source text ``inner`` between ``open`` and ``close`` (``close`` None: ``open`` is a
    paired element whose text is ``inner``)."""

    inner: str
    open: Any
    close: Any = None


def _shell(elem: Any) -> Any:
    """A copy of ``elem`` without its tail (its children kept: a code's native content)."""
    out = copy.deepcopy(elem)
    out.tail = None
    return out


def _plan(source: Any) -> tuple[list[Any], list[_Wrap], list[Any]]:
    """(codes at the start, wraps, codes at the end) of a source element's top level."""
    kids = [c for c in source if isinstance(c.tag, str)]
    lead: list[Any] = []
    trail: list[Any] = []
    if kids and not (source.text or "").strip():
        for c in kids:
            if _local(c.tag) in _CODES and _local(c.tag) not in _BEGIN | _END:
                lead.append(c)
                if (c.tail or "").strip():
                    break
            else:
                break
    for c in reversed(kids):
        if c in lead or (c.tail or "").strip() or _local(c.tag) not in _CODES:
            break
        if _local(c.tag) in _BEGIN | _END:
            break
        trail.insert(0, c)
    wraps: list[_Wrap] = []
    for i, c in enumerate(kids):
        name = _local(c.tag)
        if name in _TEXT_TAGS and len(c) == 0 and (c.text or "").strip():
            wraps.append(_Wrap(" ".join(c.text.split()), c))
        elif name in _BEGIN and i + 1 < len(kids) and _local(kids[i + 1].tag) in _END:
            if (c.tail or "").strip():
                wraps.append(_Wrap(" ".join(c.tail.split()), c, kids[i + 1]))
    return lead, wraps, trail


def _once(text: str, inner: str) -> int:
    """Where ``inner`` occurs in ``text`` as whole words, if exactly once; else -1."""
    hits = [m.start() for m in re.finditer(rf"(?<!\w){re.escape(inner)}(?!\w)", text)]
    return hits[0] if len(hits) == 1 else -1


def set_target(target: Any, text: str, source: Any | None) -> int:
    """Write ``text`` into ``target`` (replacing its content) with the tags of ``source``
    that have a clear place (module doc); returns how many tags were transferred."""
    for c in list(target):
        target.remove(c)
    target.text = text
    if source is None or not len(source):
        return 0
    lead, wraps, trail = _plan(source)
    spans: list[tuple[int, int, _Wrap]] = []
    for w in wraps:
        at = _once(text, w.inner)
        end = at + len(w.inner)
        if at >= 0 and all(end <= s or at >= e for s, e, _ in spans):
            spans.append((at, end, w))
    spans.sort(key=lambda s: s[0])
    pieces: list[Any] = []  # elements in order, each with its tail text
    target.text = text[: spans[0][0]] if spans else text
    for n, (at, end, w) in enumerate(spans):
        nxt = spans[n + 1][0] if n + 1 < len(spans) else len(text)
        if w.close is None:
            el = _shell(w.open)
            el.text = text[at:end]
            el.tail = text[end:nxt]
            pieces.append(el)
        else:
            opener, closer = _shell(w.open), _shell(w.close)
            opener.tail = text[at:end]
            closer.tail = text[end:nxt]
            pieces.extend([opener, closer])
    for el in pieces:
        target.append(el)
    moved = len(pieces)
    if lead:
        first = target.text
        target.text = None
        for i, code in enumerate(lead):
            target.insert(i, _shell(code))
        lead_last = target[len(lead) - 1]
        lead_last.tail = first
        moved += len(lead)
    for code in trail:
        target.append(_shell(code))
        moved += 1
    return moved
