"""A PO job pre-translated from a PO memory, as the tm tests set one up (fuzzy matching)."""

from __future__ import annotations

from pathlib import Path

from xlsearch.engine.store import Store
from xlsearch.engine.tm.analysis.analyze import analyze
from xlsearch.engine.tm.analysis.pretranslate import pretranslate
from xlsearch.engine.tm.analysis.results import Analysis
from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.matching.lookup import Lookup


def pretranslate_po(
    tmp_path: Path, memory: str, job: str, lang: str, out: str = ""
) -> tuple[Analysis, int, Path]:
    """Write ``memory`` and ``job`` as ``mem.LANG.po`` and ``job.LANG.po``, import the memory,
    analyse and pre-translate the job; return the analysis, the fills and the saved file
    (``out``, else ``out.LANG.po``: a ``.xlf`` name saves it as XLIFF 2.0)."""
    (tmp_path / f"mem.{lang}.po").write_text(memory, encoding="utf-8")
    (tmp_path / f"job.{lang}.po").write_text(job, encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        store.import_file(tmp_path / f"mem.{lang}.po", "mem")
        doc = open_document(tmp_path / f"job.{lang}.po")
        rep = analyze(doc, Lookup(store, None, collection="mem", semantic=False))
        filled = pretranslate(doc, rep)
        saved = doc.save(tmp_path / (out or f"out.{lang}.po"))
    return rep, filled, saved
