"""A TMX unit's context prop is read whatever the case of its type (``x-Context`` as tools
write it, ``x-context`` as xlsearch exports it): a job unit with that ``resname`` gets its
101 % match."""

from __future__ import annotations

from pathlib import Path

import pytest

TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4">
  <header creationtool="SDLTM Export" creationtoolversion="8.0" o-tmf="SDL TM8 Format"
          datatype="xml" segtype="sentence" adminlang="en-US" srclang="en-US"/>
  <body>
    <tu tuid="104"><prop type="{prop}">wifi.status</prop>
      <tuv xml:lang="en-US"><seg>Connected</seg></tuv>
      <tuv xml:lang="it-IT"><seg>Connesso</seg></tuv></tu>
  </body>
</tmx>
"""
XLF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="ui.properties" source-language="en-US" target-language="it-IT"
        datatype="x-properties"><body>
    <trans-unit id="1" resname="wifi.status"><source>Connected</source></trans-unit>
  </body></file>
</xliff>
"""


@pytest.mark.parametrize("prop", ["x-context", "x-Context", "X-CONTEXT"])
def test_the_context_prop_is_read_in_any_case(tmp_path: Path, prop: str) -> None:
    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.analysis.analyze import analyze
    from xlsearch.engine.tm.documents import open_document
    from xlsearch.engine.tm.matching.lookup import Lookup

    tmx, job = tmp_path / "mem.tmx", tmp_path / "job.xlf"
    tmx.write_text(TMX.replace("{prop}", prop), encoding="utf-8")
    job.write_text(XLF, encoding="utf-8")
    with Store() as store:
        store.import_file(tmx, "tm")
        rep = analyze(open_document(job), Lookup(store, None, collection="tm", semantic=False))
    assert rep.segments[0].band == "101%"
