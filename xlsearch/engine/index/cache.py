"""The vector cache in the store: each distinct text is embedded once per model.

Table ``embeddings(model_id, text_hash, vector BLOB float32, PK(model_id, text_hash))``; the
model id used here is :func:`model_key` (model id + a fingerprint of its weights), so a model
retrained in place never serves old vectors.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.models.cards import (
    BUNDLED_TEACHER,
    check_model_folder,
    weights_digest,
    weights_stamp,
)
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress
from xlsearch.engine.store.core import write_transaction

BATCH = 2048
"""Segments embedded (and committed to the cache) per step."""


def model_key(encoder: Any) -> str:
    """``<model id>#<fingerprint>``: the fingerprint hashes the card's ``created`` stamp and
    the names, sizes and content hashes of the weight files, so re-trained weights get a new
    key while a copy of the same model (another folder, a second checkout, a touched file)
    keeps its key, its cached vectors and its indexes."""
    return _key(encoder, content=True)


def legacy_model_key(encoder: Any) -> str | None:
    """The key earlier versions gave a model folder (weight files' size + mtime instead of
    their content), to adopt indexes built under it; None for encoders without a folder."""
    path = getattr(encoder, "path", None)
    if path is None or not Path(path).is_dir():
        return None
    return _key(encoder, content=False)


def _key(encoder: Any, *, content: bool) -> str:
    base = str(getattr(encoder, "id", None) or type(encoder).__name__)
    path = getattr(encoder, "path", None)
    parts: list[str] = [str(getattr(encoder, "dim", ""))]
    check_model_folder(encoder)
    if path is not None and Path(path).is_dir():
        if content and base != BUNDLED_TEACHER:
            base = Path(base).name  # the folder's name: not where this copy lies
        card = getattr(encoder, "card", None) or {}
        parts.append(str(card.get("created", "")))
        parts.extend(weights_digest(Path(path)) if content else weights_stamp(Path(path)))
    else:
        parts.append(str(getattr(encoder, "fingerprint", "")))
    fp = hashlib.sha1("|".join(parts).encode()).hexdigest()[:12]
    return f"{base}#{fp}"


INDEX_KEPT = "the index is as it was (vectors embedded so far are kept for the next run)"


def hash64(text_hashes: Sequence[str]) -> np.ndarray:
    """A 64-bit integer per text hash (the first 16 hex digits, else blake2b of the string)."""
    out = np.zeros(len(text_hashes), dtype=np.uint64)
    for i, h in enumerate(text_hashes):
        try:
            out[i] = int(h[:16], 16)
        except (ValueError, TypeError):
            out[i] = int.from_bytes(hashlib.blake2b(str(h).encode(), digest_size=8).digest())
    return out.view(np.int64)


def _filters(
    collection: str | None,
    langs: Sequence[str] | None,
    documents: Sequence[int] | None,
    conn: Any = None,
) -> tuple[str, list[Any]]:
    where: list[str] = []
    args: list[str | int] = []
    if collection is not None:
        where.append("d.collection_id = (SELECT id FROM collections WHERE name = ?)")
        args.append(collection)
    if langs:
        from xlsearch.engine.lang.tags import expand

        langs = expand(conn, list(langs))  # BCP 47 prefixes: en → en, en-GB, en-US …
        where.append(f"s.lang IN ({','.join('?' * len(langs))})" if langs else "0")
        args.extend(langs)
    if documents:
        where.append(f"s.document_id IN ({','.join('?' * len(documents))})")
        args.extend(int(d) for d in documents)
    return (" WHERE " + " AND ".join(where)) if where else "", args


def segment_rows(
    db: Any,
    *,
    collection: str | None = None,
    langs: Sequence[str] | None = None,
    documents: Sequence[int] | None = None,
) -> dict[str, np.ndarray]:
    """``{"id": int64[], "text_hash": object[], "h64": int64[]}`` of matching segments, by id."""
    where, args = _filters(collection, langs, documents, getattr(db, "conn", db))
    sql = (
        "SELECT s.id, s.text_hash FROM segments s JOIN documents d ON d.id = s.document_id"
        f"{where} ORDER BY s.id"
    )
    rows = db.execute(sql, args).fetchall()
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    hashes = np.array([r[1] for r in rows], dtype=object)
    return {"id": ids, "text_hash": hashes, "h64": hash64(list(hashes))}


def register_model(db: Any, key: str, encoder: Any) -> None:
    """Upsert the ``models`` row for ``key`` (folder, dim, card)."""
    import json

    path = getattr(encoder, "path", None)
    card = getattr(encoder, "card", None) or {}
    with write_transaction(db.conn, kept=INDEX_KEPT):
        db.conn.execute(
            "INSERT INTO models (id, folder, dim, card) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET folder=excluded.folder, dim=excluded.dim, "
            "card=excluded.card",
            (key, str(path) if path else None, int(encoder.dim), json.dumps(card, default=str)),
        )


def iter_vectors(
    db: Any,
    encoder: Any,
    key: str,
    ids: np.ndarray,
    *,
    batch: int | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield ``(ids, vectors)`` in batches, embedding and caching texts not cached yet.

    Ids that no longer exist in the store are skipped. Each batch's new vectors are
    committed before it is yielded, so a killed job keeps what it embedded.
    """
    on_progress = on_progress or no_progress
    dim = int(encoder.dim)
    total, done, embedded = len(ids), 0, 0
    batch = batch or BATCH
    for start in range(0, total, batch):
        if cancel is not None:
            cancel.raise_if_cancelled()
        chunk = [int(i) for i in ids[start : start + batch]]
        rows = db.execute(
            "SELECT s.id, s.text_hash, e.vector, CASE WHEN e.vector IS NULL THEN s.text END "
            "FROM segments s LEFT JOIN embeddings e ON e.model_id = ? AND e.text_hash = "
            f"s.text_hash WHERE s.id IN ({','.join('?' * len(chunk))})",
            [key, *chunk],
        ).fetchall()
        by_id = {r[0]: r for r in rows}
        order = [i for i in chunk if i in by_id]
        missing: dict[str, str] = {}
        damaged: set[str] = set()
        for i in order:
            _, th, blob, text = by_id[i]
            if blob is None:
                missing.setdefault(th, text or "")
            elif len(blob) != 4 * dim:  # a damaged cache row: embed the text again
                damaged.add(th)
                missing.setdefault(th, _text_of(db, i))
        if damaged:
            on_progress(
                Progress(
                    "notice",
                    0,
                    None,
                    f"{len(damaged)} cached vectors of model {key.partition('#')[0]} were "
                    "damaged: embedding their texts again",
                )
            )
        fresh: dict[str, np.ndarray] = {}
        if missing:
            texts = list(missing.values())
            vecs = np.asarray(encoder.encode(texts), dtype=np.float32).reshape(len(texts), dim)
            fresh = dict(zip(missing.keys(), vecs, strict=True))
            with write_transaction(db.conn, kept=INDEX_KEPT):
                db.conn.executemany(
                    "INSERT OR IGNORE INTO embeddings (model_id, text_hash, vector) VALUES (?,?,?)",
                    [(key, th, v.tobytes()) for th, v in fresh.items() if th not in damaged],
                )
                db.conn.executemany(
                    "UPDATE embeddings SET vector = ? WHERE model_id = ? AND text_hash = ?",
                    [(fresh[th].tobytes(), key, th) for th in damaged],
                )
            embedded += len(fresh)
        out = np.empty((len(order), dim), dtype=np.float32)
        for n, i in enumerate(order):
            _, th, blob, _ = by_id[i]
            out[n] = fresh[th] if th in fresh else np.frombuffer(blob, dtype=np.float32)
        done += len(chunk)
        on_progress(
            Progress(
                "embed", done, total, metrics={"embedded": embedded, "cached": done - embedded}
            )
        )
        yield np.asarray(order, dtype=np.int64), out


def _text_of(db: Any, segment_id: int) -> str:
    row = db.execute("SELECT text FROM segments WHERE id = ?", [segment_id]).fetchone()
    return str(row[0]) if row else ""


def ensure_vectors(
    db: Any,
    encoder: Any,
    key: str,
    ids: np.ndarray,
    *,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> np.ndarray:
    """Vectors for ``ids`` (rows aligned; ids missing from the store get zero rows)."""
    out = np.zeros((len(ids), int(encoder.dim)), dtype=np.float32)
    pos = {int(i): n for n, i in enumerate(ids)}
    for got, vecs in iter_vectors(db, encoder, key, ids, on_progress=on_progress, cancel=cancel):
        out[[pos[int(i)] for i in got]] = vecs
    return out


def cache_size(db: Any, key: str) -> int:
    """How many vectors the cache holds for ``key``."""
    return int(
        db.execute("SELECT count(*) FROM embeddings WHERE model_id = ?", [key]).fetchone()[0]
    )
