"""Atomic file writes: a temp file beside the target, fsync, then ``os.replace``.

A reader sees the old file or the new one, never half of one; a failed write (disk full, a
cancel, a crash) leaves the old file and removes the temp file.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


def fsync_dir(path: Path) -> None:
    """fsync a directory so a rename inside it is durable (no-op where unsupported)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_write(
    path: Path | str, mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = None
) -> Iterator[IO[Any]]:
    """Open a temp file beside ``path`` for writing; on a clean exit it replaces ``path``.

    The file gets the umask's mode (as ``open`` would give it), not ``mkstemp``'s 0600.
    """
    path = Path(path)
    if path.is_dir():  # before the temp file: the error names the user's path, not ours
        from xlsearch.engine.runtime.pathcheck import require_output

        require_output(path, "out" + path.suffix)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:  # a read-only folder: the error names the user's path, not ours
        raise _as_user_path(exc, path) from exc
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)
        binary = "b" in mode
        with os.fdopen(
            fd, mode, encoding=None if binary else encoding, newline=None if binary else newline
        ) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.replace(tmp, path)
        except OSError as exc:  # a read-only or immutable file in the way
            raise _as_user_path(exc, path) from exc
    except BaseException:
        with contextlib.suppress(OSError):  # on a read-only disk even this can fail
            Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def _as_user_path(exc: OSError, path: Path) -> OSError:
    """``exc`` about ``path`` (the file the user named) instead of the temp file beside it."""
    return OSError(exc.errno, exc.strerror, str(path))


def write_text(path: Path | str, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_write(path) as fh:
        fh.write(text)
    return Path(path)


def write_json(path: Path | str, data: Any, *, indent: int | None = 2) -> Path:
    """Write ``data`` as UTF-8 JSON to ``path`` atomically."""
    return write_text(path, json.dumps(data, indent=indent, ensure_ascii=False))


def write_output(path: Path | str, data: bytes | str) -> Path:
    """Write a file the user named (text as UTF-8) atomically: on any failure the previous
    file stays and no temp file is left; a full disk is a ``DiskFullError`` naming it."""
    from xlsearch.engine.runtime.faults import output_disk_full

    path = Path(path).expanduser()
    with output_disk_full(path), atomic_write(path, "wb") as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)
    return path
