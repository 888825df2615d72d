"""What the user types, read the same way by both fronts: language lists, memory filters,
the files a folder holds for import."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from xlsearch.engine.lang.tags import normalize_lang
from xlsearch.engine.search import DEFAULT_THRESHOLD

MINE_THRESHOLD = DEFAULT_THRESHOLD
"""The margin a mined pair needs by default, for both fronts (``xlsearch mine``, Mine)."""

if TYPE_CHECKING:
    from xlsearch.engine.store.units import UnitFilter


def langs_option(langs: Sequence[str] | str | None) -> list[str]:
    """``"en,de"`` or ``["en", "de"]`` → normalised codes; an invalid code raises
    ``DataError``."""
    from xlsearch.engine.importers.base import langs_option as parse

    return parse(langs)


def unit_filter(
    where: Sequence[str] = (),
    *,
    created_after: str | None = None,
    created_before: str | None = None,
    changed_after: str | None = None,
    changed_before: str | None = None,
    created_by: Sequence[str] = (),
    changed_by: Sequence[str] = (),
) -> UnitFilter | None:
    """The memory metadata filter of ``key=value`` conditions and dates (None when none is
    given); bad input raises ``ConfigError``."""
    from xlsearch.engine.store.units import UnitFilter

    f = UnitFilter.build(
        where,
        created_after=created_after,
        created_before=created_before,
        changed_after=changed_after,
        changed_before=changed_before,
        created_by=created_by,
        changed_by=changed_by,
    )
    return f or None


def import_paths(paths: Sequence[Path]) -> list[Path]:
    """Files as given, and every importable file under a folder (by extension, ``.gz``
    looked through; hidden files left out), in name order."""
    from xlsearch.engine.importers.base import SUFFIXES

    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            for f in sorted(path.rglob("*")):
                sfx = [s.lower() for s in f.suffixes]
                if sfx and sfx[-1] == ".gz":
                    sfx = sfx[:-1]
                if f.is_file() and not f.name.startswith(".") and sfx and sfx[-1] in SUFFIXES:
                    out.append(f)
        else:
            out.append(path)
    return out


def importable_suffixes() -> list[str]:
    """The file extensions ``import`` reads, sorted (``.gz`` of each also)."""
    from xlsearch.engine.importers.base import SUFFIXES

    return sorted(SUFFIXES)


__all__ = [
    "MINE_THRESHOLD",
    "import_paths",
    "importable_suffixes",
    "langs_option",
    "normalize_lang",
    "unit_filter",
]


def preset_values(preset: str, student: str) -> dict[str, float]:
    """What a distillation preset sets for a student kind (``static``, else a transformer):
    ``epochs``, ``batch_size``, ``time_limit_min`` (0 = none), ``eval_steps``; empty for an
    unknown preset. The wizard shows them in its fields."""
    from xlsearch.engine.distill.config import PRESETS

    kind = "static" if student in ("static", "shipped") else "transformer"
    values = PRESETS.get((preset, kind), {})
    keys = ("epochs", "batch_size", "time_limit_min", "eval_steps")
    return {k: float(values[k]) for k in keys if values.get(k) is not None}
