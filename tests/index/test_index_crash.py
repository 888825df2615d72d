"""Index durability: kill -9 while indexing, and a reader searching while a writer indexes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers.faults import PYTHONPATH
from helpers.index import FakeEncoder, add_document, delete_segments, random_units

from xlsearch.engine.errors import IndexMismatchError
from xlsearch.engine.index.cache import cache_size, model_key
from xlsearch.engine.index.manager import build_index, open_index, read_sidecar
from xlsearch.engine.search.searcher import Searcher
from xlsearch.engine.store import Store

CHILD = """
import time
from helpers.index import FakeEncoder
from xlsearch.engine.index import cache, files, manager
from xlsearch.engine.store import Store
cache.BATCH = 50
stage = {stage!r}
real_write = files.write_index
def slow_write(vi, path):
    real_write(vi, path)
    open({marker!r}, "w").close()
    time.sleep(60)
files.write_index = slow_write
def progress(ev):
    if stage == "embed" and ev.stage == "embed" and ev.done >= 300:
        open({marker!r}, "w").close()
with Store() as store:
    manager.build_index(store, FakeEncoder(delay=0.05), "c", on_progress=progress)
"""


def _index_consistent(store: Store, oi: object) -> None:
    ids = oi.vi.ids()  # type: ignore[attr-defined]
    assert len(ids) == len(np.unique(ids)), "duplicated vectors"
    assert set(ids.tolist()) == set(store.segment_ids(collection="c").tolist()), "lost or extra"


@pytest.mark.parametrize("stage", ["embed", "save"])
def test_kill_9_while_indexing_then_rerun(stage: str, tmp_path: Path) -> None:
    with Store() as store:
        first = add_document(store, "c", "a.txt", random_units(400))
        build_index(store, FakeEncoder(), "c")
        add_document(store, "c", "b.txt", random_units(600, seed=1))
        delete_segments(store, first[:20])
    marker = tmp_path / "marker"
    code = CHILD.format(stage=stage, marker=str(marker))
    child = subprocess.Popen(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": PYTHONPATH}
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, "indexing child exited early"
            assert time.monotonic() < deadline, "child never reached the kill point"
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    enc = FakeEncoder()
    with Store() as store:
        key = model_key(enc)
        cached = cache_size(store.db, key)
        assert cached >= 700  # what the killed job embedded was kept
        with pytest.raises(IndexMismatchError, match="stale"):
            open_index(store, enc, "c", repair=False)  # the old index is intact, and refused
        oi = build_index(store, enc, "c")
        assert sum(enc.calls) == 1000 - cached  # only what the killed job had not embedded
        _index_consistent(store, oi)
        assert oi.count == 980
        files = sorted(p.name for p in oi.folder.iterdir())
        assert [f for f in files if f.startswith(("index-", "keys-"))] == [
            read_sidecar(oi.folder)["file"],
            read_sidecar(oi.folder)["keys"],
        ]
        assert open_index(store, enc, "c", repair=False).state == "fresh"


def test_reader_searches_while_writer_indexes() -> None:
    with Store() as store:
        add_document(store, "c", "d0.txt", random_units(300))
        build_index(store, FakeEncoder(), "c")
    done = threading.Event()
    errors: list[BaseException] = []
    searches, during = [0], [0]

    def writer() -> None:
        try:
            with Store() as store:
                for r in range(1, 5):
                    ids = add_document(store, "c", f"d{r}.txt", random_units(150, seed=r))
                    build_index(store, FakeEncoder(delay=0.2), "c")
                    delete_segments(store, ids[:10])
                    build_index(store, FakeEncoder(), "c")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            done.set()

    def reader() -> None:
        try:
            with Store() as store:
                s = Searcher(store, FakeEncoder(), repair=True)
                while not done.is_set() or searches[0] < 5:
                    gen = store.generation()
                    found = s.semantic(FakeEncoder().encode(["w1 w2 w3 w4"]), 5, collection="c")
                    assert len(found) == 5
                    assert all(a[1] >= b[1] for a, b in zip(found, found[1:], strict=False))
                    if store.generation() == gen:  # no import in between: ids must exist
                        assert len(store.segments([i for i, _ in found])) == 5
                    hits = s.search("w7 w8", 5, collection="c")
                    assert len(hits) == 5
                    searches[0] += 1
                    during[0] += not done.is_set()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer), threading.Thread(target=reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert searches[0] >= 5 and during[0] >= 3, (searches, during)
    with Store() as store:
        oi = open_index(store, FakeEncoder(), "c", repair=False)
        _index_consistent(store, oi)


def test_reader_retries_when_a_writer_swaps_the_index_under_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The race seen under load: the sidecar names index-N.faiss, a writer saves N+1 and
    deletes N before FAISS opens it (FAISS raises RuntimeError, not FileNotFoundError)."""
    from xlsearch.engine.index import files

    with Store() as store:
        add_document(store, "c", "d0.txt", random_units(50))
        build_index(store, FakeEncoder(), "c")
        real = files.read_index
        swapped: list[bool] = []

        def racing_read(path, *args, **kwargs):  # type: ignore[no-untyped-def]
            if not swapped:
                swapped.append(True)
                add_document(store, "c", "d1.txt", random_units(20, seed=3))
                build_index(store, FakeEncoder(), "c")  # saves N+1, removes N
                assert not Path(path).exists()
            return real(path, *args, **kwargs)

        monkeypatch.setattr(files, "read_index", racing_read)
        oi = open_index(store, FakeEncoder(), "c", repair=False)
        assert swapped and oi.count == 70  # the newer index, read on the retry
