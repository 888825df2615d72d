"""Build, update, open and repair the vector index of one (collection, model).

Folder ``indexes_dir()/<collection>--<model-slug>/`` holds ``index.json`` (the sidecar: model
key, dim, count, kind, params, store generation, sha256 checksum and the names of the current
files), ``index-<tag>.faiss`` and ``keys-<tag>.npz`` (segment id + text-hash of every vector).
A save writes new files under a fresh tag, fsyncs them, then atomically replaces
``index.json``; readers therefore always see a complete (sidecar, index) pair. Writers hold
an exclusive ``flock`` on ``.lock``; a killed writer leaves the previous index intact and
the vectors it embedded in the store's cache.
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import hashlib
import json
import os
import re
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine import locations
from xlsearch.engine.errors import IndexMismatchError
from xlsearch.engine.index.cache import (
    fsync_dir,
    iter_vectors,
    model_key,
    register_model,
    segment_rows,
)
from xlsearch.engine.index.vectors import (
    IVF_KINDS,
    VectorIndex,
    choose_kind,
    estimate_memory,
    human_bytes,
    read_index,
    tune_nprobe,
    write_index,
)
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress

SIDECAR = "index.json"
FORMAT = 1
CHECKSUM_MAX = 1 << 30
"""Files up to this size are sha256-verified on every open; bigger ones by size only."""
MMAP_MIN = 64 << 20
"""IVF files at least this big are memory-mapped when opened for search."""


def _slug(text: str) -> str:
    clean = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:40] or "x"
    return clean if clean == text else f"{clean}-{hashlib.sha1(text.encode()).hexdigest()[:6]}"


def index_folder(collection: str, key: str) -> Path:
    """``indexes_dir()/<collection>--<model-slug>`` for a collection and model key."""
    model_id, _, fp = key.partition("#")
    base = "bundled-teacher" if model_id == "bundled:teacher" else Path(model_id).name
    return locations.indexes_dir() / f"{_slug(collection)}--{_slug(base)}-{fp[:8] or 'x'}"


@contextmanager
def folder_lock(folder: Path, *, wait: bool = True) -> Iterator[bool]:
    """Exclusive writer lock on ``folder/.lock``; yields False when ``wait`` is off and busy."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def read_sidecar(folder: Path) -> dict[str, Any] | None:
    """The folder's sidecar, or None when no index was saved there."""
    try:
        return json.loads((folder / SIDECAR).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise IndexMismatchError(f"{folder / SIDECAR}: unreadable index sidecar ({exc})") from exc


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


@dataclass
class OpenIndex:
    """An index ready to search, with its sidecar and what opening it had to do."""

    vi: VectorIndex
    meta: dict[str, Any]
    keys: dict[str, np.ndarray]
    folder: Path
    state: str = "fresh"
    """``fresh`` (matched the store), ``repaired`` or ``built``."""
    added: int = 0
    removed: int = 0
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return self.vi.ntotal


def _load(folder: Path, meta: dict[str, Any], *, mmap: bool) -> tuple[VectorIndex, dict]:
    file = folder / meta["file"]
    if not file.is_file():
        raise FileNotFoundError(file)
    size = file.stat().st_size
    if size != meta.get("size"):
        raise IndexMismatchError(
            f"{file} has {size} bytes, its sidecar says {meta.get('size')}: the file is damaged",
            hint="rebuild it: xlsearch index --rebuild",
        )
    if size <= CHECKSUM_MAX and _sha256(file) != meta.get("checksum"):
        raise IndexMismatchError(
            f"{file}: checksum mismatch, the index file is damaged",
            hint="rebuild it: xlsearch index --rebuild",
        )
    with np.load(folder / meta["keys"]) as npz:
        keys = {"id": npz["id"], "h64": npz["h64"]}
    use_mmap = mmap and meta["kind"] in IVF_KINDS and size >= MMAP_MIN
    vi = read_index(file, meta["kind"], int(meta["dim"]), meta.get("params", {}), mmap=use_mmap)
    if vi.ntotal != int(meta["count"]) or len(keys["id"]) != vi.ntotal:
        raise IndexMismatchError(
            f"{file} holds {vi.ntotal} vectors, its sidecar says {meta['count']}",
            hint="rebuild it: xlsearch index --rebuild",
        )
    return vi, keys


def _load_current(folder: Path, *, mmap: bool) -> tuple[VectorIndex, dict, dict] | None:
    """(index, keys, sidecar) of the folder; retries if a writer swapped files meanwhile."""
    for attempt in range(5):
        meta = read_sidecar(folder)
        if meta is None:
            return None
        try:
            vi, keys = _load(folder, meta, mmap=mmap)
            return vi, keys, meta
        except FileNotFoundError:
            time.sleep(0.05 * (attempt + 1))
    raise IndexMismatchError(f"{folder}: the index files keep changing; try again")


def _check_model(meta: dict[str, Any], key: str, dim: int, folder: Path) -> None:
    if meta.get("format") != FORMAT:
        raise IndexMismatchError(
            f"{folder}: index format {meta.get('format')} is not {FORMAT}",
            hint="rebuild it: xlsearch index --rebuild",
        )
    if meta.get("model_id") != key or int(meta.get("dim", -1)) != dim:
        raise IndexMismatchError(
            f"the index in {folder} was built with model {meta.get('model_id')} "
            f"({meta.get('dim')}-d), not {key} ({dim}-d)",
            hint="rebuild it with this model: xlsearch index --rebuild --model …",
        )


def _diff(keys: dict[str, np.ndarray], rows: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    """(ids to remove from the index, ids to add): gone or changed vs new or changed."""
    idx_pairs = keys["id"].astype(np.int64), keys["h64"].astype(np.int64)
    st_pairs = rows["id"].astype(np.int64), rows["h64"].astype(np.int64)
    a = np.rec.fromarrays(idx_pairs, names="id,h")
    b = np.rec.fromarrays(st_pairs, names="id,h")
    remove = np.setdiff1d(a, b)["id"] if len(a) else np.zeros(0, np.int64)
    add = np.setdiff1d(b, a)["id"] if len(b) else np.zeros(0, np.int64)
    return np.asarray(remove, np.int64), np.asarray(add, np.int64)


def _needs_rebuild(vi: VectorIndex, target: str, n: int, removing: int) -> bool:
    if target != vi.kind or (removing and not vi.supports_remove):
        return True
    trained = int(vi.params.get("trained_on", 0))
    return vi.kind in IVF_KINDS and trained > 0 and n > 16 * max(trained, 1000)


def _update(
    store: Any,
    encoder: Any,
    key: str,
    collection: str,
    current: tuple[VectorIndex, dict, dict] | None,
    *,
    kind: str,
    params: dict | None,
    rebuild: bool,
    on_progress: ProgressCallback,
    cancel: CancelToken | None,
) -> tuple[VectorIndex, dict[str, np.ndarray], dict[str, Any], dict[str, Any]]:
    """Bring an index in line with the store; returns (index, keys, sidecar fields, stats)."""
    gen = store.generation()
    rows = segment_rows(store.db, collection=collection)
    n = len(rows["id"])
    dim = int(encoder.dim)
    stats: dict[str, Any] = {"segments": n, "added": 0, "removed": 0, "rebuilt": False}
    auto = kind == "auto"
    if kind != "auto":
        target = kind
    elif current is not None and not current[2].get("auto", True):
        target, auto = current[0].kind, False  # keep the kind the user chose earlier
    else:
        target = choose_kind(n, dim)
    if current is not None and not rebuild:
        vi, keys, meta = current
        remove, add = _diff(keys, rows)
        if _needs_rebuild(vi, target, n, len(remove)):
            current = None
    if current is None or rebuild:
        vi = VectorIndex.create(target, dim, n, params)
        est = estimate_memory(vi.kind, n, dim, vi.params)
        on_progress(Progress("plan", 0, n, f"{vi.kind} index, ~{human_bytes(est)}", {"bytes": est}))
        keys = {"id": np.zeros(0, np.int64), "h64": np.zeros(0, np.int64)}
        remove, add = np.zeros(0, np.int64), rows["id"]
        stats["rebuilt"] = True
    h_of = dict(zip(rows["id"].tolist(), rows["h64"].tolist(), strict=True))
    if len(remove):
        vi.remove(remove)
        keep = ~np.isin(keys["id"], remove)
        keys = {"id": keys["id"][keep], "h64": keys["h64"][keep]}
        stats["removed"] = int(len(remove))
    new_ids: list[np.ndarray] = []
    if len(add) and not vi.is_trained:
        # IVF: embed everything first (cached), train on a sample, then add from the cache
        nlist = int(vi.params["nlist"])
        rng = np.random.default_rng(0)
        sample_ids = np.sort(rng.choice(add, size=min(len(add), 50 * nlist), replace=False))
        for _ in iter_vectors(store.db, encoder, key, add, on_progress=on_progress, cancel=cancel):
            pass
        samples = [v for _, v in iter_vectors(store.db, encoder, key, sample_ids)]
        sample = np.concatenate(samples) if samples else np.zeros((0, dim), np.float32)
        on_progress(Progress("train", 0, 1, f"{vi.params['nlist']} lists on {len(sample)} rows"))
        vi.train(sample)
        on_progress(Progress("train", 1, 1))
    for ids, vecs in iter_vectors(
        store.db, encoder, key, add, on_progress=on_progress, cancel=cancel
    ):
        vi.add(ids, vecs)
        new_ids.append(ids)
        on_progress(Progress("index", vi.ntotal, n))
    if new_ids:
        added = np.concatenate(new_ids)
        h_added = np.fromiter((h_of[int(i)] for i in added), dtype=np.int64, count=len(added))
        keys = {
            "id": np.concatenate([keys["id"], added]),
            "h64": np.concatenate([keys["h64"], h_added]),
        }
        stats["added"] = int(len(added))
    if stats["rebuilt"] and vi.kind in IVF_KINDS and vi.ntotal > 20:
        rng = np.random.default_rng(1)
        pick = np.sort(rng.choice(keys["id"], size=min(200, vi.ntotal), replace=False))
        qs = [v for _, v in iter_vectors(store.db, encoder, key, pick)]
        on_progress(Progress("tune", 0, 1, "choosing nprobe for recall@10 ≥ 0.97"))
        stats["tuned_recall"] = tune_nprobe(vi, np.concatenate(qs), pick)
    if vi.ntotal != len(keys["id"]):  # pragma: no cover - would be a bug
        raise IndexMismatchError(f"index holds {vi.ntotal} vectors but {len(keys['id'])} keys")
    fields = {"generation": gen, "auto": auto}
    return vi, keys, fields, stats


def _save(folder: Path, vi: VectorIndex, keys: dict, meta: dict[str, Any]) -> dict[str, Any]:
    """Write files under a fresh tag, then atomically swap the sidecar; remove old files."""
    tag = f"{meta['generation']}-{uuid.uuid4().hex[:8]}"
    file, keyfile = f"index-{tag}.faiss", f"keys-{tag}.npz"
    tmp = folder / (file + ".tmp")
    write_index(vi, tmp)
    tmp.replace(folder / file)
    with (folder / (keyfile + ".tmp")).open("wb") as fh:
        np.savez(fh, id=keys["id"], h64=keys["h64"])
        fh.flush()
        os.fsync(fh.fileno())
    (folder / (keyfile + ".tmp")).replace(folder / keyfile)
    meta = {
        **meta,
        "format": FORMAT,
        "file": file,
        "keys": keyfile,
        "count": vi.ntotal,
        "kind": vi.kind,
        "dim": vi.dim,
        "params": vi.params,
        "size": (folder / file).stat().st_size,
        "checksum": _sha256(folder / file),
        "built_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }
    side_tmp = folder / (SIDECAR + ".tmp")
    with side_tmp.open("w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=2)
        fh.flush()
        os.fsync(fh.fileno())
    side_tmp.replace(folder / SIDECAR)
    fsync_dir(folder)
    for old in folder.iterdir():
        if old.name.startswith(("index-", "keys-")) and old.name not in (file, keyfile):
            old.unlink(missing_ok=True)
    return meta


def _record(store: Any, collection: str, key: str, meta: dict, folder: Path) -> None:
    """Upsert the store's ``indexes`` row for (collection, model)."""
    from xlsearch.engine.index.cache import transaction

    with transaction(store.db.conn):
        store.db.conn.execute(
            "INSERT INTO indexes (collection, model_id, kind, params, count, generation, "
            "built_at, path) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(collection, model_id) DO "
            "UPDATE SET kind=excluded.kind, params=excluded.params, count=excluded.count, "
            "generation=excluded.generation, built_at=excluded.built_at, path=excluded.path",
            (
                collection,
                key,
                meta["kind"],
                json.dumps(meta["params"]),
                meta["count"],
                meta["generation"],
                meta["built_at"],
                str(folder),
            ),
        )


def build_index(
    store: Any,
    encoder: Any,
    collection: str,
    *,
    kind: str = "auto",
    params: dict[str, Any] | None = None,
    rebuild: bool = False,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> OpenIndex:
    """Create or incrementally update the index of ``collection`` for ``encoder``'s model.

    ``kind``: ``auto`` keeps the current kind (or picks flat/ivf/ivfpq by size), else one of
    flat, hnsw, ivf, sq8, ivfpq (a different kind rebuilds). Only segments whose text has no
    cached vector for this model are embedded. A model mismatch raises unless ``rebuild``.
    """
    on_progress = on_progress or no_progress
    key = model_key(encoder)
    folder = index_folder(collection, key)
    if store.collection_id(collection) is None:
        raise IndexMismatchError(f"no collection named {collection!r}", hint="xlsearch collections")
    register_model(store.db, key, encoder)
    with folder_lock(folder):
        current = None if rebuild else _load_current(folder, mmap=False)
        if current is not None:
            _check_model(current[2], key, int(encoder.dim), folder)
        vi, keys, fields, stats = _update(
            store,
            encoder,
            key,
            collection,
            current,
            kind=kind,
            params=params,
            rebuild=rebuild,
            on_progress=on_progress,
            cancel=cancel,
        )
        if cancel is not None:
            cancel.raise_if_cancelled()
        on_progress(Progress("save", 0, 1, str(folder)))
        head = {"collection": collection, "model_id": key, "model": str(getattr(encoder, "id", ""))}
        meta = _save(folder, vi, keys, {**head, **fields})
        _record(store, collection, key, meta, folder)
        on_progress(Progress("save", 1, 1, f"{vi.ntotal} vectors"))
    return OpenIndex(vi, meta, keys, folder, "built", stats["added"], stats["removed"], stats)


def open_index(
    store: Any,
    encoder: Any,
    collection: str,
    *,
    repair: bool = True,
    mmap: bool = True,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> OpenIndex:
    """Open the index of ``collection`` for searching; a stale index is never returned.

    A model/dim/checksum mismatch raises ``IndexMismatchError``. If the store changed since
    the index was saved, the index is repaired (missing segments embedded, deleted ones
    dropped) when ``repair``, and saved if no other writer holds the lock; otherwise it raises.
    """
    on_progress = on_progress or no_progress
    key = model_key(encoder)
    folder = index_folder(collection, key)
    current = _load_current(folder, mmap=mmap)
    if current is None:
        raise IndexMismatchError(
            f"collection {collection!r} has no index for model {key.partition('#')[0]}",
            hint=f"build it: xlsearch index --collection {collection}",
        )
    vi, keys, meta = current
    _check_model(meta, key, int(encoder.dim), folder)
    if store.generation() == meta.get("generation"):
        return OpenIndex(vi, meta, keys, folder)
    rows = segment_rows(store.db, collection=collection)
    remove, add = _diff(keys, rows)
    if not len(remove) and not len(add):
        return OpenIndex(vi, meta, keys, folder)
    if not repair:
        raise IndexMismatchError(
            f"the index of {collection!r} is stale: {len(add)} segments are not in it and "
            f"{len(remove)} it holds were deleted or changed",
            hint=f"update it: xlsearch index --collection {collection}",
        )
    with folder_lock(folder, wait=False) as locked:
        if locked:  # re-read under the lock: a writer may have just saved a newer index
            current = _load_current(folder, mmap=False)
            assert current is not None
        elif vi.ivf is not None and meta["kind"] in IVF_KINDS:
            current = _load_current(folder, mmap=False)  # writable copy for in-memory repair
            assert current is not None
        vi, keys, fields, stats = _update(
            store,
            encoder,
            key,
            collection,
            current,
            kind="auto",
            params=None,
            rebuild=False,
            on_progress=on_progress,
            cancel=cancel,
        )
        meta = {**current[2], **fields}
        if locked:
            meta = _save(folder, vi, keys, meta)
            _record(store, collection, key, meta, folder)
    return OpenIndex(vi, meta, keys, folder, "repaired", stats["added"], stats["removed"], stats)


def index_status(store: Any, encoder: Any, collection: str) -> dict[str, Any]:
    """``{"state": fresh|stale|missing|mismatch, "vectors", "segments", "kind", "folder"}``."""
    key = model_key(encoder)
    folder = index_folder(collection, key)
    n = store.count_segments(collection=collection)
    meta = read_sidecar(folder)
    if meta is None:
        return {"state": "missing", "vectors": 0, "segments": n, "kind": None, "folder": folder}
    out = {
        "vectors": meta.get("count", 0),
        "segments": n,
        "kind": meta.get("kind"),
        "folder": folder,
    }
    if meta.get("model_id") != key or int(meta.get("dim", -1)) != int(encoder.dim):
        return {**out, "state": "mismatch"}
    if meta.get("generation") == store.generation():
        return {**out, "state": "fresh"}
    remove, add = _diff(_keys_of(folder, meta), segment_rows(store.db, collection=collection))
    return {**out, "state": "stale" if len(remove) or len(add) else "fresh"}


def _keys_of(folder: Path, meta: dict) -> dict[str, np.ndarray]:
    try:
        with np.load(folder / meta["keys"]) as npz:
            return {"id": npz["id"], "h64": npz["h64"]}
    except FileNotFoundError:
        return {"id": np.zeros(0, np.int64), "h64": np.zeros(0, np.int64)}
