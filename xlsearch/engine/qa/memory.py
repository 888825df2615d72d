"""A collection's translation pairs, as units to check and as the memory to compare with."""

from __future__ import annotations

from typing import Any

from xlsearch.engine.errors import DataError
from xlsearch.engine.qa.units import QaUnit

MAX_PAIRS = 2_000_000


def collection_pairs(store: Any, collection: str, src: str, tgt: str) -> list[QaUnit]:
    """The ``src``→``tgt`` pairs of ``collection`` (one per translation unit) as units."""
    store.require_collection(collection)
    where, params = store._filters(collection, [src])
    tgt_where, tgt_params = store._filters(collection, [tgt])
    tgt_where = tgt_where.replace("s.", "t.")
    sql = (
        "SELECT s.tu_id, s.text, t.text, d.path FROM segments s "
        "JOIN segments t ON t.tu_id = s.tu_id AND t.id != s.id "
        "JOIN documents d ON d.id = s.document_id"
        f"{where}{' AND ' if where else ' WHERE '}{tgt_where.replace(' WHERE ', '', 1)} "
        "AND s.tu_id IS NOT NULL ORDER BY s.id LIMIT ?"
    )
    units: list[QaUnit] = []
    seen: set[str] = set()
    for tu, s, t, path in store.conn.execute(sql, [*params, *tgt_params, MAX_PAIRS]):
        if tu in seen:
            continue
        seen.add(tu)
        units.append(QaUnit(f"{collection}:{path}", str(tu), s, t))
    if not units:
        raise DataError(
            f"collection {collection!r} has no {src}→{tgt} pairs",
            hint="name the languages it holds with --src and --tgt (xlsearch collections)",
        )
    return units


def memory_of(units: list[QaUnit]) -> dict[str, dict[str, str]]:
    """Each source's targets in a memory: {compared form: as written} (mnemonics, spaces and
    case aside, as the consistency check compares them)."""
    from xlsearch.engine.qa.check import norm_text, unmark

    out: dict[str, dict[str, str]] = {}
    for u in units:
        out.setdefault(unmark(u.source, ""), {}).setdefault(norm_text(u.target, ""), u.target)
    return out
