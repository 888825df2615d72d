"""One road into the engine: the command line and the app share the service's rules (which
model searches, indexing on the spot with its notice, how hits are written)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.index import add_document

from xlsearch.cli import main
from xlsearch.engine.store import Store
from xlsearch.service.local import LocalEngine

UNITS = [
    {"en": "the dog sleeps", "de": "der hund schläft", "fr": "le chien dort"},
    {"en": "the red house", "de": "das haus ist rot"},
    {"en": "the cat runs", "de": "die katze läuft", "fr": "le chat court"},
]


def test_cli_search_and_the_app_share_indexing_and_the_hit_writer(
    tiny_static_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store() as store:
        add_document(store, "tm", "a.tmx", UNITS * 2)
    model = str(tiny_static_model)
    # --no-repair refuses the missing index: one line, nothing indexed
    assert main(["search", "hund", "--model", model, "--no-repair"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
    # the command indexes on the spot and says so, as the app's search does
    cli_tmx = tmp_path / "cli.tmx"
    assert main(["search", "hund", "--model", model, "--lang", "de", "--out", str(cli_tmx)]) == 0
    out, err = capsys.readouterr()
    assert "notice: " in err and "'tm'" in err
    engine = LocalEngine(model=model)
    hits = engine.search("hund", langs=["de"], k=10)
    assert engine.notices == []  # the command's index serves the app: nothing to repair
    assert hits and out.splitlines()[0].endswith(f"[de] {hits[0].text}")
    # one writer: the command's --out and the app's export write the same file
    app_tmx = tmp_path / "app.tmx"
    assert engine.export(hits, str(app_tmx), "tmx") == len(hits)
    assert cli_tmx.read_bytes() == app_tmx.read_bytes()
    assert b'<prop type="x-tu">' in cli_tmx.read_bytes()
