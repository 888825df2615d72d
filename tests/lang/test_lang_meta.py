"""Language tags as written (BCP 47) and translation-memory metadata, on files written the
way OmegaT, Trados Studio, memoQ and SDL/memoQ XLIFF write them (fixtures made here)."""

from __future__ import annotations

import json
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from xlsearch.engine.errors import ConfigError
from xlsearch.engine.export.writer import iter_store_units, write_units
from xlsearch.engine.lang.tags import normalize_lang, tag_matches
from xlsearch.engine.store import Store
from xlsearch.engine.store.schema import LATEST
from xlsearch.engine.store.units import UnitFilter, parse_date

XML = "{http://www.w3.org/XML/1998/namespace}lang"

# OmegaT project TM: dates and users on the target tuv, file/id props, a note
OMEGAT = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE tmx SYSTEM "tmx11.dtd">
<tmx version="1.4">
  <header creationtool="OmegaT" o-tmf="OmegaT TMX" adminlang="EN-US" datatype="plaintext"
   creationtoolversion="6.0.0_0" segtype="sentence" srclang="EN-GB"/>
  <body>
<!-- Default translations -->
    <tu>
      <tuv xml:lang="EN-GB">
        <seg>Close this dialog box.</seg>
      </tuv>
      <tuv xml:lang="FR-FR" changeid="anna" changedate="20240115T093000Z" creationid="anna"
       creationdate="20240110T080000Z">
        <seg>Fermez cette boîte de dialogue.</seg>
      </tuv>
    </tu>
<!-- Alternative translations -->
    <tu>
      <prop type="file">manual/intro.html</prop>
      <prop type="id">intro-3</prop>
      <note>Context-specific translation</note>
      <tuv xml:lang="EN-GB">
        <seg>Open the file.</seg>
      </tuv>
      <tuv xml:lang="FR-FR" changeid="bruno" changedate="20230301T120000Z" creationid="bruno"
       creationdate="20230301T120000Z">
        <seg>Ouvrez le fichier.</seg>
      </tuv>
    </tu>
  </body>
</tmx>
"""

# Trados Studio export: tu-level dates/users, typed custom fields, several variants
TRADOS = """<?xml version="1.0" encoding="utf-8"?>
<tmx version="1.4">
<header creationtool="SDL Language Platform" creationtoolversion="8.1" o-tmf="SDL TM8 Format"
 datatype="xml" segtype="sentence" adminlang="en-US" srclang="en-US"
 creationdate="20240101T000000Z" creationid="GLOBAL\\admin"/>
<body>
<tu creationdate="20231105T141210Z" creationid="GLOBAL\\jsmith" changedate="20240302T101500Z"
 changeid="GLOBAL\\mkeller" lastusagedate="20240302T101500Z" usagecount="3">
  <prop type="x-Client:SinglePicklist">ACME</prop>
  <prop type="x-Project:MultiplePicklist">Manuals</prop>
  <prop type="x-Project:MultiplePicklist">Website</prop>
  <prop type="x-Origin">TM</prop>
  <prop type="x-ConfirmationLevel">Translated</prop>
  <tuv xml:lang="en-US"><seg>Press the power button.</seg></tuv>
  <tuv xml:lang="en-GB"><seg>Press the power button, please.</seg></tuv>
  <tuv xml:lang="de-DE"><seg>Drücken Sie den Netzschalter.</seg></tuv>
  <tuv xml:lang="zh-hant-tw"><seg>按下電源按鈕。</seg></tuv>
  <tuv xml:lang="zh-TW"><seg>請按電源鍵。</seg></tuv>
  <tuv xml:lang="zh-CN"><seg>按下电源按钮。</seg></tuv>
  <tuv xml:lang="pt-br"><seg>Pressione o botão liga/desliga.</seg></tuv>
</tu>
<tu creationdate="20221001T090000Z" creationid="GLOBAL\\jsmith">
  <prop type="x-Client:SinglePicklist">Globex</prop>
  <tuv xml:lang="en-US" creationdate="20221001T090000Z" creationid="GLOBAL\\jsmith">
   <prop type="x-Context" xml:lang="en-US">1234, 5678</prop><seg>Save your work.</seg></tuv>
  <tuv xml:lang="de-DE"><note xml:lang="de">Duzen!</note><seg>Speichere deine Arbeit.</seg></tuv>
</tu>
</body>
</tmx>
"""

# memoQ export: plain prop names
MEMOQ = """<?xml version="1.0" encoding="utf-8"?>
<tmx version="1.4">
<header creationtool="MemoQ" creationtoolversion="9" segtype="sentence" o-tmf="MemoQTM"
 adminlang="en-us" srclang="en-us" datatype="unknown"/>
<body>
<tu changedate="20240105T120000Z" creationdate="20240105T120000Z" creationid="PM"
 changeid="PM">
  <prop type="client">Globex</prop><prop type="project">Contracts 2024</prop>
  <prop type="domain">Legal</prop><prop type="corrected">no</prop>
  <tuv xml:lang="en-us"><seg>This agreement is binding.</seg></tuv>
  <tuv xml:lang="de-de"><seg>Dieser Vertrag ist bindend.</seg></tuv>
</tu>
</body>
</tmx>
"""


def _write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


def _units(path: Path) -> list[dict[str, Any]]:
    """Every tu of a TMX as plain data: attributes, notes, props, tuvs (lang, attrs, notes,
    props, text) — what a round trip must keep."""

    def annotations(elem: ET.Element) -> dict[str, Any]:
        def kids(tag: str) -> list[tuple[str, dict[str, str]]]:
            return [(c.text or "", dict(c.attrib)) for c in elem if c.tag == tag]

        return {"notes": kids("note"), "props": kids("prop")}

    out = []
    for tu in ET.parse(path).getroot().iter("tu"):
        tuvs = []
        for tuv in tu.iter("tuv"):
            attrs = dict(tuv.attrib)
            lang = attrs.pop(XML)
            seg = tuv.find("seg")
            text = " ".join("".join(seg.itertext()).split()) if seg is not None else ""
            tuvs.append((normalize_lang(lang), attrs, annotations(tuv), text))
        out.append({"attrs": dict(tu.attrib), **annotations(tu), "tuvs": tuvs})
    return out


def test_tags_are_normalised_as_written_and_filters_match_prefixes() -> None:
    assert [normalize_lang(t) for t in ("en-gb", "zh-hant-tw", "EN_us", "deu", "pt-br")] == [
        "en-GB",
        "zh-Hant-TW",
        "en-US",
        "de",
        "pt-BR",
    ]
    assert normalize_lang("ja-JP-mac") == "ja-JP-mac" and normalize_lang("*all*") is None
    stored = ["en", "en-GB", "en-US", "eng-x", "zh", "zh-Hant", "zh-TW", "zh-HK", "zh-CN"]
    stored += ["zh-Hant-TW", "zh-SG", "pt-BR"]

    def hits(f: str) -> list[str]:
        return [t for t in stored if tag_matches(normalize_lang(f) or f, t)]

    assert hits("en") == ["en", "en-GB", "en-US"]
    assert hits("EN-gb") == ["en-GB"]
    assert hits("zh-Hant") == ["zh-Hant", "zh-TW", "zh-HK", "zh-Hant-TW"]
    assert hits("zh-Hans") == ["zh-CN", "zh-SG"]  # a bare zh does not say its script
    assert hits("zh-TW") == ["zh-TW", "zh-Hant-TW"]
    assert hits("zh") == ["zh", "zh-Hant", "zh-TW", "zh-HK", "zh-CN", "zh-Hant-TW", "zh-SG"]
    assert hits("pt") == ["pt-BR"] and hits("pt-PT") == []


def test_variants_are_kept_found_by_prefix_and_exported_with_their_tags(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.import_file(_write(tmp_path, "trados.tmx", TRADOS), "tm")
        unit = store.translations(["1:0"])["1:0"]
        assert [s["lang"] for s in unit] == [
            "en-US",
            "en-GB",
            "de-DE",
            "zh-Hant-TW",
            "zh-TW",
            "zh-CN",
            "pt-BR",
        ]
        langs = store.languages("tm")
        assert langs["en-US"] == 2 and langs["de-DE"] == 2 and langs["en-GB"] == 1
        assert store.collections()[0]["languages"]["zh-Hant-TW"] == 1

        def texts(langs: list[str]) -> list[str]:
            return [s["lang"] for s in store.segments(store.segment_ids(langs=langs))]

        assert texts(["en"]) == ["en-US", "en-GB", "en-US"]
        assert texts(["zh-Hant"]) == ["zh-Hant-TW", "zh-TW"]
        assert texts(["zh-Hans"]) == ["zh-CN"]
        assert texts(["en-GB", "pt"]) == ["en-GB", "pt-BR"]
        hits = store.fts_search("power", langs=["en-GB"])
        assert [store.segments([i])[0]["lang"] for i, _ in hits] == ["en-GB"]

        out = tmp_path / "out.tmx"
        write_units(out, iter_store_units(store, "tm"))
        tags = [
            [normalize_lang(t.get(XML)) for t in tu.iter("tuv")] for tu in ET.parse(out).iter("tu")
        ]
        assert tags[0] == ["en-US", "en-GB", "de-DE", "zh-Hant-TW", "zh-TW", "zh-CN", "pt-BR"]
        tsv = tmp_path / "out.tsv"
        assert (
            write_units(tsv, iter_store_units(store, "tm", ["en-GB", "de"]), langs=["en-GB", "de"])
            == 1
        )
        assert tsv.read_text(encoding="utf-8") == (
            "Press the power button, please.\tDrücken Sie den Netzschalter.\n"
        )


@pytest.mark.parametrize("fixture", [OMEGAT, TRADOS, MEMOQ], ids=["omegat", "trados", "memoq"])
def test_tmx_round_trip_is_exact(tmp_path: Path, fixture: str) -> None:
    src = _write(tmp_path, "in.tmx", fixture)
    out = tmp_path / "out.tmx"
    with Store(tmp_path / "s.db") as store:
        store.import_file(src, "a")
        write_units(out, iter_store_units(store, "a"))
        store.import_file(out, "b")
        again = tmp_path / "again.tmx"
        write_units(again, iter_store_units(store, "b"))
    assert _units(out) == _units(src)
    assert again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


def test_unit_metadata_is_stored_and_shown(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.import_file(_write(tmp_path, "omegat.tmx", OMEGAT), "o")
        store.import_file(_write(tmp_path, "trados.tmx", TRADOS), "t")
        meta = store.unit_meta(["1:0", "1:1", "2:0", "2:1"])
    # OmegaT: dates and users from the target tuv
    assert meta["1:0"]["changed"] == "2024-01-15T09:30:00Z" and meta["1:0"]["changed_by"] == "anna"
    assert meta["1:0"]["created"] == "2024-01-10T08:00:00Z"
    assert meta["1:1"]["props"] == [
        {"type": "file", "text": "manual/intro.html"},
        {"type": "id", "text": "intro-3"},
    ]
    assert meta["1:1"]["notes"] == [{"text": "Context-specific translation"}]
    t = meta["2:0"]
    assert (t["created"], t["created_by"]) == ("2023-11-05T14:12:10Z", "GLOBAL\\jsmith")
    assert (t["changed"], t["changed_by"]) == ("2024-03-02T10:15:00Z", "GLOBAL\\mkeller")
    assert t["attrs"]["usagecount"] == "3"
    # never changed: the creation counts as the last change
    assert (meta["2:1"]["changed"], meta["2:1"]["changed_by"]) == (
        "2022-10-01T09:00:00Z",
        "GLOBAL\\jsmith",
    )


def test_metadata_filters_apply_before_ranking(tmp_path: Path) -> None:
    from xlsearch.engine.search.searcher import Searcher

    with Store(tmp_path / "s.db") as store:
        for name, text in (("t.tmx", TRADOS), ("m.tmx", MEMOQ), ("o.tmx", OMEGAT)):
            store.import_file(_write(tmp_path, name, text), "tm")

        def units(**kw: Any) -> set[str]:
            where = kw.pop("where", ())
            f = UnitFilter.build(where, **kw)
            return {s["tu_id"] for s in store.segments(store.segment_ids(units=f))}

        assert units(where=["client=ACME"]) == {"1:0"}
        assert units(where=["client=globex"]) == {"1:1", "2:0"}
        assert units(where=["x-Client=Globex", "domain=legal"]) == {"2:0"}
        assert units(where=["project=Website"]) == {"1:0"}  # one of several values
        assert units(where=["client=ACME", "client=Globex"]) == {"1:0", "1:1", "2:0"}
        assert units(where=["project=contracts*"]) == {"2:0"}
        assert units(where=["note=*specific*"]) == {"3:1"}
        assert units(where=["file=manual/intro.html"]) == {"3:1"}
        assert units(changed_after="2024-01-01") == {"1:0", "2:0", "3:0"}
        assert units(changed_after="2024-01-01", changed_before="2024-02-01") == {"2:0", "3:0"}
        assert units(created_before="2023-01-01") == {"1:1"}
        assert units(changed_by=["anna"]) == {"3:0"}
        assert units(created_by=["GLOBAL\\jsmith"], where=["client=acme"]) == {"1:0"}
        assert units(where=["tuid=nothing"]) == set()
        f = UnitFilter.parse("client=Globex changed>=2024-01-01")
        assert (f.where, f.changed_after) == ((("client", "Globex"),), "2024-01-01T00:00:00Z")

        s = Searcher(store)  # lexical needs no model
        globex = UnitFilter.build(["client=globex"])
        hits = s.search("agreement", 10, mode="lexical", units=globex)
        assert [h.text for h in hits] == ["This agreement is binding."]
        assert hits[0].unit["props"][0] == {"type": "client", "text": "Globex"}
        both = s.search("binding bindend", 10, mode="lexical", langs=["de"])
        assert [h.lang for h in both] == ["de-DE"]
    for bad in (["client"], ["=x"]):
        with pytest.raises(ConfigError, match="KEY=VALUE"):
            UnitFilter.build(bad)
    with pytest.raises(ConfigError, match="not a date"):
        UnitFilter.build(changed_after="yesterday")
    assert parse_date("11/14/2019 10:20:29") == "2019-11-14T10:20:29Z"
    assert parse_date("2024-01-31T10:15:00+02:00") == "2024-01-31T08:15:00Z"


XLIFF_FILES = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="a.html" source-language="en-US" target-language="de-DE" datatype="html">
<body>
<trans-unit id="a1"><source>Save the file before closing.</source>
<target>Speichern Sie die Datei vor dem Schließen.</target>
<note from="reviewer">Formal register</note></trans-unit>
</body></file>
<file original="b.html" source-language="en-US" datatype="html">
<body>
{units}
</body></file>
</xliff>
"""
FRENCH = [
    ("Close this dialog box.", "Fermez cette boîte de dialogue."),
    ("Cancel", "Annuler"),
    ("OK", "OK"),
    ("The printer is out of paper.", "L'imprimante n'a plus de papier."),
    ("Open the settings", "Ouvrez les paramètres"),
    ("Yes", "Oui"),
    ("Search results", "Résultats de la recherche"),
    ("Delete all messages in this folder?", "Supprimer tous les messages de ce dossier ?"),
]


def _xliff_files() -> str:
    units = "\n".join(
        f'<trans-unit id="b{i}"><source>{s}</source><target>{t}</target></trans-unit>'
        for i, (s, t) in enumerate(FRENCH)
    )
    return XLIFF_FILES.format(units=units)


def test_xliff_file_without_target_language_gets_one_guess(tmp_path: Path) -> None:
    path = _write(tmp_path, "two.xlf", _xliff_files())
    with Store(tmp_path / "s.db") as store:
        store.import_file(path, "x")
        by_lang = store.languages("x")
        # the 2nd <file> does not inherit de-DE, and all its targets get one guess
        assert by_lang == {"en-US": 9, "fr": 8, "de-DE": 1}
        store.import_file(path, "y", langs="en,fr")  # --lang names what the file leaves out
        assert store.languages("y") == {"en-US": 9, "fr": 8}
        store.import_file(path, "z", langs="en,fr-CA,es")  # identification among --lang
        assert store.languages("z") == {"en-US": 9, "fr-CA": 8}
        store.import_file(path, "w", langs="en")  # identified as French: left out
        assert store.languages("w") == {"en-US": 9}
        meta = store.unit_meta(["1:0"])["1:0"]
        assert meta["tuid"] == "a1" and meta["notes"] == [
            {"text": "Formal register", "from": "reviewer"}
        ]


def test_tsv_column_without_header_gets_one_guess(tmp_path: Path) -> None:
    rows = [("The house is big.", "Das Haus ist groß."), ("Yes", "Ja"), ("No", "Nein")]
    rows += [("Cancel", "Abbrechen"), ("Good morning, everyone.", "Guten Morgen zusammen.")]
    rows += [("OK", "OK"), ("Paris", "Paris")]
    tsv = _write(tmp_path, "a.tsv", "".join(f"{a}\t{b}\n" for a, b in rows))
    with Store(tmp_path / "s.db") as store:
        store.import_file(tsv, "t")
        assert store.languages("t") == {"de": 7, "en": 7}
        store.import_file(tsv, "u", langs="en-GB,de-CH")  # --lang sets the columns
        assert store.languages("u") == {"de-CH": 7, "en-GB": 7}


XLIFF_TOOLS = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"
 xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" xmlns:mq="MQXliff">
<file original="c.docx" source-language="en-US" target-language="it-IT"
 datatype="x-sdlfilterframework2">
<body>
<trans-unit id="t1">
<source>Switch off the device.</source><target>Spegnere il dispositivo.</target>
<sdl:seg-defs><sdl:seg id="1" conf="Translated" origin="interactive">
<sdl:value key="created_by">ROME\\lucia</sdl:value>
<sdl:value key="created_on">11/14/2019 10:20:29</sdl:value>
<sdl:value key="last_modified_by">ROME\\marco</sdl:value>
<sdl:value key="modified_on">03/02/2024 08:00:00</sdl:value>
</sdl:seg></sdl:seg-defs></trans-unit>
<trans-unit id="t2" mq:status="ManuallyConfirmed" mq:lastchangedtimestamp="2024-05-06T07:08:09Z"
 mq:lastchanginguser="giulia"><source>Unplug it.</source><target>Scollegarlo.</target>
</trans-unit>
</body></file></xliff>
"""
XLIFF2 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="pt-br"
 xmlns:mda="urn:oasis:names:tc:xliff:metadata:2.0">
<file id="f1"><unit id="u1">
<mda:metadata><mda:metaGroup category="tm"><mda:meta type="client">ACME</mda:meta>
</mda:metaGroup></mda:metadata>
<notes><note category="context">Button label</note></notes>
<segment><source>Start</source><target>Iniciar</target></segment></unit></file>
<file id="f2"><unit id="u2"><segment><source>Stop</source><target>Parar</target></segment>
</unit></file></xliff>
"""


def test_xliff_metadata_sdl_memoq_and_20(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.import_file(_write(tmp_path, "a.sdlxliff", XLIFF_TOOLS), "s")
        store.import_file(_write(tmp_path, "b.xlf", XLIFF2), "x")
        meta = store.unit_meta(["1:0", "1:1", "2:0"])
        assert store.languages("x") == {"en": 2, "pt-BR": 2}  # 2.0: both files from <xliff>
        ids = store.segment_ids(units=UnitFilter.build(changed_by=["ROME\\marco"]))
        assert {s["tu_id"] for s in store.segments(ids)} == {"1:0"}
    sdl, mq, x2 = meta["1:0"], meta["1:1"], meta["2:0"]
    assert (sdl["created"], sdl["created_by"]) == ("2019-11-14T10:20:29Z", "ROME\\lucia")
    assert (sdl["changed"], sdl["changed_by"]) == ("2024-03-02T08:00:00Z", "ROME\\marco")
    assert {"type": "sdl-conf", "text": "Translated"} in sdl["props"]
    assert (mq["changed"], mq["changed_by"]) == ("2024-05-06T07:08:09Z", "giulia")
    assert x2["props"] == [{"type": "client", "text": "ACME"}]
    assert x2["notes"] == [{"text": "Button label", "category": "context"}]


def test_a_store_of_the_old_schema_is_migrated(tmp_path: Path) -> None:
    from helpers.store import old_store

    db = tmp_path / "old.db"
    conn = old_store(db, 1)
    conn.execute("INSERT INTO collections (name, created_at) VALUES ('old', 'then')")
    conn.execute(
        "INSERT INTO documents (collection_id, path, format, sha256, imported_at, "
        "segment_count, languages) VALUES (1, '/x.tmx', 'tmx', 'abc', 'then', 2, ?)",
        (json.dumps({"en": 1, "de": 1}),),
    )
    for pos, (lang, text) in enumerate((("en", "Old hello"), ("de", "Altes Hallo"))):
        conn.execute(
            "INSERT INTO segments (document_id, position, lang, text, text_hash, tu_id, meta) "
            "VALUES (1, ?, ?, ?, ?, '1:0', ?)",
            (pos, lang, text, f"h{pos}", json.dumps({"tuid": "7"})),
        )
    vector = np.arange(4, dtype=np.float32).tobytes()
    conn.execute("INSERT INTO embeddings VALUES ('m#1', 'h0', ?)", (vector,))
    conn.close()
    with Store(db) as store:
        assert store.conn.execute("SELECT MAX(version) FROM _migrations").fetchone()[0] == LATEST
        # the vector cache survives its move to a rowid table, and stays unique per key
        assert store.conn.execute(
            "SELECT model_id, text_hash, vector FROM embeddings"
        ).fetchall() == [("m#1", "h0", vector)]
        with pytest.raises(sqlite3.IntegrityError):
            store.conn.execute("INSERT INTO embeddings VALUES (NULL, 'm#1', 'h0', x'00')")
        assert [s["text"] for s in store.segments(store.segment_ids(langs=["de"]))] == [
            "Altes Hallo"
        ]
        assert store.unit_meta(["1:0"]) == {}
        units = list(iter_store_units(store, "old", ["en", "de"]))
        assert units[0].segments == [("en", "Old hello"), ("de", "Altes Hallo")]
        store.import_file(_write(tmp_path, "m.tmx", MEMOQ), "old")
        assert store.languages("old") == {"de": 1, "de-DE": 1, "en": 1, "en-US": 1}
        ids = store.segment_ids(langs=["de"], units=UnitFilter.build(["domain=legal"]))
        assert [s["text"] for s in store.segments(ids)] == ["Dieser Vertrag ist bindend."]
        store.delete_collection("old")
        assert store.conn.execute("SELECT COUNT(*) FROM units").fetchone()[0] == 0
        assert store.conn.execute("SELECT COUNT(*) FROM unit_fields").fetchone()[0] == 0


def test_reimport_after_metadata_change_updates_filters(tmp_path: Path) -> None:
    path = _write(tmp_path, "m.tmx", MEMOQ)
    with Store(tmp_path / "s.db") as store:
        store.import_file(path, "m")
        gen = store.generation()
        f = UnitFilter.build(["client=Initech"])
        assert len(store.segment_ids(units=f)) == 0
        path.write_text(MEMOQ.replace("Globex", "Initech"), encoding="utf-8")
        report = store.import_file(path, "m")
        assert (report.status, report.added, report.removed) == ("updated", 0, 0)
        assert store.generation() > gen  # cached filter results are not reused
        assert len(store.segment_ids(units=f)) == 2
        assert store.conn.execute("SELECT COUNT(*) FROM units").fetchone()[0] == 1


def test_cli_search_and_export_filters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from xlsearch.cli import main

    for name, text in (("t.tmx", TRADOS), ("m.tmx", MEMOQ)):
        assert main(["import", str(_write(tmp_path, name, text)), "-c", "tm", "-q"]) == 0
    capsys.readouterr()
    assert main(["collections", "--json"]) == 0
    (col,) = json.loads(capsys.readouterr().out)
    assert col["languages"]["zh-Hant-TW"] == 1 and col["languages"]["en-US"] == 3

    args = ["search", "Drücken OR Dieser", "--mode", "lexical", "--lang", "de"]
    assert main([*args, "--where", "client=Globex", "--json"]) == 0
    hits = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [h["text"] for h in hits] == ["Dieser Vertrag ist bindend."]
    assert hits[0]["lang"] == "de-DE" and hits[0]["unit"]["changed_by"] == "PM"
    assert main(["search", "Netzschalter", "--mode", "lexical", "--changed-after", "2024-03"]) == 0
    out = capsys.readouterr().out
    assert "Drücken Sie den Netzschalter." in out
    assert "changed 2024-03-02 by GLOBAL\\mkeller" in out
    assert "x-Client:SinglePicklist: ACME · x-Project:MultiplePicklist: Manuals" in out
    assert main(["search", "Netzschalter", "--mode", "lexical", "--created-by", "PM"]) == 0
    assert capsys.readouterr().out.strip() == "no hits"
    assert main(["search", "x", "--mode", "lexical", "--changed-before", "soon"]) == 2
    assert "not a date: 'soon'" in capsys.readouterr().err

    out_tmx = tmp_path / "globex.tmx"
    assert main(["export", str(out_tmx), "-c", "tm", "--where", "client=globex"]) == 0
    assert [u["attrs"].get("creationid") for u in _units(out_tmx)] == ["GLOBAL\\jsmith", "PM"]
    out_tsv = tmp_path / "en-de.tsv"
    assert (
        main(["export", str(out_tsv), "-c", "tm", "--lang", "en,de", "--where", "domain=legal"])
        == 0
    )
    assert out_tsv.read_text(encoding="utf-8") == (
        "This agreement is binding.\tDieser Vertrag ist bindend.\n"
    )


def test_reimport_after_upgrade_restores_full_tags(tmp_path: Path) -> None:
    path = _write(tmp_path, "t.tmx", TRADOS)
    with Store(tmp_path / "s.db") as store:
        store.import_file(path, "tm")
        # what an older xlsearch left: primary tags, no reader version in the options
        store.conn.execute("UPDATE segments SET lang = substr(lang, 1, 2)")
        store.conn.execute("UPDATE documents SET options = '{}'")
        store.conn.execute("DELETE FROM units")
        report = store.import_file(path, "tm")
        assert report.status == "updated"
        assert "zh-Hant-TW" in store.languages("tm") and "zh" not in store.languages("tm")
        assert store.unit_meta(["1:0"])["1:0"]["changed_by"] == "GLOBAL\\mkeller"


def test_sdlxliff_seg_source_sentences_get_their_own_seg_defs(tmp_path: Path) -> None:
    from xlsearch.engine.importers import ReadContext, read_records

    xlf = XLIFF_TOOLS.replace(
        "<source>Switch off the device.</source><target>Spegnere il dispositivo.</target>",
        '<source>Switch off. Unplug.</source><seg-source><mrk mtype="seg" mid="1">Switch off.'
        '</mrk> <mrk mtype="seg" mid="2">Unplug.</mrk></seg-source><target><mrk mtype="seg" '
        'mid="1">Spegnere.</mrk> <mrk mtype="seg" mid="2">Scollegare.</mrk></target>',
    ).replace(
        "</sdl:seg></sdl:seg-defs>",
        '</sdl:seg><sdl:seg id="2" conf="Draft"><sdl:value key="modified_on">01/02/2025 '
        "03:04:05</sdl:value></sdl:seg></sdl:seg-defs>",
    )
    recs = list(read_records(ReadContext(_write(tmp_path, "s.sdlxliff", xlf)), "xliff"))
    first, second = recs[0].unit, recs[2].unit
    assert (recs[0].text, recs[2].text) == ("Switch off.", "Unplug.")
    assert first["props"] == [
        {"type": "sdl-conf", "text": "Translated"},
        {"type": "sdl-origin", "text": "interactive"},
    ]
    assert first["changed"] == "03/02/2024 08:00:00" and second["changed"] == "01/02/2025 03:04:05"
    assert second["props"] == [{"type": "sdl-conf", "text": "Draft"}]


def test_xliff_export_names_units_by_their_tuid(tmp_path: Path) -> None:
    tmx = TRADOS.replace(
        '<tu creationdate="20221001T090000Z"', '<tu tuid="save-1" creationdate="20221001T090000Z"'
    )
    with Store(tmp_path / "s.db") as store:
        store.import_file(_write(tmp_path, "t.tmx", tmx), "tm")
        out = tmp_path / "out.xlf"
        assert (
            write_units(out, iter_store_units(store, "tm", ["en-US", "de"]), langs=["en-US", "de"])
            == 2
        )
    names = [
        u.get("resname")
        for u in ET.parse(out).iter("{urn:oasis:names:tc:xliff:document:1.2}trans-unit")
    ]
    assert names == [None, "save-1"]


def test_a_language_name_instead_of_a_code_is_an_error_with_the_fix() -> None:
    from xlsearch.engine.errors import DataError
    from xlsearch.engine.importers.base import langs_option

    with pytest.raises(DataError) as info:
        langs_option("en,english")
    assert "'english'" in str(info.value) and "de-DE" in str(info.value.hint)
