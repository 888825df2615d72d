"""Property/fuzz tests: mutated and random inputs never crash an importer or the store."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlsearch.engine.errors import DataError
from xlsearch.engine.importers import FORMATS, ReadContext, normalize, read_records
from xlsearch.engine.importers.base import MAX_SEGMENT_CHARS
from xlsearch.engine.store import Store


def _docx_sample() -> bytes:
    import io

    from docx import Document

    doc = Document()
    doc.add_paragraph("First sentence. Second one.")
    doc.add_paragraph("Another paragraph.")
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()


SAMPLES: dict[str, bytes] = {
    "tmx": (
        b'<?xml version="1.0" encoding="UTF-8"?><tmx version="1.4"><header srclang="en"/><body>'
        b'<tu><tuv xml:lang="en"><seg>One <ph>&lt;br/&gt;</ph>two</seg></tuv>'
        b'<tuv xml:lang="de"><seg>Eins zwei</seg></tuv></tu>'
        b'<tu><tuv xml:lang="fr"><seg>Trois</seg></tuv></tu></body></tmx>'
    ),
    "xliff": (
        b'<xliff version="1.2"><file source-language="en" target-language="es"><body>'
        b'<trans-unit id="1"><source>Hi <g id="1">there</g><x id="2" ctype="lb"/>you</source>'
        b"<seg-source><mrk mtype='seg' mid='1'>Hi there</mrk> <mrk mtype='seg' mid='2'>you</mrk>"
        b"</seg-source><target><mrk mtype='seg' mid='1'>Hola</mrk> <mrk mtype='seg' mid='2'>"
        b"t&nbsp;&#250;<ph id='3'>&lt;br/&gt;<sub>s</sub></ph></mrk></target></trans-unit>"
        b'<trans-unit id="2" translate="no"><source>X</source></trans-unit>'
        b"</body></file></xliff>"
    ),
    "po": (
        b'msgid ""\nmsgstr ""\n"Language: de\\n"\n\n#, fuzzy\nmsgctxt "m"\nmsgid "Open"\n'
        b'msgstr "\xc3\x96ffnen"\n\nmsgid "a file"\nmsgid_plural "%d files"\n'
        b'msgstr[0] "eine Datei"\nmsgstr[1] "%d Dateien"\n'
    ),
    "tsv": b"en\tde\nHello\tHallo\nWorld\tWelt\n",
    "csv": b'en,fr\n"Yes, sir","Oui, monsieur"\nNo,Non\n',
    "text": b"Ein Satz.\n\nA second line. With two sentences!\n",
    "jsonl": b'{"text": "Hej", "lang": "sv"}\n{"text": "Moi", "tu": 1}\n',
    "markdown": b"# Titel\n\nEin *Satz*. Noch einer!\n\n- Punkt eins\n",
    "html": b"<html><body><h1>Titre</h1><p>Une phrase. Une autre&nbsp;!</p></body></html>",
    "docx": _docx_sample(),
}


@st.composite
def mutated(draw: st.DrawFn, base: bytes) -> bytes:
    """Truncations, random insertions, overwrites, duplications, or plain random bytes."""
    kind = draw(st.sampled_from(["truncate", "insert", "overwrite", "duplicate", "random"]))
    if kind == "random":
        return draw(st.binary(max_size=300))
    pos = draw(st.integers(0, len(base)))
    if kind == "truncate":
        return base[:pos]
    if kind == "insert":
        junk = draw(
            st.one_of(
                st.binary(min_size=1, max_size=20),
                st.text(max_size=20).map(lambda t: t.encode("utf-8", "surrogatepass")),
                st.sampled_from([b"<", b"&", b"\t", b"\n", b'"', b"\x00", b"\xff", b"]]>", b"{"]),
            )
        )
        return base[:pos] + junk + base[pos:]
    if kind == "overwrite":
        junk = draw(st.binary(min_size=1, max_size=8))
        return base[:pos] + junk + base[pos + len(junk) :]
    end = draw(st.integers(pos, len(base)))
    return base[:end] + base[pos:end] + base[end:]


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, bytes]:
    fmt = draw(st.sampled_from(FORMATS))
    return fmt, draw(mutated(SAMPLES[fmt]))


def check_records(path: Path, fmt: str) -> None:
    ctx = ReadContext(path)
    try:
        records = list(read_records(ctx, fmt))
    except DataError as exc:
        assert str(path) in str(exc)  # every fatal error names the file
        return
    for rec in records:
        assert rec.text and rec.text == normalize(rec.text) and len(rec.text) <= MAX_SEGMENT_CHARS
        assert rec.tu >= 0 and (rec.lang is None or rec.lang.isascii())
    assert all(w.startswith(str(path)) for w in ctx.warnings)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_importers_only_raise_data_error(case: tuple[str, bytes]) -> None:
    fmt, data = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"fuzz.{fmt}"
        path.write_bytes(data)
        check_records(path, fmt)


def test_samples_parse() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, data in SAMPLES.items():
            path = Path(tmp) / f"s.{fmt}"
            path.write_bytes(data)
            assert len(list(read_records(ReadContext(path), fmt))) >= 2, fmt


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=st.lists(cases(), min_size=1, max_size=4))
def test_store_survives_fuzzed_imports(cases: list[tuple[str, bytes]]) -> None:
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "s.db") as store:
        committed = 0
        for i, (fmt, data) in enumerate(cases):
            path = Path(tmp) / f"f{i}.{fmt}"
            path.write_bytes(data)
            before = store.conn.execute("SELECT COUNT(*) FROM segments").fetchone()[0]
            try:
                report = store.import_file(path)
            except DataError:
                after = store.conn.execute("SELECT COUNT(*) FROM segments").fetchone()[0]
                assert after == before
                continue
            committed += report.added
        total = store.conn.execute("SELECT COUNT(*) FROM segments").fetchone()[0]
        assert total == committed
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        store.conn.execute("INSERT INTO segments_fts(segments_fts) VALUES('integrity-check')")
