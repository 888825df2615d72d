# ruff: noqa: E501  (the fixture as Okapi writes it, a tag a line)
"""The Translate screen's check (ctrl+k) counts an XLIFF target's inline codes as the save
writes them: a fill that cannot place the source's line-break code is an error in the app,
as ``xlsearch check`` on the saved file says (the app said "0 errors")."""

from __future__ import annotations

from pathlib import Path

from xlsearch.engine.tm.documents import open_document
from xlsearch.service.qa import check_document

# As Okapi extracts a .properties file: a line-break code, a bold label.
JOB = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="ui.properties" source-language="en-US" target-language="de-DE" datatype="x-properties">
<body>
<trans-unit id="1" resname="restart.hint">
<source>Restart the router<x id="2" ctype="lb"/>after the update.</source>
</trans-unit>
<trans-unit id="2" resname="save.hint">
<source>Click <g id="1" ctype="bold">Save</g> to keep your settings.</source>
</trans-unit>
</body>
</file>
</xliff>
"""


def test_the_in_app_check_sees_a_code_the_save_cannot_place(tmp_path: Path) -> None:
    path = tmp_path / "ui.xlf"
    path.write_text(JOB, encoding="utf-8")
    doc = open_document(path)
    doc.set_target(0, "Starten Sie den Router nach dem Update neu.", quality=99, origin="fuzzy")
    doc.set_target(1, "Klicken Sie auf Save, um Ihre Einstellungen zu behalten.", quality=100,
                   origin="fuzzy")  # fmt: skip
    report = check_document(doc)
    tags = [f for f in report.flags if f.kind == "tags"]
    assert [(f.segment, f.severity) for f in tags] == [(0, "error")]  # <g> goes around "Save"
