"""CLI: import, collections, export, delete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xlsearch.cli import main


def test_import_collections_export_delete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.tsv").write_text("en\tde\nHello\tHallo\nragged\n", encoding="utf-8")
    (folder / "b.jsonl").write_text('{"text": "Bonjour", "lang": "fr"}\n', encoding="utf-8")
    (folder / "notes.bin").write_bytes(b"\x00\x01")  # unknown extension: not picked up
    bad = tmp_path / "bad.tmx"
    bad.write_text("<tmx><body><tu>", encoding="utf-8")

    assert main(["import", str(folder), str(bad), "--collection", "work", "-q"]) == 2
    out, err = capsys.readouterr()
    assert (
        "imported" in out
        and "a.tsv: +2 -0 (2 segments" in out
        and "1 warning" in out
        and "1 warnings" not in out
    )
    assert "b.jsonl: +1 -0" in out
    assert f"error: Bad input data: {bad}:1: malformed XML" in err

    assert main(["import", str(folder / "a.tsv"), "-c", "work"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("unchanged") and "a.tsv:3: 1 columns instead of 2" not in err

    assert main(["collections", "--json"]) == 0
    (col,) = json.loads(capsys.readouterr().out)
    assert (col["name"], col["documents"], col["segments"]) == ("work", 2, 3)
    assert col["languages"] == {"de": 1, "en": 1, "fr": 1}
    assert main(["collections", "work"]) == 0
    assert "a.tsv" in capsys.readouterr().out

    out_tsv = tmp_path / "pairs.tsv"
    assert main(["export", str(out_tsv), "-c", "work", "--lang", "en,de"]) == 0
    assert out_tsv.read_text(encoding="utf-8") == "Hello\tHallo\n"
    out_tmx = tmp_path / "all.tmx"
    assert main(["export", str(out_tmx)]) == 0
    assert main(["import", str(out_tmx), "-c", "copy", "-q"]) == 0
    capsys.readouterr()

    assert main(["delete", "--collection", "work"]) == 0
    assert "3 segments" in capsys.readouterr().out
    assert main(["collections", "--json"]) == 0
    assert [c["name"] for c in json.loads(capsys.readouterr().out)] == ["copy"]
    assert main(["delete", "--collection", "work"]) == 2
    assert "no collection named 'work'" in capsys.readouterr().err


def test_import_options_reach_the_importer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.data"
    notes.write_bytes("Café au lait. Très bon!\n".encode("latin-1"))
    args = ["import", str(notes), "--format", "text", "--lang", "fr", "-q"]
    assert main(args) == 0  # not UTF-8: charset-normalizer's guess, with a warning
    assert "+1 -0 (1 segments" in capsys.readouterr().out
    assert main([*args[:-1], "--encoding", "utf-8"]) == 2
    assert "notes.data:1: not valid utf-8" in capsys.readouterr().err
    assert main([*args, "--encoding", "latin-1", "--paragraphs"]) == 0
    assert "+2 -1 (2 segments" in capsys.readouterr().out
    assert main(["collections", "default", "--json"]) == 0
    (doc,) = json.loads(capsys.readouterr().out)
    assert doc["languages"] == {"fr": 2} and doc["options"]["paragraphs"] is True


def _downgrade_to_schema_2(db: Path) -> int:
    """Turn a current store back into what xlsearch wrote at schema 2 (the vector cache a
    WITHOUT ROWID table, as migration 1 made it); return the number of cached vectors."""
    import sqlite3

    from xlsearch.engine.store import schema

    conn = sqlite3.connect(db, isolation_level=None)
    old = next(s for s in schema._statements(schema.MIGRATIONS[0][1]) if "TABLE embeddings" in s)
    conn.execute("ALTER TABLE embeddings RENAME TO embeddings_now")
    conn.execute("DROP INDEX embeddings_key")
    conn.execute(old)
    conn.execute("INSERT INTO embeddings SELECT model_id, text_hash, vector FROM embeddings_now")
    conn.execute("DROP TABLE embeddings_now")
    conn.execute("DELETE FROM _migrations WHERE version > 2")
    n = conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]
    conn.close()
    return n


def test_a_schema_2_store_opens_with_everything_kept(
    tmp_path: Path, tiny_static_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The upgrading user: collections, metadata, an index and cached vectors written by the
    previous schema; this version opens them, loses nothing, searches without re-embedding."""
    from xlsearch.engine.runtime import locations
    from xlsearch.engine.store import Store

    tmx = tmp_path / "tm.tmx"
    tmx.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><tmx version="1.4"><header srclang="en" '
        'datatype="plaintext" segtype="sentence" adminlang="en" creationtool="t" '
        'creationtoolversion="1" o-tmf="t"/><body>'
        '<tu creationid="anna"><prop type="client">ACME</prop>'
        '<tuv xml:lang="en"><seg>Press the power button.</seg></tuv>'
        '<tuv xml:lang="de"><seg>Drücken Sie die Ein-Taste.</seg></tuv></tu>'
        '<tu><tuv xml:lang="en"><seg>Close the lid.</seg></tuv>'
        '<tuv xml:lang="fr"><seg>Fermez le couvercle.</seg></tuv></tu></body></tmx>',
        encoding="utf-8",
    )
    model = str(tiny_static_model)
    assert main(["import", str(tmx), "-c", "tm", "-q"]) == 0
    assert main(["index", "--collection", "tm", "--model", model]) == 0
    capsys.readouterr()
    assert main(["collections", "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    cached = _downgrade_to_schema_2(locations.store_path())
    assert cached == 4

    assert main(["collections", "--json"]) == 0  # opening migrates
    assert json.loads(capsys.readouterr().out) == before
    with Store() as store:
        assert store.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == cached
    search = ["search", "power button", "--model", model, "--no-repair", "--json"]
    assert main([*search, "--where", "client=acme"]) == 0
    hits = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    # the ACME unit only (the metadata survived); a tiny random model picks either side
    assert [h["text"] for h in hits] in (
        ["Press the power button."],
        ["Drücken Sie die Ein-Taste."],
    )
    assert main(["index", "--collection", "tm", "--model", model]) == 0  # nothing to embed again
    assert "+0 -0" in capsys.readouterr().out
    lookup = ["lookup", "Close the lid now.", "--src", "en", "--tgt", "fr", "--model", model]
    assert main([*lookup, "--json"]) == 0
    assert "Fermez le couvercle." in capsys.readouterr().out


def test_a_file_read_by_an_older_reader_is_read_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After an upgrade that reads a format differently (a semicolon CSV), re-importing the
    unchanged file reads it again instead of answering 'unchanged' with the old segments."""
    from xlsearch.engine.store import Store

    csv = tmp_path / "excel.csv"
    csv.write_text("en;de\nThank you;Danke\n", encoding="utf-8")
    assert main(["import", str(csv), "-c", "tm", "-q"]) == 0
    with Store() as store:  # as the previous reader left it: one cell per row
        options = json.loads(store.conn.execute("SELECT options FROM documents").fetchone()[0])
        options["reader"] = 2
        stored = json.dumps(options, sort_keys=True)
        store.conn.execute("UPDATE documents SET options = ?", (stored,))
    capsys.readouterr()
    assert main(["import", str(csv), "-c", "tm"]) == 0
    assert capsys.readouterr().out.startswith("updated")


def test_unwritable_home_is_one_line_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A read-only XLSEARCH_HOME (folders cannot be made): one line naming it, exit 2."""
    monkeypatch.setenv("XLSEARCH_HOME", str(tmp_path / "ro"))
    real = Path.mkdir

    def refuse(self: Path, *args: object, **kwargs: object) -> None:
        if str(self).startswith(str(tmp_path / "ro")):
            raise PermissionError(13, "Permission denied", str(self))
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "mkdir", refuse)
    assert main(["collections"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(tmp_path / "ro") in err[0] and "XLSEARCH_HOME" in err[0]


def test_os_error_without_a_file_name_has_no_empty_field(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An OSError that names no file reads ``error: message``, not ``error:: message``."""
    import xlsearch.commands.corpus as corpus

    def broken(args: object) -> int:
        raise OSError("No such file or directory: /x/model.safetensors")

    monkeypatch.setattr(corpus, "cmd_collections", broken)
    assert main(["collections"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: No such file") and "::" not in err


def test_an_empty_folder_to_import_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main

    (tmp_path / "memories").mkdir()
    (tmp_path / "memories" / "readme.pdf").write_bytes(b"%PDF")
    assert main(["import", str(tmp_path / "memories"), "--collection", "tm"]) == 2
    err = capsys.readouterr().err
    assert "memories: no file to import in this folder" in err and ".tmx" in err
    assert len(err.strip().splitlines()) == 1
