"""The corpus store: migrations, import semantics (no-op, minimal update, rollback), queries."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from helpers.store import old_store

from xlsearch.engine.errors import CancelledError, ConfigError, DataError, StoreError
from xlsearch.engine.progress import CancelToken
from xlsearch.engine.store import Store
from xlsearch.engine.store.schema import LATEST


@pytest.fixture()
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    with Store(tmp_path / "store.db") as s:
        yield s


def tsv(tmp_path: Path, rows: list[tuple[str, str]], name: str = "c.tsv") -> Path:
    path = tmp_path / name
    path.write_text("en\tde\n" + "".join(f"{a}\t{b}\n" for a, b in rows), encoding="utf-8")
    return path


ROWS = [
    ("The cat sleeps.", "Die Katze schläft."),
    ("The dog runs.", "Der Hund läuft."),
    ("Good morning.", "Guten Morgen."),
    ("Yes.", "Ja."),
    ("Yes.", "Ja."),
]


def snapshot(store: Store) -> list[tuple]:
    return store.conn.execute(
        "SELECT id, document_id, position, lang, text, tu_id FROM segments ORDER BY id"
    ).fetchall()


def test_default_location_migrations_and_wal(tmp_path: Path) -> None:
    with Store() as s:  # XLSEARCH_HOME is private to each test
        assert s.path.parent.parent == Path(__import__("os").environ["XLSEARCH_HOME"])
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        versions = [r[0] for r in s.conn.execute("SELECT version FROM _migrations")]
        assert versions == list(range(1, LATEST + 1))
        assert s.generation() == 0 and s.collections() == []
    with Store() as s:  # reopening applies nothing twice
        assert s.conn.execute("SELECT COUNT(*) FROM _migrations").fetchone()[0] == LATEST
    db = tmp_path / "future.db"
    Store(db).close()
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO _migrations VALUES (?, 'x')", (LATEST + 1,))
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer xlsearch"):
        Store(db)


def test_import_then_queries(store: Store, tmp_path: Path) -> None:
    report = store.import_file(tsv(tmp_path, ROWS), collection="tm")
    assert (report.status, report.added, report.segments) == ("imported", 10, 10)
    assert store.generation() == 1
    (col,) = store.collections()
    assert (col["name"], col["documents"], col["segments"]) == ("tm", 1, 10)
    assert col["languages"] == {"de": 5, "en": 5}
    (doc,) = store.documents("tm")
    assert doc["format"] == "tsv" and doc["languages"] == {"de": 5, "en": 5}
    de = store.segment_ids(langs=["de"])
    assert de.dtype == np.int64 and len(de) == 5
    assert len(store.segment_ids(collection="nope")) == 0
    seg = store.segments([int(de[1]), 10**9])[0]
    assert (seg["text"], seg["collection"], seg["path"]) == ("Der Hund läuft.", "tm", doc["path"])
    units = store.translations([seg["tu_id"]])[seg["tu_id"]]
    assert [(u["lang"], u["text"]) for u in units] == [
        ("en", "The dog runs."),
        ("de", "Der Hund läuft."),
    ]
    ctx = store.context(int(de[2]), window=1)
    assert [c["text"] for c in ctx] == ["Der Hund läuft.", "Guten Morgen.", "Ja."]
    assert [c["current"] for c in ctx] == [False, True, False]
    batches = list(store.iter_segments(langs=["en"], batch=2))
    assert [len(b) for b in batches] == [2, 2, 1]
    assert {b["lang"] for batch in batches for b in batch} == {"en"}
    assert store.languages("tm") == {"de": 5, "en": 5}


def test_reimport_unchanged_is_a_no_op(store: Store, tmp_path: Path) -> None:
    path = tsv(tmp_path, ROWS)
    store.import_file(path)
    before, gen = snapshot(store), store.generation()
    report = store.import_file(path)
    assert report.status == "unchanged" and report.added == report.removed == 0
    assert snapshot(store) == before and store.generation() == gen


def test_changed_file_updates_only_what_changed(store: Store, tmp_path: Path) -> None:
    path = tsv(tmp_path, ROWS)
    store.import_file(path)
    old: dict[tuple[str, str], int] = {}
    for sid, _, _, lang, text, _ in snapshot(store):
        old.setdefault((lang, text), sid)  # the first of duplicates survives
    new_rows = (
        [("Hello.", "Hallo.")] + ROWS[:1] + [("The dog walks.", "Der Hund läuft.")] + ROWS[2:4]
    )
    tsv(tmp_path, new_rows)
    report = store.import_file(path)
    # added: Hello./Hallo./The dog walks.; removed: The dog runs. and one duplicate Yes./Ja.
    assert (report.status, report.added, report.removed) == ("updated", 3, 3)
    rows = snapshot(store)
    assert len(rows) == 10
    now = {(lang, text): sid for sid, _, _, lang, text, _ in rows}
    for key in [("en", "The cat sleeps."), ("de", "Der Hund läuft."), ("de", "Ja.")]:
        assert now[key] == old[key]  # surviving segments keep their ids
    order = store.conn.execute(
        "SELECT text, tu_id FROM segments WHERE lang='de' ORDER BY position"
    ).fetchall()
    assert [t for t, _ in order] == [
        "Hallo.",
        "Die Katze schläft.",
        "Der Hund läuft.",
        "Guten Morgen.",
        "Ja.",
    ]
    doc = store.documents()[0]["id"]
    assert [tu for _, tu in order] == [f"{doc}:{i}" for i in range(5)]
    assert store.fts_search("runs") == []
    assert [store.segments([i])[0]["text"] for i, _ in store.fts_search("walks")] == [
        "The dog walks."
    ]


def test_new_options_reimport(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "p.tsv"
    path.write_text("Tree\tBaum\n", encoding="utf-8")
    store.import_file(path, langs="en,de")
    report = store.import_file(path, langs=["en", "nl"])
    assert report.status == "updated" and (report.added, report.removed) == (1, 1)
    assert store.languages() == {"en": 1, "nl": 1}


def test_failed_import_leaves_store_untouched(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "a.tmx"
    good = (
        '<tmx version="1.4"><header srclang="en"/><body>'
        + "".join(
            f'<tu><tuv xml:lang="en"><seg>s{i}</seg></tuv>'
            f'<tuv xml:lang="fr"><seg>f{i}</seg></tuv></tu>'
            for i in range(3000)
        )
        + "</body></tmx>"
    )
    path.write_text(good, encoding="utf-8")
    store.import_file(path, collection="c")
    before, gen, docs = snapshot(store), store.generation(), store.documents()
    path.write_text(good.replace("<seg>s2999</seg>", "<seg>changed"), encoding="utf-8")
    with pytest.raises(DataError, match="a.tmx:1: malformed XML"):
        store.import_file(path, collection="c")
    bad_new = tmp_path / "b.tmx"
    bad_new.write_text(good[:-20], encoding="utf-8")
    with pytest.raises(DataError):
        store.import_file(bad_new, collection="brand-new")
    assert snapshot(store) == before and store.generation() == gen and store.documents() == docs
    assert [c["name"] for c in store.collections()] == ["c"]


def test_cancel_rolls_back(store: Store, tmp_path: Path) -> None:
    path = tsv(tmp_path, [(f"line {i}", f"Zeile {i}") for i in range(10_000)])
    token = CancelToken()
    events = []

    def progress(event) -> None:  # type: ignore[no-untyped-def]
        events.append(event)
        token.cancel()

    with pytest.raises(CancelledError):
        store.import_file(path, on_progress=progress, cancel=token)
    assert events and snapshot(store) == [] and store.collections() == []
    assert store.import_file(path).added == 20_000


@pytest.mark.parametrize("name", ["e.txt", "e.tsv", "e.csv", "e.jsonl"])
def test_empty_file_is_an_error_and_imports_nothing(
    store: Store, tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(DataError, match=f"{name}:1: no segments found"):
        store.import_file(path, langs="en")
    assert store.documents() == [] and store.collections() == [] and store.generation() == 0
    with pytest.raises(DataError, match="no such file"):
        store.import_file(tmp_path / "missing.tsv")


def test_langid_fills_missing_languages(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    path.write_text(
        "Das ist ein ganz normaler deutscher Satz über das Wetter.\n"
        "This is a perfectly ordinary English sentence about the weather.\n"
        "Ceci est une phrase française tout à fait ordinaire sur la météo.\n"
        "12345\n",
        encoding="utf-8",
    )
    store.import_file(path)
    assert [r[0] for r in store.conn.execute("SELECT lang FROM segments ORDER BY position")] == [
        "de",
        "en",
        "fr",
        "und",
    ]


def test_deletes_bump_generation_and_never_reuse_ids(store: Store, tmp_path: Path) -> None:
    store.import_file(tsv(tmp_path, ROWS, "a.tsv"), collection="a")
    store.import_file(tsv(tmp_path, ROWS[:2], "b.tsv"), collection="b")
    max_id = int(store.segment_ids().max())
    gen = store.generation()
    doc_b = store.documents("b")[0]["id"]
    assert store.delete_document(doc_b) == 4 and store.generation() == gen + 1
    assert store.delete_collection("a") == 10 and store.generation() == gen + 2
    assert store.fts_search("cat") == [] and store.segment_ids().size == 0
    with pytest.raises(ConfigError, match="no collection named .a."):
        store.delete_collection("a")
    report = store.import_file(tsv(tmp_path, ROWS[:1], "c.tsv"))
    assert int(store.segment_ids().min()) > max_id and report.added == 2
    assert store.fts_search("cat") != []
    check = store.conn.execute("INSERT INTO segments_fts(segments_fts) VALUES('integrity-check')")
    assert check is not None


def test_embeddings_and_models_helpers(store: Store) -> None:
    store.upsert_model("m1", "/x", 3, {"dim": 3})
    vecs = np.arange(6, dtype=np.float32).reshape(2, 3)
    store.put_embeddings("m1", ["h1", "h2"], vecs)
    got, found = store.get_embeddings("m1", ["h2", "zz", "h1"], 3)
    assert found.tolist() == [True, False, True]
    assert np.array_equal(got[0], vecs[1]) and np.array_equal(got[2], vecs[0]) and not got[1].any()


def test_busy_and_corrupt_stores_raise_store_error(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    path = tsv(tmp_path, ROWS)
    with Store(db) as a, Store(db) as b:
        a.conn.execute("PRAGMA busy_timeout=0")
        b.conn.execute("BEGIN IMMEDIATE")  # another writer holds the lock
        a.conn.execute("PRAGMA busy_timeout=50")
        with pytest.raises(StoreError, match="busy"):
            a.import_file(path)
        b.conn.execute("ROLLBACK")
        assert a.import_file(path).added == 10
        assert b.segment_ids().size == 10  # the other connection sees the committed import
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot open"):
        Store(junk)


def test_a_writer_kept_waiting_by_another_process_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An import next to another writer waited up to 30 s in silence (it looked hung); after
    a second it now says what it waits for, then goes on when the lock is free."""
    import threading
    import time

    db = tmp_path / "s.db"
    path = tsv(tmp_path, ROWS)
    Store(db).close()
    locked = threading.Event()

    def other_writer() -> None:  # another process, holding the write lock for 1.6 s
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        locked.set()
        time.sleep(1.6)
        conn.execute("ROLLBACK")
        conn.close()

    thread = threading.Thread(target=other_writer)
    thread.start()
    locked.wait(5)
    start = time.monotonic()
    with Store(db) as store, caplog.at_level("WARNING", logger="xlsearch.store"):
        assert store.import_file(path).added == 10
        assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000  # restored
    thread.join()
    assert 1.0 < time.monotonic() - start < 10
    assert any("waiting for another xlsearch process" in r.message for r in caplog.records)


def test_langid_short_cells_follow_their_column(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "nohdr.tsv"
    rows = [
        (
            "The committee approved the new budget yesterday.",
            "Der Ausschuss hat gestern zugestimmt.",
        ),
        ("We will meet again next week in Berlin.", "Wir treffen uns nächste Woche wieder."),
        ("Please send me the report by Friday.", "Bitte schicken Sie mir den Bericht."),
        ("OK", "Gut"),
    ]
    path.write_text("".join(f"{a}\t{b}\n" for a, b in rows), encoding="utf-8")
    store.import_file(path)
    langs = store.conn.execute("SELECT lang FROM segments ORDER BY position").fetchall()
    assert [r[0] for r in langs] == ["en", "de"] * 4


def test_identify_same_language_groups_override_unsure_minorities() -> None:
    from xlsearch.engine.lang.identify import identify

    texts = [
        "The committee approved the new budget yesterday afternoon.",
        "We will meet again next week to discuss the remaining issues.",
        "Please send me the final report before the end of the month.",
        "The weather was unusually warm for this time of the year.",
        "See no evil, Hear no evil, Speak no evil.",
    ]
    assert identify(texts)[-1] != "en"  # on its own, langid is unsure and wrong here
    assert identify(texts, same_language=True) == ["en"] * 5


def test_a_file_of_short_lines_gets_plausible_languages_not_wild_guesses(
    store: Store, tmp_path: Path
) -> None:
    from xlsearch.engine.lang.identify import classify

    # on its own the identifier says Kikuyu / Igbo / Fula for these, all under 15 %
    assert {classify(t)[0] for t in ("Para one.", "Para two.", "Hello world.")} & {"kik", "ig"}
    path = tmp_path / "first.txt"
    path.write_text("Para one.\n\nPara two.\nHello world.\nBonjour.\nПривет.\n", encoding="utf-8")
    store.import_file(path, collection="first")
    langs = [r[0] for r in store.conn.execute("SELECT lang FROM segments ORDER BY position")]
    assert langs[:4] == ["en", "en", "en", "fr"] and langs[4] in {"ru", "sr", "bg", "uk"}


def test_unsure_short_lines_lean_to_the_languages_already_stored(
    store: Store, tmp_path: Path
) -> None:
    memory = tmp_path / "tm.tsv"
    memory.write_text(
        "en\tde\nThe meeting starts at nine.\tDie Sitzung beginnt um neun.\n", encoding="utf-8"
    )
    store.import_file(memory, collection="tm")
    path = tmp_path / "short.txt"
    path.write_text("Ja.\nTak.\n", encoding="utf-8")  # alone: Serbian, Kabyle
    store.import_file(path, collection="short")
    rows = store.conn.execute(
        "SELECT s.lang FROM segments s JOIN documents d ON d.id = s.document_id "
        "WHERE d.path = ? ORDER BY s.position",
        (str(path.resolve()),),
    ).fetchall()
    assert [r[0] for r in rows] == ["de", "de"]


def test_vector_cache_migration_moves_every_vector_in_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Schema 2 → 3 moves the cache a step at a time (each step deletes what it copied):
    every vector arrives once and intact, keys stay unique, a big cache gets a notice."""
    from xlsearch.engine.store import schema

    db = tmp_path / "old.db"
    conn = old_store(db, 2)
    rows = [
        (f"m{m}#1", f"{h:04x}", np.full(4, h + 10 * m, dtype=np.float32).tobytes())
        for m in range(2)
        for h in range(11)
    ]
    conn.executemany("INSERT INTO embeddings VALUES (?, ?, ?)", rows)
    conn.close()
    monkeypatch.setattr(schema, "MOVE_CHUNK", 3)  # 22 vectors: 7 full steps and a rest
    monkeypatch.setattr(schema, "NOTICE_ABOVE", 10)
    with caplog.at_level("WARNING", logger="xlsearch.store"), Store(db) as store:
        got = store.conn.execute(
            "SELECT model_id, text_hash, vector FROM embeddings ORDER BY model_id, text_hash"
        ).fetchall()
        assert got == sorted(rows)
        tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
        assert "embeddings_v3" not in tables and "embeddings_key" in tables
        vecs, found = store.get_embeddings("m1#1", ["0003", "ffff"], 4)
        assert found.tolist() == [True, False] and vecs[0].tolist() == [13.0] * 4
    assert "upgrading the store's vector cache (22 vectors" in caplog.text


def test_a_store_another_process_is_upgrading_gives_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from xlsearch.engine.store import core

    db = tmp_path / "old.db"
    conn = old_store(db, 2)
    conn.execute("BEGIN IMMEDIATE")  # another process holds the write lock (an upgrade …)
    monkeypatch.setattr(core, "BUSY_TIMEOUT_S", 0.2)
    with pytest.raises(StoreError) as err:
        Store(db)
    assert "another xlsearch is writing it" in str(err.value) and "try again" in str(err.value)
    conn.execute("ROLLBACK")
    conn.close()
    with Store(db) as store:  # once it is free, the store opens and is migrated
        assert store.conn.execute("SELECT MAX(version) FROM _migrations").fetchone()[0] == LATEST


def test_read_only_store_names_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only XLSEARCH_HOME: one error naming the store and how to make it usable."""
    path = tmp_path / "xlsearch.db"
    Store(path).close()
    import xlsearch.engine.store.core as core

    def read_only(conn: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(core, "migrate", read_only)
    with pytest.raises(StoreError) as err:
        Store(path)
    assert "read-only" in err.value.message and str(path) in err.value.message
    assert "XLSEARCH_HOME" in (err.value.hint or "")


def test_unwritable_store_folder_names_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store folder that cannot be created is a StoreError with the fix, not a bare OSError."""

    def refuse(self: Path, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(StoreError) as err:
        Store(tmp_path / "home" / "data" / "xlsearch.db")
    assert "XLSEARCH_HOME" in (err.value.hint or "")
