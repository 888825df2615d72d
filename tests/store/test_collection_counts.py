"""Collections are listed from the counts recorded at import, not by counting segments."""

from __future__ import annotations

from pathlib import Path


def _memory(tmp_path: Path) -> Path:
    path = tmp_path / "ui.tsv"
    path.write_text(
        "en\tfr\nOpen the file\tOuvrir le fichier\nClose the window\tFermer la fenêtre\nQuit\t\n",
        encoding="utf-8",
    )
    return path


def test_counts_come_from_what_the_import_recorded(tmp_path: Path) -> None:
    from xlsearch.engine.store import Store
    from xlsearch.service.local import LocalEngine

    with Store() as store:
        store.import_file(_memory(tmp_path), "tm")
        [listed] = store.collections()
        assert (listed["segments"], listed["units"]) == (5, 3)
        assert listed["languages"] == {"en": 3, "fr": 2}
        # the recorded counts are what is listed: nothing scans the segments
        store.conn.execute(
            'UPDATE documents SET segment_count=7, languages=\'{"en": 4, "fr": 3}\', unit_count=4'
        )
        store.conn.commit()
        [listed] = store.collections()
        assert (listed["segments"], listed["units"], listed["languages"]) == (
            7,
            4,
            {"en": 4, "fr": 3},
        )
    [info] = LocalEngine().collections()
    assert (info.segments, info.units) == (7, 4)


def test_a_document_of_an_older_store_without_counts_is_counted(tmp_path: Path) -> None:
    from xlsearch.engine.store import Store

    with Store() as store:
        store.import_file(_memory(tmp_path), "tm")
        store.conn.execute("UPDATE documents SET languages='{}', unit_count=NULL")
        store.conn.commit()
        [listed] = store.collections()
        assert (listed["segments"], listed["units"]) == (5, 3)
        assert listed["languages"] == {"en": 3, "fr": 2}
