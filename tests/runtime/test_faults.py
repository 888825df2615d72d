"""Fault injection: a full disk, a read-only home, damaged index and store files, two
writers at once and a model folder deleted under a running engine.

Every fault must leave what was stored as it was and be reported as one line naming the
file and the fix (exit status 2, no traceback); derived files (indexes, cached vectors) are
rebuilt with a ``notice:``. ``docs/faults.md`` is the table of these tests.
"""

from __future__ import annotations

import gc
import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.faults import (
    SmallDisk,
    one_error_line,
    snapshot,
    units_in,
    write_tsv,
    xlsearch,
    xlsearch_env,
)

from xlsearch.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``xlsearch ARGS`` in this process (the torch import is paid once per test session)."""
    capsys.readouterr()
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def leftovers(folder: Path) -> list[str]:
    """Temp files and folders a failed atomic write could have left behind."""
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.name.endswith((".tmp", ".saving")) or ".tmp" in p.name
    )


# -- a full disk ---------------------------------------------------------------------------


def test_disk_full_during_import_rolls_back(small_disk: SmallDisk, tmp_path: Path) -> None:
    """A fresh CLI process imports onto a full disk: one line with the fix, the store as it
    was, and the same import succeeds once there is room."""
    home = small_disk.root / "home"
    assert (
        xlsearch("import", str(write_tsv(tmp_path / "a.tsv", 50)), "-c", "tm", home=home).returncode
        == 0
    )
    db = home / "data" / "xlsearch.db"
    before = snapshot(db)
    big = write_tsv(tmp_path / "big.tsv", 4000, start=1000)
    small_disk.fill(leave=64 << 10)
    proc = xlsearch("import", str(big), "-c", "tm", home=home)
    assert proc.returncode == 2
    one_error_line(proc.stderr, "Disk full", str(db), "XLSEARCH_HOME", "store is as it was")
    assert snapshot(db) == before
    small_disk.unfill()
    proc = xlsearch("import", str(big), "-c", "tm", home=home)
    assert proc.returncode == 0, proc.stderr
    assert units_in(db, "tm") == 4050


def test_disk_full_during_index_build_keeps_the_index(
    small_disk: SmallDisk,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tiny_static_model: Path,
) -> None:
    """Full while embedding (the vector cache in SQLite) and while writing the FAISS file:
    the previous index stays searchable, no temp file is left, the store is unchanged."""
    from xlsearch.engine.index.files import load_current

    home = small_disk.root / "home"
    monkeypatch.setenv("XLSEARCH_HOME", str(home))
    model = str(tiny_static_model)
    assert run(capsys, "import", str(write_tsv(tmp_path / "a.tsv", 300)), "-c", "tm", "-q")[0] == 0
    assert run(capsys, "index", "-c", "tm", "--model", model)[0] == 0
    folder = next((home / "data" / "indexes").iterdir())
    sidecar = (folder / "index.json").read_bytes()
    assert (
        run(capsys, "import", str(write_tsv(tmp_path / "b.tsv", 3000, 500)), "-c", "tm", "-q")[0]
        == 0
    )
    db = home / "data" / "xlsearch.db"
    before = snapshot(db)

    small_disk.fill(leave=32 << 10)  # new texts to embed: the vector cache cannot grow
    rc, _, err = run(capsys, "index", "-c", "tm", "--model", model)
    assert rc == 2
    one_error_line(err, "Disk full", str(db), "the index is as it was", "hint:")
    assert (folder / "index.json").read_bytes() == sidecar and not leftovers(home)
    assert snapshot(db) == before
    assert load_current(folder, mmap=False)[0].ntotal == 600  # the old index still opens

    small_disk.unfill()  # every vector cached, then full again for the FAISS file itself
    assert run(capsys, "index", "-c", "tm", "--model", model)[0] == 0
    sidecar = (folder / "index.json").read_bytes()
    small_disk.fill(leave=160 << 10)
    rc, _, err = run(capsys, "index", "-c", "tm", "--model", model, "--rebuild")
    assert rc == 2
    one_error_line(err, "Disk full", str(folder), "the previous one is kept")
    assert (folder / "index.json").read_bytes() == sidecar and not leftovers(home)
    assert load_current(folder, mmap=False)[0].ntotal == 6600
    assert snapshot(db) == before


def test_disk_full_during_export_keeps_the_old_file(
    small_disk: SmallDisk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An export onto a full disk leaves the previous export byte for byte (atomic write)."""
    assert run(capsys, "import", str(write_tsv(tmp_path / "a.tsv", 3000)), "-c", "tm", "-q")[0] == 0
    out = small_disk.root / "out" / "tm.tmx"
    out.parent.mkdir()
    rc, _, err = run(capsys, "export", str(out), "-c", "tm", "--lang", "en,de")
    assert rc == 0, err
    old = out.read_bytes()
    for name, args in (
        ("tm.tmx", ()),
        ("tm.tsv", ("--lang", "en,de")),
        ("tm.xlf", ("--lang", "en,de")),
    ):
        target = out.parent / name
        small_disk.fill(leave=8 << 10)
        rc, _, err = run(capsys, "export", str(target), "-c", "tm", *args)
        assert rc == 2
        one_error_line(err, "Disk full", str(target), "hint:", "output to another disk")
        small_disk.unfill()
    assert out.read_bytes() == old
    assert sorted(p.name for p in out.parent.iterdir()) == ["tm.tmx"]  # no temp, no partial


def test_disk_full_during_distill_checkpoint_keeps_the_previous_one(
    small_disk: SmallDisk, tiny_static_model: Path
) -> None:
    """A checkpoint that does not fit: DiskFullError, the previous checkpoint resumes."""
    import torch

    from xlsearch.engine.distill import checkpoint as ck
    from xlsearch.engine.errors import DiskFullError
    from xlsearch.engine.models.trainable import load_model

    model = load_model(tiny_static_model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    run_dir = small_disk.root / "run"
    run_dir.mkdir()

    def save(step: int) -> None:
        ck.save_checkpoint(
            run_dir, model=model, ema=None, optimizers=[opt], schedulers=[], step=step,
            examples=step * 8, config={"student": "static"}, extra={"best": None},
        )  # fmt: skip

    save(10)
    small_disk.fill(leave=8 << 10)
    with pytest.raises(DiskFullError) as err:
        save(20)
    assert str(run_dir) in err.value.message and "previous one is kept" in err.value.message
    assert err.value.hint and "XLSEARCH_HOME" in err.value.hint
    assert sorted(p.name for p in run_dir.iterdir()) == ["checkpoint"]
    assert ck.read_meta(run_dir)["step"] == 10
    ck.load_state(run_dir, [opt], [])  # the kept checkpoint loads
    small_disk.unfill()
    save(20)
    assert ck.read_meta(run_dir)["step"] == 20


def test_disk_full_during_settings_write(small_disk: SmallDisk, tiny_static_model: Path) -> None:
    """`models --use` on a full disk: one line with the fix, config.json unchanged."""
    home = small_disk.root / "home"
    assert xlsearch("models", "--use", str(tiny_static_model), home=home).returncode == 0
    config = home / "config" / "config.json"
    before = config.read_bytes()
    small_disk.fill(leave=0)
    proc = xlsearch("models", "--use", "bundled:teacher", home=home)
    assert proc.returncode == 2
    one_error_line(proc.stderr, "Disk full", str(config), "the previous ones are kept")
    assert config.read_bytes() == before and not leftovers(home)


def test_disk_full_while_saving_a_translated_document(small_disk: SmallDisk) -> None:
    """Saving pre-translations over the translator's PO file on a full disk: DiskFullError
    naming it, and the file as it was (no half-written catalogue, no temp file)."""
    from xlsearch.engine.errors import DiskFullError
    from xlsearch.engine.tm.documents import open_document

    path = small_disk.root / "ui.de.po"
    entries = "".join(f'msgid "Open file {i}"\nmsgstr ""\n\n' for i in range(3000))
    path.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        f'"Language: de\\n"\n\n{entries}',
        encoding="utf-8",
    )
    before = path.read_bytes()
    doc = open_document(path, "en", "de")
    for i in range(len(doc.segments)):
        doc.set_target(i, f"Datei {i} öffnen", origin="fuzzy", quality=80)
    small_disk.fill(leave=4 << 10)
    with pytest.raises(DiskFullError) as err:
        doc.save()
    assert str(path) in err.value.message and "existing file is unchanged" in err.value.message
    assert path.read_bytes() == before
    assert sorted(p.name for p in small_disk.root.iterdir()) == [".filler", "ui.de.po"]


# -- a read-only home ----------------------------------------------------------------------


def test_read_only_home_every_command(
    small_disk: SmallDisk,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tiny_static_model: Path,
    tiny_st_model: Path,
) -> None:
    """XLSEARCH_HOME on a disk mounted read-only: each command that must write says so in
    one line naming the home and the fix; nothing changes; listing models still works."""
    home = small_disk.root / "home"
    monkeypatch.setenv("XLSEARCH_HOME", str(home))
    data = write_tsv(tmp_path / "a.tsv", 40)
    assert run(capsys, "import", str(data), "-c", "tm", "-q")[0] == 0
    assert run(capsys, "models", "--use", str(tiny_static_model))[0] == 0
    assert run(capsys, "index", "-c", "tm")[0] == 0
    db = home / "data" / "xlsearch.db"
    config = (home / "config" / "config.json").read_bytes()
    gc.collect()  # close connections the commands above left to the collector (as at exit)
    assert sorted(p.name for p in db.parent.glob("xlsearch.db*")) == ["xlsearch.db"]
    small_disk.read_only()
    try:
        before = snapshot(db, immutable=True)
        train = tmp_path / "train.tsv"
        train.write_text("the dog\tder hund\nthe cat\tdie katze\n" * 20, encoding="utf-8")
        commands = [
            ("collections",),
            ("import", str(write_tsv(tmp_path / "b.tsv", 10, 100)), "-c", "tm"),
            ("index", "-c", "tm"),
            ("search", "the dog", "--k", "2"),
            ("search", "dog", "--mode", "lexical"),
            ("export", str(tmp_path / "out.tmx"), "-c", "tm"),
            ("delete", "--collection", "tm"),
            ("models", "--use", "bundled:teacher"),
            ("distill", "--train", str(train), "--name", "s", "--teacher", str(tiny_st_model),
             "--student", "static", "--max-steps", "1"),
        ]  # fmt: skip
        for args in commands:
            rc, _, err = run(capsys, *args)
            assert rc == 2, (args, err)
            one_error_line(err, str(home), "XLSEARCH_HOME")
        rc, out, _ = run(capsys, "models")  # reading needs no writing
        assert rc == 0 and "teacher" in out
        assert snapshot(db, immutable=True) == before
        assert (home / "config" / "config.json").read_bytes() == config
        assert not (tmp_path / "out.tmx").exists()
    finally:
        small_disk.writable()


def test_output_on_a_read_only_disk_names_the_user_s_file(
    small_disk: SmallDisk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output file on a read-only disk (a new one, or one that exists): one line naming
    that file and the fix, not the hidden temp file beside it (``.out.xlf.x1y2.tmp``), and the
    existing file unchanged."""
    assert run(capsys, "import", str(write_tsv(tmp_path / "a.tsv", 20)), "-c", "tm", "-q")[0] == 0
    job = tmp_path / "job.xlf"
    job.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" '
        'xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="a.txt" '
        'source-language="en" target-language="de" datatype="plaintext"><body>'
        '<trans-unit id="1"><source>the dog 3 sleeps in the red house</source></trans-unit>'
        "</body></file></xliff>\n",
        encoding="utf-8",
    )
    out = small_disk.root / "out"
    out.mkdir()
    kept = out / "kept.tmx"
    kept.write_text("<tmx/>", encoding="utf-8")
    small_disk.read_only()
    try:
        for target, args in (
            (out / "job.de.xlf", ("analyze", str(job), "-c", "tm", "--fuzzy-only", "--out")),
            (out / "job.md", ("analyze", str(job), "-c", "tm", "--fuzzy-only", "--report")),
            (out / "tm.tmx", ("export", "-c", "tm")),
            (kept, ("export", "-c", "tm")),
            (out / "hits.tsv", ("search", "dog", "--mode", "lexical", "--out")),
        ):
            rc, _, err = run(capsys, *args, str(target))
            assert rc == 2, (args, err)
            line = one_error_line(err, f" {target}:", "hint:", "writable folder")
            assert ".tmp" not in line, line
        # found before the work: the documents are never aligned, the memory never mined
        doc = tmp_path / "a.en.txt"
        doc.write_text("The dog sleeps. The cat runs.\n", encoding="utf-8")
        rc, printed, err = run(
            capsys, "align", str(doc), str(doc), "--lengths", "--out", str(out / "a.tmx")
        )
        assert rc == 2 and not printed, err
        assert "beads" not in err  # no alignment was made
        one_error_line(err, f"{out / 'a.tmx'}: cannot write there", "read-only")
    finally:
        small_disk.writable()
    assert kept.read_text("utf-8") == "<tmx/>"
    assert sorted(p.name for p in out.iterdir()) == ["kept.tmx"]


@pytest.mark.anyio
async def test_read_only_home_in_the_app(
    small_disk: SmallDisk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app on a read-only home opens and says why it cannot read the store."""
    from xlsearch.service.local import LocalEngine
    from xlsearch.tui.app import make_app

    home = small_disk.root / "home"
    monkeypatch.setenv("XLSEARCH_HOME", str(home))
    assert main(["import", str(write_tsv(tmp_path / "a.tsv", 10)), "-c", "tm", "-q"]) == 0
    gc.collect()
    small_disk.read_only()
    try:
        app = make_app(engine=LocalEngine(), theme="textual-dark")
        async with app.run_test(size=(100, 30)) as pilot:
            for key in ("f2", "f4"):
                await pilot.press(key)
                for _ in range(3):
                    await pilot.pause()
                    await app.workers.wait_for_complete()
            errors = [(n.title, n.message) for n in app._notifications if n.severity == "error"]
    finally:
        small_disk.writable()
    assert errors and all(title == "Store error" for title, _ in errors), errors
    assert all(str(home) in msg and "XLSEARCH_HOME" in msg for _, msg in errors)


# -- damaged index files and cached vectors --------------------------------------------------


@pytest.fixture()
def indexed_home(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    tiny_static_model: Path,
) -> Path:
    """The default test home with 120 units in ``tm``, the tiny model active and indexed;
    returns the index folder."""
    assert run(capsys, "import", str(write_tsv(tmp_path / "a.tsv", 120)), "-c", "tm", "-q")[0] == 0
    assert run(capsys, "models", "--use", str(tiny_static_model))[0] == 0
    assert run(capsys, "index", "-c", "tm")[0] == 0
    from xlsearch.engine.runtime import locations

    return next(locations.indexes_dir().iterdir())


def _damage(folder: Path, what: str) -> None:
    meta = json.loads((folder / "index.json").read_text())
    if what == "truncated index":
        path = folder / meta["file"]
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif what == "flipped bytes":
        path = folder / meta["file"]
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    elif what == "corrupt keys":
        (folder / meta["keys"]).write_bytes(b"PK\x03\x04 not a zip at all")
    else:  # a sidecar cut short
        (folder / "index.json").write_text(json.dumps(meta)[:40])


@pytest.mark.parametrize(
    ("what", "command"),
    [
        ("truncated index", "search"),
        ("flipped bytes", "index"),
        ("corrupt keys", "search"),
        ("cut sidecar", "index"),
    ],
)
def test_damaged_index_is_rebuilt_with_a_notice(
    what: str, command: str, indexed_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.engine.index.files import load_current

    _damage(indexed_home, what)
    args = ("search", "der hund 7 schläft", "--k", "3") if command == "search" else ("index",)
    rc, out, err = run(capsys, *args)
    assert rc == 0, err
    assert "notice:" in err and "error" not in err, err
    if command == "search":
        assert "1. " in out and "der hund" in out
    assert load_current(indexed_home, mmap=False)[0].ntotal == 240
    rc, _, err = run(capsys, *args)  # repaired for good: no second notice
    assert rc == 0 and "notice:" not in err


def test_damaged_cached_vectors_are_embedded_again(
    indexed_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Vector-cache rows of the wrong length (a damaged store page, a foreign writer) are
    re-embedded with a notice instead of failing the index build."""
    from xlsearch.engine.runtime import locations

    db = locations.store_path()
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE embeddings SET vector = substr(vector, 1, 7) WHERE rowid % 3 = 0")
    rc, _, err = run(capsys, "index", "--rebuild")
    assert rc == 0, err
    assert "notice:" in err and "damaged" in err and "error" not in err
    with sqlite3.connect(db) as conn:
        lengths = {n for (n,) in conn.execute("SELECT DISTINCT length(vector) FROM embeddings")}
    assert lengths == {16 * 4}
    rc, out, _ = run(capsys, "search", "der hund 7 schläft", "--k", "1")
    assert rc == 0 and "1. " in out


@pytest.mark.parametrize("damage", ["vectors cut short", "meta.json garbled"])
def test_damaged_teacher_cache_is_recomputed_with_a_notice(damage: str, tmp_path: Path) -> None:
    """Distillation's teacher-embedding cache: the damaged part is encoded again, after a
    ``notice`` event; what is intact is kept."""
    import numpy as np
    from helpers.index import FakeEncoder

    from xlsearch.engine.distill.teacher_cache import TeacherCache

    enc = FakeEncoder(dim=16)
    texts = [f"the dog {i} sleeps" for i in range(40)]
    TeacherCache(tmp_path / "tc", 16, "t").ensure(texts, enc)
    if damage == "vectors cut short":
        vf = tmp_path / "tc" / "vectors.f16"
        vf.write_bytes(vf.read_bytes()[: 2 * 16 * 30 + 5])
    else:
        (tmp_path / "tc" / "meta.json").write_text('{"rows": 4', encoding="utf-8")
    enc.calls.clear()
    events: list = []
    cache = TeacherCache(tmp_path / "tc", 16, "t")
    cache.ensure(texts, enc, on_progress=events.append)
    notices = [e.message for e in events if e.stage == "notice"]
    assert len(notices) == 1 and str(tmp_path / "tc") in notices[0] and "damaged" in notices[0]
    assert sum(enc.calls) == (10 if damage == "vectors cut short" else 40)
    assert np.allclose(cache.get(texts), enc.encode(texts), atol=2e-3)


# -- a damaged store -----------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["not sqlite", "damaged pages", "cut short"])
def test_damaged_store_is_one_line_and_never_replaced(
    damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.engine.runtime import locations

    db = locations.store_path()
    if damage == "not sqlite":
        db.write_text("these are my notes, not a database\n" * 200, encoding="utf-8")
    else:
        assert (
            run(capsys, "import", str(write_tsv(tmp_path / "a.tsv", 400)), "-c", "tm", "-q")[0] == 0
        )
        data = bytearray(db.read_bytes())
        if damage == "damaged pages":
            data[4096 * 2 : 4096 * 6] = b"\xa5" * (4096 * 4)
        else:
            data = data[: len(data) // 3]
        db.write_bytes(bytes(data))
    damaged = db.read_bytes()
    for args in (("collections",), ("import", str(write_tsv(tmp_path / "b.tsv", 5)), "-c", "x"),
                 ("search", "dog", "--mode", "lexical")):  # fmt: skip
        rc, _, err = run(capsys, *args)
        assert rc == 2, (args, err)
        one_error_line(err, str(db), "hint:", ".recover")
    assert db.read_bytes() == damaged  # never replaced, repaired in place or deleted


# -- two writers at once -------------------------------------------------------------------

INDEXER = """
from helpers.index import FakeEncoder
from xlsearch.engine.index import cache, manager
from xlsearch.engine.store import Store
cache.BATCH = 100
with Store() as store:
    print("indexing", flush=True)
    oi = manager.build_index(store, FakeEncoder(delay=0.02), "tm")
print("indexed", oi.count, flush=True)
"""


def test_import_while_another_process_indexes(tmp_path: Path) -> None:
    """A CLI import into the collection another process is indexing: both finish, every
    unit is stored once, and the next index build takes the new units in."""
    from xlsearch.engine.runtime import locations

    home = Path(locations.home() or "")
    assert (
        xlsearch(
            "import", str(write_tsv(tmp_path / "a.tsv", 1500)), "-c", "tm", home=home
        ).returncode
        == 0
    )
    indexer = subprocess.Popen(
        [sys.executable, "-c", INDEXER],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**xlsearch_env(home)},
    )
    assert indexer.stdout is not None and indexer.stdout.readline().strip() == "indexing"
    time.sleep(0.3)  # the indexer is embedding (committing cached vectors batch by batch)
    proc = xlsearch("import", str(write_tsv(tmp_path / "b.tsv", 700, 5000)), "-c", "tm", home=home)
    out, err = indexer.communicate(timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert indexer.returncode == 0, err
    assert "Traceback" not in proc.stderr + err
    waited = [line for line in proc.stderr.splitlines() if "waiting" in line]
    assert all("waiting for another xlsearch process" in line for line in waited)
    db = locations.store_path()
    assert units_in(db, "tm") == 2200
    with sqlite3.connect(db) as conn:
        assert (
            conn.execute(
                "SELECT COUNT(*) FROM (SELECT text, lang FROM segments GROUP BY text, lang "
                "HAVING COUNT(*) > 1)"
            ).fetchone()[0]
            == 0
        )
    assert int(out.split()[-1]) in (3000, 4400)  # the store as it was when the build began or ended


def test_two_imports_into_one_collection(tmp_path: Path) -> None:
    """Three CLI imports at once, two of them the same file: nothing lost, nothing doubled."""
    from xlsearch.engine.runtime import locations

    home = Path(locations.home() or "")
    a, b = write_tsv(tmp_path / "a.tsv", 3000), write_tsv(tmp_path / "b.tsv", 3000, 10_000)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "xlsearch", "import", str(path), "-c", "tm"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=xlsearch_env(home),
        )
        for path in (a, b, a)
    ]
    results = [(p.wait(timeout=120), *p.communicate()) for p in procs]
    for rc, _out, err in results:
        assert rc == 0 and "Traceback" not in err, err
    statuses = sorted(out.split()[0] for _, out, _ in results)
    assert statuses == ["imported", "imported", "unchanged"], results
    assert units_in(locations.store_path(), "tm") == 6000


# -- the active model's folder deleted or replaced while the app runs ------------------------


def _retrained(model: Path, out: Path) -> Path:
    """The same model with other weights (as a re-run distillation writes it)."""
    import torch

    from xlsearch.engine.models.trainable import load_model

    m = load_model(model)
    with torch.no_grad():
        for p in m.parameters():
            p.add_(torch.randn_like(p))
    return m.save(out, card={"teacher": "test", "languages": ["en", "de"]})


def _active_copy(tiny_static_model: Path, tmp_path: Path) -> Path:
    from xlsearch.engine.models.catalog import set_active_model

    model = Path(shutil.copytree(tiny_static_model, tmp_path / "models" / "student"))
    set_active_model(str(model))
    return model


def test_model_folder_replaced_or_deleted_under_the_engine(
    tmp_path: Path, tiny_static_model: Path
) -> None:
    """Replaced: the engine loads the new weights (vectors cached under the new weights'
    key are theirs, never the old ones'). Deleted: a ModelError with the fix."""
    import numpy as np

    from xlsearch.engine.errors import ModelError
    from xlsearch.engine.index.cache import model_key
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store
    from xlsearch.service.local import LocalEngine

    model = _active_copy(tiny_static_model, tmp_path)
    engine = LocalEngine()
    engine.import_files([str(write_tsv(tmp_path / "a.tsv", 30))], "tm")
    engine.build_index("tm")
    assert engine.search("der hund 3 schläft", k=3)

    other = _retrained(model, tmp_path / "retrained")
    shutil.rmtree(model)
    shutil.copytree(other, model)
    assert engine.search("der hund 3 schläft", k=3)
    new = load_encoder(str(model))
    with Store() as store:
        (text,) = store.conn.execute("SELECT text FROM segments LIMIT 1").fetchone()
        vecs, found = store.get_embeddings(model_key(new), [text_hash_of(text)], new.dim)
    assert found.all() and np.allclose(vecs[0], new.encode([text])[0], atol=1e-5)

    shutil.rmtree(model)
    for call in (lambda: engine.search("der hund", k=3), lambda: engine.build_index("tm")):
        with pytest.raises(ModelError) as err:
            call()
        assert str(model) in err.value.message and "is gone" in err.value.message
        assert err.value.hint and "models --use" in err.value.hint


def text_hash_of(text: str) -> str:
    from xlsearch.engine.store.ingest import text_hash

    return text_hash(text)


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_model_folder_deleted_while_the_app_runs(
    tmp_path: Path, tiny_static_model: Path
) -> None:
    """The app's next search after the folder vanished shows the fix as a notification."""
    from textual.widgets import Input

    from xlsearch.service.local import LocalEngine
    from xlsearch.tui.app import make_app
    from xlsearch.tui.screens.search import SearchScreen

    model = _active_copy(tiny_static_model, tmp_path)
    engine = LocalEngine()
    engine.import_files([str(write_tsv(tmp_path / "a.tsv", 20))], "tm")
    app = make_app(engine=engine, theme="textual-dark")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f2")
        for _ in range(2):
            await pilot.pause()
            await app.workers.wait_for_complete()
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        shutil.rmtree(model)
        screen.query_one("#query", Input).value = "der hund schläft"
        await pilot.press("enter")
        for _ in range(3):
            await pilot.pause()
            await app.workers.wait_for_complete()
        errors = [(n.title, n.message) for n in app._notifications if n.severity == "error"]
    assert any(title == "Model error" and "is gone" in msg for title, msg in errors), errors
