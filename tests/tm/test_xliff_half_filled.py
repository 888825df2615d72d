"""An XLIFF 1.2 unit of two sentences of which the memory translates one: the unit's target
holds one sentence and an empty segment, so it is neither an exact match nor translated."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

MEMORY = (
    'msgid ""\nmsgstr ""\n"Language: it\\n"\n\n'
    'msgid "Do not turn off the router during the update."\n'
    'msgstr "Non spegnere il router durante l\'aggiornamento."\n'
)
JOB = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="ui.properties" source-language="en" target-language="it" datatype="x-properties">
    <body>
      <trans-unit id="7" resname="fw.warning">
        <source>Do not turn off the router during the update.<x id="2" ctype="lb"/>This can take several minutes.</source>
      </trans-unit>
    </body>
  </file>
</xliff>
"""  # noqa: E501


def test_a_half_filled_unit_is_no_exact_match_nor_translated(tmp_path: Path) -> None:
    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.analysis.analyze import analyze
    from xlsearch.engine.tm.analysis.pretranslate import pretranslate
    from xlsearch.engine.tm.documents import open_document
    from xlsearch.engine.tm.matching.lookup import Lookup

    mem, job = tmp_path / "mem.it.po", tmp_path / "job.xlf"
    mem.write_text(MEMORY, encoding="utf-8")
    job.write_text(JOB, encoding="utf-8")
    with Store() as store:
        store.import_file(mem, "tm")
        doc = open_document(job)
        rep = analyze(doc, Lookup(store, None, collection="tm", semantic=False))
        assert pretranslate(doc, rep) == 1
        out = doc.save(tmp_path / "pre.xlf")
        target = etree.parse(str(out)).getroot().find(".//{*}trans-unit/{*}target")
        assert "Non spegnere" in "".join(target.itertext())
        assert target.get("state-qualifier") is None, target.attrib
        assert target.get("state") == "needs-review-translation"
        filled = next(s for s in doc.segments if s.target)
        filled.confirmed = True  # the translator confirms the one sentence, not the unit
        filled.changed = True
        out = doc.save(tmp_path / "conf.xlf")
        target = etree.parse(str(out)).getroot().find(".//{*}trans-unit/{*}target")
        assert target.get("state") == "needs-review-translation", target.attrib
