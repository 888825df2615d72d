"""Build, update, open and repair the vector index of one (collection, model).

The folder ``indexes_dir()/<collection>--<model-slug>/`` (for a store other than the home's,
beside it: ``files.indexes_root``) holds the FAISS file, the ids + text hashes of its
vectors and a JSON sidecar (model key, dim, count, kind, params, store generation,
checksum). Writers hold an exclusive lock; a killed writer leaves the previous index intact
and the vectors it embedded in the store's cache, so a rerun only finishes the work. Opening
compares the index with the store: a stale index is repaired or refused, never served.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import IndexDamagedError, IndexMismatchError
from xlsearch.engine.index.cache import (
    iter_vectors,
    legacy_model_key,
    model_key,
    register_model,
    segment_rows,
)
from xlsearch.engine.index.files import (
    FORMAT,
    folder_lock,
    index_folder,
    keys_of,
    load_current,
    read_sidecar,
    read_sidecar_quietly,
    save,
    update_sidecar,
)
from xlsearch.engine.index.vectors import (
    IVF_KINDS,
    VectorIndex,
    choose_kind,
    estimate_memory,
    human_bytes,
    tune_nprobe,
)
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress


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


def _store_path(store: Any) -> Path | None:
    """The store's file (its indexes live by it unless it is the home's own store)."""
    path = getattr(store, "path", None)
    return Path(path) if path is not None else None


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
    a = np.rec.fromarrays(idx_pairs, formats="i8,i8", names="id,h")
    b = np.rec.fromarrays(st_pairs, formats="i8,i8", names="id,h")
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
    cluster: str | None = None,
    shard: int | None = None,
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
    parts = None
    if cluster and len(add):
        from xlsearch.engine.index.cluster import SHARD, PartsBuild, encode_on_cluster

        if not vi.is_trained:  # a new IVF index: built where the data is (see PartsBuild)
            folder = index_folder(collection, key, _store_path(store))
            parts = PartsBuild(
                store, folder, key, vi, rows, collection, address=cluster, shard=shard or SHARD
            )
            stats["cluster"] = parts.stats
        else:  # flat/HNSW (built here) or an update: the texts are encoded on the cluster
            stats["cluster"] = encode_on_cluster(
                store, encoder, key, collection, ids=add, address=cluster,
                shard=shard or SHARD, on_progress=on_progress, cancel=cancel,
            )  # fmt: skip
    if len(add) and not vi.is_trained:
        # IVF: embed everything first (cached), train on a sample, then add from the cache
        nlist = int(vi.params["nlist"])
        rng = np.random.default_rng(0)
        sample_ids = np.sort(rng.choice(add, size=min(len(add), 50 * nlist), replace=False))
        if parts is not None:
            parts.encode(encoder, batch_size=256, on_progress=on_progress, cancel=cancel)
        else:
            for _ in iter_vectors(
                store.db, encoder, key, add, on_progress=on_progress, cancel=cancel
            ):
                pass
        if parts is None or not parts.resume(vi):
            if parts is not None:
                sample = parts.vectors(sample_ids, dim)
            else:
                samples = [v for _, v in iter_vectors(store.db, encoder, key, sample_ids)]
                sample = np.concatenate(samples) if samples else np.zeros((0, dim), np.float32)
            msg = f"{vi.params['nlist']} lists on {len(sample)} rows"
            on_progress(Progress("train", 0, 1, msg))
            vi.train(sample)
            on_progress(Progress("train", 1, 1))
    if parts is not None:
        vi = parts.fill(vi, on_progress=on_progress, cancel=cancel)
        new_ids.append(np.asarray(add, np.int64))
        stats["sharded"] = parts
    else:
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
        if parts is not None:
            q = parts.vectors(pick, dim)
        else:
            q = np.concatenate([v for _, v in iter_vectors(store.db, encoder, key, pick)])
        on_progress(Progress("tune", 0, 1, "choosing nprobe for recall@10 ≥ 0.97"))
        stats["tuned_recall"] = tune_nprobe(vi, q, pick)
    if vi.ntotal != len(keys["id"]):  # pragma: no cover - would be a bug
        raise IndexMismatchError(f"index holds {vi.ntotal} vectors but {len(keys['id'])} keys")
    fields = {"generation": gen, "auto": auto}
    return vi, keys, fields, stats


def _record(store: Any, collection: str, key: str, meta: dict, folder: Path) -> None:
    """Upsert the store's ``indexes`` row for (collection, model)."""
    from xlsearch.engine.index.cache import INDEX_KEPT
    from xlsearch.engine.store.core import write_transaction

    with write_transaction(store.db.conn, kept=INDEX_KEPT):
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


def adopt_legacy_index(
    store: Any,
    encoder: Any,
    collection: str,
    key: str,
    on_progress: ProgressCallback | None = None,
) -> bool:
    """Take over the index (and cached vectors) this model had under the key earlier
    versions gave it (weight files' size + mtime), when it has none under ``key`` yet.

    The old folder is renamed to the new key's and its sidecar, the store's ``indexes`` row
    and the vector cache are moved to ``key``: the same weights are not embedded again.
    True when an index was adopted.
    """
    folder = index_folder(collection, key, _store_path(store))
    if read_sidecar_quietly(folder) is not None:
        return False
    old = legacy_model_key(encoder)
    if old is None or old == key:
        return False
    old_folder = index_folder(collection, old, _store_path(store))
    if old_folder == folder or not old_folder.is_dir():
        return False
    from xlsearch.engine.index.cache import INDEX_KEPT
    from xlsearch.engine.store.core import write_transaction

    with folder_lock(old_folder):
        meta = read_sidecar_quietly(old_folder)
        if meta is None or meta.get("model_id") != old or meta.get("collection") != collection:
            return False
        if folder.is_dir():  # only a lock file left by an earlier try may be there
            if any(p.name != ".lock" for p in folder.iterdir()):
                return False
            (folder / ".lock").unlink(missing_ok=True)
            folder.rmdir()
        try:
            old_folder.rename(folder)
        except OSError:
            return False
    with folder_lock(folder):
        meta = update_sidecar(folder, meta, model_id=key)
    register_model(store.db, key, encoder)
    with write_transaction(store.db.conn, kept=INDEX_KEPT):
        conn = store.db.conn
        conn.execute("UPDATE OR IGNORE embeddings SET model_id=? WHERE model_id=?", (key, old))
        conn.execute("DELETE FROM embeddings WHERE model_id=?", (old,))  # duplicates of moved
        conn.execute("DELETE FROM indexes WHERE collection=? AND model_id=?", (collection, old))
    _record(store, collection, key, meta, folder)
    if on_progress is not None:
        on_progress(
            Progress(
                "notice",
                0,
                None,
                f"kept the index of {collection!r} for model {key.partition('#')[0]}: "
                "the model is now recognised by its weights' content",
            )
        )
    return True


def _load_or_rebuild(
    folder: Path, on_progress: ProgressCallback
) -> tuple[VectorIndex, dict, dict] | None:
    """The folder's index, or None (with a ``notice``) when its files are damaged."""
    try:
        return load_current(folder, mmap=False)
    except IndexDamagedError as exc:
        on_progress(Progress("notice", 0, None, f"{exc.message}: rebuilding it from the store"))
        return None


def build_index(
    store: Any,
    encoder: Any,
    collection: str,
    *,
    kind: str = "auto",
    params: dict[str, Any] | None = None,
    rebuild: bool = False,
    cluster: str | None = None,
    shard: int | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> OpenIndex:
    """Create or incrementally update the index of ``collection`` for ``encoder``'s model.

    ``cluster`` (``local``, ``auto`` or a Ray address), ``shard`` segments per task: a new
    IVF index is built where the data is (``cluster.PartsBuild``: workers encode their part
    of the store into part stores and fill index shards, merged on disk here); otherwise the
    uncached texts are encoded on the cluster and the index built here from the cache. Either
    way it holds the same vectors in the same order as without the cluster: the same hits.

    ``kind``: ``auto`` keeps the current kind (or picks flat/ivf/ivfpq by size), else one of
    flat, hnsw, ivf, sq8, ivfpq (a different kind rebuilds). Only segments whose text has no
    cached vector for this model are embedded. A model mismatch raises unless ``rebuild``.
    """
    on_progress = on_progress or no_progress
    key = model_key(encoder)
    folder = index_folder(collection, key, _store_path(store))
    store.require_collection(collection)
    if not rebuild:
        adopt_legacy_index(store, encoder, collection, key, on_progress)
    register_model(store.db, key, encoder)
    with folder_lock(folder):
        current = None if rebuild else _load_or_rebuild(folder, on_progress)
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
            cluster=cluster,
            shard=shard,
        )
        sharded = stats.pop("sharded", None)
        if cancel is not None:
            cancel.raise_if_cancelled()
        head = {"collection": collection, "model_id": key, "model": str(getattr(encoder, "id", ""))}
        unchanged = (
            current is not None
            and not stats["rebuilt"]
            and not stats["added"]
            and not stats["removed"]
            and fields["auto"] == current[2].get("auto", True)
        )
        if unchanged:  # nothing to write but the store generation: keep the big files
            assert current is not None
            on_progress(Progress("save", 0, 1, "index unchanged"))
            meta = current[2]
            if meta.get("generation") != fields["generation"]:
                meta = update_sidecar(folder, meta, generation=fields["generation"])
        else:
            on_progress(Progress("save", 0, 1))
            meta = save(folder, vi, keys, {**head, **fields})
        if sharded is not None:
            sharded.clean()
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
    folder = index_folder(collection, key, _store_path(store))
    adopt_legacy_index(store, encoder, collection, key, on_progress)
    current = load_current(folder, mmap=mmap)
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
            current = load_current(folder, mmap=False)
            assert current is not None
        elif meta["kind"] in IVF_KINDS and vi.ivf is not None or mmap and meta["kind"] == "flat":
            current = load_current(folder, mmap=False)  # writable copy for in-memory repair
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
            meta = save(folder, vi, keys, meta)
            _record(store, collection, key, meta, folder)
    return OpenIndex(vi, meta, keys, folder, "repaired", stats["added"], stats["removed"], stats)


def index_status(store: Any, encoder: Any, collection: str) -> dict[str, Any]:
    """``{"state": fresh|stale|missing|mismatch, "vectors", "segments", "kind", "folder"}``."""
    key = model_key(encoder)
    folder = index_folder(collection, key, _store_path(store))
    adopt_legacy_index(store, encoder, collection, key)
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
    remove, add = _diff(keys_of(folder, meta), segment_rows(store.db, collection=collection))
    return {**out, "state": "stale" if len(remove) or len(add) else "fresh"}
