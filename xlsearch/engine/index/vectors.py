"""FAISS vector index: inner product on L2-normalised rows, ids = segment ids.

Kinds: ``flat`` (exact), ``hnsw``, ``ivf`` (IVF-Flat), ``sq8`` (IVF + 8-bit scalar quantiser)
and ``ivfpq`` (IVF + product quantiser); ``auto`` picks by size (:func:`choose_kind`). IVF
kinds keep the ids in their inverted lists and are read memory-mapped (``IO_FLAG_MMAP``)
for search; flat and HNSW sit behind an ``IndexIDMap2``. No store and no encoder here.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.errors import ConfigError

KINDS = ("flat", "hnsw", "ivf", "sq8", "ivfpq")
IVF_KINDS = ("ivf", "sq8", "ivfpq")
FLAT_MAX = 50_000
"""``auto`` uses exact search up to this many vectors."""
COMPRESS_FRACTION = 0.4
"""``auto`` compresses (IVF-PQ) when float32 vectors would need more than this share of RAM."""
COMPRESS_MIN = 10_000_000


def total_ram() -> int:
    """Physical memory in bytes (8 GiB when unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 8 << 30


def choose_kind(n: int, dim: int, ram: int | None = None) -> str:
    """``flat`` below ``FLAT_MAX``, ``ivfpq`` for 10M+ or beyond RAM, else ``ivf``."""
    ram = ram or total_ram()
    if n <= FLAT_MAX:
        return "flat"
    if n >= COMPRESS_MIN or n * dim * 4 > COMPRESS_FRACTION * ram:
        return "ivfpq"
    return "ivf"


def default_params(kind: str, n: int, dim: int) -> dict[str, Any]:
    """Build parameters for ``kind`` at ``n`` vectors (nlist ≈ √n, PQ m = dim/8)."""
    if kind == "hnsw":
        return {"M": 32, "efConstruction": 80, "efSearch": 64}
    if kind in IVF_KINDS:
        nlist = int(min(65536, max(16, round(math.sqrt(max(n, 1))))))
        params: dict[str, Any] = {"nlist": nlist, "nprobe": max(8, nlist // 32)}
        if kind == "ivfpq":
            m = next(m for m in (dim // 8, 48, 32, 24, 16, 8, 4, 2, 1) if m and dim % m == 0)
            params["m"] = m
        return params
    return {}


def estimate_memory(kind: str, n: int, dim: int, params: dict[str, Any] | None = None) -> int:
    """Approximate bytes the index needs for ``n`` vectors (codes + ids + structure)."""
    params = params or default_params(kind, n, dim)
    if kind == "flat":
        return n * (dim * 4 + 8 + 16)  # codes + id_map + rev_map entry
    if kind == "hnsw":
        return n * (dim * 4 + 8 + 16 + params.get("M", 32) * 2 * 4 + 8)
    nlist = params.get("nlist", 1024)
    code = {"ivf": dim * 4, "sq8": dim, "ivfpq": params.get("m", dim // 8)}[kind]
    return n * (code + 8) + nlist * dim * 4


def human_bytes(n: float) -> str:
    """``1536000`` → ``1.5 MB``."""
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # pragma: no cover


@dataclass
class VectorIndex:
    """A FAISS index plus the parameters it was built with."""

    index: Any
    kind: str
    dim: int
    params: dict[str, Any] = field(default_factory=dict)
    ondisk: Path | None = None
    """The ``.ivfdata`` file holding the inverted lists of a merged on-disk IVF index."""

    @classmethod
    def create(cls, kind: str, dim: int, n_hint: int, params: dict | None = None) -> VectorIndex:
        """An empty index of ``kind`` sized for about ``n_hint`` vectors (IVF: untrained)."""
        import faiss

        if kind == "auto":
            kind = choose_kind(n_hint, dim)
        if kind not in KINDS:
            raise ConfigError(f"unknown index kind {kind!r}; choose from auto, {', '.join(KINDS)}")
        p = {**default_params(kind, n_hint, dim), **(params or {})}
        ip = faiss.METRIC_INNER_PRODUCT
        if kind == "flat":
            index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        elif kind == "hnsw":
            hnsw = faiss.IndexHNSWFlat(dim, int(p["M"]), ip)
            hnsw.hnsw.efConstruction = int(p["efConstruction"])
            hnsw.hnsw.efSearch = int(p["efSearch"])
            index = faiss.IndexIDMap2(hnsw)
        else:
            quantizer = faiss.IndexFlatIP(dim)
            nlist = int(p["nlist"])
            if kind == "ivf":
                index = faiss.IndexIVFFlat(quantizer, dim, nlist, ip)
            elif kind == "sq8":
                qt = faiss.ScalarQuantizer.QT_8bit
                index = faiss.IndexIVFScalarQuantizer(quantizer, dim, nlist, qt, ip)
            else:
                index = faiss.IndexIVFPQ(quantizer, dim, nlist, int(p["m"]), 8, ip)
            index.own_fields = True
            quantizer.this.disown()
            index.nprobe = int(p["nprobe"])
        return cls(index, kind, dim, p)

    # -- state -------------------------------------------------------------------------------
    @property
    def ntotal(self) -> int:
        return int(self.index.ntotal)

    @property
    def is_trained(self) -> bool:
        return bool(self.index.is_trained)

    @property
    def ivf(self) -> Any:
        return self.index if self.kind in IVF_KINDS else None

    def train(self, sample: np.ndarray, seed: int = 1234) -> None:
        """Train the IVF coarse quantiser (and codec) on ``sample`` rows."""
        if self.is_trained:
            return
        sample = np.ascontiguousarray(sample, dtype=np.float32)
        nlist = int(self.params.get("nlist", 1))
        fit = max(1, min(nlist, sample.shape[0] // 39))  # FAISS wants >= 39 points per list
        if fit < nlist:
            fresh = VectorIndex.create(self.kind, self.dim, sample.shape[0], {"nlist": fit})
            self.index = fresh.index
            self.params = {**self.params, "nlist": fit, "nprobe": min(fit, self.params["nprobe"])}
            self.index.nprobe = int(self.params["nprobe"])
        self.index.cp.seed = seed
        self.index.cp.niter = 20
        self.index.train(sample)
        self.params["trained_on"] = int(sample.shape[0])

    def ids(self) -> np.ndarray:
        """Every id stored in the index (int64, unordered)."""
        import faiss

        if self.ivf is None:
            return faiss.vector_to_array(self.index.id_map).astype(np.int64)
        inv = self.index.invlists
        parts = []
        for lst in range(inv.nlist):
            size = inv.list_size(lst)
            if size:
                ptr = inv.get_ids(lst)
                parts.append(faiss.rev_swig_ptr(ptr, size).copy())
                inv.release_ids(lst, ptr)
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

    # -- updates -----------------------------------------------------------------------------
    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Add rows with their segment ids (the caller guarantees ids are new)."""
        if len(ids) == 0:
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.shape[1] != self.dim:
            raise ConfigError(f"vector width {vectors.shape[1]} != index width {self.dim}")
        self.index.add_with_ids(vectors, np.ascontiguousarray(ids, dtype=np.int64))

    @property
    def supports_remove(self) -> bool:
        return self.kind != "hnsw"

    def remove(self, ids: np.ndarray) -> int:
        """Remove ``ids``; returns how many were removed (HNSW: unsupported, rebuild instead)."""
        import faiss

        if len(ids) == 0:
            return 0
        if not self.supports_remove:
            raise ConfigError("an HNSW index cannot delete vectors; rebuild it")
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        sel = faiss.IDSelectorBatch(len(ids), faiss.swig_ptr(ids))
        return int(self.index.remove_ids(sel))

    # -- search ------------------------------------------------------------------------------
    def search(
        self,
        queries: np.ndarray,
        k: int,
        *,
        allowed: np.ndarray | None = None,
        exhaustive: bool = False,
        nprobe: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-``k`` (scores, ids) per query row; ``allowed`` restricts ids *before* ranking.

        ``exhaustive`` visits every IVF list / a wide HNSW beam; ``nprobe`` overrides the
        tuned IVF setting (a caller trading recall for speed). Missing hits have id -1.
        """
        import faiss

        q = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        k = max(1, min(int(k), max(self.ntotal, 1)))
        sel = None
        if allowed is not None:
            allowed = np.ascontiguousarray(allowed, dtype=np.int64)
            sel = faiss.IDSelectorBatch(len(allowed), faiss.swig_ptr(allowed))
        if self.ivf is not None:
            nlist = int(self.index.nlist)
            nprobe = int(nprobe or self.params.get("nprobe", self.index.nprobe))
            if exhaustive:
                nprobe = nlist
            elif allowed is not None and self.ntotal:
                nprobe = self.filtered_nprobe(len(allowed) / self.ntotal, nprobe)
            params = faiss.SearchParametersIVF(sel=sel, nprobe=min(nlist, nprobe))
        elif self.kind == "hnsw":
            ef = int(self.params.get("efSearch", 64))
            ef = max(k, ef * (8 if exhaustive else 1))
            params = faiss.SearchParametersHNSW(sel=sel, efSearch=ef)
        else:
            params = faiss.SearchParameters(sel=sel) if sel is not None else None
        scores, labels = self.index.search(q, k, params=params)
        return scores, labels

    def filtered_nprobe(self, share: float, nprobe: int | None = None) -> int:
        """IVF lists to visit when only ``share`` of the vectors may be returned: more than
        the tuned ``nprobe`` (fewer of each list's neighbours count), at most 8× as many."""
        nprobe = int(nprobe or self.params.get("nprobe", 1))
        return int(math.ceil(nprobe * min(8.0, 1.0 / max(share, 1e-6)) ** 0.5))

    @property
    def reconstruct_ready(self) -> bool:
        """Whether ``reconstruct`` is cheap now (an IVF needs a direct map first: a fifth of a
        second per million vectors, once per process)."""
        import faiss

        return self.ivf is None or self.index.direct_map.type != faiss.DirectMap.NoMap

    def reconstruct(self, ids: np.ndarray) -> np.ndarray:
        """Stored vectors for ``ids`` (flat/HNSW exact; IVF builds a hash direct map first)."""
        import faiss

        ids = np.ascontiguousarray(ids, dtype=np.int64)
        if self.ivf is not None and self.index.direct_map.type != faiss.DirectMap.Hashtable:
            self.index.set_direct_map_type(faiss.DirectMap.Hashtable)
        return self.index.reconstruct_batch(ids)


def write_index(vi: VectorIndex, path: Path) -> None:
    """Write the FAISS file at ``path`` and fsync it."""
    import faiss

    faiss.write_index(vi.index, str(path))
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _quiet_stdout() -> Iterator[None]:
    """Silence FAISS's C-level ``printf`` notices (on-disk lists print to stdout)."""
    import ctypes
    import sys

    sys.stdout.flush()
    libc = ctypes.CDLL(None)
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    try:
        yield
    finally:
        libc.fflush(None)
        os.dup2(saved, 1)
        os.close(saved)


def merge_on_disk(trained: VectorIndex, shard_files: list[Path], ivfdata: Path) -> VectorIndex:
    """FAISS's recipe for big IVF indexes: the inverted lists of ``shard_files`` (each a copy
    of ``trained`` filled with one shard, in order) merged into one ``ivfdata`` file that
    the returned index reads memory-mapped; lists keep the shards' order, so the index holds
    what adding every shard to ``trained`` one after the other would."""
    import faiss
    from faiss.contrib.ondisk import merge_ondisk

    if trained.ivf is None or trained.ntotal:
        raise ConfigError("only an empty trained IVF index can be merged on disk")
    index = faiss.deserialize_index(faiss.serialize_index(trained.index))
    with _quiet_stdout():
        merge_ondisk(index, [str(f) for f in shard_files], str(ivfdata))
    index.nprobe = int(trained.params.get("nprobe", index.nprobe))
    return VectorIndex(index, trained.kind, trained.dim, dict(trained.params), ivfdata)


def _to_memory(index: Any) -> None:
    """Copy an index's on-disk inverted lists into memory (writable, saved in one file)."""
    import faiss

    disk = faiss.downcast_InvertedLists(index.invlists)
    mem = faiss.ArrayInvertedLists(disk.nlist, disk.code_size)
    for lst in range(disk.nlist):
        size = disk.list_size(lst)
        if size:
            ids, codes = disk.get_ids(lst), disk.get_codes(lst)
            mem.add_entries(lst, size, ids, codes)
            disk.release_ids(lst, ids)
            disk.release_codes(lst, codes)
    index.replace_invlists(mem, True)
    mem.this.disown()


def _read_ondisk(path: Path, ondisk: Path) -> Any:
    """An index whose lists live in ``ondisk`` (the folder may have moved since it was
    written: FAISS stores the list file's absolute path)."""
    import faiss

    try:
        index = faiss.read_index(str(path), faiss.IO_FLAG_READ_ONLY)
        if faiss.downcast_InvertedLists(index.invlists).filename == str(ondisk):
            return index
    except RuntimeError:
        pass
    with _quiet_stdout():
        flags = faiss.IO_FLAG_READ_ONLY | faiss.IO_FLAG_ONDISK_SAME_DIR
        return faiss.read_index(str(path), flags)


def read_index(
    path: Path, kind: str, dim: int, params: dict, *, mmap: bool, ondisk: Path | None = None
) -> VectorIndex:
    """Read a FAISS file; IVF and flat kinds are memory-mapped (read-only) when ``mmap``
    (a flat file is then searched in place: a fresh process skips copying it into memory).
    ``ondisk``: the index's lists live in that ``.ivfdata`` file (a merged on-disk index),
    memory-mapped for search, copied into memory when not ``mmap`` (to be updated)."""
    import faiss

    if ondisk is not None:
        index = _read_ondisk(path, ondisk)
        index.nprobe = int(params.get("nprobe", index.nprobe))
        if not mmap:
            _to_memory(index)
        return VectorIndex(index, kind, dim, dict(params), ondisk if mmap else None)
    flags = 0
    if mmap and kind in IVF_KINDS:
        flags = faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY
    elif mmap and kind == "flat":
        flags = faiss.IO_FLAG_MMAP_IFC | faiss.IO_FLAG_READ_ONLY
    index = faiss.read_index(str(path), flags)  # SWIG already returns the concrete subclass
    if kind in IVF_KINDS:
        index.nprobe = int(params.get("nprobe", index.nprobe))
    elif kind == "hnsw":
        inner = faiss.downcast_index(index.index)
        inner.hnsw.efSearch = int(params.get("efSearch", 64))
    return VectorIndex(index, kind, dim, dict(params))


def exact_topk(
    queries: np.ndarray, vectors: np.ndarray, ids: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Brute-force inner-product top-``k`` over ``vectors`` (rows labelled by ``ids``)."""
    q = np.atleast_2d(queries).astype(np.float32)
    k = min(k, len(ids))
    if k == 0:
        return np.zeros((len(q), 0), np.float32), np.zeros((len(q), 0), np.int64)
    sims = q @ vectors.T
    part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    top = np.take_along_axis(sims, part, axis=1)
    order = np.argsort(-top, axis=1, kind="stable")
    cols = np.take_along_axis(part, order, axis=1)
    return np.take_along_axis(sims, cols, axis=1), ids[cols]


@contextlib.contextmanager
def _list_view(invl: Any, lst: int, n: int, d: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """One inverted list of an IVF-Flat index (``n`` vectors of ``d`` floats): its vectors
    and ids as numpy views of FAISS's memory, valid inside the block (released after)."""
    import faiss

    codes_ptr, ids_ptr = invl.get_codes(lst), invl.get_ids(lst)
    try:
        yield (
            faiss.rev_swig_ptr(codes_ptr, n * d * 4).view(np.float32).reshape(n, d),
            faiss.rev_swig_ptr(ids_ptr, n).view(np.int64),
        )
    finally:
        invl.release_codes(lst, codes_ptr)
        invl.release_ids(lst, ids_ptr)


def ivf_search_by_list(
    vi: VectorIndex, queries: np.ndarray, k: int, nprobe: int
) -> tuple[np.ndarray, np.ndarray]:
    """``vi.search`` for a batch of queries on an IVF-Flat index, list-major: each probed
    list is read once for every query that probes it (one matrix product) instead of once
    per query — the same lists, hence the same hits, at a fraction of the memory traffic
    when many queries share lists (document analysis). Missing hits have id -1."""

    index = vi.index
    q = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
    nq, d = q.shape
    nprobe = max(1, min(int(nprobe), int(index.nlist)))
    _, assign = index.quantizer.search(q, nprobe)
    best_s = np.full((nq, k), -np.inf, dtype=np.float32)
    best_i = np.full((nq, k), -1, dtype=np.int64)
    flat = assign.ravel()
    order = np.argsort(flat, kind="stable")
    lists, starts = np.unique(flat[order], return_index=True)
    ends = np.append(starts[1:], len(order))
    invl = index.invlists
    for lst, lo, hi in zip(lists.tolist(), starts.tolist(), ends.tolist(), strict=True):
        if lst < 0:
            continue
        n = int(invl.list_size(lst))
        if n == 0:
            continue
        qs = order[lo:hi] // nprobe
        with _list_view(invl, lst, n, d) as (vecs, list_ids):
            sims = q[qs] @ vecs.T
            ids = list_ids.copy()
        all_s = np.concatenate([best_s[qs], sims], axis=1)
        all_i = np.concatenate([best_i[qs], np.broadcast_to(ids, sims.shape)], axis=1)
        top = np.argpartition(-all_s, k - 1, axis=1)[:, :k] if all_s.shape[1] > k else None
        if top is not None:
            all_s = np.take_along_axis(all_s, top, axis=1)
            all_i = np.take_along_axis(all_i, top, axis=1)
        best_s[qs], best_i[qs] = all_s, all_i
    rank = np.argsort(-best_s, axis=1, kind="stable")
    best_s = np.take_along_axis(best_s, rank, axis=1)
    best_i = np.take_along_axis(best_i, rank, axis=1)
    best_i[~np.isfinite(best_s)] = -1
    return best_s, best_i


def _per_list_topk(
    vi: VectorIndex, queries: np.ndarray, k: int, chunk: int = 1 << 16
) -> tuple[np.ndarray, np.ndarray]:
    """Each query's ``k`` best (score, id) in each list of an IVF-Flat index, shaped
    ``(nlist, nq, k)`` (-inf / -1 where a list holds fewer): one pass over the lists,
    read in groups of about ``chunk`` vectors, one matrix product per group. The best of a
    set of lists is the best of their per-list bests, so every ``nprobe`` is answered
    from these without reading the index again (its lists may be memory-mapped on disk)."""

    index, invl = vi.index, vi.index.invlists
    nlist, d, nq = int(index.nlist), int(index.d), len(queries)
    top_s = np.full((nlist, nq, k), -np.inf, dtype=np.float32)
    top_i = np.full((nlist, nq, k), -1, dtype=np.int64)
    sizes = [int(invl.list_size(lst)) for lst in range(nlist)]
    rows = max(min(chunk, sum(sizes)), max(sizes, default=0))  # a small index: no more
    buf = np.empty((max(rows, 1), d), dtype=np.float32)
    ids = np.empty(len(buf), dtype=np.int64)
    lst = 0
    while lst < nlist:
        group: list[tuple[int, int, int]] = []
        used = 0
        while lst < nlist and (not group or used + sizes[lst] <= len(buf)):
            n = sizes[lst]
            if n:
                with _list_view(invl, lst, n, d) as (vecs, list_ids):
                    buf[used : used + n] = vecs
                    ids[used : used + n] = list_ids
                group.append((lst, used, n))
                used += n
            lst += 1
        if not group:
            continue
        sims = queries @ buf[:used].T
        for g, lo, n in group:
            seg = sims[:, lo : lo + n]
            if n > k:
                cols = np.argpartition(-seg, k - 1, axis=1)[:, :k]
                top_s[g] = np.take_along_axis(seg, cols, axis=1)
                top_i[g] = ids[lo : lo + n][cols]
            else:
                top_s[g, :, :n] = seg
                top_i[g, :, :n] = ids[lo : lo + n]
    return top_s, top_i


def tune_nprobe(
    vi: VectorIndex, sample: np.ndarray, sample_ids: np.ndarray, target: float = 0.97, k: int = 10
) -> float:
    """Raise an IVF index's ``nprobe`` until recall@k on ``sample`` reaches ``target``.

    Queries are indexed vectors with their own id dropped from both result lists. Returns
    the recall reached; the reference is an exhaustive scan of the same index. IVF-Flat
    lists are read once (``_per_list_topk``), whatever the steps: an index whose lists are
    memory-mapped on disk is not scanned again for every query and every step.
    """
    import faiss

    if vi.ivf is None or vi.ntotal <= k + 1 or len(sample) == 0:
        return 1.0
    nlist = int(vi.index.nlist)
    sample = np.ascontiguousarray(sample, dtype=np.float32)
    if vi.kind == "ivf":
        top_s, top_i = _per_list_topk(vi, sample, k + 1)
        _, probe = vi.index.quantizer.search(sample, nlist)  # the lists in probing order
        rows = np.arange(len(sample))[:, None]

        def search(nprobe: int) -> np.ndarray:
            lists = probe[:, :nprobe]
            cand_s = top_s[lists, rows].reshape(len(sample), -1)
            cand_i = top_i[lists, rows].reshape(len(sample), -1)
            order = np.argsort(-cand_s, axis=1, kind="stable")[:, : k + 1]
            got = np.take_along_axis(cand_i, order, axis=1)
            got[~np.isfinite(np.take_along_axis(cand_s, order, axis=1))] = -1
            return got

    else:

        def search(nprobe: int) -> np.ndarray:
            params = faiss.SearchParametersIVF(nprobe=nprobe)
            return vi.index.search(sample, k + 1, params=params)[1]

    # exact top-(k+1) over all vectors: exhaustive scan of the IVF itself is exact for ivf
    # and gives the codec's own ranking for sq8/ivfpq (what the ANN recall is measured against)
    truth = search(nlist)
    nprobe = int(vi.params.get("nprobe", 8))
    recall = 0.0
    while True:
        got = search(nprobe)
        hits = 0
        for qid, t, g in zip(sample_ids, truth, got, strict=True):
            ts = set(t[t != qid][:k].tolist())
            gs = set(g[g != qid][:k].tolist())
            hits += len(ts & gs)
        recall = hits / (k * len(sample))
        if recall >= target or nprobe >= nlist:
            break
        nprobe = min(nlist, int(nprobe * 1.5) + 1)
    vi.params["nprobe"] = nprobe
    vi.index.nprobe = nprobe
    vi.params["tuned_recall"] = round(recall, 4)
    return recall
