"""The translate calls of ``FakeEngine``: CAT fuzzy lookup over its in-memory units (no
model, so no semantic scores), real document reading/writing and analysis."""

from __future__ import annotations

from typing import Any

from xlsearch.engine.lang.tags import primary
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback
from xlsearch.engine.tm import fuzzy as fz


class _FakeLookup:
    """What ``analysis.analyze`` needs of a ``Lookup``, over the fake engine's segments."""

    semantic = False

    def __init__(self, engine: Any, collection: str | None) -> None:
        self.engine = engine
        self.collection = collection

    def lookup(self, segment: str, src: str, tgt: str = "", k: int = 5) -> Any:
        from xlsearch.engine.tm.lookup import LookupResult, Match

        segment = " ".join(segment.split())
        eng = self.engine
        matches = []
        for s in eng.segments.values():
            doc = eng.docs[s.doc]
            if primary(s.lang) != primary(src) or (
                self.collection and doc.collection != self.collection
            ):
                continue
            f = fz.fuzzy(segment, s.text)
            if f < 50:
                continue
            unit = {t.lang: t.text for t in eng._unit_segments(s.unit) if t.id != s.id}
            matches.append(
                Match(
                    s.id,
                    s.text,
                    s.lang,
                    unit.get(tgt, ""),
                    tgt,
                    f,
                    None,
                    float(f),
                    fz.diff(segment, s.text),
                    fz.flags(segment, s.text),
                    False,
                    unit,
                    doc.collection,
                    doc.name,
                )
            )
        matches.sort(key=lambda m: (-m.fuzzy, m.segment_id))
        return LookupResult(segment, src, tgt, matches[:k], [])

    def lookup_many(
        self,
        segments: list[str],
        src: str,
        tgt: str = "",
        k: int = 1,
        cross_k: int = 1,
        *,
        require_target: bool = False,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[Any]:
        out = []
        for i, seg in enumerate(segments):
            if cancel is not None:
                cancel.raise_if_cancelled()
            res = self.lookup(seg, src, tgt, k)
            if require_target:
                res.matches = [m for m in res.matches if m.target]
            out.append(res)
            if on_progress:
                on_progress(Progress("lookup", i + 1, len(segments)))
        return out


class FakeLookupMixin:
    """``lookup``, ``open_document``, ``analyze`` and ``save_document`` for ``FakeEngine``."""

    def lookup(
        self,
        segment: str,
        src: str,
        tgt: str = "",
        collection: str | None = None,
        k: int = 5,
        *,
        doc_segment: Any = None,
    ) -> Any:
        from xlsearch.engine.tm.analysis import tag_penalty

        self.calls.append(f"lookup:{segment}")  # type: ignore[attr-defined]
        found = _FakeLookup(self, collection).lookup(segment, src, tgt, k)
        if doc_segment is not None and doc_segment.tags:
            tag_penalty(found.matches, doc_segment)
        return found

    def pretranslate(self, doc: Any, analysis: Any) -> int:
        from xlsearch.engine.tm.analysis import pretranslate

        return pretranslate(doc, analysis)

    def open_document(self, path: str, src: str = "", tgt: str = "") -> Any:
        from xlsearch.engine.tm.documents import open_document

        return open_document(path, src or None, tgt or None)

    def analyze(
        self,
        doc: Any,
        collection: str | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        segment: str = "auto",
    ) -> Any:
        from xlsearch.engine.tm.analysis import analyze

        lookup = _FakeLookup(self, collection)
        return analyze(doc, lookup, segment=segment, on_progress=on_progress, cancel=cancel)  # type: ignore[arg-type]

    def save_document(self, doc: Any, path: str = "") -> str:
        return str(doc.save(path or None))
