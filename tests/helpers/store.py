"""A store as an older xlsearch wrote it."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def old_store(db: Path, version: int) -> sqlite3.Connection:
    """A store database as xlsearch wrote it at schema ``version`` (an open connection)."""
    from xlsearch.engine.store import schema

    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("CREATE TABLE _migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
    for number, script in schema.MIGRATIONS[:version]:
        for stmt in schema._statements(script):
            conn.execute(stmt)
        conn.execute("INSERT INTO _migrations VALUES (?, 'then')", (number,))
    return conn
