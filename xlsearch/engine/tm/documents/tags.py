"""Tag transfer: put the source's inline tags into a plain-text target taken from the memory.

The memory stores segments as plain text, so a match's target has no tags; a CAT tool then
reports the source's tags as missing. Before a target is written back, the tags whose place
in the target is clear are transferred, as CAT tools do for matches:

* a paired tag around text (XLIFF 1.2 ``g``, 2.x ``pc``; begin/end codes ``bpt``/``ept``,
  ``bx``/``ex``, ``sc``/``ec`` with only text between them) wraps the same text in the
  target when it occurs there exactly once (a product name, a UI label, a number);
* a code at the very start or end of the source goes to the start or end of the target;
* a paired tag around the source's whole text (a bold label) goes around the whole target.

Anything else (a tag around translated words, a code inside the sentence) stays out: a
wrong place is worse than a missing tag, which the translator's CAT tool shows — unless the
memory knows: a TMX memory keeps where its segments' codes stood (``Match.source_tags`` /
``target_tags``), and when the memory's source has the same tags in the same order as the
new source, each tag goes where the memory's target had its counterpart. When the translator
edits that target, ``follow_edit`` carries those places through the edit.

A code that stands for a placeholder (``<ph>{max_size}</ph>``, memoQ's ``mq:rxt``) is text
of the segment, as the import reads it: the target taken from the memory holds the
placeholder as text, and the source's code takes its place there (the k-th code of a
placeholder the k-th occurrence of that text). A target without the placeholder keeps none.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from xlsearch.engine.importers.inline import CLOSE_CODES as _END
from xlsearch.engine.importers.inline import CODES as _CODES
from xlsearch.engine.importers.inline import OPEN_CODES as _BEGIN
from xlsearch.engine.importers.inline import PAIRED_TEXT as _TEXT_TAGS
from xlsearch.engine.importers.placeholders import code_placeholder


def local_name(tag: Any) -> str:
    """An element's tag without its namespace ('' for comments and processing instructions)."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _bare(elem: Any) -> Any:
    """A new element with ``elem``'s tag and attributes only."""
    return elem.makeelement(elem.tag, elem.attrib)


def _clear(elem: Any) -> None:
    for c in list(elem):
        elem.remove(c)
    elem.text = None


@dataclass
class _Wrap:
    """Source text ``inner`` between ``open`` and ``close`` (``close`` None: ``open`` is a
    paired element whose text is ``inner``)."""

    inner: str
    open: Any
    close: Any = None
    whole: bool = False
    """The pair holds the source's whole text: it goes around the whole target."""


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
            if code_placeholder(c):
                break
            if local_name(c.tag) in _CODES and local_name(c.tag) not in _BEGIN | _END:
                lead.append(c)
                if (c.tail or "").strip():
                    break
            else:
                break
    for c in reversed(kids):
        if c in lead or (c.tail or "").strip() or local_name(c.tag) not in _CODES:
            break
        if code_placeholder(c):
            break
        if local_name(c.tag) in _BEGIN | _END:
            break
        trail.insert(0, c)
    wraps: list[_Wrap] = []
    for i, c in enumerate(kids):
        name = local_name(c.tag)
        if name in _TEXT_TAGS and len(c) == 0 and (c.text or "").strip():
            wraps.append(_Wrap(" ".join(c.text.split()), c))
        elif name in _BEGIN and i + 1 < len(kids) and local_name(kids[i + 1].tag) in _END:
            if (c.tail or "").strip():
                wraps.append(_Wrap(" ".join(c.tail.split()), c, kids[i + 1]))
    whole = _whole(source, kids, lead, trail, wraps)
    return lead, [whole] if whole else wraps, trail


def _whole(
    source: Any, kids: list[Any], lead: list[Any], trail: list[Any], wraps: list[_Wrap]
) -> _Wrap | None:
    """The one pair (``g``/``pc``, ``bpt``…``ept``) around all of the source's text, codes
    at the start or end aside: a bold label, a styled line; None when there is none."""
    if len(wraps) != 1:
        return None
    w = wraps[0]
    pair = [w.open] if w.close is None else [w.open, w.close]
    if kids != [*lead, *pair, *trail] or (source.text or "").strip():
        return None
    outside = [c.tail for c in lead] + [(w.close if w.close is not None else w.open).tail]
    outside += [c.tail for c in trail]
    if any((t or "").strip() for t in outside):
        return None
    return _Wrap(w.inner, w.open, w.close, whole=True)


def _once(text: str, inner: str) -> int:
    """Where ``inner`` occurs in ``text`` as whole words, if exactly once; else -1."""
    hits = [m.start() for m in re.finditer(rf"(?<!\w){re.escape(inner)}(?!\w)", text)]
    return hits[0] if len(hits) == 1 else -1


def _events(source: Any) -> list[tuple[str, Any]] | None:
    """The source's inline tags in document order as ``(kind, element)``: a paired text tag
    (``g``/``pc``) gives ``open`` and ``close`` events, begin/end codes ``open``/``close``,
    other codes ``ph``. None when it holds something else with markup (a nested ``mrk``)."""
    out: list[tuple[str, Any]] = []

    def walk(elem: Any) -> bool:
        for c in elem:
            name = local_name(c.tag)
            if name in _TEXT_TAGS:
                out.append(("open", c))
                if not walk(c):
                    return False
                out.append(("close", c))
            elif name in _BEGIN:
                out.append(("open", c))
            elif name in _END:
                out.append(("close", c))
            elif name in _CODES:
                if not code_placeholder(c):  # a placeholder is text (``_placeholders``)
                    out.append(("ph", c))
            elif isinstance(c.tag, str):
                return False
        return True

    return out if walk(source) else None


def _append(container: Any, text: str) -> None:
    if not text:
        return
    if len(container):
        container[-1].tail = (container[-1].tail or "") + text
    else:
        container.text = (container.text or "") + text


def _from_memory(target: Any, text: str, source: Any, hint: tuple[Any, Any]) -> int | None:
    """Place the source's tags where the memory's target had the matching codes: the k-th
    tag of the memory's source is the k-th of this source (same kinds in the same order),
    and the memory's target says where each of its codes stood. None when that does not
    hold (then ``set_target`` places what it can by text)."""
    mem_src, mem_tgt = hint
    events = _events(source)
    if not events or not mem_src or not mem_tgt or len(events) != len(mem_src):
        return None
    if [k for k, _ in events] != [t[1] for t in mem_src]:
        return None
    slot = {(t[1], t[2]): k for k, t in enumerate(mem_src)}  # [offset, kind, id, spaced(, xml)]
    placed: list[tuple[int, str, Any, bool]] = []
    for offset, kind, ident, *rest in mem_tgt:
        k = slot.get((kind, ident))
        if k is None or not 0 <= int(offset) <= len(text):
            return None
        placed.append((int(offset), kind, events[k][1], bool(rest and rest[0])))
    out = target.makeelement(target.tag, {})  # built apart: a failure leaves target as it was
    stack: list[tuple[Any, Any]] = []  # (source element, its copy in the target)
    at = 0
    for offset, kind, elem, spaced in placed:
        here = stack[-1][1] if stack else out
        _append(here, text[at:offset])
        at = offset
        gap = " " if spaced else ""  # "um <x/> Änderungen": a space the text folded away
        if local_name(elem.tag) in _TEXT_TAGS:
            if kind == "open":
                shell = _bare(elem)
                here.append(shell)
                stack.append((elem, shell))
            elif not stack or stack[-1][0] is not elem:
                return None  # crossing tags: no valid placement
            else:
                stack.pop()
                _append(stack[-1][1] if stack else out, gap)
                continue
            _append(stack[-1][1], gap)
        else:
            here.append(_shell(elem))
            _append(here, gap)
    if stack:
        return None
    _append(out, text[at:])
    _clear(target)
    target.text = out.text
    for c in list(out):
        target.append(c)
    return len(placed)


def set_target(
    target: Any, text: str, source: Any | None, hint: tuple[Any, Any] | None = None
) -> int:
    """Write ``text`` into ``target`` (replacing its content) with the tags of ``source``:
    where the memory's target had them (``hint``: the match's source and target tags) when
    they correspond, else those with a clear place in the text (module doc). Returns how
    many tags were placed."""
    if source is not None and len(source) and hint is not None:
        try:
            moved = _from_memory(target, text, source, hint)
        except (TypeError, ValueError, IndexError):  # tags not as xlsearch writes them
            moved = None
        if moved is not None:
            return moved + _placeholders(target, source)
    _clear(target)
    target.text = text
    if source is None or not len(source):
        return 0
    lead, wraps, trail = _plan(source)
    spans: list[tuple[int, int, _Wrap]] = []
    for w in wraps:
        if w.whole and text.strip():
            spans.append((0, len(text), w))
            continue
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
    return moved + _placeholders(target, source)


def _slots(elem: Any) -> list[tuple[Any, str, Any, int]]:
    """The text places of a target in document order: ``(owner, "text"|"tail", parent,
    index of owner in parent)``; a code's own content is none."""
    out: list[tuple[Any, str, Any, int]] = [(elem, "text", None, -1)]
    for i, c in enumerate(elem):
        if local_name(c.tag) in _TEXT_TAGS or local_name(c.tag) == "mrk":
            out += _slots(c)
        out.append((c, "tail", elem, i))
    return out


def _placeholders(target: Any, source: Any | None) -> int:
    """Put the source's placeholder codes in place of their text in ``target`` (module doc);
    returns how many were placed."""
    if source is None:
        return 0
    codes = [(text, c) for c in source.iter() if c is not source and (text := code_placeholder(c))]
    placed = 0
    for text, code in codes:
        for owner, attr, parent, i in _slots(target):
            value = getattr(owner, attr) or ""
            at = value.find(text)
            if at < 0:
                continue
            new = _shell(code)
            new.tail = value[at + len(text) :] or None
            setattr(owner, attr, value[:at] or None)
            if attr == "text":
                owner.insert(0, new)
            else:
                parent.insert(i + 1, new)
            placed += 1
            break
    return placed


_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def _map_boundary(b: int, kind: str, ops: Sequence[tuple[str, int, int, int, int]]) -> int | None:
    """Token boundary ``b`` of the old text in the new one: exact inside or at the edge of
    an unchanged run; a closing tag stays with the text before it, any other with the text
    after it (so a word inserted before a tagged word stays outside the tag); None inside a
    changed run (no clear place)."""
    for op, i1, i2, j1, j2 in ops:
        if i1 < b < i2:
            return j1 + (b - i1) if op == "equal" else None
        if i1 < i2 and (i2 == b if kind == "close" else i1 == b):
            return j2 if kind == "close" else j1
    if b == 0:  # a closing tag at the very start
        return 0
    return ops[-1][4] if ops and b == ops[-1][2] else None  # an opening one at the end


def follow_edit(hint: tuple[Any, Any] | None, before: str, after: str) -> tuple[Any, Any] | None:
    """The memory's tag places (``hint``: source tags, target tags with offsets in
    ``before``) moved into ``after``, the target as the translator edited it: word by word
    (``difflib``), each tag keeps its place next to the words that stayed. None when a tag
    stood inside a word or inside a rewritten run: then ``set_target`` falls back to the
    text rule, as for any typed target."""
    if hint is None or before == after:
        return hint
    mem_src, mem_tgt = hint
    if not mem_src or not mem_tgt:
        return None
    old, new = _TOKEN.findall(before), _TOKEN.findall(after)
    if "".join(old) != before or "".join(new) != after:
        return None
    old_at = [0]
    for tok in old:
        old_at.append(old_at[-1] + len(tok))
    new_at = [0]
    for tok in new:
        new_at.append(new_at[-1] + len(tok))
    boundary = {offset: b for b, offset in enumerate(old_at)}
    ops = SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    moved = []
    try:
        for tag in mem_tgt:
            b = boundary.get(int(tag[0]))
            to = None if b is None else _map_boundary(b, str(tag[1]), ops)
            if to is None:
                return None
            moved.append([new_at[to], *tag[1:]])
    except (TypeError, ValueError, IndexError):  # tags not as xlsearch writes them
        return None
    return mem_src, moved
