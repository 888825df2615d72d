"""The corpus store: collections, documents, segments, FTS, embeddings and index records."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from xlsearch.engine.errors import ConfigError, DataError, StoreError, XLSearchError
from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.engine.store.queries import SegmentQueries, sql_placeholders
from xlsearch.engine.store.schema import migrate

if TYPE_CHECKING:
    from xlsearch.engine.store.ingest import ImportReport


log = logging.getLogger("xlsearch.store")

BUSY_TIMEOUT_S = 30.0
NOTICE_AFTER_S = 1.0
"""A writer that waits longer than this for another process says so (``begin_immediate``)."""


def begin_immediate(conn: sqlite3.Connection) -> None:
    """``BEGIN IMMEDIATE`` within the connection's busy timeout; when another process holds
    the write lock longer than ``NOTICE_AFTER_S``, a one-line notice says so before the rest
    of the wait (a silent 30 s wait looked like a hang). Raises ``sqlite3.OperationalError``
    when the timeout runs out."""
    total = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    first = min(total, int(NOTICE_AFTER_S * 1000))
    conn.execute(f"PRAGMA busy_timeout={first}")
    try:
        conn.execute("BEGIN IMMEDIATE")
        return
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc) and "busy" not in str(exc) or total <= first:
            raise
        path = conn.execute("PRAGMA database_list").fetchone()[2]
        log.warning(
            "waiting for another xlsearch process to finish writing %s (up to %d s)",
            path,
            round(total / 1000),
        )
        conn.execute(f"PRAGMA busy_timeout={total - first}")
        conn.execute("BEGIN IMMEDIATE")
    finally:
        conn.execute(f"PRAGMA busy_timeout={total}")


"""How long a connection waits for another process's write lock."""
_WRITABLE_HINT = (
    "xlsearch writes to its store even to read it (SQLite WAL): make the folder writable "
    "(chmod -R u+w) or point XLSEARCH_HOME at a writable folder"
)


@contextmanager
def write_transaction(
    conn: sqlite3.Connection,
    kept: str = "the change was rolled back, the store is as it was before it",
) -> Iterator[sqlite3.Connection]:
    """The one write transaction: ``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on any
    exception); nests as a savepoint.

    SQLite failures (store busy beyond the timeout, disk full, corruption) surface as
    ``StoreError``/``DiskFullError`` after the rollback; ``kept`` says what a full disk left.
    """
    path = Path(conn.execute("PRAGMA database_list").fetchone()[2])

    if conn.in_transaction:
        conn.execute("SAVEPOINT nested")
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:  # SQLite may have rolled back already (disk full)
                conn.execute("ROLLBACK TO nested")
                conn.execute("RELEASE nested")
            raise
        conn.execute("RELEASE nested")
        return
    try:
        begin_immediate(conn)
    except sqlite3.OperationalError as exc:
        raise StoreError(
            f"the store {path} is busy: {exc}",
            hint="another import or index build is writing; try again when it is done",
        ) from exc
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        from xlsearch.engine.runtime.faults import (
            damaged_store,
            disk_full,
            is_damaged_store,
            is_disk_full,
        )

        if not isinstance(exc, XLSearchError) and is_disk_full(exc):
            raise disk_full(path, kept) from exc
        if isinstance(exc, sqlite3.Error):
            if is_damaged_store(exc):
                raise damaged_store(path, exc, "write") from exc
            raise StoreError(f"writing the store {path} failed: {exc}") from exc
        raise


class Store(SegmentQueries):
    """One SQLite store (WAL mode, migrated on open).

    A ``Store`` and its connection belong to the thread that opened it; open one store per
    worker thread. Readers never block the single writer (WAL); writers wait up to 30 s for
    the write lock. Use as a context manager or call ``close()``.
    """

    def __init__(self, path: Path | str | None = None) -> None:
        from xlsearch.engine.runtime import locations

        self.path = Path(path) if path is not None else locations.store_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the store folder {self.path.parent}: {exc.strerror or exc}",
                hint=_WRITABLE_HINT,
            ) from exc
        try:
            conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
            migrate(conn)
        except sqlite3.OperationalError as exc:
            from xlsearch.engine.runtime.faults import (
                damaged_store,
                disk_full,
                is_damaged_store,
                is_disk_full,
            )

            if is_disk_full(exc):
                raise disk_full(self.path, "the store could not be opened") from exc
            if "readonly" in str(exc) or "unable to open" in str(exc):
                raise StoreError(
                    f"cannot open the store {self.path}: it or its folder is read-only",
                    hint=_WRITABLE_HINT,
                ) from exc
            if is_damaged_store(exc):
                raise damaged_store(self.path, exc) from exc
            if "locked" not in str(exc):
                raise StoreError(f"cannot open the store {self.path}: {exc}") from exc
            raise StoreError(
                f"cannot open the store {self.path}: another xlsearch is writing it (an "
                "import, an index build, or a one-time upgrade of a big store)",
                hint="try again when it has finished",
            ) from exc
        except sqlite3.DatabaseError as exc:
            from xlsearch.engine.runtime.faults import damaged_store, is_damaged_store

            if is_damaged_store(exc):
                raise damaged_store(self.path, exc) from exc
            raise StoreError(f"cannot open the store {self.path}: {exc}") from exc
        self.conn = conn
        self._db: Any = None
        self._thread = threading.get_ident()

    @property
    def db(self) -> Any:
        """The connection as a ``sqlite_utils.Database`` (made on first use: importing
        sqlite-utils and loading its plugins costs a fresh process ~0.1 s)."""
        if self._db is None:
            from xlsearch.engine.store.sqlite import import_sqlite_utils

            self._db = import_sqlite_utils().Database(self.conn)
        return self._db

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Close the connection (idempotent)."""
        conn = getattr(self, "conn", None)
        if conn is not None:
            conn.close()
            self.conn = None  # type: ignore[assignment]

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT`` on this store (see ``write_transaction``)."""
        with write_transaction(self.conn) as conn:
            yield conn

    # -- generation --------------------------------------------------------------------------
    def generation(self) -> int:
        """A counter bumped by every committed import or delete that changed segments."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
        return int(row[0]) if row else 0

    def _bump_generation(self) -> int:
        self.conn.execute(
            "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'"
        )
        return self.generation()

    # -- collections and documents -----------------------------------------------------------
    def ensure_collection(self, name: str) -> int:
        """The id of collection ``name``, created if missing."""
        name = name.strip()
        if not name:
            raise DataError("a collection name cannot be empty")
        row = self.conn.execute("SELECT id FROM collections WHERE name=?", (name,)).fetchone()
        if row:
            return int(row[0])
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO collections (name, created_at) "
                "VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ','now'))",
                (name,),
            )
            row = conn.execute("SELECT id FROM collections WHERE name=?", (name,)).fetchone()
        return int(row[0])

    def collection_id(self, name: str) -> int | None:
        """The id of an existing collection, or None."""
        row = self.conn.execute("SELECT id FROM collections WHERE name=?", (name,)).fetchone()
        return int(row[0]) if row else None

    def collection_names(self) -> list[str]:
        """Every collection's name, sorted (empty ones too), without counting anything."""
        return [str(r[0]) for r in self.conn.execute("SELECT name FROM collections ORDER BY name")]

    def nonempty_collections(self) -> list[str]:
        """Names of the collections that hold segments, sorted: ``collections()`` without
        its counts (those scan every segment: seconds for a million-unit memory)."""
        rows = self.conn.execute(
            "SELECT c.name FROM collections c WHERE EXISTS (SELECT 1 FROM documents d "
            "JOIN segments s ON s.document_id = d.id WHERE d.collection_id = c.id) "
            "ORDER BY c.name"
        )
        return [str(r[0]) for r in rows]

    def collections(self) -> list[dict[str, Any]]:
        """Every collection: id, name, created_at, documents, segments, units, languages
        {lang: n} — from the counts each document recorded at import (instant at a million
        units; a document of an older store without them is counted)."""
        out: dict[int, dict[str, Any]] = {}
        for cid, name, created, ndocs in self.conn.execute(
            "SELECT c.id, c.name, c.created_at, COUNT(d.id) FROM collections c "
            "LEFT JOIN documents d ON d.collection_id = c.id GROUP BY c.id ORDER BY c.name"
        ):
            out[cid] = {
                "id": cid,
                "name": name,
                "created_at": created,
                "documents": ndocs,
                "segments": 0,
                "units": 0,
                "languages": {},
            }
        # the counts each document recorded at import (segments change only by import and
        # delete): instant on a million units; a document without them (an older store) is
        # counted segment by segment
        stale: list[int] = []
        no_units: list[int] = []
        for cid, doc_id, total, raw, units in self.conn.execute(
            "SELECT collection_id, id, segment_count, languages, unit_count FROM documents"
        ):
            counts = _recorded(raw)
            if units is None or counts is None or sum(counts.values()) != (total or 0):
                no_units.append(doc_id)
            else:
                out[cid]["units"] += units
            if counts is None or sum(counts.values()) != (total or 0):
                stale.append(doc_id)
                continue
            for lang, n in counts.items():
                langs = out[cid]["languages"]
                langs[lang] = langs.get(lang, 0) + n
                out[cid]["segments"] += n
        for chunk in (stale[i : i + 500] for i in range(0, len(stale), 500)):
            marks = ",".join("?" * len(chunk))
            for cid, lang, n in self.conn.execute(
                "SELECT d.collection_id, s.lang, COUNT(*) FROM segments s "
                f"JOIN documents d ON d.id = s.document_id WHERE d.id IN ({marks}) "
                "GROUP BY d.collection_id, s.lang",
                chunk,
            ):
                langs = out[cid]["languages"]
                langs[lang] = langs.get(lang, 0) + n
                out[cid]["segments"] += n
        for chunk in (no_units[i : i + 500] for i in range(0, len(no_units), 500)):
            marks = ",".join("?" * len(chunk))
            for cid, n in self.conn.execute(
                "SELECT d.collection_id, COUNT(DISTINCT s.tu_id) FROM segments s "
                f"JOIN documents d ON d.id = s.document_id WHERE d.id IN ({marks}) "
                "GROUP BY d.collection_id",
                chunk,
            ):
                out[cid]["units"] += n
        for item in out.values():
            item["languages"] = dict(
                sorted(item["languages"].items(), key=lambda kv: (-kv[1], kv[0]))
            )
        return list(out.values())

    def documents(self, collection: str | None = None) -> list[dict[str, Any]]:
        """Documents (of one collection, or all): id, collection, path, format, sha256, …"""
        sql = (
            "SELECT d.id, c.name, d.path, d.format, d.sha256, d.imported_at, d.segment_count, "
            "d.languages, d.options, d.size FROM documents d "
            "JOIN collections c ON c.id = d.collection_id"
        )
        params: list[Any] = []
        if collection is not None:
            sql += " WHERE c.name = ?"
            params.append(collection)
        keys = (
            "id collection path format sha256 imported_at segment_count languages options size"
        ).split()
        rows = []
        for row in self.conn.execute(sql + " ORDER BY c.name, d.path", params):
            item = dict(zip(keys, row, strict=True))
            item["languages"] = json.loads(item["languages"] or "{}")
            item["options"] = json.loads(item["options"] or "{}")
            rows.append(item)
        return rows

    def delete_document(self, document_id: int) -> int:
        """Delete one document and its segments; return the number of segments removed."""
        with self.transaction() as conn:
            if not conn.execute("SELECT 1 FROM documents WHERE id=?", (document_id,)).fetchone():
                raise DataError(f"no document with id {document_id}")
            n = conn.execute("DELETE FROM segments WHERE document_id=?", (document_id,)).rowcount
            conn.execute("DELETE FROM documents WHERE id=?", (document_id,))
            self._bump_generation()
        return n

    def require_collection(self, name: str) -> int:
        """The id of collection ``name``; a one-line ``ConfigError`` naming the collections
        there are when it does not exist (every command says it the same way)."""
        cid = self.collection_id(name)
        if cid is None:
            names = ", ".join(str(c["name"]) for c in self.collections()) or "none yet"
            raise ConfigError(
                f"no collection named {name!r}",
                hint=f"collections: {names} (xlsearch collections lists them)",
            )
        return cid

    def delete_collection(self, name: str) -> int:
        """Delete a collection with its documents, segments and index records; return segments
        removed. Cached vectors stay (keyed by text); the index folders are the index's
        (``index.files.remove_collection_folders``)."""
        with self.transaction() as conn:
            cid = self.require_collection(name)
            n = conn.execute(
                "DELETE FROM segments WHERE document_id IN "
                "(SELECT id FROM documents WHERE collection_id=?)",
                (cid,),
            ).rowcount
            conn.execute("DELETE FROM documents WHERE collection_id=?", (cid,))
            conn.execute("DELETE FROM collections WHERE id=?", (cid,))
            conn.execute("DELETE FROM indexes WHERE collection=?", (name,))
            self._bump_generation()
        return n

    # -- import ------------------------------------------------------------------------------
    def import_file(
        self,
        path: Path | str,
        collection: str = "default",
        fmt: str | None = None,
        langs: Sequence[str] | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        **options: Any,
    ) -> ImportReport:
        """Import (or re-import) one file in one transaction; see ``store.ingest``."""
        from xlsearch.engine.store.ingest import import_file

        return import_file(self, path, collection, fmt, langs, on_progress, cancel, **options)

    def import_files(
        self,
        paths: Iterable[Path | str],
        collection: str = "default",
        fmt: str | None = None,
        langs: Sequence[str] | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        **options: Any,
    ) -> list[ImportReport]:
        """Import several files, each in its own transaction (a failure stops the run)."""
        return [
            self.import_file(p, collection, fmt, langs, on_progress, cancel, **options)
            for p in paths
        ]

    # -- models and embeddings (shared with the index layer) ---------------------------------
    def upsert_model(self, model_id: str, folder: str, dim: int, card: dict[str, Any]) -> None:
        """Record a model (id, folder, dim, card)."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO models (id, folder, dim, card) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET folder=excluded.folder, dim=excluded.dim, "
                "card=excluded.card",
                (model_id, folder, int(dim), json.dumps(card, ensure_ascii=False)),
            )

    def put_embeddings(self, model_id: str, hashes: Sequence[str], vectors: np.ndarray) -> None:
        """Store float32 vectors for text hashes (existing ones are replaced)."""
        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        if len(hashes) != len(vecs):
            raise ValueError("hashes and vectors differ in length")
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO embeddings (model_id, text_hash, vector) VALUES (?,?,?)",
                ((model_id, h, v.tobytes()) for h, v in zip(hashes, vecs, strict=True)),
            )

    def get_embeddings(
        self, model_id: str, hashes: Sequence[str], dim: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(vectors (n, dim) float32, found mask (n,) bool) for text hashes; missing rows 0."""
        out = np.zeros((len(hashes), dim), dtype=np.float32)
        found = np.zeros(len(hashes), dtype=bool)
        where: dict[str, list[int]] = {}
        for i, h in enumerate(hashes):
            where.setdefault(h, []).append(i)
        keys = list(where)
        for start in range(0, len(keys), 900):
            chunk = keys[start : start + 900]
            for h, blob in self.conn.execute(
                "SELECT text_hash, vector FROM embeddings WHERE model_id=? AND text_hash IN "
                f"({sql_placeholders(chunk)})",
                [model_id, *chunk],
            ):
                vec = np.frombuffer(blob, dtype=np.float32)
                if vec.shape[0] != dim:
                    continue
                for i in where[h]:
                    out[i] = vec
                    found[i] = True
        return out, found


def _recorded(raw: str | None) -> dict[str, int] | None:
    """A document's recorded ``{lang: segments}``, or None when it has none to trust."""
    try:
        counts = json.loads(raw or "{}")
    except ValueError:
        return None
    if not isinstance(counts, dict):
        return None
    try:
        return {str(lang): int(n) for lang, n in counts.items()}
    except (TypeError, ValueError):
        return None
