"""Embed a collection on a Ray cluster: the same vectors, the work spread over workers.

``xlsearch index --cluster local|auto|ADDRESS`` encodes the texts that have no cached vector
in shards on Ray actors (each loads the model once, from a copy of the model folder shipped
through Ray's object store, so workers need no shared disk). Each finished shard is committed
to the store's vector cache in one transaction: a killed run keeps every finished shard and a
rerun encodes only what is still missing. The index is then built from the cache exactly as
on one machine (same vectors, same order, same training sample), so it gives the same hits.

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


def _where(collection: str | None) -> tuple[str, list[Any]]:
    if collection is None:
        return "", []
    return "d.collection_id = (SELECT id FROM collections WHERE name = ?) AND ", [collection]


def _missing(
    db: Any, key: str, collection: str | None, shard: int
) -> Iterator[tuple[list[str], list[str]]]:
    """Shards of (text hashes, texts) of ``collection`` with no cached vector for ``key``,
    in segment-id order, each distinct text once. Read page by page (a fresh query each,
    so committing shards meanwhile is safe)."""
    where, args = _where(collection)
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


def _count_missing(db: Any, key: str, collection: str | None) -> int:
    where, args = _where(collection)
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
    address: str,
    shard: int = SHARD,
    workers: int | None = None,
    batch_size: int = 256,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Encode ``collection``'s (None: every collection's) uncached texts on the Ray cluster
    at ``address``.

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
    total = _count_missing(db, key, collection)
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

    jobs = (((texts,), hashes) for hashes, texts in _missing(db, key, collection, shard))
    _spread(
        ray, _EncodeWorker, (files_ref, batch_size), n_workers, jobs, "encode", commit, stats,
        cancel,
    )  # fmt: skip
    return stats


class _IndexWorker:
    """A Ray actor: holds the trained, empty IVF index and fills one shard at a time."""

    def __init__(self, trained: np.ndarray) -> None:
        self.trained = trained

    def fill(self, ids: np.ndarray, vecs: np.ndarray) -> np.ndarray:
        import faiss

        index = faiss.deserialize_index(self.trained)
        index.add_with_ids(np.ascontiguousarray(vecs, np.float32), ids)
        return np.asarray(faiss.serialize_index(index))

    def pid(self) -> int:
        return os.getpid()


class ShardedBuild:
    """An IVF index built FAISS's way for big collections: trained on a sample here, its
    inverted lists filled in shards on the cluster's workers, then merged on disk into one
    ``.ivfdata`` file (``faiss.contrib.ondisk``) that search reads memory-mapped.

    Every finished shard and the trained index are kept in ``folder/shards-<plan>/``, so a
    stopped build resumes without redoing them (the plan is the model, kind, parameters,
    shard size, segment ids and text hashes: a changed collection starts a fresh plan)."""

    def __init__(
        self,
        folder: Path,
        key: str,
        vi: Any,
        ids: np.ndarray,
        hashes: np.ndarray,
        *,
        address: str,
        shard: int,
    ) -> None:
        import hashlib
        import json

        plan = json.dumps([key, vi.kind, vi.params, shard], sort_keys=True).encode()
        digest = hashlib.sha256(plan + np.ascontiguousarray(ids, np.int64).tobytes())
        digest.update(np.ascontiguousarray(hashes, np.int64).tobytes())
        self.folder = folder
        self.dir = folder / f"shards-{digest.hexdigest()[:16]}"
        self.address = address
        self.shard = shard
        self.stats: dict[str, Any] = {"index_shards": 0, "index_shards_kept": 0}

    def resume(self, vi: Any) -> bool:
        """Load the trained index of an earlier, stopped run of this plan into ``vi``."""
        import json

        import faiss

        trained = self.dir / "trained.faiss"
        if not trained.is_file():
            return False
        vi.index = faiss.read_index(str(trained))
        vi.params = json.loads((self.dir / "trained.json").read_text(encoding="utf-8"))
        return True

    def _keep_trained(self, vi: Any) -> None:
        import json

        import faiss

        if (self.dir / "trained.faiss").is_file():
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "trained.json").write_text(json.dumps(vi.params), encoding="utf-8")
        faiss.write_index(vi.index, str(self.dir / "trained.faiss.tmp"))
        (self.dir / "trained.faiss.tmp").replace(self.dir / "trained.faiss")

    def fill(
        self,
        vi: Any,
        ids: np.ndarray,
        vectors: Callable[[np.ndarray], np.ndarray],
        *,
        on_progress: ProgressCallback,
        cancel: CancelToken | None,
    ) -> Any:
        """Fill the trained ``vi`` with ``ids`` (``vectors(ids)`` gives their rows) shard by
        shard on the workers; returns the merged on-disk index (a new ``VectorIndex``)."""
        import uuid

        import faiss

        from xlsearch.engine.index.vectors import merge_on_disk

        self._keep_trained(vi)
        bounds = list(range(0, len(ids), self.shard))
        files = [self.dir / f"shard-{n:06d}.faiss" for n in range(len(bounds))]
        todo = [n for n, f in enumerate(files) if not f.is_file()]
        self.stats["index_shards_kept"] = len(files) - len(todo)
        total = len(ids)
        done = sum(min(self.shard, total - bounds[n]) for n in range(len(files)) if n not in todo)
        if todo:
            ray = connect(self.address)
            n_workers = _workers(ray, None, len(todo))
            self.stats["index_workers"] = n_workers
            on_progress(
                Progress("plan", 0, None, f"{len(todo)} index shards on {n_workers} workers")
            )
            trained = ray.put(np.asarray(faiss.serialize_index(vi.index)))

            def jobs() -> Iterator[tuple[tuple[Any, ...], Any]]:
                for n in todo:
                    part = ids[bounds[n] : bounds[n] + self.shard]
                    yield (part, vectors(part)), n

            def keep(n: int, data: np.ndarray) -> None:
                nonlocal done
                tmp = files[n].with_suffix(".tmp")
                tmp.write_bytes(np.asarray(data, np.uint8).tobytes())
                tmp.replace(files[n])  # written once, whole: a retried shard replaces nothing
                done += min(self.shard, total - bounds[n])
                self.stats["index_shards"] += 1
                on_progress(Progress("index", done, total, metrics=dict(self.stats)))

            init = (trained,)
            _spread(ray, _IndexWorker, init, n_workers, jobs(), "fill", keep, self.stats, cancel)
        on_progress(Progress("merge", 0, 1, f"merging {len(files)} shards on disk"))
        merged = merge_on_disk(vi, files, self.folder / f"index-{uuid.uuid4().hex[:12]}.ivfdata")
        on_progress(Progress("merge", 1, 1))
        return merged

    def clean(self) -> None:
        """Remove every shard folder of the index folder (after the merged index is saved)."""
        import shutil

        for old in self.folder.glob("shards-*"):
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


def knn_on_cluster(
    queries: np.ndarray,
    base: np.ndarray,
    k: int,
    *,
    address: str,
    shard: int = MINE_SHARD,
    stage: str = "knn",
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact k-NN of every query row in ``base``, one task per (query shard, base shard)
    pair on the cluster's workers, merged here into each row's global ``k`` best: the
    neighbours a flat index over all of ``base`` finds (equal scores by lower index)."""
    on_progress = on_progress or no_progress
    k = min(k, len(base))
    n = len(queries)
    sims = np.full((n, k), -np.inf, dtype=np.float32)
    inds = np.full((n, k), -1, dtype=np.int64)
    if n == 0 or k == 0:
        return sims, inds
    ray = connect(address)
    q_bounds = list(range(0, n, shard))
    b_bounds = list(range(0, len(base), shard))
    q_refs = [ray.put(np.ascontiguousarray(queries[s : s + shard], np.float32)) for s in q_bounds]
    b_refs = [ray.put(np.ascontiguousarray(base[s : s + shard], np.float32)) for s in b_bounds]
    pairs = [(qi, bi) for qi in range(len(q_bounds)) for bi in range(len(b_bounds))]
    stats: dict[str, Any] = {}
    done = 0

    def merge(tag: tuple[int, int], result: tuple[np.ndarray, np.ndarray]) -> None:
        nonlocal done
        lo = q_bounds[tag[0]]
        hi = lo + len(result[0])
        both_s = np.concatenate([sims[lo:hi], result[0]], axis=1)
        both_i = np.concatenate([inds[lo:hi], result[1].astype(np.int64)], axis=1)
        sims[lo:hi], inds[lo:hi] = _best(both_s, both_i, k)
        done += 1
        on_progress(Progress(stage, done, len(pairs), metrics={"shard_pairs": done}))

    jobs = (((q_refs[qi], b_refs[bi], b_bounds[bi], k), (qi, bi)) for qi, bi in pairs)
    _spread(ray, _KnnWorker, (), _workers(ray, None, len(pairs)), jobs, "knn", merge, stats, cancel)
    return sims, inds
