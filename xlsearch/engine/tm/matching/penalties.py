"""What a CAT tool takes off a 100 % match: other inline codes (the tag penalty) or another
context (``context``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xlsearch.engine.tm.matching import context as ctx


def _same_places(new: list[list[Any]] | None, stored: list[list[Any]] | None) -> bool:
    """Whether two segments' codes are the same kinds at the same places (ids may differ:
    every file numbers its own)."""
    if not new or not stored:
        return False
    return [(int(t[0]), t[1]) for t in new] == [(int(t[0]), t[1]) for t in stored]


def tag_penalty(matches: list[Any], seg: Any) -> None:
    """A would-be 100 % match is 100 % only when the memory's source has the segment's
    codes, the same kinds at the same places (its target then takes them where the memory's
    target had them); else 99 % (never ``exact-match``), flagged with both counts."""
    has = bool(seg.source_tags or seg.tags)
    for m in matches:
        if (
            m.fuzzy >= 100
            and (has or m.source_tags)
            and not _same_places(seg.source_tags, m.source_tags)
        ):
            m.fuzzy = 99
            new = len(seg.source_tags) if seg.source_tags else seg.tags
            stored = len(m.source_tags) if m.source_tags else "—"
            m.flags.append(f"tags: new {new} · stored {stored}")


def penalise(
    matches: list[Any],
    seg: Any,
    *,
    project: str = "",
    neighbours: ctx.Neighbours | None = None,
    stored_neighbours: Callable[[int], ctx.Neighbours] | None = None,
) -> None:
    """The tag penalty (where either side has codes) and the context of ``seg``'s matches
    (101 %, another context), in place; the matches ranked again by context and
    ``project`` (``context.apply``)."""
    if seg.tags or any(m.source_tags for m in matches):
        tag_penalty(matches, seg)
    ctx.apply(
        matches,
        seg.source,
        getattr(seg, "context", "") or "",
        project=project,
        strict=getattr(seg, "context_is_key", True),
        neighbours=neighbours,
        stored_neighbours=stored_neighbours,
    )


__all__ = ["penalise", "tag_penalty"]
