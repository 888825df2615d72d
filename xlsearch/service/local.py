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
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

from xlsearch.engine.errors import XLSearchError
from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.service.api import (
    CollectionInfo,
    ContextView,
    DocumentInfo,
    Hit,
    IndexState,
    IndexStatus,
    ModelEntry,
    SearchMode,
    StsScore,
)
from xlsearch.service.coverage import LanguageNotice
from xlsearch.service.jobs import JobsMixin
from xlsearch.service.types import (
    DocumentAnalysis,
    EncoderOptions,
    InlineCodes,
    JSONDict,
    LookupMatches,
    TranslationDocument,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from xlsearch.engine.models.catalog import ModelInfo
    from xlsearch.engine.search.searcher import Searcher
    from xlsearch.engine.store import Store
    from xlsearch.engine.store.ingest import ImportReport
    from xlsearch.engine.store.units import UnitFilter
    from xlsearch.engine.tm.analysis.results import Analysis
    from xlsearch.engine.tm.documents import Document
    from xlsearch.engine.tm.matching.lookup import Lookup
    from xlsearch.service.qa import CheckReport
    from xlsearch.service.types import ExportReport, LoadedEncoder


class LocalEngine(JobsMixin):
    """The real engine behind the TUI (``store_path`` None = the user's store).

    ``model``: a session model used instead of the saved active model until the user picks
    one with ``set_active_model`` (``xlsearch demo`` opens the app on the demo student, a
    command's ``--model`` searches with its model).
    """

    def __init__(
        self,
        store_path: str | Path | None = None,
        model: str | None = None,
        encoder_options: EncoderOptions | None = None,
    ) -> None:
        self.store_path = store_path
        self.session_model = model
        self.encoder_options: EncoderOptions = encoder_options.copy() if encoder_options else {}
        """Loading options over the settings' (``device``, ``batch_size``, ``precision`` …)."""
        self._lock = threading.Lock()
        self._encoders: dict[str, LoadedEncoder] = {}
        self._index_cache: dict[str, dict[str, object]] = {}
        self.notices: list[str] = []
        """Notices of the last ``search`` (e.g. a collection indexed on the spot)."""

    # -- plumbing ------------------------------------------------------------------
    @contextmanager
    def _store(self) -> Iterator[Store]:
        from xlsearch.engine.store import Store

        store = Store(self.store_path)
        try:
            yield store
        finally:
            store.close()

    def encoder(self, spec: str | None = None) -> LoadedEncoder:
        """The loaded encoder of ``spec`` (default: the active model), cached."""
        from xlsearch.engine.models.cards import check_model_folder, model_folder_state

        spec = spec or self.active_model()
        with self._lock:
            enc = self._encoders.get(spec)
            if enc is not None and model_folder_state(enc) == "changed":
                enc = None  # new weights in the folder: load them, forget the old indexes
                self._index_cache.pop(spec, None)
            if enc is not None:
                check_model_folder(enc)  # deleted or moved while the app runs
            if enc is None:
                from xlsearch.engine.models.encoder import load_encoder
                from xlsearch.engine.runtime.settings import Settings

                s = Settings.load()
                options: EncoderOptions = {
                    "device": s.device,
                    "batch_size": s.batch_size,
                    "max_seq_length": s.max_seq_length,
                    "quantize": s.quantize,
                    "threads": s.threads,
                    **self.encoder_options,
                }
                enc = load_encoder(spec, **options)
                self._encoders[spec] = enc
            return enc

    def few_texts_encoder(self, n: int, spec: str | None = None) -> LoadedEncoder:
        """An encoder to embed ``n`` texts once (an STS score): the loaded one if there is
        one; for a BERT model (the bundled teacher) on the CPU and a few texts, its numpy
        twin, which needs no torch import (a fresh ``xlsearch sts``: ~6 s → under 1 s)."""
        import sys

        from xlsearch.engine.models.cards import resolve_model_path
        from xlsearch.engine.models.numpy_transformer import (
            MAX_TEXTS,
            NumpyTransformer,
            is_numpy_bert,
        )
        from xlsearch.engine.runtime.settings import Settings

        spec = spec or self.active_model()
        key = f"numpy:{spec}"
        with self._lock:
            if spec in self._encoders or "torch" in sys.modules or n > MAX_TEXTS:
                light: LoadedEncoder | None = None
            else:
                light = self._encoders.get(key)
        if light is None and spec not in self._encoders and "torch" not in sys.modules:
            s = Settings.load()
            opts: EncoderOptions = {
                "device": s.device,
                "quantize": s.quantize,
                **self.encoder_options,
            }
            cpu = opts.get("device", "auto") in ("auto", "cpu") and not opts.get("quantize")
            path = resolve_model_path(spec)
            if cpu and n <= MAX_TEXTS and is_numpy_bert(path):
                light = NumpyTransformer(
                    path, max_seq_length=opts.get("max_seq_length") or s.max_seq_length
                )
                with self._lock:
                    self._encoders[key] = light
        return light if light is not None else self.encoder(spec)

    def _searcher(
        self,
        store: Store,
        spec: str | None = None,
        *,
        load: bool = True,
        repair: bool = True,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Searcher:
        """A ``Searcher`` with the cached encoder (``load=False``: loaded only if a search
        needs it, e.g. not for a lexical one)."""
        from xlsearch.engine.search.searcher import Searcher

        spec = spec or self.active_model()
        encoder = self.encoder(spec) if load else None  # first: new weights drop old indexes
        # opened indexes are shared across calls; the Searcher re-checks them against the store
        indexes = self._index_cache.setdefault(spec, {})
        return Searcher(
            store,
            encoder,
            model=None if load else spec,
            repair=repair,
            on_progress=on_progress,
            cancel=cancel,
            indexes=indexes,
        )

    def _model_stub(self, spec: str, card: JSONDict) -> LoadedEncoder | SimpleNamespace:
        """What the index layer needs of an encoder (id, path, dim, card) without loading it."""
        from xlsearch.engine.models.cards import model_id, read_card, resolve_model_path

        path = resolve_model_path(spec)
        dim = card.get("dim")
        if not isinstance(dim, int | float | str):
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
        documents: Sequence[int] | None = None,
        case_sensitive: bool = False,
        repair: bool = True,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[Hit]:
        """One hit per translation unit (``variants``: every matching segment). Collections
        without an index for the model are indexed on the spot (``on_progress`` sees it, a
        ``notice`` event first); ``self.notices`` then says so. ``repair=False`` refuses a
        stale or missing index instead. Lexical modes load no model."""
        from xlsearch.engine.store.units import UnitFilter

        units = where if isinstance(where, UnitFilter) else UnitFilter.parse(where)
        self.notices = []
        if not query.strip():
            return []
        with self._store() as store:
            searcher = self._searcher(
                store,
                load=mode in ("semantic", "hybrid"),
                repair=repair,
                on_progress=on_progress,
                cancel=cancel,
            )
            raw = searcher.search(
                query,
                k,
                mode=mode,
                langs=list(langs) or None,
                collection=collection,
                documents=documents,
                case_sensitive=case_sensitive,
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
                h.path,
                h.document_id,
                h.tu_id,
                [dict(t) for t in h.translations],
                h.copies,
            )
            for h in raw
        ]

    def model_label(self, spec: str | None = None) -> str:
        """A short name of the model (folder name, or ``bundled:teacher``), loading it."""
        from xlsearch.engine.search.searcher import model_label

        return model_label(self.encoder(spec))

    def why_no_hits(self, collection: str | None, langs: Sequence[str] = ()) -> str | None:
        """The plain reason a search found nothing, when there is one: an empty store or
        collection, or language tags that match no stored language (``jp`` for ``ja``)."""
        from xlsearch.engine.lang.tags import tag_matches

        with self._store() as store:
            have = store.languages(collection)
        where = f"collection '{collection}'" if collection else "the store"
        if not have:
            return f"{where} is empty: xlsearch import FILE… --collection NAME"
        if langs and not any(tag_matches(want, tag) for want in langs for tag in have):
            return f"{where} has no segment in {', '.join(langs)}; it has {', '.join(have)}"
        return None

    def detect_language(self, text: str) -> str:
        """The language code of ``text`` (py3langid), e.g. to pick the translation shown."""
        from xlsearch.engine.lang.identify import classify

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
            for t in units.get(current.get("tu_id") or "", [])
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

        from xlsearch.engine.evaluation import sts_calibration as calibration

        encoder = self.few_texts_encoder(1 + len(b_list))
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
        with self._store() as store:  # counts recorded at import: instant at 1M units
            return [
                CollectionInfo(
                    c["name"], c["documents"], c["segments"], c["units"], list(c["languages"])
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
            return store.language_tags()

    def collection_names(self) -> list[str]:
        """Every collection's name, sorted, without the counts ``collections`` makes (those
        read every segment: seconds on a million-unit memory)."""
        with self._store() as store:
            return store.collection_names()

    def import_file(
        self,
        path: str | Path,
        collection: str,
        fmt: str | None = None,
        langs: Sequence[str] | str | None = None,
        *,
        paragraphs: bool = False,
        encoding: str | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> ImportReport:
        """Import one file (re-importing an unchanged file does nothing, a changed one updates
        what changed); a bad file raises. ``fmt``: the importer (default: by extension);
        ``langs``: what the file leaves unsaid (see ``xlsearch import --lang``); ``paragraphs``:
        split text paragraphs into sentences; ``encoding``: the file's codec."""
        with self._store() as store:
            r = store.import_file(
                path,
                collection,
                fmt,
                langs,
                on_progress=on_progress,
                cancel=cancel,
                paragraphs=paragraphs,
                encoding=encoding,
            )
            found: list[str] = []
            if r.document_id is not None:
                doc = [d for d in store.documents(collection) if d["id"] == r.document_id]
                found = list(doc[0]["languages"]) if doc else []
        return replace(r, path=str(r.path), collection=collection, languages=found)

    def import_files(
        self,
        paths: Sequence[str],
        collection: str,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        langs: Sequence[str] | None = None,
        encoding: str | None = None,
    ) -> list[ImportReport]:
        """Import each file; a bad file is reported (and skipped), a cancel stops the run.

        ``langs``: the languages of TSV/CSV columns without a header (else detected);
        ``encoding``: the files' codec (None: detected)."""
        from xlsearch.engine.errors import CancelledError

        reports = []
        for path in paths:
            try:
                r = self.import_file(
                    path,
                    collection,
                    langs=langs,
                    encoding=encoding,
                    on_progress=on_progress,
                    cancel=cancel,
                )
            except CancelledError:
                raise
            except XLSearchError as exc:
                from xlsearch.engine.store.ingest import ImportReport

                reports.append(
                    ImportReport(str(path), "failed", problems=[str(exc)], collection=collection)
                )
                continue
            problems = list(r.problems)
            if r.problem_count > len(problems):
                problems.append(f"… {r.problem_count - len(problems)} more")
            reports.append(replace(r, path=str(path), problems=problems))
        return reports

    def collection_rows(self) -> list[JSONDict]:
        """The collections as the store lists them (``id``, ``name``, ``documents``,
        ``segments``, ``languages`` with segment counts …): plain data, JSON-ready."""
        with self._store() as store:
            return store.collections()

    def document_rows(self, collection: str) -> list[JSONDict]:
        """One collection's documents as the store lists them (``id``, ``path``, ``format``,
        ``segment_count``, ``languages`` with counts, ``imported_at`` …); an unknown name
        raises ``DataError``."""

        with self._store() as store:
            store.require_collection(collection)
            return store.documents(collection)

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
                    state: IndexState = "stale" if st["state"] == "mismatch" else st["state"]
                    out.append(IndexStatus(name, info.spec, state, st["vectors"], st["segments"]))
        return out

    def build_index(
        self,
        collection: str,
        model: str | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        *,
        kind: str = "auto",
        rebuild: bool = False,
        cluster: str | None = None,
        shard: int | None = None,
    ) -> IndexStatus:
        """Create or update ``collection``'s index (``kind``: auto, flat, hnsw, ivf, sq8,
        ivfpq; ``rebuild``: from scratch, cached vectors reused; ``cluster``: encode on a
        Ray cluster, ``local``, ``auto`` or its address, ``shard`` texts per task)."""
        from xlsearch.engine.index.manager import build_index

        spec = model or self.active_model()
        encoder = self.encoder(spec)
        with self._store() as store:
            oi = build_index(
                store,
                encoder,
                collection,
                kind=kind,
                rebuild=rebuild,
                cluster=cluster,
                shard=shard,
                on_progress=on_progress,
                cancel=cancel,
            )
            n = store.count_segments(collection=collection)
        self._index_cache.get(spec, {}).pop(collection, None)
        st = oi.stats
        return IndexStatus(
            collection,
            spec,
            "fresh",
            int(oi.vi.ntotal),
            n,
            oi.vi.kind,
            int(st.get("added", 0)),
            int(st.get("removed", 0)),
            bool(st.get("rebuilt")),
            str(oi.folder),
        )

    def delete_collection(self, name: str) -> str:
        """Delete a collection, its documents and its index folders (every model's);
        returns what went, in one line."""
        from xlsearch.engine.index.files import remove_collection_folders
        from xlsearch.engine.index.vectors import human_bytes

        with self._store() as store:
            n = store.delete_collection(name)
            where = store.path
        folders, size = remove_collection_folders(name, where)
        for cache in self._index_cache.values():
            cache.pop(name, None)
        return (
            f"deleted collection {name!r} ({n:,} segments; "
            f"{folders} index folder(s), {human_bytes(size)} removed)"
        )

    def delete_document(self, document_id: int) -> str:
        """Delete one document and its segments; returns what went, in one line."""
        with self._store() as store:
            n = store.delete_document(document_id)
        return f"deleted document {document_id} ({n:,} segments)"

    def export_collection(
        self,
        path: str | Path,
        collection: str | None = None,
        langs: Sequence[str] | None = None,
        fmt: str | None = None,
        *,
        xliff_version: str = "1.2",
        units: UnitFilter | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> ExportReport:
        """Write a collection's (default: every) translation units as TMX, XLIFF or TSV
        (``fmt``, else from the name); returns the engine's ``ExportReport`` (``describe()``
        says what was written and what was left out). XLIFF needs ``langs`` source,target."""
        from xlsearch.engine.errors import ConfigError
        from xlsearch.engine.export.writer import export_format, export_store

        with self._store() as store:
            if export_format(path, fmt) == "xliff" and (not langs or len(langs) != 2):
                known = sorted({lg for c in store.collections() for lg in c["languages"]})
                raise ConfigError(
                    "XLIFF is bilingual: pass --lang SOURCE,TARGET",
                    hint=f"languages in the store: {', '.join(known) or 'none'}",
                )
            return export_store(
                store,
                Path(path),
                collection,
                list(langs) if langs else None,
                fmt,
                on_progress=on_progress,
                cancel=cancel,
                xliff_version=xliff_version,
                units=units,
            )

    # -- models --------------------------------------------------------------------
    def _catalog(self) -> list[ModelInfo]:
        """The catalog's models, plus the active model when it lives elsewhere."""
        from xlsearch.engine.models.cards import read_card, resolve_model_path
        from xlsearch.engine.models.catalog import ModelInfo, list_models

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
        from xlsearch.engine.models.cards import model_languages
        from xlsearch.engine.models.shrink import folder_bytes

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
                folder=str(m.path),
                size=folder_bytes(m.path),
                shipped=m.shipped,
            )
            for m in self._catalog()
        ]

    def unfinished_runs(self) -> list[ModelEntry]:
        """Distillation runs stopped before their model was written (resumable)."""
        from xlsearch.engine.models.catalog import list_models

        return [
            ModelEntry(r.spec, r.name, str(r.card.get("kind", "")), card=r.card)
            for r in list_models(unfinished=True)
        ]

    def encode(
        self,
        texts: Sequence[str],
        model: str | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> npt.NDArray[np.float32]:
        """Sentence embeddings of ``texts`` (a float32 array, one row per text)."""
        return self.encoder(model).encode(list(texts), on_progress=on_progress)

    def active_model(self) -> str:
        """The session model if one was given, else the saved active model."""
        from xlsearch.engine.models.catalog import active_model

        return self.session_model or active_model()

    def set_active_model(self, spec: str) -> str:
        """Save ``spec`` as the active model (it also replaces a session model)."""
        from xlsearch.engine.models.catalog import set_active_model

        resolved = set_active_model(spec)
        self.session_model = None
        return resolved

    def use_name(self, path: str | Path) -> str:
        """What to give ``set_active_model`` (``xlsearch models --use``) for a model folder:
        its name when it lies in the models folder, else its path."""
        from xlsearch.engine.runtime import locations

        p = Path(path)
        return p.name if p.parent.resolve() == locations.models_dir().resolve() else str(p)

    def model_card(self, spec: str) -> JSONDict:
        from xlsearch.engine.models.cards import read_card, resolve_model_path

        return read_card(resolve_model_path(spec))

    def warm_up(self) -> str:
        """Load the active model, embed one text and open the fresh indexes (never raises).

        Not the language identifier: the first search does not need it, and its very first
        load unpacks a 68 MB model (then cached); the search screen loads it after the first
        results show."""
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
    def _lookup(
        self,
        store: Store,
        collection: str | None,
        semantic: bool = True,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Lookup:
        """A ``Lookup`` over ``store`` with the cached encoder (none when not ``semantic``)."""
        from xlsearch.engine.tm.matching.lookup import Lookup

        searcher = self._searcher(store, load=semantic, on_progress=on_progress, cancel=cancel)
        return Lookup(
            store,
            collection=collection,
            semantic=semantic,
            searcher=searcher,
            on_progress=on_progress,
        )

    def check_languages(self, collection: str | None = None, **langs: str | None) -> None:
        """A one-line ``ConfigError`` when ``collection`` does not exist or the memory has no
        segment in a language asked for (``src="en"`` finds ``en-GB``; the keyword names the
        option): otherwise a typo gives an empty or target-less result."""
        from xlsearch.engine.errors import ConfigError

        with self._store() as store:
            if collection and store.collection_id(collection) is None:
                names = ", ".join(c["name"] for c in store.collections()) or "none yet"
                raise ConfigError(
                    f"no collection '{collection}' (--collection)",
                    hint=f"collections: {names} (xlsearch collections lists them)",
                )
            # the counts recorded at import are instant; the segments are counted only when
            # those lack a language asked for (an old store, an edited one)
            have = store.recorded_languages(collection)
            if any(lang and not _has_lang(have, lang) for lang in langs.values()):
                have = store.languages(collection)
        where = f"collection {collection}" if collection else "the memory"
        for option, lang in langs.items():
            if lang and not _has_lang(have, lang):
                raise ConfigError(
                    f"{where} has no segment in language '{lang}' (--{option})",
                    hint=f"{where} has: {', '.join(sorted(have)) or 'nothing (import a memory)'}",
                )

    def lookup(
        self,
        segment: str,
        src: str,
        tgt: str = "",
        collection: str | None = None,
        k: int = 5,
        *,
        cross: int = 3,
        min_fuzzy: int = 0,
        semantic: bool = True,
        on_progress: ProgressCallback | None = None,
        doc_segment: InlineCodes | None = None,
        cancel: CancelToken | None = None,
    ) -> LookupMatches:
        """CAT matches of ``segment``: the best ``k`` in
        ``src``, ``cross`` cross-language ones; ``min_fuzzy`` hides weaker ones;
        ``semantic=False``: by fuzzy % alone, no model. With ``tgt`` a unit without that
        language is no match (nothing to insert). ``doc_segment``: the document's segment
        looked up; its inline codes and context (PO ``msgctxt``, XLIFF ``resname``) decide 101,
        100 or 99 % as in an analysis. ``cancel``: a
        lookup a newer one made stale stops (``CancelledError``) between its stages."""
        from xlsearch.engine.tm.matching import context as ctx
        from xlsearch.engine.tm.matching.penalties import tag_penalty

        with self._store() as store:
            lk = self._lookup(store, collection, semantic, on_progress, cancel)
            found = lk.lookup(
                segment,
                src,
                tgt,
                k,
                cross,
                min_fuzzy=min_fuzzy,
                require_target=bool(tgt),
                cancel=cancel,
            )
        if doc_segment is not None and (
            doc_segment.tags or any(m.source_tags for m in found.matches)
        ):  # 100 % only with the same tags, on either side (as an analysis)
            tag_penalty(found.matches, doc_segment)
        ctx.apply(  # and with the same context
            found.matches,
            segment,
            str(getattr(doc_segment, "context", "") or ""),
            strict=bool(getattr(doc_segment, "context_is_key", True)),
        )
        if found.matches:  # one source, several translations: the others and what chose
            ctx.flag_alternatives(found.matches[0], found.matches)
        return found

    def open_document(
        self,
        path: str,
        src: str = "",
        tgt: str = "",
        fmt: str = "",
        segment: str = "auto",
        encoding: str = "",
    ) -> TranslationDocument:
        """A document to translate (XLIFF, PO, text, DOCX; ``fmt`` default: by extension);
        ``segment``: how units of several sentences open (``tm.documents.SEGMENT_MODES``);
        ``encoding``: the file's real encoding where its declaration is wrong."""
        from xlsearch.engine.tm.documents import open_document

        return open_document(path, src or None, tgt or None, fmt or None, segment, encoding or None)

    def language_notice(
        self,
        langs: Sequence[str | None] = (),
        texts: Sequence[str] = (),
        model: str | None = None,
    ) -> LanguageNotice | None:
        """What the model (default: the one in use) was not trained on, among a result's
        languages ``langs`` and the languages of ``texts`` (identified; a text counts as
        another language only when the identifier is sure it is none of the model's), with
        the installed models that cover them; None when it knows them all or its card does
        not say. Reads cards only: no model is loaded."""
        from xlsearch.engine.models.cards import model_id, read_card, resolve_model_path
        from xlsearch.service.coverage import known_languages, language_notice

        spec = model or self.active_model()
        try:
            path = resolve_model_path(spec)
            card = read_card(path)
        except XLSearchError:  # a missing model says so where it is loaded
            return None
        mid = model_id(path)
        known = known_languages(mid, card)
        if known is None:
            return None
        found = list(langs)
        if texts:
            from xlsearch.engine.lang.identify import classify_among

            found += [classify_among(t, sorted(known)) for t in texts if t.strip()]
        return language_notice(mid, card, found, self._catalog())

    def toy_notice(self, collection: str | None = None) -> str | None:
        """The one-line notice when the model in use is a toy (fewer than 5,000 training
        pairs) searched beyond the demo collection, with the command for a real one."""
        from xlsearch.engine.calibration.fill import TOY_PAIRS, trained_pairs
        from xlsearch.engine.tm.calibration.fill_policy import (
            covering_model,
            english_pairs,
            memory_languages,
            toy_notice,
        )

        card = self.model_card(self.active_model())
        seen = trained_pairs(card)
        if seen is None or seen >= TOY_PAIRS:
            return None  # no store query: this runs before every CLI lookup and search
        with self._store() as store:
            names = [collection] if collection else store.nonempty_collections()
            langs = memory_languages(store, names)
            paired = english_pairs(store, names, langs)
        from xlsearch.engine.models.cards import model_id, resolve_model_path

        spec = model_id(resolve_model_path(self.active_model()))
        covering = covering_model(langs, exclude=spec)
        return toy_notice(card, names, langs, paired=paired, covering=covering)

    def analyze(
        self,
        doc: TranslationDocument,
        collection: str | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        segment: str = "auto",
        *,
        threshold: float | None = None,
        semantic: bool = True,
    ) -> DocumentAnalysis:
        """The analysis of ``doc`` against the memory: CAT bands and the
        semantic band above ``threshold`` (default ``SEMANTIC_THRESHOLD``);
        ``semantic=False``: CAT bands only, no model. ``on_progress`` also sees a collection
        indexed on the spot."""
        from xlsearch.engine.tm.analysis.analyze import analyze
        from xlsearch.engine.tm.matching.lookup import SEMANTIC_THRESHOLD

        with self._store() as store:
            lk = self._lookup(store, collection, semantic, on_progress, cancel)
            return analyze(
                _document(doc),
                lk,
                threshold=SEMANTIC_THRESHOLD if threshold is None else threshold,
                segment=segment,
                on_progress=on_progress,
                cancel=cancel,
            )

    def segment_document(
        self,
        doc: TranslationDocument,
        collection: str | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        segment: str = "auto",
    ) -> int:
        """Segment ``doc`` in place as its analysis does (``analyze``'s first stage, the
        same memory and ``segment`` mode): the segments a translator walks before an
        analysis are the ones it reports. Returns the units split plus paragraphs merged."""
        from xlsearch.engine.tm.analysis.segment import segment_document
        from xlsearch.engine.tm.matching.lookup import SEMANTIC_THRESHOLD

        with self._store() as store:
            lk = self._lookup(store, collection, True, on_progress, cancel)
            done = segment_document(
                _document(doc), segment, lk, SEMANTIC_THRESHOLD, on_progress, cancel
            )
        return done.split + done.merged

    def pretranslate(
        self,
        doc: TranslationDocument,
        analysis: DocumentAnalysis,
        *,
        min_fuzzy: int = 75,
        semantic: bool = True,
        overwrite: bool = False,
    ) -> int:
        """Write the best match per segment into ``doc`` (fuzzy ≥ ``min_fuzzy``, else a
        semantic match when ``semantic``), marked for review; existing targets are kept
        unless ``overwrite``. Returns the segments filled."""
        from xlsearch.engine.tm.analysis.pretranslate import pretranslate

        return pretranslate(
            _document(doc),
            _analysis(analysis),
            min_fuzzy=min_fuzzy,
            semantic=semantic,
            overwrite=overwrite,
        )

    def save_document(self, doc: TranslationDocument, path: str = "") -> str:
        """Write ``doc`` back (in its format, or XLIFF 2.0 for an .xlf path); returns where."""
        return str(_document(doc).save(path or None))

    def drafts_kept(self, doc: TranslationDocument) -> int:
        """Segments whose draft target (one the file holds unconfirmed: a PO ``#, fuzzy``
        msgstr, memoQ ``PartiallyEdited``, XLIFF ``new`` in other words than the source's …)
        pre-translation kept; ``overwrite`` replaces them."""
        from xlsearch.engine.tm.analysis.pretranslate import drafts_kept

        return drafts_kept(_document(doc))

    def unwritten_paragraphs(self, doc: TranslationDocument) -> int:
        """Translated paragraphs of a saved HTML page that stay in the source language
        (their links or markup cannot be placed in the translation); 0 for other formats."""
        d = _document(doc)
        return len(d.handle[2]) if d.fmt == "html" else 0

    def unwritten_segments(self, doc: TranslationDocument) -> int:
        """Segments with a target in those paragraphs (``unwritten_paragraphs``): filled in
        the analysis, not in the saved page."""
        d = _document(doc)
        if d.fmt == "text":  # Markdown: sentences whose links the translation cannot hold
            from xlsearch.engine.tm.documents.simple import unwritten_text_segments

            return unwritten_text_segments(d)
        if d.fmt != "html":
            return 0
        paragraphs = set(d.handle[2])
        return sum(1 for s in d.segments if s.ref in paragraphs and s.target.strip())

    def check_files(
        self,
        paths: Sequence[str],
        *,
        collection: str | None = None,
        memory: str | None = None,
        src: str | None = None,
        tgt: str | None = None,
        model: str | None = None,
        semantic: bool = True,
        fuzzy: bool = False,
    ) -> CheckReport:
        """The check of files (and a collection's pairs); ``semantic``: with
        ``model`` (default: the active model); ``fuzzy``: every PO ``fuzzy`` draft too (the
        fills xlsearch wrote for review always)."""
        from xlsearch.service.qa import check_translations

        name = (model or self.active_model()) if semantic else ""
        return check_translations(
            paths,
            collection=collection,
            memory=memory,
            src=src,
            tgt=tgt,
            encoder=self.encoder(name) if semantic else None,
            model_name=name,
            fuzzy=fuzzy,
        )

    def check_document(
        self,
        doc: TranslationDocument,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> CheckReport:
        from xlsearch.service.qa import check_document

        model = self.active_model()
        return check_document(
            _document(doc), self.encoder(model), model=model, on_progress=on_progress, cancel=cancel
        )

    def device_description(self) -> str:
        from xlsearch.engine.models.encoder import device_description
        from xlsearch.engine.runtime.settings import Settings

        return device_description(Settings.load().device)


def _has_lang(have: dict[str, int], lang: str) -> bool:
    """Whether ``have`` (tag → count) holds ``lang`` (``en`` finds ``en-GB``)."""
    from xlsearch.engine.lang.tags import primary

    return any(primary(tag) == primary(lang) for tag in have)


def _document(doc: TranslationDocument) -> Document:
    """The engine's document behind ``doc`` (one ``open_document`` returned)."""
    from xlsearch.engine.tm.documents import Document

    if not isinstance(doc, Document):
        raise TypeError(f"not a document opened by the engine: {type(doc).__name__}")
    return doc


def _analysis(analysis: DocumentAnalysis) -> Analysis:
    """The engine's analysis behind ``analysis`` (one ``analyze`` returned)."""
    from xlsearch.engine.tm.analysis.results import Analysis

    if not isinstance(analysis, Analysis):
        raise TypeError(f"not an analysis made by the engine: {type(analysis).__name__}")
    return analysis
