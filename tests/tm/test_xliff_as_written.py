# ruff: noqa: E501  (the fixture's tags on one line each, as Okapi writes them)
"""A pre-translated XLIFF comes back written as the CAT tool wrote it: its BOM, its CRLF line
ends and its XML declaration kept, so only the filled units differ (lxml's own
serialisation changed every line of a Windows tool's file). lxml still writes the root's
namespace declarations first and empty elements short: those lines may differ too."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from xlsearch.engine.tm.documents import open_document

# As Okapi Rainbow writes an XLIFF on Windows: double-quoted declaration, CRLF.
OKAPI = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:okp="okapi-framework:xliff-extensions">
<file original="ui.properties" source-language="en-US" target-language="de-DE" datatype="x-properties">
<body>
<trans-unit id="1" resname="save.hint">
<source xml:lang="en-US">Click <g id="1">Save</g> to keep your settings.</source>
<target xml:lang="de-DE"></target>
</trans-unit>
<trans-unit id="2" resname="menu.quit">
<source xml:lang="en-US">Quit</source>
<target xml:lang="de-DE" state="final">Beenden</target>
</trans-unit>
</body>
</file>
</xliff>
"""

# As Trados Studio saves an SDLXLIFF: a UTF-8 BOM, everything on one line.
TRADOS = (
    '<?xml version="1.0" encoding="utf-8"?><xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0"'
    ' xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2" sdl:version="1.0">'
    '<file original="manual.docx" datatype="x-sdlfilterframework2" source-language="en-US"'
    ' target-language="de-DE"><body><trans-unit id="a1"><source>Quit</source>'
    '<seg-source><mrk mtype="seg" mid="1">Quit</mrk></seg-source>'
    '<target><mrk mtype="seg" mid="1"></mrk></target>'
    '<sdl:seg-defs><sdl:seg id="1"/></sdl:seg-defs></trans-unit></body></file></xliff>'
)


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("ui.xlf", OKAPI.replace("\n", "\r\n").encode("utf-8")),
        ("manual.sdlxliff", codecs.BOM_UTF8 + TRADOS.encode("utf-8")),
    ],
)
def test_a_filled_xliff_keeps_its_bom_line_ends_and_declaration(
    tmp_path: Path, name: str, raw: bytes
) -> None:
    path = tmp_path / name
    path.write_bytes(raw)
    doc = open_document(path)
    head = raw[: raw.index(b"<xliff")]  # BOM, declaration and the line end after it
    assert doc.save(tmp_path / f"same-{name}").read_bytes().startswith(head + b"<xliff")
    first = next(i for i, s in enumerate(doc.segments) if not s.target)
    doc.set_target(first, "Beenden", quality=100, origin="fuzzy", match_source="Quit")
    out = doc.save(tmp_path / f"out-{name}").read_bytes()
    assert out.startswith(head + b"<xliff")
    assert out.count(codecs.BOM_UTF8) == raw.count(codecs.BOM_UTF8)
    if b"\r\n" in raw:
        assert b"\n" not in out.replace(b"\r\n", b"")  # every line end a CRLF
        before = set(raw.split(b"\r\n"))
        changed = [line for line in out.split(b"\r\n") if line not in before]
        kept = (b"<target", b"<alt-trans", b"<xliff")  # the fill; lxml's root element
        assert changed and all(c.startswith(kept) or b"<target" in c for c in changed), changed
    again = open_document(tmp_path / f"out-{name}")
    assert "Beenden" in [s.target for s in again.segments]


def test_a_repaired_fill_s_alt_trans_says_what_was_repaired(tmp_path: Path) -> None:
    """The alt-trans pairs the memory's source ("5 seconds") with the target fitted to this
    segment ("10 Sekunden"): a pair no memory holds. A note says what was done to it, as the
    PO comment and the report do; the file stays valid XLIFF 1.2."""
    from lxml import etree

    path = tmp_path / "ui.xlf"
    path.write_text(OKAPI.replace("Click <g id=\"1\">Save</g> to keep your settings.",
                                  "Press the power button for 10 seconds."), "utf-8")  # fmt: skip
    doc = open_document(path)
    doc.set_target(0, "Halten Sie die Taste 10 Sekunden lang gedrückt.", quality=98,
                   origin="fuzzy", match_source="Press the power button for 5 seconds.",
                   repairs=["repaired: numbers 10 (differs in numbers)"])  # fmt: skip
    out = doc.save(tmp_path / "ui.pre.xlf")
    root = etree.parse(str(out)).getroot()
    ns = {"x": "urn:oasis:names:tc:xliff:document:1.2"}
    alt = root.find(".//x:trans-unit[@id='1']/x:alt-trans", ns)
    assert alt.findtext("x:source", namespaces=ns) == "Press the power button for 5 seconds."
    assert alt.findtext("x:note", namespaces=ns) == "repaired: numbers 10 (differs in numbers)"
    schemas = Path(__file__).resolve().parents[1] / "schemas"
    schema = etree.XMLSchema(etree.parse(str(schemas / "xliff-1.2-subset.xsd")))
    assert schema.validate(etree.parse(str(out))), schema.error_log
