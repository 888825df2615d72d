"""XLIFF 1.2/2.0 export (collections, mined pairs, search hits) validated against the XLIFF
schemas, and round trips TMX → store → TMX/XLIFF that compare units and text exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from xlsearch.cli import main
from xlsearch.engine.errors import ConfigError
from xlsearch.engine.export.writer import write_pairs
from xlsearch.engine.importers import ReadContext, read_records

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"


def validate(path: Path, version: str) -> etree._ElementTree:
    """Parse ``path`` and validate it against the XLIFF ``version`` schema (subset)."""
    schema = etree.XMLSchema(etree.parse(str(SCHEMAS / f"xliff-{version}-subset.xsd")))
    doc = etree.parse(str(path))
    assert schema.validate(doc), schema.error_log.filter_from_errors()
    return doc


def units_of(path: Path, fmt: str) -> list[dict[str, str]]:
    """{lang: text} per unit, in file order, as xlsearch's importer reads the file."""
    out: dict[int, dict[str, str]] = {}
    for rec in read_records(ReadContext(path), fmt):
        out.setdefault(rec.tu, {})[rec.lang] = rec.text  # type: ignore[index]
    return [out[k] for k in sorted(out)]


TMX = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE tmx SYSTEM "tmx14.dtd">
<tmx version="1.4"><header creationtool="OmegaT" creationtoolversion="6" segtype="sentence"
 o-tmf="OmegaT TMX" adminlang="EN-US" srclang="en" datatype="plaintext"/>
<body>
<tu tuid="1"><tuv xml:lang="en"><seg>Close this<ph>&lt;br&gt;</ph>dialog box.</seg></tuv>
<tuv xml:lang="de"><seg>Schließen Sie<ph>&lt;br/&gt;</ph>dieses Fenster.</seg></tuv>
<tuv xml:lang="fr"><seg>Fermez cette<ph>\t</ph>fenêtre.</seg></tuv></tu>
<tu tuid="2"><tuv xml:lang="en"><seg>Press&nbsp;Enter &amp; wait for "5 &lt; 6" ☕.</seg></tuv>
<tuv xml:lang="de"><seg>Drücken Sie <bpt i="1">&lt;b&gt;</bpt>Enter<ept i="1">&lt;/b&gt;</ept> \
&amp; warten Sie auf „5 &lt; 6“ ☕.</seg></tuv></tu>
<tu tuid="3"><tuv xml:lang="en"><seg>See the logo<ph>&lt;img alt="<sub>Our logo.</sub>"&gt;\
</ph> above.</seg></tuv>
<tuv xml:lang="de"><seg>Siehe Logo<ph>&lt;img alt="<sub>Unser Logo.</sub>"&gt;</ph> oben.</seg>\
</tuv></tu>
<tu tuid="4"><tuv xml:lang="en"><seg>Only English here.</seg></tuv></tu>
<tu tuid="5"><tuv xml:lang="fr"><seg>Seulement français.</seg></tuv>
<tuv xml:lang="de"><seg>Nur Deutsch und Französisch.</seg></tuv></tu>
</body></tmx>
"""

EXPECTED = [
    {
        "en": "Close this dialog box.",
        "de": "Schließen Sie dieses Fenster.",
        "fr": "Fermez cette fenêtre.",
    },
    {
        "en": 'Press\u00a0Enter & wait for "5 < 6" ☕.',
        "de": "Drücken Sie Enter & warten Sie auf „5 < 6“ ☕.",
    },
    {"en": "See the logo above.", "de": "Siehe Logo oben."},
    {"en": "Our logo.", "de": "Unser Logo."},
    {"en": "Only English here."},
    {"fr": "Seulement français.", "de": "Nur Deutsch und Französisch."},
]


@pytest.fixture
def tm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "memory.tmx"
    path.write_text(TMX, encoding="utf-8")
    assert units_of(path, "tmx") == EXPECTED
    assert main(["import", str(path), "-c", "tm", "-q"]) == 0
    capsys.readouterr()
    return tmp_path


def test_tmx_store_tmx_round_trip_is_exact(tm: Path) -> None:
    out = tm / "out.tmx"
    assert main(["export", str(out), "-c", "tm"]) == 0
    assert units_of(out, "tmx") == EXPECTED
    again = tm / "again.tmx"  # and a second generation is byte-identical
    assert main(["import", str(out), "-c", "copy", "-q"]) == 0
    assert main(["export", str(again), "-c", "copy"]) == 0
    assert units_of(again, "tmx") == EXPECTED


def test_tmx_export_writes_back_the_codes_that_stood_for_whitespace(tm: Path) -> None:
    """A ``<ph>&lt;br/&gt;</ph>`` (or a tab code) between two sentences is a space of the
    text, so words never glue together; the export wrote that space, so the memory came
    back without the codes the CAT tool had written (while ``bpt``/``ept`` came back).
    They are written back where they stood."""
    out = tm / "out.tmx"
    assert main(["export", str(out), "-c", "tm"]) == 0
    xml = out.read_text("utf-8")
    assert "<seg>Close this<ph>&lt;br&gt;</ph>dialog box.</seg>" in xml
    assert "<seg>Schließen Sie<ph>&lt;br/&gt;</ph>dieses Fenster.</seg>" in xml
    assert "<seg>Fermez cette<ph>\t</ph>fenêtre.</seg>" in xml
    assert '<bpt i="1">&lt;b&gt;</bpt>Enter<ept i="1">&lt;/b&gt;</ept>' in xml
    assert units_of(out, "tmx") == EXPECTED  # the text as before


@pytest.mark.parametrize("version", ["1.2", "2.0"])
def test_collection_to_xliff_is_valid_and_exact(
    tm: Path, version: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tm / f"out-{version}.xlf"
    args = ["export", str(out), "-c", "tm", "--lang", "en,de", "--xliff-version", version]
    assert main(args) == 0
    assert "wrote 4 units" in capsys.readouterr().out
    doc = validate(out, version)
    pairs = [u for u in EXPECTED if "en" in u and "de" in u]
    assert units_of(out, "xliff") == [{"en": u["en"], "de": u["de"]} for u in pairs]
    root = doc.getroot()
    if version == "1.2":
        file = root[0]
        assert (file.get("source-language"), file.get("target-language")) == ("en", "de")
        from translate.storage import xliff  # the reference reader agrees

        store = xliff.xlifffile.parsefile(str(out))
        assert [(u.source, u.target) for u in store.units] == [(u["en"], u["de"]) for u in pairs]
    else:
        assert (root.get("srcLang"), root.get("trgLang")) == ("en", "de")


def test_xliff_export_needs_two_languages(tm: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(tm / "x.xliff"), "-c", "tm"]) == 2
    err = capsys.readouterr().err
    assert "XLIFF is bilingual: pass --lang SOURCE,TARGET" in err and "de, en, fr" in err
    assert main(["export", str(tm / "x.xliff"), "--lang", "en,de,fr"]) == 2
    assert main(["export", str(tm / "x.xliff"), "--lang", "en,ja"]) == 2
    assert "no unit has text in both en and ja; nothing written" in capsys.readouterr().err
    assert not (tm / "x.xliff").exists() and not list(tm.glob(".x.xliff*"))


@pytest.mark.parametrize("version", ["1.2", "2.0"])
def test_mined_pairs_to_xliff_keep_the_score(tmp_path: Path, version: str) -> None:
    out = tmp_path / "pairs.xliff"
    rows = [("Good <morning> & day", "Guten Morgen", 1.2345), ("Cat", "Katze", 1.1)]
    assert write_pairs(out, rows, "en", "de", xliff_version=version) == 2
    doc = validate(out, version)
    assert units_of(out, "xliff") == [
        {"en": "Good <morning> & day", "de": "Guten Morgen"},
        {"en": "Cat", "de": "Katze"},
    ]
    ns = {"x": f"urn:oasis:names:tc:xliff:document:{version}"}
    notes = [n.text for n in doc.iterfind(".//x:note", ns)]
    assert notes == (
        ["x-score: 1.2345", "x-score: 1.1000"] if version == "1.2" else ["1.2345", "1.1000"]
    )


def test_search_hits_to_xliff(tmp_path: Path) -> None:
    from xlsearch.service import Hit, MinedPair, write_export

    hits = [
        Hit(1, 0.9, "de", "Der Zug", translations={"en": "The train"}, tu_id="1:0"),
        Hit(2, 0.5, "de", "Nur Deutsch", tu_id="1:1"),
    ]
    out = tmp_path / "hits.xlf"
    assert write_export(hits, out) == 1
    doc = validate(out, "1.2")
    assert units_of(out, "xliff") == [{"de": "Der Zug", "en": "The train"}]
    assert doc.getroot()[0][1][0].get("resname") == "1:0"
    # the facade's writer (the TUI's export of marked hits or mined pairs)
    items = [
        Hit(1, 0.8, "en", "Dog", translations={"fr": "Chien"}),
        MinedPair(1, 2, "Cat", "Chat", "en", "fr", 1.3),
    ]
    assert write_export(items, str(tmp_path / "tui.xlf"), "xlf") == 2
    validate(tmp_path / "tui.xlf", "1.2")
    from xlsearch.service.jobs import JobsMixin  # LocalEngine's export (real engine)

    assert JobsMixin().export(items, str(tmp_path / "local.xliff"), "xliff") == 2
    validate(tmp_path / "local.xliff", "1.2")
    assert units_of(tmp_path / "local.xliff", "xliff") == [
        {"en": "Dog", "fr": "Chien"},
        {"en": "Cat", "fr": "Chat"},
    ]
    with pytest.raises(ConfigError, match="exactly two languages"):
        write_export(hits[1:], tmp_path / "one-language.xlf")


@pytest.mark.parametrize(
    "fixture", ["import-1.2", "import-2.0"], ids=["xliff-1.2-fixture", "xliff-2.0-fixture"]
)
def test_import_fixtures_are_valid_xliff(tmp_path: Path, fixture: str) -> None:
    """The hand-written import fixtures are themselves valid XLIFF (so the tests cover
    files a CAT tool could write, not invented syntax)."""
    from helpers.cat_files import XLIFF12, XLIFF20

    path = tmp_path / "f.xlf"
    path.write_text(XLIFF12 if fixture == "import-1.2" else XLIFF20, encoding="utf-8")
    validate(path, fixture.split("-")[1])


@pytest.mark.parametrize(
    ("version", "bad"),
    [
        ("1.2", "<trans-unit><source>no id</source></trans-unit>"),
        ("1.2", '<trans-unit id="1"><target>before source</target><source>x</source></trans-unit>'),
        (
            "1.2",
            '<trans-unit id="1"><source>x</source><target state="done">y</target></trans-unit>',
        ),
        ("2.0", '<unit id="u1"><segment state="done"><source>x</source></segment></unit>'),
        ("2.0", '<unit id="u1"><segment><target>y</target></segment></unit>'),
        ("2.0", '<unit id="u1"><segment><source>a<ph/></source></segment></unit>'),
    ],
)
def test_the_schemas_have_teeth(tmp_path: Path, version: str, bad: str) -> None:
    ns = f"urn:oasis:names:tc:xliff:document:{version}"
    if version == "1.2":
        doc = (
            f'<xliff version="1.2" xmlns="{ns}"><file original="f" source-language="en" '
            f'datatype="plaintext"><body>{bad}</body></file></xliff>'
        )
    else:
        doc = f'<xliff version="2.0" xmlns="{ns}" srcLang="en"><file id="f">{bad}</file></xliff>'
    path = tmp_path / "bad.xlf"
    path.write_text(doc, encoding="utf-8")
    with pytest.raises(AssertionError):
        validate(path, version)


def test_the_export_report_counts_one_unit_in_the_singular(tmp_path: Path) -> None:
    from xlsearch.engine.export.writer import ExportReport

    assert ExportReport(tmp_path / "a.tmx", 1).describe().startswith("wrote 1 unit to ")
    assert ExportReport(tmp_path / "a.tmx", 2).describe().startswith("wrote 2 units to ")


# A Poedit catalogue whose msgctxt tells two "Open"s apart (a menu verb, a door state).
CONTEXT_PO = """\
msgid ""
msgstr ""
"Project-Id-Version: doorbell 1.2\\n"
"Language: de\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

#: src/menu.c:10
msgctxt "menu"
msgid "Open"
msgstr "Öffnen"

#: src/door.c:22
msgctxt "door state"
msgid "Open"
msgstr "Offen"

#: src/door.c:30
msgid "Closed"
msgstr "Geschlossen"
"""


def test_a_po_context_travels_through_a_tmx_and_an_xliff_export(tmp_path: Path) -> None:
    """A PO ``msgctxt`` is exported as the TMX unit's ``x-context`` prop (and as the XLIFF
    ``resname``), and read back as the context: the two "Open" units stay two, and a job
    entry with ``msgctxt "door state"`` gets its own 101 % match from the re-imported
    memory (the units came out as twins)."""
    import polib

    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.analysis.analyze import analyze
    from xlsearch.engine.tm.analysis.pretranslate import pretranslate
    from xlsearch.engine.tm.documents import open_document
    from xlsearch.engine.tm.matching.lookup import Lookup

    po = tmp_path / "de.po"
    po.write_text(CONTEXT_PO, encoding="utf-8")
    assert main(["import", str(po), "-c", "po", "-q"]) == 0
    tmx, xlf = tmp_path / "mem.tmx", tmp_path / "mem.xlf"
    assert main(["export", str(tmx), "-c", "po"]) == 0
    assert main(["export", str(xlf), "-c", "po", "--lang", "en,de"]) == 0
    props = etree.parse(str(tmx)).getroot().findall(".//tu/prop[@type='x-context']")
    assert [p.text for p in props] == ["menu", "door state"]
    names = [u.get("resname") for u in validate(xlf, "1.2").getroot().iter("{*}trans-unit")]
    assert names == ["menu", "door state", None]
    job = tmp_path / "job.po"
    job.write_text(CONTEXT_PO.replace('"Offen"', '""').replace('"Öffnen"', '""'), "utf-8")
    for exported in (tmx, xlf):
        with Store() as store:
            store.import_file(exported, exported.suffix)
            doc = open_document(job)
            rep = analyze(doc, Lookup(store, None, collection=exported.suffix, semantic=False))
            pretranslate(doc, rep)
            out = doc.save(tmp_path / f"job{exported.suffix}.po")
        got = {(e.msgctxt, e.msgid): e.msgstr for e in polib.pofile(str(out))}
        assert got[("door state", "Open")] == "Offen", exported.name
        assert got[("menu", "Open")] == "Öffnen", exported.name
        assert [s.band for s in rep.segments[:2]] == ["101%", "101%"], exported.name
