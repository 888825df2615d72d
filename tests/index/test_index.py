"""FAISS index: agreement with brute force, incremental updates, stale/mismatch handling."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.index import FakeEncoder, add_document, delete_segments, random_units

from xlsearch.engine.errors import IndexMismatchError
from xlsearch.engine.index.cache import cache_size, model_key
from xlsearch.engine.index.manager import build_index, index_status, open_index, read_sidecar
from xlsearch.engine.index.vectors import (
    VectorIndex,
    choose_kind,
    estimate_memory,
    exact_topk,
    tune_nprobe,
)
from xlsearch.engine.store import Store


def clustered(n: int, dim: int, seed: int = 0, centers: int = 20) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((centers, dim)).astype(np.float32)
    x = c[rng.integers(0, centers, n)] + 0.6 * rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def brute(q: np.ndarray, x: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray:
    sims = q @ x.T
    return ids[np.argsort(-sims, axis=1, kind="stable")[:, :k]]


@pytest.mark.parametrize("kind", ["flat", "ivf", "sq8", "hnsw"])
def test_faiss_agrees_with_numpy_brute_force(kind: str) -> None:
    x = clustered(3000, 32)
    ids = np.arange(3000, dtype=np.int64) * 3 + 7  # ids are not row numbers
    q = clustered(40, 32, seed=1)
    vi = VectorIndex.create(kind, 32, len(x))
    if not vi.is_trained:
        vi.train(x)
    vi.add(ids, x)
    assert vi.ntotal == 3000 and set(vi.ids().tolist()) == set(ids.tolist())
    truth = brute(q, x, ids, 10)
    scores, got = vi.search(q, 10, exhaustive=(kind != "hnsw"))
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(truth, got, strict=True)])
    if kind in ("flat", "ivf"):  # exact: same ids, same scores
        assert recall == 1.0
        ref = np.sort(q @ x.T, axis=1)[:, ::-1][:, :10]
        np.testing.assert_allclose(scores, ref, atol=1e-5)
    else:
        assert recall >= 0.9
    # restricted to a subset *before* ranking: exactly the subset's own top-10
    allowed = ids[::7]
    mask = np.isin(ids, allowed)
    _, got = vi.search(q, 10, allowed=allowed, exhaustive=True)
    assert np.isin(got, allowed).all()
    if kind in ("flat", "ivf"):
        np.testing.assert_array_equal(got, brute(q, x[mask], ids[mask], 10))


def test_exact_topk_and_auto_kind_and_memory() -> None:
    x = clustered(500, 16)
    ids = np.arange(500, dtype=np.int64) + 100
    s, i = exact_topk(x[:3], x, ids, 5)
    assert (i[:, 0] == ids[:3]).all() and (np.diff(s, axis=1) <= 1e-7).all()
    assert choose_kind(10_000, 384) == "flat"
    assert choose_kind(1_000_000, 384, ram=24 << 30) == "ivf"
    assert choose_kind(20_000_000, 384, ram=24 << 30) == "ivfpq"
    assert estimate_memory("ivfpq", 10_000_000, 384) < estimate_memory("flat", 10_000_000, 384) / 20


def test_tune_nprobe_reaches_target_recall() -> None:
    x = clustered(6000, 32, centers=60)
    ids = np.arange(6000, dtype=np.int64)
    vi = VectorIndex.create("ivf", 32, 6000, {"nlist": 64, "nprobe": 1})
    vi.train(x)
    vi.add(ids, x)
    recall = tune_nprobe(vi, x[:100], ids[:100], target=0.995)
    assert recall >= 0.995 and vi.index.nprobe == vi.params["nprobe"] > 1


def test_nprobe_tuning_reads_the_lists_once_and_agrees_with_faiss_search() -> None:
    """The per-list bests answer every ``nprobe`` as FAISS's own search does (ids and
    scores), reading each list once: one matrix product per group of lists."""
    from xlsearch.engine.index.vectors import _per_list_topk

    x = clustered(4000, 32, centers=40)
    ids = np.arange(4000, dtype=np.int64) * 5 + 3
    vi = VectorIndex.create("ivf", 32, 4000, {"nlist": 40, "nprobe": 1})
    vi.train(x)
    vi.add(ids, x)
    q = x[:50]
    top_s, top_i = _per_list_topk(vi, q, 11, chunk=500)  # groups smaller than a list too
    _, probe = vi.index.quantizer.search(q, 40)
    rows = np.arange(len(q))[:, None]
    for nprobe in (1, 3, 40):
        cand_s = top_s[probe[:, :nprobe], rows].reshape(len(q), -1)
        cand_i = top_i[probe[:, :nprobe], rows].reshape(len(q), -1)
        order = np.argsort(-cand_s, axis=1, kind="stable")[:, :11]
        s_f, i_f = vi.search(q, 11, nprobe=nprobe)
        np.testing.assert_allclose(np.take_along_axis(cand_s, order, axis=1), s_f, atol=1e-5)
        assert (np.sort(np.take_along_axis(cand_i, order, axis=1)) == np.sort(i_f)).mean() > 0.99


def test_build_incremental_add_delete_and_vector_cache() -> None:
    enc = FakeEncoder()
    with Store() as store:
        ids = add_document(store, "c", "a.txt", random_units(200, langs=("en", "de")))
        oi = build_index(store, enc, "c")
        assert oi.count == 400 and oi.vi.kind == "flat"
        assert sum(enc.calls) == 400
        # a new document: only its texts are embedded; a repeated text is not embedded again
        units = random_units(20, seed=9) + [{"en": store.segments([ids[0]])[0]["text"]}]
        new = add_document(store, "c", "b.txt", units)
        enc.calls.clear()
        oi = build_index(store, enc, "c")
        assert (oi.stats["added"], oi.stats["removed"], oi.stats["rebuilt"]) == (21, 0, False)
        assert sum(enc.calls) == 20
        assert set(oi.vi.ids().tolist()) == set(ids) | set(new)
        delete_segments(store, ids[:50])
        oi = build_index(store, enc, "c")
        assert oi.stats["removed"] == 50 and oi.count == 400 + 21 - 50
        assert not set(oi.vi.ids().tolist()) & set(ids[:50])
        assert cache_size(store.db, model_key(enc)) == 420  # cache keeps vectors of old texts
        row = store.db.execute("SELECT kind, count FROM indexes WHERE collection='c'").fetchone()
        assert row == ("flat", 371)
        assert index_status(store, enc, "c")["state"] == "fresh"


@pytest.mark.parametrize("kind", ["ivf", "hnsw"])
def test_stale_index_refused_or_repaired(kind: str) -> None:
    enc = FakeEncoder()
    with Store() as store:
        ids = add_document(store, "c", "a.txt", random_units(300))
        build_index(store, enc, "c", kind=kind)
        new = add_document(store, "c", "b.txt", random_units(5, seed=3))
        delete_segments(store, ids[:3])
        assert index_status(store, enc, "c")["state"] == "stale"
        with pytest.raises(IndexMismatchError, match="stale: 5 segments are not in it and 3"):
            open_index(store, enc, "c", repair=False)
        oi = open_index(store, enc, "c", repair=True)
        assert oi.state == "repaired" and oi.vi.kind == kind
        assert set(oi.vi.ids().tolist()) == set(ids[3:]) | set(new)
        # the repair was saved: a second open is fresh and needs no work
        again = open_index(store, enc, "c", repair=False)
        assert again.state == "fresh" and again.count == 302


def test_model_mismatch_and_damaged_file_are_refused() -> None:
    with Store() as store:
        add_document(store, "c", "a.txt", random_units(50))
        build_index(store, FakeEncoder(), "c")
        other = FakeEncoder(fingerprint="v2")  # same id, re-trained weights
        with pytest.raises(IndexMismatchError, match="no index"):
            open_index(store, other, "c")  # its own folder holds nothing
        oi = build_index(store, FakeEncoder(), "c")
        meta = read_sidecar(oi.folder)
        meta_model = dict(meta, model_id="someone-else#x")
        (oi.folder / "index.json").write_text(__import__("json").dumps(meta_model))
        with pytest.raises(IndexMismatchError, match="was built with model someone-else"):
            open_index(store, FakeEncoder(), "c")
        with pytest.raises(IndexMismatchError):
            build_index(store, FakeEncoder(), "c")
        assert build_index(store, FakeEncoder(), "c", rebuild=True).count == 50
        meta = read_sidecar(oi.folder)
        path = oi.folder / meta["file"]
        data = bytearray(path.read_bytes())
        data[-5] ^= 0xFF
        path.write_bytes(bytes(data))
        with pytest.raises(IndexMismatchError, match="checksum"):
            open_index(store, FakeEncoder(), "c")


def test_auto_kind_switches_and_keeps_user_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    from xlsearch.engine.index import vectors

    monkeypatch.setattr(vectors, "FLAT_MAX", 100)
    enc = FakeEncoder()
    with Store() as store:
        add_document(store, "c", "a.txt", random_units(80))
        assert build_index(store, enc, "c").vi.kind == "flat"
        add_document(store, "c", "b.txt", random_units(400, seed=2))
        oi = build_index(store, enc, "c")
        assert oi.vi.kind == "ivf" and oi.stats["rebuilt"] and oi.count == 480
        assert build_index(store, enc, "c", kind="hnsw").vi.kind == "hnsw"
        add_document(store, "c", "c.txt", random_units(5, seed=4))
        assert build_index(store, enc, "c").vi.kind == "hnsw"  # explicit kind is kept


def test_index_with_nothing_to_do_keeps_the_index_file() -> None:
    """Re-running ``index`` on an unchanged collection must not rewrite a big index file."""
    enc = FakeEncoder()
    with Store() as store:
        add_document(store, "c", "a.txt", random_units(50, langs=("en", "de")))
        oi = build_index(store, enc, "c")
        first = oi.meta["file"]
        oi = build_index(store, enc, "c")
        assert (oi.stats["added"], oi.stats["removed"]) == (0, 0)
        assert oi.meta["file"] == first  # no new file written
        add_document(store, "other", "b.txt", random_units(5, seed=3))  # bumps the generation
        oi = build_index(store, enc, "c")
        assert oi.meta["file"] == first
        assert read_sidecar(oi.folder)["generation"] == store.generation()
        assert index_status(store, enc, "c")["state"] == "fresh"


def test_index_while_another_process_writes_is_a_store_error(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`xlsearch index` during another writer's import said 'OperationalError: database is
    locked … report it' (a bug report) instead of the store's busy message."""
    import sqlite3

    import xlsearch.engine.store.core as core
    from xlsearch.engine.errors import StoreError

    monkeypatch.setattr(core, "BUSY_TIMEOUT_S", 0.05)
    path = tmp_path / "s.db"
    with Store(path) as store:
        add_document(store, "c", "a.txt", random_units(5))
        other = sqlite3.connect(str(path), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(StoreError) as err:
                build_index(store, FakeEncoder(), "c")
        finally:
            other.execute("ROLLBACK")
            other.close()
    assert "busy" in err.value.message and err.value.hint
