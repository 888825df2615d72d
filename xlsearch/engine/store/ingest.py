"""Importing files into the store: one transaction per file, unchanged files skipped, changed
files diffed so unchanged segments keep their ids (and their vectors/index entries)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from xlsearch.engine.errors import DataError
from xlsearch.engine.importers import ReadContext, Record, detect_format, langs_option, read_records
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, ensure_token
from xlsearch.engine.store.units import clear_units, units_digest, write_units


class ImportTarget(Protocol):
    """What an import needs of the store (``store.core.Store`` is one)."""

    conn: sqlite3.Connection

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...

    def ensure_collection(self, name: str) -> int: ...

    def _bump_generation(self) -> int: ...


BATCH = 2000


@dataclass
class ImportReport:
    """What importing one file added and what it skipped."""

    path: str
    status: str
    """``imported`` (new document), ``updated`` (changed file re-imported), ``unchanged``, or
    ``failed`` (``problems`` says why)."""
    added: int = 0
    """Segments added by this import."""
    removed: int = 0
    """Segments removed (a changed file re-imported)."""
    skipped: int = 0
    problems: list[str] = field(default_factory=list)
    """Human-readable ``FILE:LINE: reason`` lines for skipped or bad input (the first
    ``MAX_WARNINGS`` of them; ``problem_count`` counts them all)."""
    collection: str = "default"
    document_id: int | None = None
    format: str = ""
    segments: int = 0
    """Segments of the document after the import."""
    problem_count: int = 0
    languages: list[str] = field(default_factory=list)
    """The document's languages (set by the service after the import)."""
    seconds: float = 0.0


def text_hash(text: str) -> str:
    """The key of a text's vector in ``embeddings`` (blake2b-128, hex)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def file_sha256(path: Path, cancel: CancelToken) -> tuple[str, int]:
    """(sha256 hex, size in bytes) of a file, streamed."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
            cancel.raise_if_cancelled()
    return digest.hexdigest(), size


def _batches(
    records: Iterator[Record],
    doc_id: int,
    langs: Sequence[str] = (),
    prior: Sequence[str] = (),
    hint: str | None = None,
) -> Iterator[tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]]:
    """(segment rows (position, lang, text, text_hash, tu_id, meta), unit metadata rows) in
    batches, languages filled in (one guess per group; see ``doclang.LanguageFiller``;
    ``prior``: the store's languages, for short lines the identifier is unsure of; ``hint``:
    the language the file name gives a document, see ``doclang``)."""
    from xlsearch.engine.lang.doclang import LanguageFiller
    from xlsearch.engine.store.units import unit_rows

    filler = LanguageFiller(langs, prior, hint)
    position = 0
    last_unit: int | None = None
    batch: list[Record] = []

    def flush() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        nonlocal position, last_unit
        unknown = [rec for rec in batch if not rec.lang]
        filler.fill(batch)
        dropped = {id(rec) for rec in unknown if not _wanted(rec.lang, langs)}
        rows, units = [], []
        for rec in batch:
            if dropped and id(rec) in dropped:
                continue  # identified as a language the import's --lang leaves out
            meta = json.dumps(rec.meta, ensure_ascii=False, sort_keys=True) if rec.meta else None
            tu_id = f"{doc_id}:{rec.tu}"
            rows.append((position, rec.lang, rec.text, text_hash(rec.text), tu_id, meta))
            position += 1
            if rec.unit is not None and rec.tu != last_unit:
                units.append(unit_rows(tu_id, doc_id, rec.unit))
            last_unit = rec.tu
        return rows, units

    for rec in records:
        batch.append(rec)
        if len(batch) >= BATCH and (len(batch) >= 4 * BATCH or filler.ready(batch)):
            yield flush()
            batch = []
    if batch:
        yield flush()


def stored_languages(conn: Any) -> list[str]:
    """The store's languages, most segments first (from the documents' counts: no scan)."""
    counts: dict[str, int] = {}
    for (languages,) in conn.execute("SELECT languages FROM documents"):
        for lang, n in json.loads(languages or "{}").items():
            counts[lang] = counts.get(lang, 0) + int(n)
    counts.pop("und", None)
    return sorted(counts, key=lambda lang: (-counts[lang], lang))


def _wanted(lang: str | None, langs: Sequence[str]) -> bool:
    from xlsearch.engine.lang.tags import tag_matches

    return not langs or any(tag_matches(want, lang or "und") for want in langs)


READER_VERSION = 7
"""Bumped when importers read files differently (2: BCP 47 tags as written, unit metadata;
3: semicolon CSV, TSV/CSV first rows of words are data, JSONL ``translation`` lines; 4: an
inline code that stands for a placeholder is its text; 5: TMX codes that stand for
whitespace kept for the export, XLIFF pre-translations nobody confirmed skipped; 6: a PO
string's inner line breaks kept in its metadata; 7: a TMX ``x-Context`` prop in any case),
so re-importing an unchanged file after an upgrade reads it again."""


def import_file(
    store: ImportTarget,
    path: Path | str,
    collection: str = "default",
    fmt: str | None = None,
    langs: Sequence[str] | str | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    *,
    paragraphs: bool = False,
    encoding: str | None = None,
) -> ImportReport:
    """Import one file into ``collection`` in a single transaction.

    An unchanged file (same sha256 and options) is skipped. A changed one is diffed against
    its stored segments by (language, text) in document order: unchanged segments keep their
    ids (positions/tu ids are updated in place), vanished ones are deleted, new ones added.
    Any error or cancellation rolls everything back. ``langs``: column languages (TSV/CSV
    without a language header), the language of every segment (text, JSONL), or the
    languages to keep (TMX, XLIFF). ``paragraphs``: split text paragraphs into sentences.
    """
    start = time.monotonic()
    cancel = ensure_token(cancel)
    path = Path(path).expanduser()
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    path = path.resolve()
    fmt = detect_format(path, fmt)
    langs = langs_option(langs)
    options = {
        "format": fmt,
        "langs": langs,
        "paragraphs": paragraphs,
        "encoding": encoding,
        "reader": READER_VERSION,
    }
    options_json = json.dumps(options, sort_keys=True)
    sha, size = file_sha256(path, cancel)
    report = ImportReport(str(path), "imported", collection=collection, format=fmt)
    conn = store.conn

    def stored() -> Any:
        return conn.execute(
            "SELECT d.id, d.sha256, d.options, d.segment_count FROM documents d "
            "JOIN collections c ON c.id = d.collection_id WHERE c.name=? AND d.path=?",
            (collection, str(path)),
        ).fetchone()

    def unchanged(row: Any) -> bool:
        if not (row and row[1] == sha and row[2] == options_json):
            return False
        report.status, report.document_id, report.segments = "unchanged", row[0], row[3]
        report.seconds = time.monotonic() - start
        return True

    row = stored()
    if unchanged(row):
        return report

    ctx = ReadContext(path, langs, paragraphs, encoding)
    progress = on_progress or (lambda _: None)
    with store.transaction():
        row = stored()  # again under the write lock: another process may have imported it
        if unchanged(row):
            return report
        cid = store.ensure_collection(collection)
        if row:
            doc_id, fresh = int(row[0]), row[3] == 0
            report.status = "updated"
        else:
            doc_id, fresh = _new_document(conn, cid, str(path), fmt), True
        prior = stored_languages(conn)
        from xlsearch.engine.lang.doclang import filename_lang

        hint = filename_lang(path) if fmt in ("text", "markdown", "docx", "html") else None
        batches = _batches(read_records(ctx, fmt), doc_id, langs, prior, hint)
        old_units = clear_units(conn, doc_id)
        if not fresh:
            conn.execute(
                "CREATE TEMP TABLE IF NOT EXISTS import_incoming (position INTEGER, lang TEXT, "
                "text TEXT, text_hash TEXT, tu_id TEXT, meta TEXT)"
            )
            conn.execute("DELETE FROM temp.import_incoming")
        table = "main.segments (document_id, " if fresh else "temp.import_incoming ("
        sql = f"INSERT INTO {table}position, lang, text, text_hash, tu_id, meta) VALUES " + (
            "(?, ?, ?, ?, ?, ?, ?)" if fresh else "(?, ?, ?, ?, ?, ?)"
        )
        total = 0
        for rows, units in batches:
            cancel.raise_if_cancelled()
            conn.executemany(sql, [(doc_id, *r) for r in rows] if fresh else rows)
            write_units(conn, doc_id, units)
            total += len(rows)
            progress(Progress("import", ctx.bytes_read(), size, path.name, {"segments": total}))
        cancel.raise_if_cancelled()
        if fresh:
            report.added = total
        else:
            report.added, report.removed, moved = _apply_diff(conn, doc_id)
        langs_count = dict(
            conn.execute(
                "SELECT lang, COUNT(*) FROM segments WHERE document_id=? GROUP BY lang "
                "ORDER BY COUNT(*) DESC",
                (doc_id,),
            ).fetchall()
        )
        report.segments = sum(langs_count.values())
        units = conn.execute(
            "SELECT COUNT(DISTINCT tu_id) FROM segments WHERE document_id=?", (doc_id,)
        ).fetchone()[0]
        if not row and report.segments == 0 and ctx.skipped:  # all skipped: say why
            more = ctx.warning_count - 1
            raise DataError(
                f"nothing imported: {ctx.warnings[0]}"
                + (f" (and {more:,} more warnings)" if more > 0 else ""),
                hint="split the file into lines or segments under the limit"
                if "is over the limit of" in ctx.warnings[0]
                else "check the file, or its --format / --lang",
            )
        if not row and report.segments == 0:  # rolled back: no document, no new collection
            raise DataError(
                f"{path}:1: no segments found (an empty file, or only blank lines or empty "
                "segments); nothing imported",
                hint="check the file, or its --format / --lang",
            )
        conn.execute(
            "UPDATE documents SET format=?, sha256=?, "
            "imported_at=strftime('%Y-%m-%dT%H:%M:%SZ','now'), segment_count=?, "
            "languages=?, options=?, size=?, unit_count=? WHERE id=?",
            (fmt, sha, report.segments, json.dumps(langs_count), options_json, size, units, doc_id),
        )
        units_changed = units_digest(conn, doc_id) != old_units
        if report.added or report.removed or (not fresh and moved) or units_changed:
            store._bump_generation()
    progress(Progress("import", size, size, path.name, {"segments": report.segments}))
    report.document_id = doc_id
    report.skipped, report.problems = ctx.skipped, ctx.warnings
    report.problem_count = ctx.warning_count
    report.seconds = time.monotonic() - start
    return report


def _new_document(conn: Any, cid: int, path: str, fmt: str) -> int:
    cur = conn.execute(
        "INSERT INTO documents (collection_id, path, format, sha256, imported_at) "
        "VALUES (?, ?, ?, '', strftime('%Y-%m-%dT%H:%M:%SZ','now'))",
        (cid, path, fmt),
    )
    return int(cur.lastrowid)


def _apply_diff(conn: Any, doc_id: int) -> tuple[int, int, int]:
    """Turn the document's segments into ``temp.import_incoming``; (added, removed, moved).

    Old and new segments are matched on (lang, text_hash, n-th occurrence); a match keeps
    its id and only gets the new position, tu id and metadata.
    """
    for name in ("import_match", "import_old", "import_new"):
        conn.execute(f"DROP TABLE IF EXISTS temp.{name}")
    conn.execute(
        "CREATE TEMP TABLE import_old AS SELECT id, lang, text_hash, ROW_NUMBER() OVER "
        "(PARTITION BY lang, text_hash ORDER BY position, id) AS rn "
        "FROM main.segments WHERE document_id = ?",
        (doc_id,),
    )
    conn.execute("CREATE INDEX temp.import_old_key ON import_old (text_hash, lang, rn)")
    conn.execute(
        "CREATE TEMP TABLE import_new AS SELECT rowid AS nid, position, lang, text_hash, "
        "tu_id, meta, ROW_NUMBER() OVER (PARTITION BY lang, text_hash ORDER BY position) AS rn "
        "FROM temp.import_incoming"
    )
    conn.execute(
        "CREATE TEMP TABLE import_match AS SELECT o.id AS id, n.nid AS nid, "
        "n.position AS position, n.tu_id AS tu_id, n.meta AS meta FROM import_new AS n "
        "JOIN import_old AS o ON o.text_hash = n.text_hash AND o.lang = n.lang AND o.rn = n.rn"
    )
    conn.execute("CREATE INDEX temp.import_match_id ON import_match (id)")
    conn.execute("CREATE INDEX temp.import_match_nid ON import_match (nid)")
    removed = conn.execute(
        "DELETE FROM main.segments WHERE document_id = ? "
        "AND id NOT IN (SELECT id FROM temp.import_match)",
        (doc_id,),
    ).rowcount
    moved = conn.execute(
        "UPDATE main.segments SET position = m.position, tu_id = m.tu_id, meta = m.meta "
        "FROM temp.import_match AS m WHERE main.segments.id = m.id AND "
        "(main.segments.position != m.position OR main.segments.tu_id != m.tu_id "
        "OR main.segments.meta IS NOT m.meta)"
    ).rowcount
    added = conn.execute(
        "INSERT INTO main.segments (document_id, position, lang, text, text_hash, tu_id, meta) "
        "SELECT ?, position, lang, text, text_hash, tu_id, meta FROM temp.import_incoming "
        "WHERE rowid NOT IN (SELECT nid FROM temp.import_match) ORDER BY position",
        (doc_id,),
    ).rowcount
    for name in ("import_match", "import_old", "import_new"):
        conn.execute(f"DROP TABLE temp.{name}")
    conn.execute("DELETE FROM temp.import_incoming")
    return added, removed, moved
