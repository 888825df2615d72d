"""Indexing on a local Ray cluster: the same vectors and hits as on one machine, resumable."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers.index import add_document

from xlsearch.engine.index.cache import cache_size, model_key
from xlsearch.engine.index.manager import build_index
from xlsearch.engine.models.encoder import load_encoder
from xlsearch.engine.progress import CancelledError, CancelToken, Progress
from xlsearch.engine.store import Store

ray = pytest.importorskip("ray", reason="ray is not installed (pip install xlsearch[cluster])")

WORDS = (
    "the a cat dog house tree runs sleeps big small red green hello world good morning "
    "der die das katze hund haus baum läuft schläft groß klein rot grün hallo welt guten "
    "le la chat chien maison arbre court dort grand petit rouge vert bonjour monde"
).split()
N = 3000
SHARD = 500


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A two-CPU Ray cluster on this machine for the module (started once: ~5 s)."""
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
    )
    yield
    ray.shutdown()


def sentences(n: int, seed: int = 0) -> list[dict[str, str]]:
    rng = np.random.default_rng(seed)
    return [{"en": " ".join(rng.choice(WORDS, size=int(rng.integers(3, 9))))} for _ in range(n)]


def vectors(store: Store, key: str) -> dict[str, np.ndarray]:
    rows = store.db.execute(
        "SELECT text_hash, vector FROM embeddings WHERE model_id = ?", [key]
    ).fetchall()
    return {th: np.frombuffer(v, dtype=np.float32) for th, v in rows}


def test_cluster_build_gives_the_same_hits_and_resumes_by_shard(
    local_ray: None, tiny_static_model: Path
) -> None:
    enc = load_encoder(tiny_static_model)
    key = model_key(enc)
    units = sentences(N)
    queries = enc.encode([u["en"] for u in sentences(20, seed=1)])
    with Store() as store:
        add_document(store, "big", "big.txt", units)
        texts = len({u["en"] for u in units})
        # a run stopped after two finished shards keeps exactly those shards
        cancel = CancelToken()

        def stop_after_two(p: Progress) -> None:
            if p.stage == "embed" and (p.metrics or {}).get("shards") == 2:
                cancel.cancel()

        with pytest.raises(CancelledError):
            build_index(
                store, enc, "big", kind="flat", cluster="local", shard=SHARD,
                on_progress=stop_after_two, cancel=cancel,
            )  # fmt: skip
        kept = cache_size(store.db, key)
        assert SHARD * 2 - 50 <= kept < texts  # shards of 500 segments, a few texts repeat
        # the rerun encodes only what is missing: no finished shard is redone
        oi = build_index(store, enc, "big", kind="flat", cluster="local", shard=SHARD)
        assert oi.stats["cluster"]["encoded"] == texts - kept
        assert oi.vi.ntotal == N and cache_size(store.db, key) == texts
        dist = vectors(store, key)
        s_c, i_c = oi.vi.search(queries, 10)
        # the single-machine build from scratch
        with store.transaction() as conn:
            conn.execute("DELETE FROM embeddings")
        single = build_index(store, enc, "big", kind="flat", rebuild=True)
        assert "cluster" not in single.stats
        one = vectors(store, key)
        assert one.keys() == dist.keys()
        for th, v in one.items():
            np.testing.assert_allclose(dist[th], v, atol=1e-6)
        s_1, i_1 = single.vi.search(queries, 10)
    np.testing.assert_array_equal(i_c, i_1)
    np.testing.assert_allclose(s_c, s_1, atol=1e-6)


def test_mining_on_the_cluster_resumes_by_shard_pair_and_gives_the_same_pairs(
    local_ray: None, tiny_static_model: Path
) -> None:
    """k-NN per shard pair (2 × 2 shards each way) with the global margin, merged: a run
    stopped after two shard pairs keeps them, the rerun computes only the others, a killed
    worker's pair is computed again; no pair lost or merged twice, the pairs of one machine."""
    import signal

    from xlsearch.engine.search.mining import mine_store

    enc = load_encoder(tiny_static_model)
    key = model_key(enc)
    en = sentences(600, seed=5)
    de = [{"de": u["en"].replace("the", "der").replace("cat", "katze")} for u in en]
    mine = {"collection": "web", "threshold": None, "cluster": "local", "shard": 300}
    with Store() as store:
        add_document(store, "web", "en.txt", en)
        add_document(store, "web", "de.txt", de)
        kept = store.path.parent / "mining"
        cancel = CancelToken()

        def stop_after_two(p: Progress) -> None:
            if p.stage == "mine fwd" and (p.metrics or {}).get("shard_pairs") == 2:
                cancel.cancel()

        with pytest.raises(CancelledError):
            mine_store(store, enc, "en", "de", on_progress=stop_after_two, cancel=cancel, **mine)
        assert len(list(kept.glob("knn-*/pair-*.npz"))) == 2
        seen: list[Progress] = []
        killed: list[int] = []

        def kill_one(p: Progress) -> None:
            seen.append(p)
            if p.stage == "mine bwd" and not killed:
                pids = _encode_workers(b"_KnnWorker")
                assert pids, "no k-NN worker process found"
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])

        dist = mine_store(store, enc, "en", "de", on_progress=kill_one, **mine)
        fwd = [p.metrics or {} for p in seen if p.stage == "mine fwd"]
        bwd = [p.metrics or {} for p in seen if p.stage == "mine bwd"]
        assert fwd[-1]["pairs_kept"] == 2 and len(fwd) == fwd[-1]["shard_pairs"] == 4
        assert killed and bwd[-1]["retried"] >= 1
        assert bwd[-1]["pairs_kept"] == 0 and len(bwd) == bwd[-1]["shard_pairs"] == 4
        assert not list(kept.glob("knn-*"))  # a finished run leaves nothing behind
        assert cache_size(store.db, key) > 0
        with store.transaction() as conn:
            conn.execute("DELETE FROM embeddings")
        one = mine_store(store, enc, "en", "de", collection="web", threshold=None)
    assert len(one.pairs) > 100
    assert [(p.src_id, p.tgt_id) for p in dist.pairs] == [(p.src_id, p.tgt_id) for p in one.pairs]
    np.testing.assert_allclose(
        [p.score for p in dist.pairs], [p.score for p in one.pairs], atol=1e-6
    )


def _parent(pid: int) -> int:
    """The parent of process ``pid`` (0 when it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])


def _encode_workers(actor: bytes = b"_EncodeWorker") -> list[int]:
    """Pids of the Ray worker processes running our ``actor``s: descendants of this
    process (the local cluster's raylet is its child), never another test run's workers."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and actor in (proc / "cmdline").read_bytes():
                pid = int(proc.name)
                while pid > 1 and pid != os.getpid():
                    pid = _parent(pid)
                if pid == os.getpid():
                    pids.append(int(proc.name))
        except OSError:
            continue
    return pids


def test_a_killed_worker_loses_and_duplicates_no_shard(
    local_ray: None, tiny_static_model: Path
) -> None:
    import signal

    enc = load_encoder(tiny_static_model)
    key = model_key(enc)
    units = sentences(2000, seed=3)
    killed: list[int] = []

    def kill_one(p: Progress) -> None:
        if p.stage == "embed" and not killed:
            pids = _encode_workers()
            assert pids, "no encode worker process found"
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    with Store() as store:
        add_document(store, "big", "big.txt", units)
        texts = {u["en"] for u in units}
        oi = build_index(
            store, enc, "big", kind="flat", cluster="local", shard=250, on_progress=kill_one
        )
        assert killed and oi.stats["cluster"]["retried"] >= 1
        # every text encoded once: no shard lost, none committed twice
        assert oi.stats["cluster"]["encoded"] == len(texts) == cache_size(store.db, key)
        assert oi.vi.ntotal == len(units)
        got = vectors(store, key)
    want = enc.encode(sorted(texts))
    import hashlib

    for text, v in zip(sorted(texts), want, strict=True):
        np.testing.assert_allclose(got[hashlib.sha256(text.encode()).hexdigest()], v, atol=1e-6)


def test_default_install_does_not_import_ray() -> None:
    import subprocess
    import sys

    code = (
        "import sys, xlsearch.cli, xlsearch.service.local, xlsearch.engine.index.manager, "
        "xlsearch.engine.index.cluster; print('ray' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_unreachable_cluster_is_a_one_line_error_not_a_wait() -> None:
    from xlsearch.engine.errors import ConfigError
    from xlsearch.engine.index.cluster import _probe

    with pytest.raises(ConfigError, match="no Ray cluster answers at 127.0.0.1:1"):
        _probe("127.0.0.1:1", timeout=2)
    with pytest.raises(ConfigError, match="not local, auto or HOST:PORT"):
        _probe("nonsense")


def _ivf_same_quantizer(merged: object, ids: np.ndarray, vecs: np.ndarray) -> tuple[Any, Any]:
    """A single-machine IVF-Flat with the merged index's trained quantizer, filled in id
    order with ``add``, as ``xlsearch index`` without a cluster fills it."""
    import faiss

    src = merged.index  # type: ignore[attr-defined]
    d, nlist = src.d, src.nlist
    quantizer = faiss.IndexFlatIP(d)
    quantizer.add(faiss.downcast_index(src.quantizer).reconstruct_n(0, nlist))
    one = faiss.IndexIVFFlat(quantizer, d, nlist, faiss.METRIC_INNER_PRODUCT)
    one.add_with_ids(vecs, ids)
    one.nprobe = src.nprobe
    return one, quantizer  # the quantizer must outlive the index


def _shard_workers() -> list[int]:
    """Pids of our Ray index workers (descendants of this process, as ``_encode_workers``)."""
    return _encode_workers(b"_ShardFiller")


def _part_workers() -> list[int]:
    """Pids of our Ray part encoders (descendants of this process, as ``_encode_workers``)."""
    return _encode_workers(b"_PartWorker")


def test_ivf_built_where_the_data_is_resumes_by_part_and_shard_and_survives_killed_workers(
    local_ray: None, tiny_static_model: Path
) -> None:
    """Workers read their part of the store themselves and write one SQLite part store each
    (the index's ids, the vectors): the head's vector cache receives nothing. The merged
    on-disk IVF holds every segment once and answers as a single-machine IVF with the same
    quantizer; a stopped build keeps its parts and shards; a killed worker's part or shard
    is done again, not lost nor doubled."""
    import signal
    import sqlite3

    from xlsearch.engine.index.cache import ensure_vectors, segment_rows
    from xlsearch.engine.index.manager import open_index

    enc = load_encoder(tiny_static_model)
    key = model_key(enc)
    units = sentences(1500, seed=7)
    texts = {u["en"] for u in units}
    queries = enc.encode([u["en"] for u in sentences(20, seed=8)])
    params = {"nlist": 8, "nprobe": 2}
    build = {"kind": "ivf", "params": params, "cluster": "local", "shard": 300}
    with Store() as store:
        add_document(store, "big", "big.txt", units)
        # 1. stopped after two parts are written
        cancel = CancelToken()

        def stop_after_two_parts(p: Progress) -> None:
            if p.stage == "embed" and (p.metrics or {}).get("shards") == 2:
                cancel.cancel()

        with pytest.raises(CancelledError):
            build_index(store, enc, "big", on_progress=stop_after_two_parts, cancel=cancel, **build)
        # 2. a part encoder killed, then stopped after the first index shard
        killed: list[int] = []
        cancel = CancelToken()

        def kill_then_stop(p: Progress) -> None:
            if p.stage == "embed" and not killed:
                pids = _part_workers()
                assert pids, "no part worker process found"
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
            if p.stage == "index" and (p.metrics or {}).get("index_shards") == 1:
                cancel.cancel()

        with pytest.raises(CancelledError):
            build_index(
                store, enc, "big", on_progress=kill_then_stop,
                cancel=cancel, **build,
            )  # fmt: skip
        assert killed
        # 3. an index worker killed; the build completes
        filler: list[int] = []

        def kill_filler(p: Progress) -> None:
            if p.stage == "index" and not filler:
                pids = _shard_workers()
                assert pids, "no index worker process found"
                os.kill(pids[0], signal.SIGKILL)
                filler.append(pids[0])

        oi = build_index(store, enc, "big", on_progress=kill_filler, **build)
        st = oi.stats["cluster"]
        assert st["parts_kept"] == 5 and st["encoded"] == 0  # every part kept from runs 1-2
        # stopped after one shard: the other one in flight may have finished (whole) meanwhile;
        # three or four are left, so the killed filler always had a shard to give back
        assert st["index_shards_kept"] in (1, 2)
        assert st["index_shards_kept"] + st["index_shards"] == 5
        assert filler and st["retried"] >= 1
        assert oi.meta["ivfdata"] and not list(oi.folder.glob("parts-*/ivf-*"))
        assert cache_size(store.db, key) == 0  # no vector went through the head's store
        # the part stores: every segment once with the store's id, every text's vector once
        (parts,) = oi.folder.glob("parts-*")
        seg_ids: list[int] = []
        owned: list[str] = []  # the text of each vector, by its first segment
        for f in sorted(parts.glob("part-*.sqlite")):
            with sqlite3.connect(f) as db:
                seg_ids += [r[0] for r in db.execute("SELECT id FROM segments ORDER BY id")]
                owned += [
                    r[0]
                    for r in db.execute(
                        "SELECT s.text_hash FROM vectors v JOIN segments s ON s.id = v.id"
                    )
                ]
        rows = segment_rows(store.db, collection="big")
        ids = np.sort(rows["id"])
        assert seg_ids == ids.tolist()
        assert len(owned) == len(set(owned)) == len(texts)
        got = np.sort(oi.vi.ids())
        np.testing.assert_array_equal(got, ids)  # every segment once: none lost, none doubled
        # the app and `search` open it as always: memory-mapped, lists in the .ivfdata file
        opened = open_index(store, enc, "big")
        assert opened.state == "fresh" and opened.vi.ondisk is not None
        one, _q = _ivf_same_quantizer(opened.vi, ids, ensure_vectors(store.db, enc, key, ids))
        s_c, i_c = opened.vi.search(queries, 10)
        s_1, i_1 = one.search(queries, 10)
        np.testing.assert_array_equal(i_c, i_1)
        np.testing.assert_allclose(s_c, s_1, atol=1e-6)
        # a later update without the cluster reads the lists into memory and saves one file
        add_document(store, "big", "more.txt", sentences(50, seed=9))
        upd = build_index(store, enc, "big")
        assert upd.vi.ntotal == 1550 and "ivfdata" not in upd.meta
        assert not list(upd.folder.glob("*.ivfdata"))


def test_a_worker_that_does_not_see_the_store_says_so_in_one_line(tmp_path: Path) -> None:
    from xlsearch.engine.errors import ConfigError
    from xlsearch.engine.index.cluster import _PartWorker

    gone = tmp_path / "elsewhere" / "store.sqlite"
    worker = _PartWorker(None, 1, str(gone), False, 1, str(tmp_path), "m#1", None)
    with pytest.raises(ConfigError, match=r"does not see the store .*store\.sqlite") as err:
        worker.encode_part(0, 1, 2, np.zeros(2, np.int32), np.ones(2, np.int64))
    assert "every node mounts" in (err.value.hint or "") and "\n" not in err.value.message
