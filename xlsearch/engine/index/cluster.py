"""Index and mine on a Ray cluster: the same vectors and hits, the work spread over workers.

``xlsearch index --cluster local|auto|ADDRESS``: a new IVF index is built where the data is
(``PartsBuild``): each worker reads its part of the collection from the store file (at the
same path on every worker), encodes it with the model loaded once per worker into a part
store (SQLite, the index's ids), and fills an index shard from it; the head node trains the
index on a sample and merges the shards on disk. Flat and HNSW indexes, and updates of an
existing index, encode the uncached texts in shards on the workers (``encode_on_cluster``:
the texts travel through Ray's object store, each finished shard committed to the store's
vector cache) and build the index here. Either way a killed run keeps every finished shard.
``xlsearch mine --cluster``: k-NN per shard pair on the workers (``knn_on_cluster``).

Ray is an optional extra (``pip install xlsearch[cluster]``) imported only here, lazily.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import ConfigError
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress

SHARD = 20_000
"""Texts per shard: a few seconds of one worker's time with the static student."""
RETRIES = 3
"""Times a shard is retried on a fresh worker when its worker dies."""
MAX_FILE = 2 << 30
"""Model folders bigger than this are not shipped through the object store."""


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(
            "--cluster needs Ray, which is not installed",
            hint='install the cluster extra: pip install "xlsearch[cluster]"',
        ) from exc
    return ray


def connect(address: str) -> Any:
    """Join (or start) the Ray cluster named by ``address`` and return the ``ray`` module.

    ``local`` starts a cluster on this machine; ``auto`` joins the one ``ray start`` runs
    here (``RAY_ADDRESS`` is honoured); anything else is a cluster address
    (``HOST:6379`` or ``ray://HOST:10001``). A process already connected keeps its cluster.
    """
    ray = _ray()
    if ray.is_initialized():
        return ray
    if address not in ("local", "auto"):
        _probe(address)
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    try:
        if address == "local":
            ray.init(address="local", _node_ip_address="127.0.0.1", **kwargs)
        else:
            ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ConfigError(
            f"could not join the Ray cluster at {address!r}: {str(exc).splitlines()[0]}",
            hint="start it with `ray start --head` (or use --cluster local)",
        ) from exc
    return ray


def _probe(address: str, timeout: float = 5.0) -> None:
    """Fail fast (Ray itself retries for minutes) when nothing answers at ``address``."""
    import socket

    hostport = address.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(
            f"--cluster {address!r} is not local, auto or HOST:PORT",
            hint="e.g. --cluster head.example.org:6379 or --cluster ray://head.example.org:10001",
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ConfigError(
            f"no Ray cluster answers at {hostport} ({exc.strerror or exc})",
            hint="start it there with `ray start --head`, or use --cluster local",
        ) from exc


def _model_files(path: Path) -> dict[str, bytes]:
    """Every file of the model folder, by relative path (shipped to the workers)."""
    files: dict[str, bytes] = {}
    for f in sorted(path.rglob("*")):
        if f.is_file():
            if f.stat().st_size > MAX_FILE:
                raise ConfigError(
                    f"{f}: model file too big to ship to the workers",
                    hint="use a smaller model (a distilled student)",
                )
            files[str(f.relative_to(path))] = f.read_bytes()
    return files


class _EncodeWorker:
    """A Ray actor: writes the shipped model folder to local disk and loads it once."""

    def __init__(self, files: dict[str, bytes], batch_size: int) -> None:
        from xlsearch.engine.models.encoder import load_encoder

        self._tmp = tempfile.TemporaryDirectory(prefix="xlsearch-model-")
        root = Path(self._tmp.name)
        for rel, data in files.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        self.encoder = load_encoder(root, device="cpu", batch_size=batch_size, threads=1)

    def encode(self, texts: list[str]) -> np.ndarray:
        dim = int(self.encoder.dim)
        vecs = self.encoder.encode(texts)
        return np.asarray(vecs, dtype=np.float32).reshape(len(texts), dim)

    def pid(self) -> int:
        return os.getpid()


def _workers(ray: Any, wanted: int | None, shards: int) -> int:
    cpus = int(ray.cluster_resources().get("CPU", 1))
    return max(1, min(wanted or cpus, shards))


def _spread(
    ray: Any,
    worker: type,
    init: tuple[Any, ...],
    n_workers: int,
    jobs: Iterator[tuple[tuple[Any, ...], Any]],
    method: str,
    done: Callable[[Any, Any], None],
    stats: dict[str, Any],
    cancel: CancelToken | None,
) -> None:
    """Run ``jobs`` (``(args, tag)``) on ``n_workers`` actors of ``worker(*init)``, one shard
    each at a time; ``done(tag, result)`` runs on this process as each finishes. A worker
    that dies (or fails) is replaced and its shard sent again, ``RETRIES`` times at most."""
    actor_cls = ray.remote(num_cpus=1)(worker)
    actors = [actor_cls.remote(*init) for _ in range(n_workers)]
    pending: dict[Any, tuple[int, tuple[Any, ...], Any, int]] = {}
    free = list(range(n_workers))
    try:
        exhausted = False
        while True:
            while free and not exhausted:
                nxt = next(jobs, None)
                if nxt is None:
                    exhausted = True
                    break
                a = free.pop()
                args, tag = nxt
                pending[getattr(actors[a], method).remote(*args)] = (a, args, tag, 0)
            if not pending:
                break
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                a, args, tag, tries = pending.pop(ref)
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayError as exc:  # a worker died: a fresh one retries
                    if isinstance(getattr(exc, "cause", None), ConfigError):
                        raise exc.cause from None  # not a dead worker: our one-line error
                    if tries >= RETRIES:
                        raise ConfigError(
                            f"a cluster worker failed {tries + 1} times on one shard: "
                            f"{str(exc).splitlines()[0]}",
                            hint="finished shards are kept: run the same command again",
                        ) from exc
                    ray.kill(actors[a])
                    actors[a] = actor_cls.remote(*init)
                    pending[getattr(actors[a], method).remote(*args)] = (a, args, tag, tries + 1)
                    stats["retried"] = stats.get("retried", 0) + 1
                    continue
                free.append(a)
                done(tag, result)
            if cancel is not None:
                cancel.raise_if_cancelled()
    finally:
        for ref in pending:
            ray.cancel(ref)
        for actor in actors:
            ray.kill(actor)


def _where(collection: str | None, ids: np.ndarray | None = None) -> tuple[str, list[Any]]:
    where, args = "", []
    if collection is not None:
        where, args = (
            "d.collection_id = (SELECT id FROM collections WHERE name = ?) AND ",
            [collection],
        )
    if ids is not None:
        where += "s.id IN (SELECT value FROM json_each(?)) AND "
        args.append(_json_ids(ids))
    return where, args


def _missing(
    db: Any, key: str, collection: str | None, shard: int, ids: np.ndarray | None = None
) -> Iterator[tuple[list[str], list[str]]]:
    """Shards of (text hashes, texts) of ``collection`` with no cached vector for ``key``,
    in segment-id order, each distinct text once (only segments ``ids`` when given). Read
    page by page (a fresh query each, so committing shards meanwhile is safe)."""
    where, args = _where(collection, ids)
    sql = (
        "SELECT s.id, s.text_hash, s.text FROM segments s JOIN documents d "
        "ON d.id = s.document_id LEFT JOIN embeddings e ON e.model_id = ? "
        f"AND e.text_hash = s.text_hash WHERE {where}e.vector IS NULL AND s.id > ? "
        "ORDER BY s.id LIMIT ?"
    )
    seen: set[str] = set()
    last = -1
    while True:
        rows = db.execute(sql, [key, *args, last, shard]).fetchall()
        if not rows:
            return
        last = int(rows[-1][0])
        hashes: list[str] = []
        texts: list[str] = []
        for _, th, text in rows:
            if th not in seen:
                seen.add(th)
                hashes.append(th)
                texts.append(text or "")
        if hashes:
            yield hashes, texts


def _count_missing(db: Any, key: str, collection: str | None, ids: np.ndarray | None = None) -> int:
    where, args = _where(collection, ids)
    return int(
        db.execute(
            "SELECT count(DISTINCT s.text_hash) FROM segments s JOIN documents d "
            "ON d.id = s.document_id LEFT JOIN embeddings e ON e.model_id = ? "
            f"AND e.text_hash = s.text_hash WHERE {where}e.vector IS NULL",
            [key, *args],
        ).fetchone()[0]
    )


def _commit(db: Any, key: str, hashes: list[str], vecs: np.ndarray) -> None:
    """One shard's vectors into the cache, in one transaction (all or nothing)."""
    from xlsearch.engine.index.cache import INDEX_KEPT
    from xlsearch.engine.store.core import write_transaction

    with write_transaction(db.conn, kept=INDEX_KEPT):
        db.conn.executemany(
            "INSERT OR REPLACE INTO embeddings (model_id, text_hash, vector) VALUES (?,?,?)",
            [(key, th, v.tobytes()) for th, v in zip(hashes, vecs, strict=True)],
        )


def encode_on_cluster(
    store: Any,
    encoder: Any,
    key: str,
    collection: str | None,
    *,
    ids: np.ndarray | None = None,
    address: str,
    shard: int = SHARD,
    workers: int | None = None,
    batch_size: int = 256,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Encode ``collection``'s (None: every collection's; ``ids``: only those segments')
    uncached texts on the Ray cluster at ``address``, into the store's vector cache.

    Returns ``{"shards", "encoded", "workers"}`` (shards and texts encoded by this run;
    texts already cached, e.g. by a killed earlier run, are not counted nor encoded again).
    A worker that dies is replaced and its shard retried (``RETRIES`` times).
    """
    on_progress = on_progress or no_progress
    path = getattr(encoder, "path", None)
    if path is None or not Path(path).is_dir():
        raise ConfigError(
            f"model {getattr(encoder, 'id', '?')} has no folder to ship to the workers",
            hint="index with a model folder (xlsearch models lists them)",
        )
    db = store.db
    total = _count_missing(db, key, collection, ids)
    stats: dict[str, Any] = {"shards": 0, "encoded": 0, "workers": 0}
    if total == 0:
        return stats
    ray = connect(address)
    n_workers = _workers(ray, workers, -(-total // shard))
    stats["workers"] = n_workers
    who = f"{n_workers} worker{'s' if n_workers > 1 else ''}"
    on_progress(Progress("plan", 0, None, f"{total:,} texts to encode on {who} of the cluster"))
    files_ref = ray.put(_model_files(Path(path)))
    done = 0

    def commit(hashes: list[str], vecs: np.ndarray) -> None:
        nonlocal done
        _commit(db, key, hashes, vecs)
        done += len(hashes)
        stats["shards"] += 1
        stats["encoded"] += len(hashes)
        on_progress(Progress("embed", done, total, metrics={"shards": stats["shards"]}))

    jobs = (((texts,), hashes) for hashes, texts in _missing(db, key, collection, shard, ids))
    _spread(
        ray, _EncodeWorker, (files_ref, batch_size), n_workers, jobs, "encode", commit, stats,
        cancel,
    )  # fmt: skip
    return stats


PARTS_SCHEMA = (
    "PRAGMA page_size = 16384;"
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE segments (id INTEGER PRIMARY KEY, text_hash TEXT NOT NULL, "
    "vector_id INTEGER NOT NULL, part INTEGER NOT NULL);"
    "CREATE TABLE vectors (id INTEGER PRIMARY KEY, vector BLOB NOT NULL);"
)
"""A part store: its segments (the store's ids, which the index uses) with the id and part
of their vector (a text's vector is kept once, under the id of the segment where the text
first occurs, in that segment's part) and the vectors it holds. Integer keys throughout:
one B-tree step per look-up, 16 KB pages hold ten 384-d vectors with little waste."""


def _open_ro(path: Path | str, *, immutable: bool = False) -> Any:
    import sqlite3

    flags = "mode=ro&immutable=1" if immutable else "mode=ro"
    return sqlite3.connect(f"{Path(path).resolve().as_uri()}?{flags}", uri=True)


def _json_ids(values: Any) -> str:
    import json

    return json.dumps([v if isinstance(v, str) else int(v) for v in values])


def _gather(parts: Path, rows: list[tuple[int, int, int]], dim: int, conns: dict) -> np.ndarray:
    """The vectors of ``rows`` (segment id, vector id, part holding the vector)."""
    out = np.zeros((len(rows), dim), dtype=np.float32)
    by_part: dict[int, list[int]] = {}
    for n, (_, _, part) in enumerate(rows):
        by_part.setdefault(part, []).append(n)
    for part, where in by_part.items():
        if part not in conns:
            conns[part] = _open_ro(parts / f"part-{part:06d}.sqlite")
        wanted = {rows[n][1] for n in where}
        got = dict(
            conns[part].execute(
                "SELECT id, vector FROM vectors WHERE id IN (SELECT value FROM json_each(?))",
                [_json_ids(wanted)],
            )
        )
        for n in where:
            blob = got.get(rows[n][1])
            if blob is None:
                raise ConfigError(
                    f"{parts}/part-{part:06d}.sqlite lacks a vector it should hold",
                    hint="build again with --rebuild (the part files were changed)",
                )
            out[n] = np.frombuffer(blob, dtype=np.float32)
    return out


class _PartWorker:
    """A Ray actor working on the parts of one build: it reads its part of the collection
    from the store itself (a file every worker sees at the same path, opened read-only),
    encodes it with the model (loaded once, on first use) into its part store, and fills the
    trained IVF index with a part's vectors into a shard file next to the parts."""

    def __init__(
        self,
        files: dict[str, bytes] | None,
        batch_size: int,
        store: str,
        immutable: bool,
        collection_id: int,
        parts: str,
        key: str,
        trained: np.ndarray | None,
    ) -> None:
        self.files, self.batch_size = files, batch_size
        self.store, self.immutable, self.collection_id = store, immutable, collection_id
        self.parts, self.key, self.trained = Path(parts), key, trained
        self.encoder: Any = None
        self._tmp: Any = None

    def _load(self) -> Any:
        if self.encoder is None:
            from xlsearch.engine.models.encoder import load_encoder

            self._tmp = tempfile.TemporaryDirectory(prefix="xlsearch-model-")
            root = Path(self._tmp.name)
            for rel, data in (self.files or {}).items():
                target = root / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            self.encoder = load_encoder(root, device="cpu", batch_size=self.batch_size, threads=1)
        return self.encoder

    def _see(self) -> None:
        import socket

        for what, path in (("store", Path(self.store)), ("parts folder", self.parts)):
            if not path.exists():
                raise ConfigError(
                    f"worker {socket.gethostname()} does not see the {what} {path}",
                    hint="put XLSEARCH_HOME on a filesystem every node mounts at the same "
                    "path (docs/scale.md)",
                )

    def encode_part(
        self, n: int, lo: int, hi: int, owner: np.ndarray, first: np.ndarray
    ) -> tuple[int, int]:
        """Write ``part-n.sqlite`` for the collection's segments with ids ``lo``..``hi``;
        returns (texts encoded, texts found in the store's vector cache)."""
        import sqlite3

        self._see()
        src = _open_ro(self.store, immutable=self.immutable)
        try:
            rows = src.execute(
                "SELECT s.id, s.text_hash, s.text FROM segments s JOIN documents d ON "
                "d.id = s.document_id WHERE d.collection_id = ? AND s.id BETWEEN ? AND ? "
                "ORDER BY s.id",
                [self.collection_id, lo, hi],
            ).fetchall()
            if len(rows) != len(owner):
                raise ConfigError(
                    f"the store changed while the index was being built ({len(rows)} segments "
                    f"with ids {lo}..{hi}, {len(owner)} planned)",
                    hint="run the same command again",
                )
            mine: dict[str, tuple[int, str]] = {}  # text hash: (vector id, text)
            for (sid, th, text), vid in zip(rows, first.tolist(), strict=True):
                if sid == vid:
                    mine[th] = (sid, text or "")
            cached = dict(
                src.execute(
                    "SELECT text_hash, vector FROM embeddings WHERE model_id = ? AND text_hash "
                    "IN (SELECT value FROM json_each(?))",
                    [self.key, _json_ids(mine)],
                )
            )
        finally:
            src.close()
        todo = [th for th in mine if th not in cached]
        vecs: dict[int, bytes] = {mine[th][0]: v for th, v in cached.items()}
        if todo:
            enc = self._load()
            got = np.asarray(enc.encode([mine[th][1] for th in todo]), dtype=np.float32)
            got = got.reshape(len(todo), int(enc.dim))
            vecs.update((mine[th][0], v.tobytes()) for th, v in zip(todo, got, strict=True))
        final = self.parts / f"part-{n:06d}.sqlite"
        tmp = final.with_name(final.name + f".{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + PARTS_SCHEMA)
            db.execute("BEGIN")
            db.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [("model_id", self.key), ("part", str(n)), ("lo", str(lo)), ("hi", str(hi))],
            )
            db.executemany(
                "INSERT INTO segments VALUES (?, ?, ?, ?)",
                [
                    (r[0], r[1], v, p)
                    for r, v, p in zip(rows, first.tolist(), owner.tolist(), strict=True)
                ],
            )
            db.executemany("INSERT INTO vectors VALUES (?, ?)", sorted(vecs.items()))
            db.execute("COMMIT")
        finally:
            db.close()
        tmp.replace(final)  # whole or absent: a retried part replaces nothing half-written
        return len(todo), len(cached)

    def fill(self, n: int, out: str) -> int:
        """Fill the trained index with part ``n``'s vectors (id order) into ``out``."""
        import faiss

        self._see()
        conns: dict[int, Any] = {}
        try:
            conns[n] = _open_ro(self.parts / f"part-{n:06d}.sqlite")
            rows = conns[n].execute("SELECT id, vector_id, part FROM segments ORDER BY id")
            rows = rows.fetchall()
            index = faiss.deserialize_index(self.trained)
            vecs = _gather(self.parts, rows, index.d, conns)
        finally:
            for c in conns.values():
                c.close()
        index.add_with_ids(vecs, np.fromiter((r[0] for r in rows), np.int64, len(rows)))
        tmp = Path(out + f".{os.getpid()}.tmp")
        faiss.write_index(index, str(tmp))
        tmp.replace(out)
        return len(rows)

    def pid(self) -> int:
        return os.getpid()


class _ShardFiller(_PartWorker):
    """The same actor filling index shards (its own name in the worker's process title)."""


class PartsBuild:
    """An IVF index built where the data is, FAISS's way for big collections.

    The collection is cut into parts of ``shard`` segments (in id order). Each worker reads
    its part from the store itself (the store file, opened read-only, must be at the same
    path on every worker: a shared filesystem), encodes it with the model loaded once per
    worker and writes a part store (``part-N.sqlite``: the part's segment ids, the same ids
    the index uses, and the vectors of the texts first seen in it). The head node trains the
    index on a sample read from the parts; the workers fill one shard file each from their
    part; the head merges the shards' inverted lists on disk into one ``.ivfdata`` file
    (``faiss.contrib.ondisk``) that search reads memory-mapped. No vector passes through the
    head node's store, and the head sends no vectors to the workers.

    Finished parts, the trained index and finished shards are kept in
    ``folder/parts-<plan>/``, so a stopped build resumes without redoing them (the plan is
    the model, shard size, segment ids and text hashes: a changed collection starts afresh;
    the parts are kept after the build, so a rebuild of the same collection encodes nothing).
    """

    def __init__(
        self,
        store: Any,
        folder: Path,
        key: str,
        vi: Any,
        rows: dict[str, np.ndarray],
        collection: str,
        *,
        address: str,
        shard: int,
    ) -> None:
        import hashlib
        import json

        self.store, self.folder, self.key, self.address = store, folder, key, address
        self.ids = np.ascontiguousarray(rows["id"], np.int64)
        self.collection_id = int(store.require_collection(collection))
        self.shard = shard
        self.bounds = list(range(0, len(self.ids), shard))
        _, first, inverse = np.unique(rows["h64"], return_index=True, return_inverse=True)
        inverse = np.ravel(inverse)
        self.owner = (first // shard)[inverse].astype(np.int32)
        self.first = self.ids[first][inverse]  # each segment's vector id: its text's first
        plan = hashlib.sha256(json.dumps([key, shard]).encode() + self.ids.tobytes())
        plan.update(np.ascontiguousarray(rows["h64"], np.int64).tobytes())
        self.dir = folder / f"parts-{plan.hexdigest()[:16]}"
        trained = json.dumps([vi.kind, vi.params], sort_keys=True).encode()
        self.ivf = self.dir / f"ivf-{hashlib.sha256(trained).hexdigest()[:12]}"
        self.stats: dict[str, Any] = {
            "parts": len(self.bounds), "parts_kept": 0, "encoded": 0, "cached": 0,
            "index_shards": 0, "index_shards_kept": 0,
        }  # fmt: skip

    def _part(self, n: int) -> Path:
        return self.dir / f"part-{n:06d}.sqlite"

    def _range(self, n: int) -> tuple[int, int, np.ndarray, np.ndarray]:
        """Part ``n``: its first and last segment id, the part and id of each one's vector."""
        lo, hi = self.bounds[n], self.bounds[n] + self.shard
        part = self.ids[lo:hi]
        return int(part[0]), int(part[-1]), self.owner[lo:hi], self.first[lo:hi]

    def _store_uri(self) -> tuple[str, bool]:
        """The store's path for the workers; ``immutable`` when its write-ahead log is
        empty (readers on other hosts cannot share SQLite's lock memory; nothing writes
        the store while the workers read it)."""
        db = self.store.db
        busy, log, done = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return str(Path(self.store.path).resolve()), busy == 0 and log in (0, -1)

    def _cluster(self, todo: int) -> tuple[Any, int]:
        ray = connect(self.address)
        return ray, _workers(ray, None, todo)

    def encode(
        self, encoder: Any, *, batch_size: int, on_progress: ProgressCallback,
        cancel: CancelToken | None,
    ) -> None:  # fmt: skip
        """Phase 1: every missing part store written by the workers."""
        self.dir.mkdir(parents=True, exist_ok=True)
        todo = [n for n in range(len(self.bounds)) if not self._part(n).is_file()]
        self.stats["parts_kept"] = len(self.bounds) - len(todo)
        if not todo:
            return
        path = getattr(encoder, "path", None)
        if path is None or not Path(path).is_dir():
            raise ConfigError(
                f"model {getattr(encoder, 'id', '?')} has no folder to ship to the workers",
                hint="index with a model folder (xlsearch models lists them)",
            )
        ray, n_workers = self._cluster(len(todo))
        self.stats["workers"] = n_workers
        total = int(sum(min(self.shard, len(self.ids) - self.bounds[n]) for n in todo))
        on_progress(
            Progress("plan", 0, None, f"{len(todo)} parts ({total:,} segments) on "
                     f"{n_workers} worker{'s' if n_workers > 1 else ''} of the cluster")
        )  # fmt: skip
        uri, immutable = self._store_uri()
        init = (
            ray.put(_model_files(Path(path))), batch_size, uri, immutable, self.collection_id,
            str(self.dir), self.key, None,
        )  # fmt: skip
        done = 0

        def kept(n: int, result: tuple[int, int]) -> None:
            nonlocal done
            done += min(self.shard, len(self.ids) - self.bounds[n])
            self.stats["shards"] = self.stats.get("shards", 0) + 1
            self.stats["encoded"] += result[0]
            self.stats["cached"] += result[1]
            on_progress(Progress("embed", done, total, metrics={"shards": self.stats["shards"]}))

        jobs = (((n, *self._range(n)), n) for n in todo)
        _spread(ray, _PartWorker, init, n_workers, jobs, "encode_part", kept, self.stats, cancel)

    def vectors(self, ids: np.ndarray, dim: int) -> np.ndarray:
        """Rows for ``ids`` (segment ids of the plan), read from the part stores here."""
        pos = np.searchsorted(self.ids, ids)
        rows = [(int(self.ids[p]), int(self.first[p]), int(self.owner[p])) for p in pos]
        conns: dict[int, Any] = {}
        try:
            return _gather(self.dir, rows, dim, conns)
        finally:
            for c in conns.values():
                c.close()

    def resume(self, vi: Any) -> bool:
        """Load the trained index of an earlier, stopped run of this plan into ``vi``."""
        import json

        import faiss

        trained = self.ivf / "trained.faiss"
        if not trained.is_file():
            return False
        vi.index = faiss.read_index(str(trained))
        vi.params = json.loads((self.ivf / "trained.json").read_text(encoding="utf-8"))
        return True

    def _keep_trained(self, vi: Any) -> None:
        import json

        import faiss

        if (self.ivf / "trained.faiss").is_file():
            return
        self.ivf.mkdir(parents=True, exist_ok=True)
        (self.ivf / "trained.json").write_text(json.dumps(vi.params), encoding="utf-8")
        faiss.write_index(vi.index, str(self.ivf / "trained.faiss.tmp"))
        (self.ivf / "trained.faiss.tmp").replace(self.ivf / "trained.faiss")

    def fill(self, vi: Any, *, on_progress: ProgressCallback, cancel: CancelToken | None) -> Any:
        """Phase 3: the trained ``vi`` filled shard by shard on the workers from their
        parts, merged here on disk; returns the merged on-disk index (a new ``VectorIndex``)."""
        import uuid

        import faiss

        from xlsearch.engine.index.vectors import merge_on_disk

        self._keep_trained(vi)
        files = [self.ivf / f"shard-{n:06d}.faiss" for n in range(len(self.bounds))]
        todo = [n for n, f in enumerate(files) if not f.is_file()]
        self.stats["index_shards_kept"] = len(files) - len(todo)
        total = len(self.ids)
        done = sum(min(self.shard, total - self.bounds[n]) for n in range(len(files)))
        done -= sum(min(self.shard, total - self.bounds[n]) for n in todo)
        if todo:
            ray, n_workers = self._cluster(len(todo))
            self.stats["index_workers"] = n_workers
            on_progress(
                Progress("plan", 0, None, f"{len(todo)} index shards on {n_workers} workers")
            )
            trained = ray.put(np.asarray(faiss.serialize_index(vi.index)))
            uri, immutable = self._store_uri()
            init = (None, 1, uri, immutable, self.collection_id, str(self.dir), self.key, trained)

            def keep(n: int, count: int) -> None:
                nonlocal done
                done += count
                self.stats["index_shards"] += 1
                on_progress(Progress("index", done, total, metrics=dict(self.stats)))

            jobs = (((n, str(files[n])), n) for n in todo)
            _spread(ray, _ShardFiller, init, n_workers, jobs, "fill", keep, self.stats, cancel)
        on_progress(Progress("merge", 0, 1, f"merging {len(files)} shards on disk"))
        merged = merge_on_disk(vi, files, self.folder / f"index-{uuid.uuid4().hex[:12]}.ivfdata")
        on_progress(Progress("merge", 1, 1))
        return merged

    def clean(self) -> None:
        """After the merged index is saved: drop the shard files and trained index, and the
        parts of other plans; this plan's parts stay (a rebuild reuses them)."""
        import shutil

        for old in self.folder.glob("parts-*"):
            if old != self.dir:
                shutil.rmtree(old, ignore_errors=True)
        for old in self.dir.glob("ivf-*"):
            shutil.rmtree(old, ignore_errors=True)
        for old in self.folder.glob("shards-*"):  # an older version's shard folders
            shutil.rmtree(old, ignore_errors=True)


MINE_SHARD = 50_000
"""Rows per side of one shard pair when k-NN (mining) runs on the cluster."""


class _KnnWorker:
    """A Ray actor: exact inner-product k-NN of one query shard in one base shard."""

    def knn(
        self, queries: np.ndarray, base: np.ndarray, offset: int, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        import faiss

        index = faiss.IndexFlatIP(base.shape[1])
        index.add(np.ascontiguousarray(base, np.float32))
        sims, inds = index.search(np.ascontiguousarray(queries, np.float32), min(k, len(base)))
        return sims, np.where(inds >= 0, inds + offset, -1)


def _best(sims: np.ndarray, inds: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``k`` best (score, index), ties by lower index: the same whatever order
    the shard pairs came back in."""
    order = np.lexsort((inds, -sims), axis=-1)[:, :k]
    return np.take_along_axis(sims, order, axis=1), np.take_along_axis(inds, order, axis=1)


def pairs_folder(keep: Path, queries: np.ndarray, base: np.ndarray, k: int, shard: int) -> Path:
    """The folder keeping the finished shard pairs of one k-NN search: named after the
    vectors themselves, ``k`` and the shard size, so only the same search resumes from it."""
    import hashlib

    digest = hashlib.blake2b(f"{k}|{shard}|{queries.shape}|{base.shape}".encode())
    for a in (queries, base):
        digest.update(np.ascontiguousarray(a, np.float32).data)
    return keep / f"knn-{digest.hexdigest()[:16]}"


def knn_on_cluster(
    queries: np.ndarray,
    base: np.ndarray,
    k: int,
    *,
    address: str,
    shard: int = MINE_SHARD,
    stage: str = "knn",
    keep: Path | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact k-NN of every query row in ``base``, one task per (query shard, base shard)
    pair on the cluster's workers, merged here into each row's global ``k`` best: the
    neighbours a flat index over all of ``base`` finds (equal scores by lower index).

    ``keep`` (a folder, see ``pairs_folder``): each finished pair is written there (whole,
    then merged), and pairs found there are merged instead of computed again, so a stopped
    search resumes by shard pair. Progress metrics: ``shard_pairs`` merged so far,
    ``pairs_kept`` from the folder, ``retried`` (pairs sent again after a worker died)."""
    on_progress = on_progress or no_progress
    k = min(k, len(base))
    n = len(queries)
    sims = np.full((n, k), -np.inf, dtype=np.float32)
    inds = np.full((n, k), -1, dtype=np.int64)
    if n == 0 or k == 0:
        return sims, inds
    queries = np.asarray(queries, np.float32)
    base = np.asarray(base, np.float32)
    q_bounds = list(range(0, n, shard))
    b_bounds = list(range(0, len(base), shard))
    pairs = [(qi, bi) for qi in range(len(q_bounds)) for bi in range(len(b_bounds))]
    stats: dict[str, Any] = {"shard_pairs": 0, "pairs_kept": 0}

    def file(tag: tuple[int, int]) -> Path:
        assert keep is not None
        return keep / f"pair-{tag[0]:05d}-{tag[1]:05d}.npz"

    def merge(tag: tuple[int, int], result: tuple[np.ndarray, np.ndarray]) -> None:
        lo = q_bounds[tag[0]]
        hi = lo + len(result[0])
        both_s = np.concatenate([sims[lo:hi], result[0]], axis=1)
        both_i = np.concatenate([inds[lo:hi], result[1].astype(np.int64)], axis=1)
        sims[lo:hi], inds[lo:hi] = _best(both_s, both_i, k)
        stats["shard_pairs"] += 1
        on_progress(Progress(stage, stats["shard_pairs"], len(pairs), metrics=dict(stats)))

    def kept(tag: tuple[int, int], result: tuple[np.ndarray, np.ndarray]) -> None:
        if keep is not None:  # whole or absent: a stopped run never leaves half a pair
            tmp = file(tag).with_suffix(".tmp.npz")
            np.savez(tmp, sims=result[0], inds=result[1])
            tmp.replace(file(tag))
        merge(tag, result)

    todo = pairs
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        todo = []
        for tag in pairs:
            try:
                with np.load(file(tag)) as f:
                    found = (f["sims"], f["inds"])
            except (OSError, ValueError, KeyError):  # missing, or unreadable: computed again
                todo.append(tag)
                continue
            stats["pairs_kept"] += 1
            merge(tag, found)
    if not todo:
        return sims, inds
    ray = connect(address)
    q_refs = {qi: ray.put(np.ascontiguousarray(queries[q_bounds[qi] : q_bounds[qi] + shard]))
              for qi in sorted({t[0] for t in todo})}  # fmt: skip
    b_refs = {bi: ray.put(np.ascontiguousarray(base[b_bounds[bi] : b_bounds[bi] + shard]))
              for bi in sorted({t[1] for t in todo})}  # fmt: skip
    jobs = (((q_refs[qi], b_refs[bi], b_bounds[bi], k), (qi, bi)) for qi, bi in todo)
    n_workers = _workers(ray, None, len(todo))
    _spread(ray, _KnnWorker, (), n_workers, jobs, "knn", kept, stats, cancel)
    return sims, inds
