"""``LocalEngine``: the ``EngineAPI`` over the real store, indexes, models and jobs.

Heavy modules are imported inside methods. Every call opens its own ``Store`` (a SQLite
connection belongs to the thread that opened it; TUI calls run in worker threads). Loaded
encoders and opened vector indexes are shared between calls, so search-as-you-type pays for
loading only once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from xlsearch.engine.errors import XLSearchError
from xlsearch.engine.facade.api import (
    CollectionInfo,
    ContextView,
    DocumentInfo,
    Hit,
    ImportReport,
    IndexStatus,
    ModelEntry,
    SearchMode,
    StsScore,
)
from xlsearch.engine.facade.jobs import JobsMixin
from xlsearch.engine.progress import CancelToken, ProgressCallback

if TYPE_CHECKING:
    from xlsearch.engine.store.units import UnitFilter


class LocalEngine(JobsMixin):
    """The real engine behind the TUI (``store_path`` None = the user's store).

    ``model``: a session model used instead of the saved active model until the user picks
    one with ``set_active_model`` (``xlsearch demo`` opens the app on the demo student).
    """

    def __init__(self, store_path: str | Path | None = None, model: str | None = None) -> None:
        self.store_path = store_path
        self.session_model = model
        self._lock = threading.Lock()
        self._encoders: dict[str, Any] = {}
        self._index_cache: dict[str, dict[str, Any]] = {}
        self.notices: list[str] = []
        """Notices of the last ``search`` (e.g. a collection indexed on the spot)."""

    # -- plumbing ------------------------------------------------------------------
    @contextmanager
    def _store(self) -> Iterator[Any]:
        from xlsearch.engine.store import Store

        store = Store(self.store_path)
        try:
            yield store
        finally:
            store.close()

    def encoder(self, spec: str | None = None) -> Any:
        """The loaded encoder of ``spec`` (default: the active model), cached."""
        spec = spec or self.active_model()
        with self._lock:
            enc = self._encoders.get(spec)
            if enc is None:
                from xlsearch.engine.encoder import load_encoder
                from xlsearch.engine.settings import Settings

                s = Settings.load()
                enc = load_encoder(
                    spec,
                    device=s.device,
                    batch_size=s.batch_size,
                    max_seq_length=s.max_seq_length,
                    quantize=s.quantize,
                    threads=s.threads,
                )
                self._encoders[spec] = enc
            return enc

    def _searcher(self, store: Any, spec: str | None = None, **kwargs: Any) -> Any:
        from xlsearch.engine.search import Searcher

        spec = spec or self.active_model()
        searcher = Searcher(store, self.encoder(spec), **kwargs)
        # Share opened indexes across calls; the Searcher re-checks them against the store.
        searcher._indexes = self._index_cache.setdefault(spec, {})
        return searcher

    def _model_stub(self, spec: str, card: dict[str, Any]) -> Any:
        """What the index layer needs of an encoder (id, path, dim, card) without loading it."""
        from xlsearch.engine.modelio import model_id, read_card, resolve_model_path

        path = resolve_model_path(spec)
        dim = card.get("dim")
        if dim is None:
            return self.encoder(spec)
        return SimpleNamespace(id=model_id(path), path=path, dim=int(dim), card=read_card(path))

    # -- search --------------------------------------------------------------------
    def search(
        self,
        query: str,
        mode: SearchMode = "semantic",
        langs: Sequence[str] = (),
        collection: str | None = None,
        k: int = 50,
        where: str | UnitFilter = "",
        *,
        variants: bool = False,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[Hit]:
        """One hit per translation unit (``variants``: every matching segment). Collections
        without an index for the model are indexed on the spot (``on_progress`` sees it, a
        ``notice`` event first); ``self.notices`` then says so."""
        from xlsearch.engine.store.units import UnitFilter

        units = where if isinstance(where, UnitFilter) else UnitFilter.parse(where)
        self.notices = []
        if not query.strip():
            return []
        with self._store() as store:
            searcher = self._searcher(store, on_progress=on_progress, cancel=cancel)
            raw = searcher.search(
                query,
                k,
                mode=mode,
                langs=list(langs) or None,
                collection=collection,
                units=units or None,
                variants=variants,
            )
            self.notices = list(searcher.notices)
        return [
            Hit(
                h.id,
                float(h.score),
                h.lang,
                h.text,
                Path(h.path).name if h.path else "",
                h.collection,
                {t["lang"]: t["text"] for t in reversed(h.translations)},
                h.unit,
            )
            for h in raw
        ]

    def detect_language(self, text: str) -> str:
        """The language code of ``text`` (py3langid), e.g. to pick the translation shown."""
        from xlsearch.engine.langid import classify

        return classify(text)[0]

    def context(self, segment_id: int, window: int = 2) -> ContextView:
        with self._store() as store:
            rows = store.context(segment_id, window)
            if not rows:
                raise XLSearchError(f"segment {segment_id} is no longer in the store")
            current = next(r for r in rows if r.get("current"))
            seg = store.segments([segment_id])
            doc = Path(seg[0]["path"]).name if seg else ""
            units = store.translations([current["tu_id"]]) if current.get("tu_id") else {}
            meta = store.unit_meta([current["tu_id"]]).get(current["tu_id"], {})
        pos = rows.index(current)
        translations = {
            t["lang"]: t["text"]
            for t in units.get(current.get("tu_id"), [])
            if t["id"] != segment_id and t["document_id"] == current["document_id"]
        }
        return ContextView(
            segment_id,
            current["lang"],
            current["text"],
            doc,
            [r["text"] for r in rows[:pos]],
            [r["text"] for r in rows[pos + 1 :]],
            translations,
            meta,
        )

    def sts(self, a: str, b_list: Sequence[str]) -> list[StsScore]:
        import numpy as np

        from xlsearch.engine import calibration

        encoder = self.encoder()
        vecs = np.asarray(encoder.encode([a, *b_list]), dtype=np.float32)
        norms = np.maximum(np.linalg.norm(vecs, axis=1), 1e-12)
        cos = np.clip((vecs[1:] @ vecs[0]) / (norms[1:] * norms[0]), -1.0, 1.0)
        cal = calibration.load(encoder)
        scores = [
            StsScore(t, float(c), float(calibration.apply(c, cal)) if cal else None)
            for t, c in zip(b_list, cos, strict=True)
        ]
        return sorted(scores, key=lambda s: -s.cosine)

    # -- corpus --------------------------------------------------------------------
    def collections(self) -> list[CollectionInfo]:
        with self._store() as store:
            units = dict(
                store.conn.execute(
                    "SELECT d.collection_id, COUNT(DISTINCT s.tu_id) FROM segments s "
                    "JOIN documents d ON d.id = s.document_id GROUP BY d.collection_id"
                ).fetchall()
            )
            return [
                CollectionInfo(
                    c["name"],
                    c["documents"],
                    c["segments"],
                    int(units.get(c["id"], 0)),
                    list(c["languages"]),
                )
                for c in store.collections()
            ]

    def documents(self, collection: str | None = None) -> list[DocumentInfo]:
        with self._store() as store:
            return [
                DocumentInfo(
                    d["id"],
                    d["collection"],
                    Path(d["path"]).name,
                    d["segment_count"] or 0,
                    list(d["languages"]),
                    d["path"],
                )
                for d in store.documents(collection)
            ]

    def languages(self) -> list[str]:
        with self._store() as store:
            return sorted(store.languages())

    def import_files(
        self,
        paths: Sequence[str],
        collection: str,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        langs: Sequence[str] | None = None,
    ) -> list[ImportReport]:
        """Import each file; a bad file is reported (and skipped), a cancel stops the run.

        ``langs``: the languages of TSV/CSV columns without a header (else detected)."""
        from xlsearch.engine.errors import CancelledError

        reports = []
        with self._store() as store:
            for path in paths:
                try:
                    r = store.import_file(
                        path, collection, langs=langs, on_progress=on_progress, cancel=cancel
                    )
                except CancelledError:
                    raise
                except XLSearchError as exc:
                    reports.append(
                        ImportReport(str(path), collection, problems=[str(exc)], status="failed")
                    )
                    continue
                problems = list(r.warnings)
                if r.warning_count > len(problems):
                    problems.append(f"… {r.warning_count - len(problems)} more")
                langs: list[str] = []
                if r.document_id is not None:
                    doc = [d for d in store.documents(collection) if d["id"] == r.document_id]
                    langs = list(doc[0]["languages"]) if doc else []
                reports.append(
                    ImportReport(
                        str(path),
                        collection,
                        r.added,
                        r.segments,
                        r.skipped,
                        problems,
                        langs,
                        r.status,
                    )
                )
        return reports

    def index_status(self) -> list[IndexStatus]:
        """Per collection: the active model's index, plus other models that have one."""
        from xlsearch.engine.index.cache import model_key
        from xlsearch.engine.index.manager import index_status

        active = self.active_model()
        out = []
        with self._store() as store:
            recorded = set(store.conn.execute("SELECT collection, model_id FROM indexes"))
            names = [c["name"] for c in store.collections()]
            for info in self._catalog():
                is_active = info.spec == active
                try:
                    stub = self._model_stub(info.spec, info.card)
                except XLSearchError:
                    continue
                key = model_key(stub)
                for name in names:
                    if not is_active and (name, key) not in recorded:
                        continue
                    st = index_status(store, stub, name)
                    state = "stale" if st["state"] == "mismatch" else st["state"]
                    out.append(IndexStatus(name, info.spec, state, st["vectors"], st["segments"]))
        return out

    def build_index(
        self,
        collection: str,
        model: str | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> IndexStatus:
        from xlsearch.engine.index.manager import build_index

        spec = model or self.active_model()
        encoder = self.encoder(spec)
        with self._store() as store:
            oi = build_index(store, encoder, collection, on_progress=on_progress, cancel=cancel)
            n = store.count_segments(collection=collection)
        self._index_cache.get(spec, {}).pop(collection, None)
        return IndexStatus(collection, spec, "fresh", int(oi.vi.ntotal), n)

    def delete_collection(self, name: str) -> None:
        with self._store() as store:
            store.delete_collection(name)
        for cache in self._index_cache.values():
            cache.pop(name, None)

    # -- models --------------------------------------------------------------------
    def _catalog(self) -> list[Any]:
        """The catalog's models, plus the active model when it lives elsewhere."""
        from xlsearch.engine.catalog import ModelInfo, list_models
        from xlsearch.engine.modelio import read_card, resolve_model_path

        models = list_models()
        active = self.active_model()
        if all(m.spec != active for m in models):
            try:
                path = resolve_model_path(active)
                models.append(ModelInfo(str(path), path, read_card(path)))
            except XLSearchError:
                pass
        return models

    def list_models(self) -> list[ModelEntry]:
        from xlsearch.engine.modelio import model_languages

        active = self.active_model()
        return [
            ModelEntry(
                m.spec,
                m.name,
                str(m.card.get("kind", "")),
                m.card.get("dim"),
                model_languages(m.card),
                m.is_student,
                m.spec == active,
                m.card,
            )
            for m in self._catalog()
        ]

    def active_model(self) -> str:
        """The session model if one was given, else the saved active model."""
        from xlsearch.engine.catalog import active_model

        return self.session_model or active_model()

    def set_active_model(self, spec: str) -> str:
        """Save ``spec`` as the active model (it also replaces a session model)."""
        from xlsearch.engine.catalog import set_active_model

        resolved = set_active_model(spec)
        self.session_model = None
        return resolved

    def model_card(self, spec: str) -> dict[str, Any]:
        from xlsearch.engine.modelio import read_card, resolve_model_path

        return read_card(resolve_model_path(spec))

    def warm_up(self) -> str:
        """Load the active model, embed one text and open the fresh indexes (never raises).

        Not the language identifier: its first load (a 68 MB LZMA model, over a second of
        CPU) would compete with the first search, which does not need it; the search screen
        loads it after the first results show."""
        import logging

        from xlsearch.engine.index.manager import index_status

        spec = ""
        try:
            spec = self.active_model()
            encoder = self.encoder(spec)
            encoder.encode(["warm up"])
            with self._store() as store:
                searcher = self._searcher(store, spec)
                for name in store.nonempty_collections():
                    if index_status(store, encoder, name)["state"] == "fresh":
                        searcher.index(name)
        except Exception:  # noqa: BLE001 - the first search reports any problem properly
            logging.getLogger("xlsearch").debug("warm-up failed", exc_info=True)
        return spec

    def reindex_cost(self, spec: str) -> tuple[int, int]:
        """Segments to embed (and collections to index) before ``spec`` can search them all;
        read from the store and the index side-cars, without loading the model."""
        from xlsearch.engine.index.manager import index_status

        stub = self._model_stub(spec, self.model_card(spec))
        segments = collections = 0
        with self._store() as store:
            for c in store.collections():
                st = index_status(store, stub, c["name"])
                todo = {"fresh": 0, "stale": max(0, st["segments"] - st["vectors"])}.get(
                    st["state"], st["segments"]
                )
                if st["state"] == "stale":
                    todo = max(todo, 1)
                if todo:
                    segments += todo
                    collections += 1
        return segments, collections

    # -- translating with the memory -------------------------------------------------
    def lookup(
        self,
        segment: str,
        src: str,
        tgt: str = "",
        collection: str | None = None,
        k: int = 5,
    ) -> Any:
        from xlsearch.engine.lookup import Lookup

        with self._store() as store:
            lk = Lookup(store, collection=collection, searcher=self._searcher(store))
            # as analyze: a unit without the target language is nothing to insert
            return lk.lookup(segment, src, tgt, k, require_target=bool(tgt))

    def open_document(self, path: str, src: str = "", tgt: str = "") -> Any:
        from xlsearch.engine.bilingual import open_document

        return open_document(path, src or None, tgt or None)

    def analyze(
        self,
        doc: Any,
        collection: str | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Any:
        from xlsearch.engine.analysis import analyze
        from xlsearch.engine.lookup import Lookup

        with self._store() as store:
            lk = Lookup(store, collection=collection, searcher=self._searcher(store))
            return analyze(doc, lk, on_progress=on_progress, cancel=cancel)

    def save_document(self, doc: Any, path: str = "") -> str:
        return str(doc.save(path or None))

    def device_description(self) -> str:
        from xlsearch.engine.encoder import device_description
        from xlsearch.engine.settings import Settings

        return device_description(Settings.load().device)
