"""kill -9 in the middle of an import: the store stays consistent and a rerun completes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from xlsearch.engine.store import Store

CHILD = """
import sys
from xlsearch.engine.store import Store

def progress(event):
    print("progress", event.metrics.get("segments", 0), flush=True)

with Store(sys.argv[1]) as store:
    store.import_file(sys.argv[2], collection="big", on_progress=progress)
print("done", flush=True)
"""


def write_tsv(path: Path, start: int, stop: int) -> None:
    path.write_text(
        "en\tfr\n"
        + "".join(
            f"sentence {i} of the corpus\tphrase {i} du corpus\n" for i in range(start, stop)
        ),
        encoding="utf-8",
    )


def kill_mid_import(db: Path, data: Path, after: int) -> bool:
    """Run an import in a child process and SIGKILL it once ``after`` segments were written.

    Returns True if the kill landed before the child finished.
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), str(data)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert proc.stdout is not None
    killed = False
    for line in proc.stdout:
        if line.startswith("progress") and int(line.split()[1]) >= after:
            os.kill(proc.pid, signal.SIGKILL)
            killed = True
            break
    proc.wait(timeout=60)
    return killed and proc.returncode == -signal.SIGKILL


def check_consistent(store: Store) -> None:
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store.conn.execute("INSERT INTO segments_fts(segments_fts) VALUES('integrity-check')")
    dupes = store.conn.execute(
        "SELECT COUNT(*) FROM (SELECT 1 FROM segments GROUP BY document_id, position, lang "
        "HAVING COUNT(*) > 1)"
    ).fetchone()[0]
    assert dupes == 0
    for doc in store.documents():
        n = store.conn.execute(
            "SELECT COUNT(*) FROM segments WHERE document_id=?", (doc["id"],)
        ).fetchone()[0]
        assert n == doc["segment_count"]


@pytest.mark.slow
def test_kill_during_import_then_rerun(tmp_path: Path) -> None:
    db, data = tmp_path / "store.db", tmp_path / "big.tsv"
    n = 12_000
    write_tsv(data, 0, n)
    assert kill_mid_import(db, data, after=3000)
    with Store(db) as store:
        check_consistent(store)
        assert store.documents() == [] and store.segment_ids().size == 0  # nothing half-done
        report = store.import_file(data, collection="big")
        assert report.status == "imported" and report.added == 2 * n
        check_consistent(store)
        texts_v1 = {r[0]: r[1] for r in store.conn.execute("SELECT text, id FROM segments")}

    # a changed version: kill during the update, the old version must survive intact
    write_tsv(data, 500, n + 500)
    assert kill_mid_import(db, data, after=3000)
    with Store(db) as store:
        check_consistent(store)
        assert {r[0]: r[1] for r in store.conn.execute("SELECT text, id FROM segments")} == (
            texts_v1
        )
        report = store.import_file(data, collection="big")
        assert (report.status, report.added, report.removed) == ("updated", 1000, 1000)
        check_consistent(store)
        now = {r[0]: r[1] for r in store.conn.execute("SELECT text, id FROM segments")}
        assert len(now) == 2 * n
        assert all(now[t] == texts_v1[t] for t in now if t in texts_v1)  # ids survived
        assert "sentence 12499 of the corpus" in now and "sentence 0 of the corpus" not in now
