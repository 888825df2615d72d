"""Fault-injection helpers: a small tmpfs to fill or make read-only, store snapshots, a CLI."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from helpers.skips import needs

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
PYTHONPATH = os.pathsep.join([str(REPO), str(TESTS)])
"""A child process's path: the working tree and ``helpers.*``."""


@dataclass
class SmallDisk:
    """A mounted tmpfs of a few MB: ``fill`` it up, ``read_only`` it, ``unfill`` it again."""

    root: Path

    @property
    def filler(self) -> Path:
        return self.root / ".filler"

    def free(self) -> int:
        return shutil.disk_usage(self.root).free

    def fill(self, leave: int = 0) -> None:
        """Take all free space but ``leave`` bytes (rounded to pages by tmpfs)."""
        size = (self.filler.stat().st_size if self.filler.exists() else 0) + self.free() - leave
        with self.filler.open("ab") as fh:
            os.posix_fallocate(fh.fileno(), 0, max(size, 1))
            fh.truncate(max(size, 1))

    def unfill(self) -> None:
        self.filler.unlink(missing_ok=True)

    def _remount(self, mode: str) -> None:
        subprocess.run(["mount", "-o", f"remount,{mode}", str(self.root)], check=True)

    def read_only(self) -> None:
        self._remount("ro")

    def writable(self) -> None:
        self._remount("rw")


def mounted_small_disk(base: Path, size: str = "16m") -> Iterator[SmallDisk]:
    """Mount a tmpfs of ``size`` under ``base`` (root only; skipped with the reason otherwise,
    a failure in CI)."""
    if os.geteuid() != 0:
        needs("disk-full and read-only faults need root to mount a small tmpfs")
    if shutil.which("mount") is None or shutil.which("umount") is None:
        needs("disk-full and read-only faults need mount(8)")
    root = base / "small-disk"
    root.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(root)],
        capture_output=True,
        text=True,
    )
    if proc.returncode:
        needs(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        yield SmallDisk(root)
    finally:
        subprocess.run(["umount", "-l", str(root)], capture_output=True)


def snapshot(db: Path, *, immutable: bool = False) -> tuple[int, int, str]:
    """(documents, segments, digest of every stored text) of a store, read without writing
    (``immutable`` on a read-only disk, where SQLite cannot make its shared-memory file)."""
    conn = sqlite3.connect(f"file:{db}?{'immutable=1' if immutable else 'mode=ro'}", uri=True)
    try:
        docs = conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        rows = conn.execute(
            "SELECT c.name, d.path, s.position, s.lang, s.text FROM segments s "
            "JOIN documents d ON d.id = s.document_id JOIN collections c ON c.id = "
            "d.collection_id ORDER BY 1, 2, 3, 4"
        ).fetchall()
    finally:
        conn.close()
    digest = hashlib.sha256(repr(rows).encode()).hexdigest()
    return docs, len(rows), digest


def units_in(db: Path, collection: str) -> int:
    """Distinct translation units of a collection."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(
            "SELECT COUNT(DISTINCT s.tu_id) FROM segments s JOIN documents d ON d.id = "
            "s.document_id JOIN collections c ON c.id = d.collection_id WHERE c.name = ?",
            (collection,),
        ).fetchone()[0]
    finally:
        conn.close()


def write_tsv(path: Path, n: int, start: int = 0, tag: str = "") -> Path:
    """A two-column en/de TSV of ``n`` units (texts made unique by ``start`` and ``tag``)."""
    path.write_text(
        "en\tde\n"
        + "".join(
            f"the dog {tag}{i} sleeps in the red house\tder hund {tag}{i} schläft im roten haus\n"
            for i in range(start, start + n)
        ),
        encoding="utf-8",
    )
    return path


def xlsearch(
    *args: str, home: Path, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """A fresh ``xlsearch`` process (as a user runs it) with ``home`` as XLSEARCH_HOME."""
    return subprocess.run(
        [sys.executable, "-m", "xlsearch", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**xlsearch_env(home), **(env or {})},
    )


def xlsearch_env(home: Path) -> dict[str, str]:
    """The environment of a child xlsearch process using ``home``."""
    return {
        **os.environ,
        "XLSEARCH_HOME": str(home),
        "PYTHONPATH": PYTHONPATH,
        "XLSEARCH_THREADS": "1",
    }


def one_error_line(err: str, *needles: str) -> str:
    """The single ``error:`` line of ``err`` (no traceback, not the bug-report line)."""
    lines = [line for line in err.strip().splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, err
    assert "Traceback" not in err and "XLSEARCH_DEBUG" not in err, err
    for needle in needles:
        assert needle in errors[0], (needle, errors[0])
    return errors[0]
