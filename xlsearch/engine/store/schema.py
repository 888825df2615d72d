"""The store's SQLite schema as numbered migrations, applied in order when a store opens."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable

from xlsearch.engine.errors import StoreError

MOVE_CHUNK = 20_000
"""Vectors moved per step by migration 3 (each step deletes what it copied, so the file
grows by about one step, not by the whole cache)."""
NOTICE_ABOVE = 100_000
"""Vectors above which migration 3 says first that it will take a while."""
log = logging.getLogger("xlsearch.store")


def _vector_cache_v3(conn: sqlite3.Connection) -> None:
    """The vector cache as a rowid table with a separate unique index: 1.5 KB vectors in a
    WITHOUT ROWID table took two pages a row and split pages on every random-key insert
    (100k vectors: insert 2.5x, read 2.6x faster, half the file). The vectors are moved in
    key order, a step at a time, each step deleting what it copied so that freed pages are
    reused (500k vectors: 30 s, the file grew 2 %); a big cache gets a notice first."""
    conn.execute(
        "CREATE TABLE embeddings_v3 (id INTEGER PRIMARY KEY, model_id TEXT NOT NULL, "
        "text_hash TEXT NOT NULL, vector BLOB NOT NULL)"
    )
    total = conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]
    if total > NOTICE_ABOVE:
        log.warning(
            "upgrading the store's vector cache (%s vectors, one time, about %d s): %s",
            f"{total:,}",
            max(1, round(total / 16_000)),
            conn.execute("PRAGMA database_list").fetchone()[2],
        )
    while True:
        last = conn.execute(
            "SELECT model_id, text_hash FROM embeddings ORDER BY model_id, text_hash "
            "LIMIT 1 OFFSET ?",
            (MOVE_CHUNK - 1,),
        ).fetchone()
        if last is None:  # the rest fits in one step
            conn.execute(
                "INSERT INTO embeddings_v3 (model_id, text_hash, vector) "
                "SELECT model_id, text_hash, vector FROM embeddings"
            )
            break
        where = "(model_id, text_hash) <= (?, ?)"
        conn.execute(
            "INSERT INTO embeddings_v3 (model_id, text_hash, vector) SELECT model_id, "
            f"text_hash, vector FROM embeddings WHERE {where} ORDER BY model_id, text_hash",
            last,
        )
        conn.execute(f"DELETE FROM embeddings WHERE {where}", last)
    conn.execute("DROP TABLE embeddings")
    conn.execute("ALTER TABLE embeddings_v3 RENAME TO embeddings")
    conn.execute("CREATE UNIQUE INDEX embeddings_key ON embeddings (model_id, text_hash)")


def _unit_counts(conn: sqlite3.Connection) -> None:
    """Units per document, recorded at import as segments and languages are: the
    collections list and the Corpus screen then count nothing. An older store's documents
    are counted once, here."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(documents)")}
    if "unit_count" not in columns:
        conn.execute("ALTER TABLE documents ADD COLUMN unit_count INTEGER")
    conn.execute(
        "UPDATE documents SET unit_count = "
        "(SELECT COUNT(DISTINCT tu_id) FROM segments WHERE document_id = documents.id)"
    )


# Each entry: (version, SQL script or a function of the connection, run in the migration's
# transaction). Never edit a released migration; append a new one.
MIGRATIONS: list[tuple[int, str | Callable[[sqlite3.Connection], None]]] = [
    (
        1,
        """
        CREATE TABLE collections (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL
        );
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            collection_id INTEGER NOT NULL REFERENCES collections(id),
            path TEXT NOT NULL,
            format TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            imported_at TEXT NOT NULL,
            segment_count INTEGER NOT NULL DEFAULT 0,
            languages TEXT NOT NULL DEFAULT '{}',
            options TEXT NOT NULL DEFAULT '{}',
            size INTEGER,
            UNIQUE (collection_id, path)
        );
        -- AUTOINCREMENT: a segment id is never reused, so a vector index entry can never
        -- silently point at a different segment after deletions.
        CREATE TABLE segments (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            document_id INTEGER NOT NULL REFERENCES documents(id),
            position INTEGER NOT NULL,
            lang TEXT NOT NULL,
            text TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            tu_id TEXT NOT NULL,
            meta TEXT
        );
        CREATE INDEX segments_document_position ON segments (document_id, position);
        CREATE INDEX segments_text_hash ON segments (text_hash);
        CREATE INDEX segments_lang ON segments (lang);
        CREATE INDEX segments_tu_id ON segments (tu_id);
        CREATE VIRTUAL TABLE segments_fts USING fts5 (
            text, content='segments', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER segments_ai AFTER INSERT ON segments BEGIN
            INSERT INTO segments_fts (rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER segments_ad AFTER DELETE ON segments BEGIN
            INSERT INTO segments_fts (segments_fts, rowid, text)
                VALUES ('delete', old.id, old.text);
        END;
        CREATE TRIGGER segments_au AFTER UPDATE OF text ON segments BEGIN
            INSERT INTO segments_fts (segments_fts, rowid, text)
                VALUES ('delete', old.id, old.text);
            INSERT INTO segments_fts (rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TABLE models (
            id TEXT PRIMARY KEY,
            folder TEXT,
            dim INTEGER,
            card TEXT
        );
        CREATE TABLE embeddings (
            model_id TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (model_id, text_hash)
        ) WITHOUT ROWID;
        CREATE TABLE indexes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            collection TEXT NOT NULL,
            model_id TEXT NOT NULL,
            kind TEXT,
            params TEXT,
            count INTEGER,
            generation INTEGER,
            built_at TEXT,
            path TEXT,
            UNIQUE (collection, model_id)
        );
        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value TEXT
        );
        INSERT INTO meta (key, value) VALUES ('generation', '0');
        """,
    ),
    (
        2,
        """
        -- Translation-unit metadata (TMX tu attributes, props and notes; XLIFF unit notes …).
        -- Language tags are stored as written (BCP 47) from now on: existing primary tags
        -- (en, de) are valid tags and keep matching as prefixes, so segments need no change.
        CREATE TABLE units (
            tu_id TEXT PRIMARY KEY,
            document_id INTEGER NOT NULL,
            tuid TEXT,
            created_at TEXT,
            created_by TEXT,
            changed_at TEXT,
            changed_by TEXT,
            meta TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX units_document ON units (document_id);
        CREATE INDEX units_created_at ON units (created_at);
        CREATE INDEX units_changed_at ON units (changed_at);
        CREATE TABLE unit_fields (
            tu_id TEXT NOT NULL,
            document_id INTEGER NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL
        );
        CREATE INDEX unit_fields_key_value ON unit_fields (key, value COLLATE NOCASE);
        CREATE INDEX unit_fields_tu ON unit_fields (tu_id);
        CREATE INDEX unit_fields_document ON unit_fields (document_id);
        CREATE TRIGGER documents_units_bd BEFORE DELETE ON documents BEGIN
            DELETE FROM unit_fields WHERE document_id = old.id;
            DELETE FROM units WHERE document_id = old.id;
        END;
        """,
    ),
    (3, _vector_cache_v3),
    (4, _unit_counts),
]

LATEST = MIGRATIONS[-1][0]


def current_version(conn: sqlite3.Connection) -> int:
    """The highest applied migration (0 for a fresh database)."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (version INTEGER PRIMARY KEY, applied_at TEXT)"
    )
    row = conn.execute("SELECT MAX(version) FROM _migrations").fetchone()
    return int(row[0] or 0)


def migrate(conn: sqlite3.Connection) -> list[int]:
    """Apply every pending migration, each in its own transaction; return the versions applied.

    ``conn`` must be in autocommit mode (``isolation_level=None``). A database written by a
    newer xlsearch (a version above ``LATEST``) is refused rather than misread.
    """
    applied: list[int] = []
    version = current_version(conn)
    if version > LATEST:
        raise StoreError(
            f"the store was written by a newer xlsearch (schema {version}, this one knows "
            f"{LATEST})",
            hint="upgrade xlsearch",
        )
    for number, script in MIGRATIONS:
        if number <= version:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # re-check under the write lock: another process may have migrated meanwhile
            if current_version(conn) >= number:
                conn.execute("ROLLBACK")
                continue
            if callable(script):
                script(conn)
            else:
                for statement in _statements(script):
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO _migrations (version, applied_at) VALUES (?, datetime('now'))",
                (number,),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(number)
    return applied


def _statements(script: str) -> list[str]:
    """Split a script into complete statements (``executescript`` would commit early)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
