"""Faults of the machine, not of the input: a full disk, a damaged store file.

Disk full while writing: one error naming the place, what was kept, and the fix.

Every write that can run out of space (the SQLite store, index files, exports, distillation
checkpoints, settings) is transactional or atomic, so a full disk loses nothing; these
helpers turn the low-level failure (``ENOSPC``/``EDQUOT``, SQLite's ``SQLITE_FULL``, a FAISS
write error) into a ``DiskFullError`` saying so.

A damaged store (not an SQLite file, or pages SQLite finds malformed) is never replaced,
repaired in place or deleted: ``damaged_store`` says so and how to recover.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from xlsearch.engine.errors import DiskFullError, StoreError, XLSearchError

DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
DISK_FULL_WORDS = ("No space left on device", "os error 28", "Disk quota exceeded", "os error 122")
SQLITE_IOERR_SHMSIZE = 4874
"""``SQLITE_IOERR | (19 << 8)``: SQLite could not grow its shared-memory file."""
HOME_HINT = (
    "free some space on that disk (or point XLSEARCH_HOME at a folder on a disk with room), "
    "then run the command again"
)
OUTPUT_HINT = (
    "free some space on that disk or write the output to another disk, then run the command again"
)


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` says the disk or the quota is full."""
    if isinstance(exc, OSError):
        return exc.errno in DISK_FULL_ERRNOS
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        # SHMSIZE: the WAL index ("-shm" file) could not be enlarged, i.e. the disk is full
        return code in (sqlite3.SQLITE_FULL, SQLITE_IOERR_SHMSIZE) or "disk is full" in str(exc)
    # FAISS (RuntimeError), tokenizers and safetensors (plain exceptions) keep only the text
    text = str(exc)
    return any(words in text for words in DISK_FULL_WORDS)


def _free(path: Path) -> str:
    for place in (path, *path.parents):
        try:
            free: float = shutil.disk_usage(place).free
        except OSError:
            continue
        for unit in ("bytes", "KB", "MB", "GB"):
            if free < 1024 or unit == "GB":
                return f"{free:,.0f} {unit}" if unit == "bytes" else f"{free:,.1f} {unit}"
            free /= 1024
    return "no space"


def disk_full(path: Path | str, kept: str, *, hint: str = HOME_HINT) -> DiskFullError:
    """The error for a write to ``path`` that ran out of space; ``kept`` says what survived."""
    path = Path(path)
    return DiskFullError(
        f"no space left on the disk holding {path} ({_free(path)} free): {kept}", hint=hint
    )


@contextmanager
def disk_full_as_error(path: Path | str, kept: str, *, hint: str = HOME_HINT) -> Iterator[None]:
    """Re-raise a disk-full failure inside the block as ``disk_full(path, kept)``."""
    try:
        yield
    except DiskFullError:
        raise
    except Exception as exc:
        if is_disk_full(exc):
            raise disk_full(path, kept, hint=hint) from exc
        raise


def output_kept(path: Path | str) -> str:
    """What a failed atomic write of ``path`` left: the old file, or nothing."""
    path = Path(path)
    if path.exists():
        return f"{path.name} was not written, the existing file is unchanged"
    return f"{path.name} was not written"


@contextmanager
def output_disk_full(path: Path | str) -> Iterator[None]:
    """``disk_full_as_error`` for an atomically written output file of the user's."""
    kept = output_kept(path)
    with disk_full_as_error(path, kept, hint=OUTPUT_HINT):
        yield


SQLITE_DAMAGED = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def is_damaged_store(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite saying the file is not a database or is malformed."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in SQLITE_DAMAGED:
        return True
    text = str(exc)
    return "malformed" in text or "not a database" in text


def damaged_store(path: Path | str, exc: BaseException, doing: str = "open") -> StoreError:
    """The error for a store file SQLite cannot read: left as it is, with the way out."""
    path = Path(path)
    return StoreError(
        f"cannot {doing} the store {path}: it is damaged ({exc}); xlsearch leaves it as it is",
        hint=f"keep a copy, then recover what SQLite can: sqlite3 {path.name} .recover | "
        f"sqlite3 recovered.db, and put recovered.db in its place; or move {path.name} aside "
        "and import your files again",
    )


def user_error(exc: BaseException, store: Path | str | None = None) -> XLSearchError | None:
    """A machine fault that escaped the engine as a low-level exception, as the user-facing
    error (disk full, a damaged store); None for anything else (a bug)."""
    if isinstance(exc, XLSearchError):
        return exc
    if is_disk_full(exc):
        where = getattr(exc, "filename", None) or store or Path.cwd()
        return disk_full(where, "the command stopped")
    if is_damaged_store(exc):
        if store is None:
            from xlsearch.engine.runtime import locations

            store = locations.store_path()
        return damaged_store(store, exc, "read")
    return None
