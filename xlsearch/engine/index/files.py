"""Index folder files: naming, writer lock, sidecar, atomic save and checked load.

A save writes ``index-<tag>.faiss`` and ``keys-<tag>.npz`` under a fresh tag, fsyncs them,
then atomically replaces ``index.json`` (the sidecar naming them), so a reader always sees a
complete pair; older files are removed afterwards (a reader that lost the race retries).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import hashlib
import json
import os
import re
import time
import uuid
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import IndexDamagedError, IndexMismatchError
from xlsearch.engine.index.vectors import IVF_KINDS, VectorIndex, read_index, write_index
from xlsearch.engine.runtime import locations
from xlsearch.engine.runtime.atomic import fsync_dir
from xlsearch.engine.runtime.faults import disk_full_as_error

SIDECAR = "index.json"
FORMAT = 1
CHECKSUM_MAX = 1 << 30
"""Files up to this size are sha256-verified when first opened (again whenever the file
changes, ``VERIFIED``); bigger ones by size only."""
MMAP_MIN = 64 << 20
"""IVF files at least this big are memory-mapped when opened for search (flat ones always)."""


def _slug(text: str) -> str:
    clean = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:40] or "x"
    return clean if clean == text else f"{clean}-{hashlib.sha1(text.encode()).hexdigest()[:6]}"


def indexes_root(store_path: Path | None = None) -> Path:
    """Where a store's index folders live: ``indexes_dir()`` for the home's own store, and
    ``<store file>.indexes/`` beside any other store, so that two stores with a collection of
    the same name never share (or overwrite) one index."""
    if store_path is None:
        return locations.indexes_dir()
    own = locations.store_path()
    if Path(store_path).resolve() == own.resolve():
        return locations.indexes_dir()
    return Path(store_path).with_name(Path(store_path).name + ".indexes")  # made on a write


def index_folder(collection: str, key: str, store_path: Path | None = None) -> Path:
    """``<indexes root>/<collection>--<model-slug>`` for a collection and model key (the root:
    ``indexes_root(store_path)``)."""
    model_id, _, fp = key.partition("#")
    base = "bundled-teacher" if model_id == "bundled:teacher" else Path(model_id).name
    return indexes_root(store_path) / f"{_slug(collection)}--{_slug(base)}-{fp[:8] or 'x'}"


def collection_folders(collection: str, store_path: Path | None = None) -> list[Path]:
    """Every index folder of ``collection`` (any model), by name and sidecar."""
    root = indexes_root(store_path)
    prefix = f"{_slug(collection)}--"
    found = []
    for folder in sorted(root.glob(f"{glob_escape(prefix)}*")) if root.is_dir() else []:
        if not folder.is_dir():
            continue
        try:
            meta = read_sidecar(folder)
        except IndexMismatchError:
            meta = None
        if meta is not None and "collection" in meta:
            if meta["collection"] == collection:
                found.append(folder)
        elif "--" not in folder.name[len(prefix) :]:
            found.append(folder)
    return found


def remove_collection_folders(collection: str, store_path: Path | None = None) -> tuple[int, int]:
    """Delete the index folders of ``collection``; returns (folders, bytes) removed."""
    import shutil

    folders = collection_folders(collection, store_path)
    size = sum(f.stat().st_size for d in folders for f in d.rglob("*") if f.is_file())
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    return len(folders), size


def glob_escape(text: str) -> str:
    """``text`` with glob metacharacters escaped."""
    import glob

    return glob.escape(text)


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
        raise IndexDamagedError(
            f"{folder / SIDECAR}: unreadable index sidecar ({exc})",
            hint="rebuild it: xlsearch index --rebuild",
        ) from exc


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


VERIFIED = "verified.json"
"""The index file last checked against its sidecar checksum, with its size, inode, mtime and
ctime then: while they are unchanged the file is unchanged, so later opens skip the hash
(reading a 20k-unit index twice cost a fresh lookup ~0.1 s, a 1 GB one seconds)."""


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns]


def _verified(folder: Path, file: Path, checksum: str | None) -> bool:
    try:
        seen = json.loads((folder / VERIFIED).read_text(encoding="utf-8"))
        return bool(
            seen.get("file") == file.name
            and seen.get("checksum") == checksum
            and seen.get("stamp") == _stamp(file)
        )
    except (OSError, ValueError, AttributeError):
        return False


def _mark_verified(folder: Path, file: Path, checksum: str | None) -> None:
    """Remember the check (atomically; a read-only folder just checks again next time)."""
    tmp = folder / f"{VERIFIED}.{os.getpid()}.tmp"
    try:
        data = {"file": file.name, "checksum": checksum, "stamp": _stamp(file)}
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(folder / VERIFIED)
    except OSError:
        tmp.unlink(missing_ok=True)


def load(folder: Path, meta: dict[str, Any], *, mmap: bool) -> tuple[VectorIndex, dict]:
    file = folder / meta["file"]
    if not file.is_file():
        raise FileNotFoundError(file)
    size = file.stat().st_size
    if size != meta.get("size"):
        raise IndexDamagedError(
            f"{file} has {size} bytes, its sidecar says {meta.get('size')}: the file is damaged",
            hint="rebuild it: xlsearch index --rebuild",
        )
    checksum = meta.get("checksum")
    if size <= CHECKSUM_MAX and not _verified(folder, file, checksum):
        if _sha256(file) != checksum:
            raise IndexDamagedError(
                f"{file}: checksum mismatch, the index file is damaged",
                hint="rebuild it: xlsearch index --rebuild",
            )
        _mark_verified(folder, file, checksum)
    try:
        with np.load(folder / meta["keys"]) as npz:
            keys = {"id": npz["id"], "h64": npz["h64"]}
    except FileNotFoundError:
        raise
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise IndexDamagedError(
            f"{folder / meta['keys']}: the index's key file is damaged ({exc})",
            hint="rebuild it: xlsearch index --rebuild",
        ) from exc
    big_ivf = meta["kind"] in IVF_KINDS and size >= MMAP_MIN
    use_mmap = mmap and (meta["kind"] == "flat" or big_ivf)
    ondisk = None
    if meta.get("ivfdata"):  # a merged on-disk IVF index: its lists live in a second file
        ondisk = folder / meta["ivfdata"]
        if not ondisk.is_file():
            raise FileNotFoundError(ondisk)
        if ondisk.stat().st_size != meta.get("ivfdata_size"):
            raise IndexDamagedError(
                f"{ondisk} has {ondisk.stat().st_size} bytes, its sidecar says "
                f"{meta.get('ivfdata_size')}: the file is damaged",
                hint="rebuild it: xlsearch index --rebuild",
            )
        use_mmap = mmap
    try:
        params = meta.get("params", {})
        vi = read_index(file, meta["kind"], int(meta["dim"]), params, mmap=use_mmap, ondisk=ondisk)
    except RuntimeError as exc:  # FAISS says "could not open" as a RuntimeError
        if not file.is_file():  # a writer swapped in a newer index meanwhile: retry
            raise FileNotFoundError(file) from None
        raise IndexDamagedError(
            f"{file}: unreadable index file ({' '.join(str(exc).split())[:200]})",
            hint="rebuild it: xlsearch index --rebuild",
        ) from exc
    if vi.ntotal != int(meta["count"]) or len(keys["id"]) != vi.ntotal:
        raise IndexDamagedError(
            f"{file} holds {vi.ntotal} vectors, its sidecar says {meta['count']}",
            hint="rebuild it: xlsearch index --rebuild",
        )
    return vi, keys


def load_current(folder: Path, *, mmap: bool) -> tuple[VectorIndex, dict, dict] | None:
    """(index, keys, sidecar) of the folder; retries if a writer swapped files meanwhile."""
    for attempt in range(5):
        meta = read_sidecar(folder)
        if meta is None:
            return None
        try:
            vi, keys = load(folder, meta, mmap=mmap)
            return vi, keys, meta
        except FileNotFoundError:
            time.sleep(0.05 * (attempt + 1))
    raise IndexMismatchError(f"{folder}: the index files keep changing; try again")


def save(folder: Path, vi: VectorIndex, keys: dict, meta: dict[str, Any]) -> dict[str, Any]:
    """Write files under a fresh tag, then atomically swap the sidecar; remove old files.

    On a full disk the new files are removed and the previous index stays in place."""
    tag = f"{meta['generation']}-{uuid.uuid4().hex[:8]}"
    try:
        with disk_full_as_error(folder, "the index was not saved, the previous one is kept"):
            return _save(folder, vi, keys, meta, tag)
    except BaseException:
        side = read_sidecar_quietly(folder)
        with contextlib.suppress(OSError):  # a read-only disk refuses even this
            for new in folder.glob(f"*-{tag}.*"):
                if side is None or new.name not in (side.get("file"), side.get("keys")):
                    new.unlink(missing_ok=True)
            (folder / (SIDECAR + ".tmp")).unlink(missing_ok=True)
        raise


def read_sidecar_quietly(folder: Path) -> dict[str, Any] | None:
    """The sidecar, or None when it is missing or unreadable."""
    try:
        return read_sidecar(folder)
    except IndexMismatchError:
        return None


def _save(
    folder: Path, vi: VectorIndex, keys: dict, meta: dict[str, Any], tag: str
) -> dict[str, Any]:
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
    meta.pop("ivfdata", None)
    meta.pop("ivfdata_size", None)
    kept = {file, keyfile}
    if vi.ondisk is not None:  # merged on-disk lists: written (and fsynced) by the merge
        _fsync(vi.ondisk)
        meta["ivfdata"] = vi.ondisk.name
        meta["ivfdata_size"] = vi.ondisk.stat().st_size
        kept.add(vi.ondisk.name)
    meta = update_sidecar(folder, meta)
    _mark_verified(folder, folder / file, meta["checksum"])
    for old in folder.iterdir():
        if old.name.startswith(("index-", "keys-")) and old.name not in kept:
            old.unlink(missing_ok=True)
    return meta


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def update_sidecar(folder: Path, meta: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """Atomically rewrite only the sidecar with ``fields`` changed; the index files stay."""
    try:
        with disk_full_as_error(folder, "the index was not saved, the previous one is kept"):
            return _update_sidecar(folder, {**meta, **fields})
    except BaseException:
        with contextlib.suppress(OSError):
            (folder / (SIDECAR + ".tmp")).unlink(missing_ok=True)
        raise


def _update_sidecar(folder: Path, meta: dict[str, Any]) -> dict[str, Any]:
    side_tmp = folder / (SIDECAR + ".tmp")
    with side_tmp.open("w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=2)
        fh.flush()
        os.fsync(fh.fileno())
    side_tmp.replace(folder / SIDECAR)
    fsync_dir(folder)
    return meta


def keys_of(folder: Path, meta: dict) -> dict[str, np.ndarray]:
    try:
        with np.load(folder / meta["keys"]) as npz:
            return {"id": npz["id"], "h64": npz["h64"]}
    except FileNotFoundError:
        return {"id": np.zeros(0, np.int64), "h64": np.zeros(0, np.int64)}
