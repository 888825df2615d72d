"""``LocalEngine``: the ``EngineAPI`` over the real store, indexes, models and jobs.

Heavy modules are imported inside methods. Every call opens its own ``Store`` (a SQLite
connection belongs to the thread that opened it; TUI calls run in worker threads). Loaded
encoders and opened vector indexes are shared between calls, so search-as-you-type pays for
loading only once.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from xlsearch.engine.errors import XLSearchError
from xlsearch.engine.facade.api import (
    CollectionInfo,
    ContextView,
    DistillConfig,
    DistillResult,
    DocumentInfo,
    EvalReport,
    Hit,
    ImportReport,
    IndexStatus,
    MinedPair,
    ModelEntry,
    SearchMode,
    StsScore,
    TsvPreview,
)
from xlsearch.engine.progress import CancelToken, ProgressCallback


class LocalEngine:
    """The real engine behind the TUI (``store_path`` None = the user's store)."""

    def __init__(self, store_path: str | Path | None = None) -> None:
        self.store_path = store_path
        self._lock = threading.Lock()
        self._encoders: dict[str, Any] = {}
        self._index_cache: dict[str, dict[str, Any]] = {}

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
    ) -> list[Hit]:
        if not query.strip():
            return []
        with self._store() as store:
            raw = self._searcher(store).search(
                query, k, mode=mode, langs=list(langs) or None, collection=collection
            )
        return [
            Hit(
                h.id,
                float(h.score),
                h.lang,
                h.text,
                Path(h.path).name if h.path else "",
                h.collection,
                {t["lang"]: t["text"] for t in reversed(h.translations)},
            )
            for h in raw
        ]

    def context(self, segment_id: int, window: int = 2) -> ContextView:
        with self._store() as store:
            rows = store.context(segment_id, window)
            if not rows:
                raise XLSearchError(f"segment {segment_id} is no longer in the store")
            current = next(r for r in rows if r.get("current"))
            seg = store.segments([segment_id])
            doc = Path(seg[0]["path"]).name if seg else ""
            units = store.translations([current["tu_id"]]) if current.get("tu_id") else {}
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
        )

    def sts(self, a: str, b_list: Sequence[str]) -> list[StsScore]:
        import numpy as np

        vecs = np.asarray(self.encoder().encode([a, *b_list]), dtype=np.float32)
        norms = np.maximum(np.linalg.norm(vecs, axis=1), 1e-12)
        cos = (vecs[1:] @ vecs[0]) / (norms[1:] * norms[0])
        scores = [
            StsScore(t, float(np.clip(c, -1.0, 1.0))) for t, c in zip(b_list, cos, strict=True)
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
        active = self.active_model()
        return [
            ModelEntry(
                m.spec,
                m.name,
                str(m.card.get("kind", "")),
                m.card.get("dim"),
                list(m.card.get("languages", [])),
                m.is_student,
                m.spec == active,
                m.card,
            )
            for m in self._catalog()
        ]

    def active_model(self) -> str:
        from xlsearch.engine.catalog import active_model

        return active_model()

    def set_active_model(self, spec: str) -> str:
        from xlsearch.engine.catalog import set_active_model

        return set_active_model(spec)

    def model_card(self, spec: str) -> dict[str, Any]:
        from xlsearch.engine.modelio import read_card, resolve_model_path

        return read_card(resolve_model_path(spec))

    # -- distillation, evaluation, mining -------------------------------------------
    def preview_tsv(self, paths: Sequence[str]) -> TsvPreview:
        """Read the TSVs as distillation will: columns, languages, pairs and bad lines."""
        from xlsearch.engine.distill.data import TrainFile, read_tsv

        columns, pairs, bad, sample, langs = 0, 0, [], [], ["en"]
        for i, path in enumerate(paths):
            groups, report = read_tsv(TrainFile.parse(path), i)
            columns = max(columns, 1 + max((g.column for g in groups), default=0))
            pairs += report.pairs
            bad += report.examples
            if report.bad > len(report.examples):
                bad.append(f"{path}: {report.bad:,} bad lines in all")
            langs += [g.lang for g in groups if g.lang not in langs]
            if groups and len(sample) < 3:
                g = groups[0]
                sample += [[s, t] for s, t in zip(g.src[:3], g.tgt[:3], strict=True)]
        return TsvPreview([str(p) for p in paths], columns, langs, pairs, bad, sample[:3])

    def _tm_files(self, collection: str) -> list[str]:
        """Write the collection's translation units as one English–XX TSV per language."""
        from xlsearch.engine import locations
        from xlsearch.engine.errors import ConfigError
        from xlsearch.engine.export import iter_store_units, write_units

        folder = locations.cache_dir() / "tm-training"
        folder.mkdir(parents=True, exist_ok=True)
        files = []
        with self._store() as store:
            langs = [lang for lang in store.languages(collection) if lang != "en"]
            if "en" not in store.languages(collection) or not langs:
                raise ConfigError(
                    f"collection {collection!r} has no English–other translation units",
                    hint="the teacher is English: the TM needs an English side",
                )
            for lang in langs:
                path = folder / f"{collection}.en-{lang}.tsv"
                units = iter_store_units(store, collection, ["en", lang])
                if write_units(path, units, "tsv", ["en", lang]):
                    files.append(str(path))
        return files

    def distill(
        self,
        config: DistillConfig,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> DistillResult:
        """Train a student; a cancel returns with ``cancelled`` (a checkpoint is kept)."""
        from xlsearch.engine.distill import DistillConfig as EngineConfig
        from xlsearch.engine.distill import distill
        from xlsearch.engine.modelio import read_card

        train = list(config.data)
        if config.use_collection:
            train += self._tm_files(config.use_collection)
        student = config.student
        if student not in ("static", "teacher", "auto"):
            student = f"checkpoint:{student}"
        out = config.output if "/" in config.output else ""
        cfg = EngineConfig(
            train=train,
            teacher=config.teacher,
            student=student,
            preset=config.preset,
            out=out,
            name="" if out else config.output,
            epochs=config.epochs or None,
            batch_size=config.batch_size or None,
            max_steps=config.max_steps or None,
            time_limit_min=config.time_limit_min,
            device=config.device,
        )
        r = distill(cfg, on_progress, cancel, resume=config.resume)
        card = read_card(r.out) if Path(r.out).is_dir() else {}
        return DistillResult(str(r.out), card, r.cancelled, str(r.run_dir), list(r.history))

    def evaluate(
        self,
        model: str,
        data_dir: str = "",
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> EvalReport:
        """Tatoeba (the model's languages), STS-benchmark (+ multilingual, cross-lingual) and
        language bias from a benchmark folder laid out as ``dev/tatoeba``, ``dev/stsbenchmark``
        and ``dev/stsb-multi-mt``; results are stored in the model's card."""
        from xlsearch.engine.errors import ConfigError
        from xlsearch.engine.evaluation.readers import tatoeba_languages, to_iso3
        from xlsearch.engine.evaluation.suite import run_suite, save_results
        from xlsearch.engine.settings import Settings

        root = Path(data_dir).expanduser()
        dev = root / "dev" if (root / "dev").is_dir() else root
        tatoeba = dev / "tatoeba"
        sts_files = sorted((dev / "stsbenchmark").glob("sts-test.csv"))
        sts_files += sorted((dev / "stsb-multi-mt").glob("stsb-*-test.csv"))
        if not data_dir or not (tatoeba.is_dir() or sts_files):
            raise ConfigError(
                f"no benchmark data in {str(root)!r}",
                hint="give a folder with dev/tatoeba, dev/stsbenchmark or dev/stsb-multi-mt",
            )
        card = self.model_card(model) if model else {}
        langs: list[str] | None = None
        if tatoeba.is_dir():
            have = set(tatoeba_languages(tatoeba))
            wanted = [lang for lang in card.get("languages", []) if lang != "en"]
            wanted = wanted or ["de", "fr", "es", "ru", "zh", "ar", "ja"]
            langs = [lang for lang in wanted if to_iso3(lang) in have] or None
        s = Settings.load()
        report = run_suite(
            model,
            tatoeba_dir=tatoeba if langs else None,
            langs=langs,
            sts_files=sts_files,
            sts_cross=len(sts_files) > 1,
            bias=len(sts_files) > 1,
            device=s.device,
            batch_size=s.batch_size,
            on_progress=on_progress,
            cancel=cancel,
        )
        save_results(report, model)
        titles = {t.key: t.title for t in report.tables}
        tables = {titles[k]: rows for k, rows in report.row_dicts().items()}
        return EvalReport(model, tables, report.summary(), report.bias_points())

    def mine(
        self,
        src: str,
        tgt: str,
        collection: str | None = None,
        threshold: float = 1.0,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[MinedPair]:
        from xlsearch.engine.mining import mine_store

        encoder = self.encoder()
        with self._store() as store:
            mined = mine_store(
                store,
                encoder,
                src,
                tgt,
                collection=collection,
                threshold=threshold,
                on_progress=on_progress,
                cancel=cancel,
            )
        return [
            MinedPair(
                p["src_id"], p["tgt_id"], p["src_text"], p["tgt_text"], src, tgt, float(p["score"])
            )
            for p in mined.pairs
        ]

    def export(self, items: Sequence[Hit | MinedPair], path: str, fmt: str) -> int:
        """Write hits (with their translations) or mined pairs as TMX or TSV."""
        from xlsearch.engine.export import ExportUnit, write_units

        units = []
        for item in items:
            if isinstance(item, MinedPair):
                segments = [(item.src_lang, item.src_text), (item.tgt_lang, item.tgt_text)]
            else:
                segments = [(item.lang, item.text), *item.translations.items()]
            units.append(ExportUnit(segments, {"x-score": f"{item.score:.4f}"}))
        counts = Counter(lang for u in units for lang in {lg for lg, _ in u.segments})
        # TSV columns: the languages every unit has (else the two most frequent).
        langs = [lang for lang, n in counts.most_common() if n == len(units)]
        if len(langs) < 2:
            langs = [lang for lang, _ in counts.most_common(2)]
        return write_units(Path(path).expanduser(), units, fmt, langs if fmt == "tsv" else None)

    def device_description(self) -> str:
        from xlsearch.engine.encoder import device_description
        from xlsearch.engine.settings import Settings

        return device_description(Settings.load().device)
