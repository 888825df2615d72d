"""Teacher embeddings computed once, kept on disk and memory-mapped, keyed by text hash.

Layout under ``locations.cache_dir()/teacher/<teacher-key>/``: ``keys.u64`` (one 64-bit
text hash per row), ``vectors.f16`` (rows of ``dim`` float16) and ``meta.json`` (teacher
id, dim, committed row count). Rows are only ever appended, in chunks, under a file lock;
``meta.json`` is rewritten after each chunk, so a killed build keeps every finished chunk
and the next run (or ``--resume``) encodes only what is missing.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.distill.data import text_key
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress
from xlsearch.engine.runtime import locations
from xlsearch.engine.runtime.atomic import write_json

CHUNK = 4096  # sentences encoded (and committed to disk) per chunk


def teacher_key(teacher_path: Path, teacher_id: str, max_seq_length: int) -> str:
    """Folder name for a teacher: its id, token limit and weights' size/mtime, hashed."""
    h = hashlib.sha256(f"{teacher_id}|{max_seq_length}".encode())
    for f in sorted(teacher_path.rglob("*.safetensors")):
        st = f.stat()
        h.update(f"{f.relative_to(teacher_path)}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:20]


SENTENCE_OVERHEAD_CHARS = 24
"""Per-sentence encoding cost in characters' worth (special tokens, pooling, batching)."""
COST_EXPONENT = 1.5
"""Encoding cost grows faster than length (attention, padding): cost = (chars + 24) ** 1.5.
Measured on 3,000 en sentences (all-MiniLM-L6-v2, 1 thread, shared 2-core CPU): the ETA at
10/25/50/77 % done was 1.3/1.2/1.3/0.8x the true time left; characters alone gave 2.2/1.9/
2.1/1.3x, a sentences/s rate 6.7/4.9/4.9/3.0x."""


def sentence_cost(lengths: np.ndarray) -> np.ndarray:
    """Relative encoding cost of sentences of these character lengths."""
    return (np.asarray(lengths, np.float64) + SENTENCE_OVERHEAD_CHARS) ** COST_EXPONENT


def eta_from_work(elapsed: float, remaining_after: np.ndarray, done: int, total: float) -> float:
    """Seconds left = elapsed × work left / work done (work: ``sentence_cost``)."""
    left = float(remaining_after[done]) if done < len(remaining_after) else 0.0
    finished = total - left
    return elapsed * left / finished if finished > 0 else 0.0


class TeacherCache:
    """Append-only, memory-mapped store of one teacher's sentence embeddings."""

    def __init__(self, folder: Path, dim: int, teacher_id: str = "") -> None:
        self.folder = folder
        self.dim = dim
        folder.mkdir(parents=True, exist_ok=True)
        self.meta_path = folder / "meta.json"
        self.notice = ""
        """What opening had to repair (a ``notice`` event of the next ``ensure``)."""
        self._meta: dict[str, Any] = {}
        self.vectors: np.ndarray = np.zeros((0, dim), dtype=np.float16)
        """One teacher vector a row (a read-only memory map of the cache file)."""
        if not self.meta_path.is_file():
            self._create_meta(teacher_id)
        self._load()

    @classmethod
    def for_encoder(cls, encoder: Any, root: Path | None = None) -> TeacherCache:
        """The cache of ``encoder`` (from ``load_encoder``) under ``cache_dir()/teacher``.

        An int8 teacher has its own cache (its vectors differ from fp32 by ~0.01–0.04 in
        cosine); bf16 and fp16 share the fp32 one (differences ~1e-3).
        """
        root = root or (locations.cache_dir() / "teacher")
        key = teacher_key(Path(encoder.path), encoder.id, encoder.max_seq_length)
        if getattr(encoder, "precision", "fp32") == "int8":
            key += "-int8"
        return cls(root / key, encoder.dim, encoder.id)

    def _create_meta(self, teacher_id: str) -> None:
        """An empty cache's meta.json, created only if absent (another process may be
        creating or filling the same cache: never overwrite its row count)."""
        tmp = self.meta_path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"teacher": teacher_id, "dim": self.dim, "rows": 0}))
        try:
            os.link(tmp, self.meta_path)  # atomic create-if-absent
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links
            if not self.meta_path.is_file():
                os.replace(tmp, self.meta_path)
        finally:
            tmp.unlink(missing_ok=True)

    def _write_meta(self, rows: int, teacher_id: str | None = None) -> None:
        meta = {"teacher": teacher_id or self._meta.get("teacher", ""), "dim": self.dim}
        meta["rows"] = rows
        write_json(self.meta_path, meta, indent=None)
        self._meta = meta

    def _load(self) -> None:
        kf, vf = self.folder / "keys.u64", self.folder / "vectors.f16"
        try:
            self._meta = json.loads(self.meta_path.read_text())
            rows = int(self._meta["rows"])
            if int(self._meta.get("dim", self.dim)) != self.dim:
                raise ValueError(f"dim {self._meta.get('dim')}, not {self.dim}")
        except (ValueError, KeyError, TypeError) as exc:  # damaged meta.json: start over
            self._meta, rows = {}, 0
            self._repair(0, f"its meta.json is unreadable ({exc})")
        sizes = [f.stat().st_size if f.is_file() else 0 for f in (kf, vf)]
        complete = min(rows, sizes[0] // 8, sizes[1] // (2 * self.dim))
        if complete < rows:  # files cut short (a damaged disk, a copy that stopped)
            self._repair(complete, f"its files hold {complete:,} of {rows:,} rows")
            rows = complete
        if rows:
            self.keys = np.fromfile(kf, dtype=np.uint64, count=rows)
            self.vectors = np.memmap(vf, dtype=np.float16, mode="r", shape=(rows, self.dim))
        else:
            self.keys = np.zeros(0, dtype=np.uint64)
            self.vectors = np.zeros((0, self.dim), dtype=np.float16)
        self._order = np.argsort(self.keys, kind="stable")
        self._sorted = self.keys[self._order]

    def _repair(self, rows: int, why: str) -> None:
        """Keep the ``rows`` complete rows; the rest is encoded again by ``ensure``."""
        with self._lock():
            self._write_meta(rows)
        self.notice = (
            f"the teacher cache {self.folder} was damaged: {why}; the missing teacher "
            "embeddings are computed again"
        )

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    @contextlib.contextmanager
    def _lock(self) -> Iterator[None]:
        with open(self.folder / "lock", "a+") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def rows_for_keys(self, keys: np.ndarray) -> np.ndarray:
        """Row of each key, or -1 where the cache lacks it."""
        keys = np.asarray(keys, dtype=np.uint64)
        if not len(self._sorted):
            return np.full(len(keys), -1, dtype=np.int64)
        pos = np.searchsorted(self._sorted, keys).clip(0, len(self._sorted) - 1)
        found = self._sorted[pos] == keys
        return np.where(found, self._order[pos], -1).astype(np.int64)

    def rows(self, texts: Sequence[str]) -> np.ndarray:
        """Row of each text, or -1 where missing."""
        return self.rows_for_keys(np.fromiter((text_key(t) for t in texts), np.uint64, len(texts)))

    def get(self, texts: Sequence[str]) -> np.ndarray:
        """float32 embeddings of ``texts`` (all must be cached)."""
        rows = self.rows(texts)
        if (rows < 0).any():
            raise KeyError(f"{int((rows < 0).sum())} texts are not in the teacher cache")
        return np.asarray(self.vectors[rows], dtype=np.float32)

    def ensure(
        self,
        texts: Sequence[str],
        encoder: Any,
        *,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> dict[str, float]:
        """Encode (longest first, in chunks) every text not cached yet; return timing stats."""
        on_progress = on_progress or no_progress
        if self.notice:
            on_progress(Progress("notice", 0, None, self.notice))
            self.notice = ""
        uniq = list(dict.fromkeys(texts))
        keys = np.fromiter((text_key(t) for t in uniq), np.uint64, len(uniq))
        missing = [t for t, r in zip(uniq, self.rows_for_keys(keys), strict=True) if r < 0]
        stats = {"texts": float(len(uniq)), "encoded": float(len(missing)), "seconds": 0.0}
        if not missing:
            return stats
        missing.sort(key=len, reverse=True)
        # Work left is measured in characters, not sentences: the longest come first, so a
        # sentences/s rate rises through the run and over-estimates (5-7x at 10% done).
        cost = sentence_cost(np.fromiter((len(t) for t in missing), np.float64, len(missing)))
        remaining_after = cost[::-1].cumsum()[::-1]  # work left from each position on
        total_cost = float(remaining_after[0])
        t0 = time.perf_counter()
        done = 0
        on_progress(Progress("teacher", 0, len(missing), "teacher embeddings (once)"))
        for start in range(0, len(missing), CHUNK):
            if cancel is not None:
                cancel.raise_if_cancelled()
            chunk = missing[start : start + CHUNK]
            emb = encoder.encode(chunk).astype(np.float16)
            ck = np.fromiter((text_key(t) for t in chunk), np.uint64, len(chunk))
            self._append(ck, emb)
            done += len(chunk)
            elapsed = max(time.perf_counter() - t0, 1e-9)
            on_progress(
                Progress(
                    "teacher",
                    done,
                    len(missing),
                    "teacher embeddings (once)",
                    {
                        "sent_per_s": done / elapsed,
                        "eta_s": eta_from_work(elapsed, remaining_after, done, total_cost),
                    },
                )
            )
        stats["seconds"] = time.perf_counter() - t0
        stats["sent_per_s"] = len(missing) / max(stats["seconds"], 1e-9)
        self._load()
        return stats

    def _append(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        with self._lock():
            self._meta = json.loads(self.meta_path.read_text())
            rows = int(self._meta["rows"])
            kf, vf = self.folder / "keys.u64", self.folder / "vectors.f16"
            for f, data, width in ((kf, keys, 8), (vf, vectors, 2 * self.dim)):
                with open(f, "ab") as fh:
                    fh.truncate(rows * width)  # drop any half-written tail of a killed run
                    fh.seek(rows * width)
                    fh.write(np.ascontiguousarray(data).tobytes())
                    fh.flush()
                    os.fsync(fh.fileno())
            self._write_meta(rows + len(keys))
