"""The long jobs of ``LocalEngine``: distillation, evaluation, mining, export, TSV preview."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.service.api import (
    DistillConfig,
    DistillResult,
    EvalReport,
    Hit,
    MinedPair,
    TsvPreview,
)


class JobsMixin:
    """Needs ``_store()``, ``encoder(spec)`` and ``model_card(spec)`` from the engine class."""

    def _store(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def encoder(self, spec: str | None = None) -> Any:
        raise NotImplementedError

    def model_card(self, spec: str) -> dict[str, Any]:
        raise NotImplementedError

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
        from xlsearch.engine.errors import ConfigError
        from xlsearch.engine.export.writer import iter_store_units, write_units
        from xlsearch.engine.lang.tags import primary
        from xlsearch.engine.runtime import locations

        folder = locations.cache_dir() / "tm-training"
        folder.mkdir(parents=True, exist_ok=True)
        files = []
        with self._store() as store:
            # by primary language: en-GB and en-US are both the English side, de and de-AT
            # both German targets (a filter "de" selects every German variant)
            tags = store.languages(collection)
            primaries = list(dict.fromkeys(primary(t) for t in tags))
            langs = [lang for lang in primaries if lang not in ("en", "und")]
            if "en" not in primaries or not langs:
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
        from xlsearch.engine.models.cards import read_card

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
            time_limit_min=config.time_limit_min or None,  # 0: the preset's
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
        and ``dev/stsb-multi-mt``; or, with ``data_dir`` ``api.EVAL_DEMO`` / ``api.EVAL_DEV``,
        translation accuracy on the demo's held-out units / the model's own dev split.
        Results are stored in the model's card."""
        from xlsearch.engine.errors import ConfigError
        from xlsearch.engine.evaluation.readers import tatoeba_languages, to_iso3
        from xlsearch.engine.evaluation.suite import run_suite, save_results
        from xlsearch.engine.runtime.settings import Settings
        from xlsearch.service.api import EVAL_DEMO, EVAL_DEV

        if data_dir in (EVAL_DEMO, EVAL_DEV):
            from xlsearch.service import builtin_eval as builtin

            demo = data_dir == EVAL_DEMO
            sets = builtin.demo_heldout_sets() if demo else builtin.dev_split_sets(model)
            s = Settings.load()
            report = run_suite(
                model,
                parallel_sets=sets,
                parallel_key="demo-heldout" if demo else "dev-split",
                device=s.device,
                batch_size=s.batch_size,
                on_progress=on_progress,
                cancel=cancel,
            )
            save_results(report, model)
            return self._eval_report(model, report)

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
        return self._eval_report(model, report)

    @staticmethod
    def _eval_report(model: str, report: Any) -> EvalReport:
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
        *,
        tgt_collection: str | None = None,
    ) -> list[MinedPair]:
        from xlsearch.engine.search.mining import mine_store

        encoder = self.encoder()
        with self._store() as store:
            mined = mine_store(
                store,
                encoder,
                src,
                tgt,
                collection=collection,
                tgt_collection=tgt_collection,
                threshold=threshold,
                on_progress=on_progress,
                cancel=cancel,
            )
        return [
            MinedPair(
                p["src_id"],
                p["tgt_id"],
                p["src_text"],
                p["tgt_text"],
                p.get("src_lang", src),
                p.get("tgt_lang", tgt),
                float(p["score"]),
            )
            for p in mined.pairs
        ]

    def align(
        self,
        src: str,
        tgt: str,
        src_lang: str | None = None,
        tgt_lang: str | None = None,
        presplit: bool = False,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Any:
        from xlsearch.engine.align import align_documents
        from xlsearch.engine.importers.document import read_document, require_text

        src_doc = require_text(read_document(src, src_lang or None, presplit=presplit))
        tgt_doc = require_text(read_document(tgt, tgt_lang or None, presplit=presplit))
        return align_documents(
            src_doc, tgt_doc, self.encoder(), on_progress=on_progress, cancel=cancel
        )

    def save_alignment(self, alignment: Any, collection: str = "", path: str = "") -> str:
        from xlsearch.engine.align.output import save_alignment

        return save_alignment(alignment, collection, path)

    def export(self, items: Sequence[Hit | MinedPair], path: str, fmt: str) -> int:
        """Write hits (with their translations) or mined pairs as TMX, XLIFF 1.2 or TSV.

        Hits as TSV: a header and one row per hit (``api.hit_rows``: the screen's columns)."""
        from xlsearch.engine.export.writer import ExportUnit, write_units
        from xlsearch.service.api import write_hit_table

        if fmt.lower().lstrip(".") == "tsv" and items and all(isinstance(i, Hit) for i in items):
            return write_hit_table(items, path)  # type: ignore[arg-type]

        units = []
        for item in items:
            if isinstance(item, MinedPair):
                segments = [(item.src_lang, item.src_text), (item.tgt_lang, item.tgt_text)]
            else:
                segments = [(item.lang, item.text), *item.translations.items()]
            units.append(ExportUnit(segments, {"x-score": f"{item.score:.4f}"}))
        counts = Counter(lang for u in units for lang in dict.fromkeys(lg for lg, _ in u.segments))
        # TSV columns: the languages every unit has (else the two most frequent).
        langs = [lang for lang, n in counts.most_common() if n == len(units)]
        if len(langs) < 2:
            langs = [lang for lang, _ in counts.most_common(2)]
        cols = langs if fmt == "tsv" else langs[:2] if fmt in ("xliff", "xlf") else None
        return write_units(Path(path).expanduser(), units, fmt, cols)
