"""A model's key (and so its indexes and cached vectors) follows its weights' content."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.index import add_document, random_units

from xlsearch.engine.index import manager
from xlsearch.engine.index.cache import cache_size, legacy_model_key, model_key
from xlsearch.engine.index.manager import build_index, index_status, open_index
from xlsearch.engine.models.encoder import load_encoder
from xlsearch.engine.progress import Progress
from xlsearch.engine.store import Store


def _weights(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.safetensors"))


def _touch(folder: Path) -> None:
    for f in _weights(folder):
        st = f.stat()
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 7_000_000_000))


def _counting(enc: Any) -> list[int]:
    calls: list[int] = []
    real = enc.encode

    def encode(texts: Any, **kw: Any) -> Any:
        calls.append(len(texts))
        return real(texts, **kw)

    enc.encode = encode
    return calls


def test_key_depends_on_weight_content_not_folder_or_mtime(
    tiny_static_model: Path, tmp_path: Path
) -> None:
    key = model_key(load_encoder(tiny_static_model))
    copy = Path(shutil.copytree(tiny_static_model, tmp_path / "checkout-2" / "tiny-static"))
    _touch(copy)
    assert model_key(load_encoder(copy)) == key
    _touch(tiny_static_model)
    # the hash is remembered by (path, size, times): a start does not read the weights again
    model_key(load_encoder(tiny_static_model))

    def no_hashing(*_: Any, **__: Any) -> Any:
        raise AssertionError("weights hashed again")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(hashlib, "file_digest", no_hashing)
        assert model_key(load_encoder(tiny_static_model)) == key
        assert model_key(load_encoder(copy)) == key
    weights = _weights(copy)[0]
    data = bytearray(weights.read_bytes())
    data[-1] ^= 0x01  # other weights, same size
    weights.write_bytes(bytes(data))
    assert model_key(load_encoder(copy)) != key


def test_copied_and_touched_model_keeps_its_index(tiny_static_model: Path, tmp_path: Path) -> None:
    with Store() as store:
        add_document(store, "c", "a.txt", random_units(30, langs=("en", "de")))
        built = build_index(store, load_encoder(tiny_static_model), "c")
        copy = Path(shutil.copytree(tiny_static_model, tmp_path / "checkout-2" / "tiny-static"))
        _touch(copy)
        enc = load_encoder(copy)
        calls = _counting(enc)
        oi = open_index(store, enc, "c")
        assert oi.folder == built.folder and oi.count == 60 and not calls
        assert index_status(store, enc, "c")["state"] == "fresh"


def test_index_built_under_the_old_mtime_key_is_adopted(tiny_static_model: Path) -> None:
    enc = load_encoder(tiny_static_model)
    old, new = legacy_model_key(enc), model_key(enc)
    assert old is not None and old != new
    with Store() as store:
        add_document(store, "c", "a.txt", random_units(30, langs=("en", "de")))
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(manager, "model_key", legacy_model_key)  # as earlier versions did
            before = build_index(store, enc, "c")
        assert before.meta["model_id"] == old and cache_size(store.db, old) == 60
        calls = _counting(enc)
        notices: list[str] = []

        def progress(p: Progress) -> None:
            if p.stage == "notice":
                notices.append(str(p.message))

        oi = open_index(store, enc, "c", on_progress=progress)
        assert oi.count == 60 and oi.meta["model_id"] == new and not calls
        assert not before.folder.exists() and oi.folder.is_dir()
        assert len(notices) == 1 and "kept the index of 'c'" in notices[0]
        rows = store.db.execute("SELECT model_id FROM indexes WHERE collection='c'").fetchall()
        assert rows == [(new,)]
        assert cache_size(store.db, new) == 60 and cache_size(store.db, old) == 0
        # an update embeds only new texts, under the new key
        add_document(store, "c", "b.txt", random_units(3, seed=5))
        assert build_index(store, enc, "c").stats["added"] == 3 and sum(calls) == 3


def test_two_stores_in_one_home_keep_their_own_index(
    tiny_static_model: Path, tmp_path: Path
) -> None:
    """A collection of the same name in another store (a script's, a benchmark's) is indexed
    beside that store: it never reads or overwrites the home store's index."""
    enc = load_encoder(tiny_static_model)
    with Store() as home, Store(tmp_path / "other" / "store.db") as other:
        add_document(home, "memory", "a.txt", random_units(30, langs=("en", "de")))
        add_document(other, "memory", "b.txt", random_units(20, seed=9, langs=("en", "fr")))
        assert index_status(other, enc, "memory")["state"] == "missing"
        assert not (tmp_path / "other" / "store.db.indexes").exists()  # a question writes nothing
        mine = build_index(home, enc, "memory")
        theirs = build_index(other, enc, "memory")
        assert mine.folder != theirs.folder
        assert theirs.folder.parent == tmp_path / "other" / "store.db.indexes"
        calls = _counting(enc)
        assert open_index(home, enc, "memory").count == 60
        assert open_index(other, enc, "memory").count == 40
        assert index_status(home, enc, "memory")["state"] == "fresh"
        assert index_status(other, enc, "memory")["state"] == "fresh" and not calls
