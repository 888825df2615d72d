"""Read-side queries of the store: segments by id or filter, translation units, context,
languages and lexical search (mixed into ``Store``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from xlsearch.engine.lang.tags import expand
from xlsearch.engine.store.units import UnitFilter

SEGMENT_COLUMNS = "s.id, s.document_id, s.position, s.lang, s.text, s.text_hash, s.tu_id"


def sql_placeholders(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


class SegmentQueries:
    """Segment reads over ``self.conn`` (an open SQLite connection of the store)."""

    conn: sqlite3.Connection

    def _filters(
        self,
        collection: str | None = None,
        langs: Sequence[str] | None = None,
        documents: Sequence[int] | None = None,
        units: UnitFilter | None = None,
    ) -> tuple[str, list[Any]]:
        """A WHERE clause over ``segments s`` and its parameters.

        ``langs`` are BCP 47 prefixes (``en`` selects ``en``, ``en-GB`` …; see
        ``lang.tags``); ``units`` filters on translation-unit metadata."""
        clauses: list[str] = []
        params: list[Any] = []
        if collection is not None:
            clauses.append(
                "s.document_id IN (SELECT d.id FROM documents d JOIN collections c "
                "ON c.id = d.collection_id WHERE c.name = ?)"
            )
            params.append(collection)
        if langs:
            tags = expand(self.conn, list(langs))
            clauses.append(f"s.lang IN ({sql_placeholders(tags)})" if tags else "0")
            params.extend(tags)
        if documents is not None:
            docs = [int(d) for d in documents]
            clauses.append(f"s.document_id IN ({sql_placeholders(docs)})" if docs else "0")
            params.extend(docs)
        if units:
            clause, more = units.sql()
            clauses.append(clause)
            params.extend(more)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params

    def segments(self, ids: Iterable[int]) -> list[dict[str, Any]]:
        """Segments by id, in the order given (unknown ids are left out).

        Keys: id, document_id, position, lang, text, text_hash, tu_id, meta, path, collection.
        """
        wanted = [int(i) for i in ids]
        found: dict[int, dict[str, Any]] = {}
        keys = "id document_id position lang text text_hash tu_id meta path collection".split()
        for start in range(0, len(wanted), 900):
            chunk = wanted[start : start + 900]
            for row in self.conn.execute(
                f"SELECT {SEGMENT_COLUMNS}, s.meta, d.path, c.name FROM segments s "
                "JOIN documents d ON d.id = s.document_id "
                "JOIN collections c ON c.id = d.collection_id "
                f"WHERE s.id IN ({sql_placeholders(chunk)})",
                chunk,
            ):
                item = dict(zip(keys, row, strict=True))
                item["meta"] = json.loads(item["meta"]) if item["meta"] else {}
                found[item["id"]] = item
        return [found[i] for i in wanted if i in found]

    def segment_ids(
        self,
        collection: str | None = None,
        langs: Sequence[str] | None = None,
        documents: Sequence[int] | None = None,
        units: UnitFilter | None = None,
    ) -> np.ndarray:
        """Ids (int64, ascending) of the segments passing the filters."""
        where, params = self._filters(collection, langs, documents, units)
        cur = self.conn.execute(f"SELECT s.id FROM segments s{where} ORDER BY s.id", params)
        return np.fromiter((r[0] for r in cur), dtype=np.int64)

    def count_segments(
        self,
        collection: str | None = None,
        langs: Sequence[str] | None = None,
        documents: Sequence[int] | None = None,
        units: UnitFilter | None = None,
    ) -> int:
        """How many segments pass the filters."""
        where, params = self._filters(collection, langs, documents, units)
        return int(
            self.conn.execute(f"SELECT COUNT(*) FROM segments s{where}", params).fetchone()[0]
        )

    def iter_segments(
        self,
        collection: str | None = None,
        langs: Sequence[str] | None = None,
        batch: int = 5000,
        documents: Sequence[int] | None = None,
    ) -> Iterator[list[dict[str, Any]]]:
        """Batches of {id, text, text_hash, lang} in id order (keyset pagination)."""
        where, params = self._filters(collection, langs, documents)
        where = where + (" AND " if where else " WHERE ") + "s.id > ?"
        last = -1
        while True:
            rows = self.conn.execute(
                f"SELECT s.id, s.text, s.text_hash, s.lang FROM segments s{where} "
                "ORDER BY s.id LIMIT ?",
                [*params, last, batch],
            ).fetchall()
            if not rows:
                return
            yield [{"id": r[0], "text": r[1], "text_hash": r[2], "lang": r[3]} for r in rows]
            last = rows[-1][0]

    def translations(self, tu_ids: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
        """The aligned segments of each translation unit: {tu_id: [{id, lang, text, …}]}."""
        wanted = list(dict.fromkeys(tu_ids))
        out: dict[str, list[dict[str, Any]]] = {t: [] for t in wanted}
        keys = "id document_id position lang text text_hash tu_id".split()
        for start in range(0, len(wanted), 900):
            chunk = wanted[start : start + 900]
            for row in self.conn.execute(
                f"SELECT {SEGMENT_COLUMNS} FROM segments s "
                f"WHERE s.tu_id IN ({sql_placeholders(chunk)}) ORDER BY s.position",
                chunk,
            ):
                item = dict(zip(keys, row, strict=True))
                out[item["tu_id"]].append(item)
        return out

    def context(self, segment_id: int, window: int = 2) -> list[dict[str, Any]]:
        """The segment with up to ``window`` neighbours before and after it (same document
        and language, document order); the segment itself has ``"current": True``."""
        row = self.conn.execute(
            "SELECT document_id, position, lang FROM segments WHERE id=?", (segment_id,)
        ).fetchone()
        if row is None:
            return []
        doc, pos, lang = row
        keys = "id document_id position lang text text_hash tu_id".split()
        before = self.conn.execute(
            f"SELECT {SEGMENT_COLUMNS} FROM segments s WHERE s.document_id=? AND s.lang=? "
            "AND s.position < ? ORDER BY s.position DESC LIMIT ?",
            (doc, lang, pos, window),
        ).fetchall()
        after = self.conn.execute(
            f"SELECT {SEGMENT_COLUMNS} FROM segments s WHERE s.document_id=? AND s.lang=? "
            "AND s.position >= ? ORDER BY s.position LIMIT ?",
            (doc, lang, pos, window + 1),
        ).fetchall()
        out = [dict(zip(keys, r, strict=True)) for r in [*reversed(before), *after]]
        for item in out:
            item["current"] = item["id"] == segment_id
        return out

    def languages(self, collection: str | None = None) -> dict[str, int]:
        """Segment counts per language, most frequent first."""
        where, params = self._filters(collection)
        return dict(
            self.conn.execute(
                f"SELECT s.lang, COUNT(*) FROM segments s{where} GROUP BY s.lang "
                "ORDER BY COUNT(*) DESC, s.lang",
                params,
            ).fetchall()
        )

    def language_tags(self) -> list[str]:
        """Every language tag in the store, sorted, without counting (one index seek each)."""
        from xlsearch.engine.lang.tags import stored_tags

        return stored_tags(self.conn)

    def recorded_languages(self, collection: str | None = None) -> dict[str, int]:
        """Segment counts per language as each document recorded them at import: instant on
        millions of segments (``languages`` counts the segments themselves)."""
        sql = "SELECT d.languages FROM documents d"
        params: list[Any] = []
        if collection is not None:
            sql += " JOIN collections c ON c.id = d.collection_id WHERE c.name = ?"
            params.append(collection)
        out: dict[str, int] = {}
        for (raw,) in self.conn.execute(sql, params):
            try:
                counts = json.loads(raw or "{}")
            except ValueError:
                continue
            for lang, n in counts.items() if isinstance(counts, dict) else ():
                out[str(lang)] = out.get(str(lang), 0) + int(n or 0)
        return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))

    def segment_langs(self, ids: Sequence[int]) -> dict[int, str]:
        """The language tag of each segment id (unknown ids are left out)."""
        out: dict[int, str] = {}
        wanted = [int(i) for i in ids]
        for lo in range(0, len(wanted), 500):
            chunk = wanted[lo : lo + 500]
            out.update(
                self.conn.execute(
                    f"SELECT id, lang FROM segments WHERE id IN ({sql_placeholders(chunk)})", chunk
                ).fetchall()
            )
        return out

    def fts_search(
        self,
        query: str,
        k: int = 10,
        collection: str | None = None,
        langs: Sequence[str] | None = None,
        mode: str = "match",
        case_sensitive: bool = False,
        documents: Sequence[int] | None = None,
        units: UnitFilter | None = None,
    ) -> list[tuple[int, float]]:
        """Lexical search: [(segment id, score)], best first; see ``store.lexical``."""
        from xlsearch.engine.store.lexical import fts_search

        return fts_search(self, query, k, collection, langs, mode, case_sensitive, documents, units)

    def unit_meta(self, tu_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Metadata of translation units (tuid, dates, users, props, notes) by tu id."""
        from xlsearch.engine.store.units import unit_meta

        return unit_meta(self.conn, list(tu_ids))
