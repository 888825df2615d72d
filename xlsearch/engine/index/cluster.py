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
from collections.abc import Iterator
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
    cpus = int(ray.cluster_resources().get("CPU", 1))
    n_workers = max(1, min(workers or cpus, -(-total // shard)))
    stats["workers"] = n_workers
    who = f"{n_workers} worker{'s' if n_workers > 1 else ''}"
    on_progress(Progress("plan", 0, None, f"{total:,} texts to encode on {who} of the cluster"))
    files_ref = ray.put(_model_files(Path(path)))
    actor_cls = ray.remote(num_cpus=1)(_EncodeWorker)
    actors = [actor_cls.remote(files_ref, batch_size) for _ in range(n_workers)]
    pending: dict[Any, tuple[int, list[str], list[str], int]] = {}
    free = list(range(n_workers))
    shards = _missing(db, key, collection, shard)
    done = 0
    try:
        exhausted = False
        while True:
            while free and not exhausted:
                nxt = next(shards, None)
                if nxt is None:
                    exhausted = True
                    break
                a = free.pop()
                pending[actors[a].encode.remote(nxt[1])] = (a, *nxt, 0)
            if not pending:
                break
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                a, hashes, texts, tries = pending.pop(ref)
                try:
                    vecs = ray.get(ref)
                except ray.exceptions.RayError as exc:  # a worker died: a fresh one retries
                    if tries >= RETRIES:
                        raise ConfigError(
                            f"a cluster worker failed {tries + 1} times on one shard: "
                            f"{str(exc).splitlines()[0]}",
                            hint="finished shards are kept: run the same command again",
                        ) from exc
                    ray.kill(actors[a])
                    actors[a] = actor_cls.remote(files_ref, batch_size)
                    pending[actors[a].encode.remote(texts)] = (a, hashes, texts, tries + 1)
                    stats["retried"] = stats.get("retried", 0) + 1
                    continue
                free.append(a)
                _commit(db, key, hashes, vecs)
                done += len(hashes)
                stats["shards"] += 1
                stats["encoded"] += len(hashes)
                on_progress(Progress("embed", done, total, metrics={"shards": stats["shards"]}))
            if cancel is not None:
                cancel.raise_if_cancelled()
    finally:
        for ref in pending:
            ray.cancel(ref)
        for actor in actors:
            ray.kill(actor)
    return stats
