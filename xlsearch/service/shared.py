"""Small rules both fronts share: why a search found nothing, alignment edits, the saved
theme, matches worth showing, the files the user names (written atomically, checked before
the work) and faults as user errors. Pure and fast: safe on the UI thread (what needs numpy
or rapidfuzz is imported when called, not when a front starts)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from xlsearch.engine.runtime.atomic import write_output
from xlsearch.engine.runtime.faults import user_error
from xlsearch.engine.runtime.locations import cache_dir
from xlsearch.engine.runtime.pathcheck import require_output
from xlsearch.service.types import LookupMatches, MemoryMatch, TagPlaces

if TYPE_CHECKING:
    from xlsearch.engine.align.beads import Bead
    from xlsearch.service.api import EngineAPI


def why_no_hits(
    collections: Sequence[str], languages: Sequence[str], langs: Sequence[str], how: str = ""
) -> str:
    """The plain reason a search found nothing, when there is one ('' otherwise); ``how``:
    how this front imports (added to 'Nothing is imported yet')."""
    from xlsearch.engine.lang.tags import tag_matches

    if not collections:
        return f"Nothing is imported yet: {how}." if how else "Nothing is imported yet."
    if langs and not any(tag_matches(want, tag) for want in langs for tag in languages):
        return f"No segment is in {', '.join(langs)}; stored: {', '.join(languages)}."
    return ""


def edit_beads(
    op: str, beads: list[Bead], index: int, side: str = "src", direction: int = 0
) -> list[Bead]:
    """An aligner bead edit: ``merge``, ``split``, ``shift`` (``side``, ``direction``) or
    ``accept``."""
    from xlsearch.engine.align import edit

    if op == "shift":
        return edit.shift(beads, index, side, direction)
    if op == "merge":
        return edit.merge(beads, index)
    if op == "split":
        return edit.split(beads, index)
    if op == "accept":
        return edit.accept(beads, index)
    raise ValueError(f"unknown bead edit {op!r}")


def saved_theme(default: str) -> str:
    """The theme the user chose last (``default`` when none or the settings are unreadable)."""
    try:
        from xlsearch.engine.runtime.settings import Settings

        return Settings.load().theme or default
    except Exception:  # noqa: BLE001 - bad settings must not stop the app from opening
        return default


def save_theme(theme: str) -> None:
    """Remember the theme (a preference: a failure to save it is not an error)."""
    try:
        from xlsearch.engine.runtime.settings import Settings

        settings = Settings.load()
        settings.theme = theme
        settings.save()
    except Exception:  # noqa: BLE001
        pass


def unwritable_hint(exc: OSError) -> str:
    """The fix for a write refused by a read-only disk or missing permissions ('' if none)."""
    import errno

    if exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM) or not exc.filename:
        return ""
    from xlsearch.engine.runtime import locations

    path = Path(str(exc.filename)).resolve()
    if any(path.is_relative_to(Path(root).resolve()) for root in locations.roots()):
        return (
            " (hint: make the folder writable (chmod -R u+w) or point XLSEARCH_HOME at a "
            "writable folder)"
        )
    return " (hint: choose a path in a writable folder, or make that folder writable)"


def matches_worth_showing(result: LookupMatches, min_fuzzy: float) -> list[MemoryMatch]:
    """A lookup's matches worth showing a translator: fuzzy ≥ ``min_fuzzy`` % (a CAT tool's
    minimum match), or a semantic match at the lookup's threshold (cross-language ones too)."""
    from xlsearch.engine.tm.matching.lookup import SEMANTIC_THRESHOLD

    return [
        m
        for m in [*result.matches, *result.cross]
        if (not m.cross_language and m.fuzzy >= min_fuzzy)
        or (m.semantic or 0.0) >= SEMANTIC_THRESHOLD
    ]


def split_tags(text: str) -> tuple[str, TagPlaces | None]:
    """A segment typed with inline tags as the memory stores one: the text without them and
    where they stood (``tm.matching.fuzzy.split_tags``)."""
    from xlsearch.engine.tm.matching.fuzzy import split_tags as split

    return split(text)


__all__ = [
    "cache_dir",
    "edit_beads",
    "matches_worth_showing",
    "require_output",
    "save_theme",
    "saved_theme",
    "split_tags",
    "unwritable_hint",
    "user_error",
    "why_no_hits",
    "write_output",
]


def target_languages(engine: EngineAPI, src: str, collection: str | None = None) -> list[str]:
    """The memory's languages (the chosen collection's, else every collection's) other than
    ``src``: what a job that names no target language could be translated into."""
    langs = engine.languages()
    if collection:
        chosen = [c.languages for c in engine.collections() if c.name == collection]
        langs = chosen[0] if chosen else langs
    base = (src or "").split("-")[0]
    return [t for t in langs if t.split("-")[0] != base]
