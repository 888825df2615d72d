"""A document's texts: which segments are looked up, which repeat an earlier one, and the
memory's answer for each text (looked up once). Shared by the stages that segment, look up
and choose."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.engine.tm.matching import context as ctx
from xlsearch.engine.tm.matching.lookup import Lookup, LookupResult

if TYPE_CHECKING:
    from xlsearch.engine.tm.documents.document import DocSegment, Document

CODES_ONLY = "codes only"
CREDITS = "credits"
FIRST = "first"
REPEATED = "repeated"


def text_key(text: str) -> str:
    """The text as the lookup reads it (whitespace collapsed)."""
    return " ".join(text.split())


def repetition_key(seg: DocSegment) -> tuple[str, Any, str]:
    """What makes two segments repetitions of each other: the same text, the same inline
    codes at the same places (a code's id may differ: every unit numbers its own) and the
    same context (PO ``msgctxt``: gettext's own key of a message; an XLIFF ``resname`` only
    names the unit: the same text under two names is a repetition)."""
    if seg.source_tags:
        places: Any = tuple((int(t[0]), str(t[1])) for t in seg.source_tags)
    else:
        places = int(seg.tags or 0)
    keyed = getattr(seg, "context_is_key", True)  # a resname names; a msgctxt sets apart
    return text_key(seg.source), places, str(getattr(seg, "context", "") or "") if keyed else ""


@dataclass(frozen=True)
class Repeats:
    """Each segment's kind, by position: ``FIRST`` (looked up), ``REPEATED`` (of
    ``first_of[i]``), ``CREDITS`` (translator credits, never leveraged) or ``CODES_ONLY``
    (inline codes and no text); ``first_text``: the first looked-up segment of each text and
    context (the same words, perhaps with other codes)."""

    kinds: tuple[str, ...]
    first_of: Mapping[int, int]
    first_text: Mapping[tuple[str, str], int]

    @property
    def todo(self) -> list[int]:
        """The segments to look up, in order."""
        return [i for i, kind in enumerate(self.kinds) if kind == FIRST]

    def looked_up_too(self, indices: set[int]) -> Repeats:
        """These repetitions looked up as segments of their own (``own_context_decides``)."""
        kinds = tuple(FIRST if i in indices else kind for i, kind in enumerate(self.kinds))
        first_of = {i: f for i, f in self.first_of.items() if i not in indices}
        return Repeats(kinds, first_of, self.first_text)


def repeats(segments: Sequence[DocSegment]) -> Repeats:
    """The ``Repeats`` of ``segments`` (in document order)."""
    first: dict[Any, int] = {}
    first_of: dict[int, int] = {}
    first_text: dict[tuple[str, str], int] = {}
    kinds: list[str] = []
    for i, seg in enumerate(segments):
        key = repetition_key(seg)
        if not key[0]:  # only inline codes (a picture, a break): nothing to look up
            kinds.append(CODES_ONLY)
        elif ctx.never_leveraged(seg.source):
            kinds.append(CREDITS)
        elif key in first:
            kinds.append(REPEATED)
            first_of[i] = first[key]
        else:
            first[key] = i
            first_text.setdefault((key[0], key[2]), i)
            kinds.append(FIRST)
    return Repeats(tuple(kinds), first_of, first_text)


def own_context_decides(
    segments: Sequence[DocSegment], rep: Repeats, found: Mapping[str, LookupResult]
) -> set[int]:
    """The repetitions that are not repetitions after all: an XLIFF ``resname`` only names a
    unit, so the same text under another name repeats the first occurrence, except where
    the memory holds the text under this unit's name or the first one's. Then each unit's
    own context chooses its match (``menu.file.open`` → "Öffnen", ``status.door.open`` →
    "Offen"), as the Translate screen does unit by unit."""
    own: set[int] = set()
    for i, first in rep.first_of.items():
        seg, head = segments[i], segments[first]
        mine, theirs = str(seg.context or ""), str(head.context or "")
        if getattr(seg, "context_is_key", True) or mine == theirs:
            continue  # a msgctxt is already part of the repetition's key
        names = {mine, theirs} - {""}
        result = found.get(text_key(seg.source))
        if result is not None and any(_stored_under(m, names) for m in result.matches):
            own.add(i)
    return own


def _stored_under(match: Any, names: set[str]) -> bool:
    """Whether a 100 % ``match`` (or one of its merged copies) is stored under one of
    ``names``."""
    if match.fuzzy < 100 or getattr(match, "cross_language", False):
        return False
    stored = {str(getattr(match, "context", "") or ""), *(getattr(match, "contexts", None) or {})}
    return bool(stored & names)


def look_up(
    doc: Document,
    lookup: Lookup,
    texts: Sequence[str],
    known: Mapping[str, LookupResult],
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> dict[str, LookupResult]:
    """The memory's answers for the ``texts`` of ``doc`` not in ``known`` (by ``text_key``),
    each looked up once, in one batch: the best 5 matches and 2 cross-language ones, with a
    target in the document's target language."""
    missing = [k for k in dict.fromkeys(text_key(t) for t in texts) if k not in known]
    if not missing:
        return {}
    found = lookup.lookup_many(
        missing,
        doc.src,
        doc.tgt,
        k=5,
        cross_k=2,
        require_target=bool(doc.tgt),
        on_progress=on_progress,
        cancel=cancel,
    )
    return dict(zip(missing, found, strict=True))


def copy_of(result: LookupResult) -> LookupResult:
    """A copy of a ``LookupResult`` whose matches can be changed (fuzzy %, flags)."""

    def each(matches: list[Any]) -> list[Any]:
        return [replace(m, flags=list(m.flags)) for m in matches]

    return replace(result, matches=each(result.matches), cross=each(result.cross))


def best_fuzzy(result: LookupResult) -> int:
    """The best fuzzy % among a lookup's matches (0: none)."""
    return max((m.fuzzy for m in result.matches), default=0)


__all__ = [
    "Repeats",
    "best_fuzzy",
    "copy_of",
    "look_up",
    "own_context_decides",
    "repeats",
    "repetition_key",
    "text_key",
]
