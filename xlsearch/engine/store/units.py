"""Translation-unit metadata: stored rows, dates, and the filters search applies before ranking.

Importers attach a unit's metadata to its records as a dict (see ``UNIT_KEYS``)::

    {"attrs": {"tuid": "42", "creationdate": "20240131T101500Z", …},  # as in the file
     "props": [{"type": "x-Client", "text": "ACME"}, …],                # in file order
     "notes": [{"text": "checked by legal"}, …],
     "tuid": "42", "created": "…", "created_by": "…", "changed": "…", "changed_by": "…"}

``attrs``/``props``/``notes`` keep everything (attributes of props and notes too) so a TMX
export writes the unit back exactly; the other keys are what the importer understood, from
which the ``units`` row gets its filterable columns (dates as ISO 8601 UTC) and
``unit_fields`` its ``key = value`` rows (prop types lower-cased with ``x-`` and a Trados
``:FieldType`` suffix dropped, so ``x-Client:SinglePicklist`` is ``client``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from xlsearch.engine.errors import ConfigError
from xlsearch.engine.importers.dates import parse_date

UNIT_KEYS = ("attrs", "props", "notes")
"""The parts of a unit's metadata kept verbatim (the rest is derived)."""


def field_key(name: str) -> str:
    """``x-Client:SinglePicklist`` → ``client``; ``Project`` → ``project``."""
    key = name.strip().split(":", 1)[0].lower()
    key = key[2:] if key.startswith("x-") else key
    return key.replace("_", "-")


def unit_rows(
    tu_id: str, doc_id: int, meta: dict[str, Any]
) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
    """(the ``units`` row, its ``unit_fields`` rows) for one unit's metadata."""
    created = parse_date(meta.get("created"))
    changed = parse_date(meta.get("changed")) or created
    created_by = meta.get("created_by") or None
    changed_by = meta.get("changed_by") or created_by
    kept = {k: meta[k] for k in UNIT_KEYS if meta.get(k)}
    row = (
        tu_id,
        doc_id,
        meta.get("tuid") or None,
        created,
        created_by,
        changed,
        changed_by,
        json.dumps(kept, ensure_ascii=False, sort_keys=True),
    )
    fields: list[tuple[Any, ...]] = []
    for key, value in (
        ("tuid", meta.get("tuid")),
        ("created-by", created_by),
        ("changed-by", changed_by),
    ):
        if value:
            fields.append((tu_id, doc_id, key, str(value)))
    for prop in meta.get("props") or ():
        if prop.get("type") and prop.get("text") is not None:
            fields.append((tu_id, doc_id, field_key(prop["type"]), prop["text"]))
    for note in meta.get("notes") or ():
        if note.get("text"):
            fields.append((tu_id, doc_id, "note", note["text"]))
    return row, fields


def write_units(conn: Any, doc_id: int, rows: Iterable[tuple[Any, ...]]) -> None:
    """Insert ``(units row, fields rows)`` pairs of one document."""
    for row, fields in rows:
        conn.execute("INSERT OR REPLACE INTO units VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
        if fields:
            conn.executemany(
                "INSERT INTO unit_fields (tu_id, document_id, key, value) VALUES (?, ?, ?, ?)",
                fields,
            )


def clear_units(conn: Any, doc_id: int) -> str:
    """Delete a document's unit metadata; return a digest of what was there."""
    digest = units_digest(conn, doc_id)
    conn.execute("DELETE FROM unit_fields WHERE document_id = ?", (doc_id,))
    conn.execute("DELETE FROM units WHERE document_id = ?", (doc_id,))
    return digest


def units_digest(conn: Any, doc_id: int) -> str:
    """A digest of a document's unit metadata (to tell whether a re-import changed it)."""
    h = hashlib.blake2b(digest_size=16)
    for tu, meta in conn.execute(
        "SELECT tu_id, meta FROM units WHERE document_id = ? ORDER BY tu_id", (doc_id,)
    ):
        h.update(f"{tu}\x00{meta}\x01".encode())
    return h.hexdigest()


def unit_meta(conn: Any, tu_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """{tu_id: {tuid, created, created_by, changed, changed_by, attrs, props, notes}}."""
    out: dict[str, dict[str, Any]] = {}
    wanted = list(dict.fromkeys(tu_ids))
    for start in range(0, len(wanted), 900):
        chunk = wanted[start : start + 900]
        for tu, tuid, created, cby, changed, chby, meta in conn.execute(
            "SELECT tu_id, tuid, created_at, created_by, changed_at, changed_by, meta "
            f"FROM units WHERE tu_id IN ({','.join('?' * len(chunk))})",
            chunk,
        ):
            item = json.loads(meta or "{}")
            item.update(
                tuid=tuid, created=created, created_by=cby, changed=changed, changed_by=chby
            )
            out[tu] = item
    return out


def unit_lines(unit: dict[str, Any]) -> list[str]:
    """A unit's metadata (as ``unit_meta`` returns it) as short lines for previews: ids,
    dates and users; props; notes."""
    lines = []
    head = [f"tuid {unit['tuid']}"] if unit.get("tuid") else []
    for what in ("created", "changed"):
        if unit.get(what) and (what == "created" or unit.get(what) != unit.get("created")):
            who = unit.get(f"{what}_by")
            head.append(f"{what} {unit[what][:10]}" + (f" by {who}" if who else ""))
    if head:
        lines.append(" · ".join(head))
    props = [f"{p.get('type')}: {p.get('text')}" for p in unit.get("props", [])]
    if props:
        lines.append(" · ".join(props))
    lines += [f"note: {n.get('text')}" for n in unit.get("notes", [])]
    return lines


_WHERE = re.compile(r"^\s*([A-Za-z][\w:.-]*)\s*=(.*)$")
_TEXT_OPS = re.compile(r"^\s*(changed|created)\s*(>=|<=|>|<)\s*(\S+)\s*$")


def _date_arg(value: str | None, what: str) -> str | None:
    if value is None or not str(value).strip():
        return None
    iso = parse_date(str(value))
    if iso is None:
        raise ConfigError(
            f"{what}: not a date: {value!r}", hint="write 2024-01-31 or 2024-01-31T10:15:00Z"
        )
    return iso


@dataclass(frozen=True)
class UnitFilter:
    """Metadata filters on translation units, applied before ranking like language filters.

    ``where``: ``(key, value)`` pairs — a unit passes when, for every key, one of its fields
    with that key equals one of the values given for it (case-insensitive; ``*`` is a
    wildcard). Keys are prop types as in ``field_key`` plus ``tuid``, ``note``,
    ``created-by`` and ``changed-by``. Dates: ``*_after`` is inclusive, ``*_before``
    exclusive; a unit never changed counts as changed when it was created.
    """

    where: tuple[tuple[str, str], ...] = ()
    created_after: str | None = None
    created_before: str | None = None
    changed_after: str | None = None
    changed_before: str | None = None

    def __bool__(self) -> bool:
        return bool(
            self.where
            or self.created_after
            or self.created_before
            or self.changed_after
            or self.changed_before
        )

    @classmethod
    def build(
        cls,
        where: Sequence[str] = (),
        *,
        created_after: str | None = None,
        created_before: str | None = None,
        changed_after: str | None = None,
        changed_before: str | None = None,
        created_by: Sequence[str] = (),
        changed_by: Sequence[str] = (),
    ) -> UnitFilter:
        """From CLI-style arguments (``where``: ``key=value`` strings); bad input raises
        ``ConfigError``."""
        pairs: list[tuple[str, str]] = []
        for item in where:
            m = _WHERE.match(item)
            if not m or not m.group(2).strip():
                raise ConfigError(
                    f"--where {item!r}: expected KEY=VALUE", hint="e.g. --where client=ACME"
                )
            pairs.append((field_key(m.group(1)), m.group(2).strip()))
        pairs += [("created-by", v) for v in created_by]
        pairs += [("changed-by", v) for v in changed_by]
        return cls(
            tuple(pairs),
            _date_arg(created_after, "created after"),
            _date_arg(created_before, "created before"),
            _date_arg(changed_after, "changed after"),
            _date_arg(changed_before, "changed before"),
        )

    @classmethod
    def parse(cls, text: str) -> UnitFilter:
        """The TUI's one-line form: ``client=ACME changed>=2024-01-01 created<2025-01-01``
        (space-separated; ``>``/``>=`` = after, ``<``/``<=`` = before; quote nothing)."""
        where: list[str] = []
        dates: dict[str, str] = {}
        for token in text.split():
            m = _TEXT_OPS.match(token)
            if m:
                field, op, value = m.groups()
                dates[f"{field}_{'after' if op[0] == '>' else 'before'}"] = value
            else:
                where.append(token)
        return cls.build(where, **dates)

    def sql(self) -> tuple[str, list[Any]]:
        """A condition on ``segments s`` and its parameters: one ``s.tu_id IN (…)`` per
        key and one for the dates, each driven by an index (``unit_fields (key, value)``,
        ``units (changed_at)`` …), so selective filters never scan every unit."""
        clauses: list[str] = []
        params: list[Any] = []
        dates: list[str] = []
        for column, op, value in (
            ("created_at", ">=", self.created_after),
            ("created_at", "<", self.created_before),
            ("changed_at", ">=", self.changed_after),
            ("changed_at", "<", self.changed_before),
        ):
            if value:
                dates.append(f"u.{column} {op} ?")
                params.append(value)
        if dates:
            clauses.append(f"s.tu_id IN (SELECT u.tu_id FROM units u WHERE {' AND '.join(dates)})")
        by_key: dict[str, list[str]] = {}
        for key, value in self.where:
            by_key.setdefault(key, []).append(value)
        for key, values in by_key.items():
            tests = []
            params.append(key)
            for value in values:
                if "*" in value:
                    escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                    tests.append("f.value LIKE ? ESCAPE '\\'")
                    params.append(escaped.replace("*", "%"))
                else:
                    tests.append("f.value = ? COLLATE NOCASE")
                    params.append(value)
            clauses.append(
                "s.tu_id IN (SELECT f.tu_id FROM unit_fields f WHERE f.key = ? "
                f"AND ({' OR '.join(tests)}))"
            )
        return " AND ".join(clauses), params

    def describe(self) -> str:
        """A short human form (for status lines)."""
        parts = [f"{k}={v}" for k, v in self.where]
        for name in ("created_after", "created_before", "changed_after", "changed_before"):
            value = getattr(self, name)
            if value:
                field, side = name.split("_")
                parts.append(f"{field}{'>=' if side == 'after' else '<'}{value[:10]}")
        return " ".join(parts)
