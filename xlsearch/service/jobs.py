"""The long jobs of ``LocalEngine``: distillation, evaluation, mining, export, TSV preview."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Unpack

from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.service.api import (
    AlignmentSaved,
    DistillConfig,
    DistillEstimate,
    DistillResult,
    EvalReport,
    Hit,
    MinedPair,
    StsCalibration,
    TsvPreview,
)
from xlsearch.service.types import Benchmarks, JSONDict

if TYPE_CHECKING:
    from xlsearch.engine.store import Store
    from xlsearch.service.types import (
        Alignment,
        BenchmarkReport,
        LoadedEncoder,
        ModelComparison,
    )


class JobsMixin:
    """Needs ``_store()``, ``encoder(spec)`` and ``model_card(spec)`` from the engine class."""

    def _store(self) -> AbstractContextManager[Store]:
        raise NotImplementedError

    def encoder(self, spec: str | None = None) -> LoadedEncoder:
        raise NotImplementedError

    def model_card(self, spec: str) -> JSONDict:
        raise NotImplementedError

    def preview_tsv(self, paths: Sequence[str]) -> TsvPreview:
        """Read the TSVs as distillation will: columns, languages, pairs and bad lines."""
        from xlsearch.engine.distill.data import TrainFile, read_tsv

        columns, pairs, langs = 0, 0, ["en"]
        bad: list[str] = []
        sample: list[list[str]] = []
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
        *,
        use_collection: str = "",
        resume: bool = False,
    ) -> DistillResult:
        """Train a student; a cancel returns with ``cancelled`` (a checkpoint is kept).
        ``use_collection``: train on this imported collection's translation units too (one
        English–XX file per language); ``resume``: from the run's last checkpoint."""
        from xlsearch.engine.distill import distill

        if use_collection:
            config = dataclasses.replace(
                config, train=[*config.train, *self._tm_files(use_collection)]
            )
        return distill(config, on_progress, cancel, resume=resume)

    def estimate_distill(
        self, config: DistillConfig, *, use_collection: str = ""
    ) -> DistillEstimate:
        """How long ``distill(config)`` will take on this machine, before it starts: the
        data's size times the rates of the last run here (else reference figures), scaled by
        a CPU probe taken now (~0.2 s; reads the TSVs)."""
        from xlsearch.engine.distill.estimate import estimate_run

        if use_collection:
            config = dataclasses.replace(
                config, train=[*config.train, *self._tm_files(use_collection)]
            )
        e = estimate_run(config)
        return DistillEstimate(
            e.seconds, e.low, e.high, e.pairs, e.steps, e.source, e.describe(), dict(e.parts)
        )

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
            known = card.get("languages")
            wanted = [lang for lang in known if lang != "en"] if isinstance(known, list) else []
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

    def run_benchmarks(
        self,
        model: str,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        **benchmarks: Unpack[Benchmarks],
    ) -> BenchmarkReport:
        """The evaluation suite on ``model`` with the benchmarks given (``tatoeba_dir``,
        ``langs``, ``sts_files``, ``sts17_dir``, ``bucc_dir``, ``mse_file`` … and ``device``,
        ``quantize``, ``batch_size``): the engine's report (``to_text``, ``to_markdown``,
        ``to_json``). Nothing is stored: see ``save_benchmarks``."""
        from xlsearch.engine.evaluation.suite import run_suite

        return run_suite(model, **benchmarks, on_progress=on_progress, cancel=cancel)

    def save_benchmarks(self, report: BenchmarkReport, model: str) -> Path:
        """Store a report's figures in the model's card (the bundled teacher's in the data
        folder); returns where."""
        from xlsearch.engine.evaluation.suite import save_results

        return save_results(report, model)

    def compare_models(
        self, models: Sequence[str], reports: Sequence[BenchmarkReport] | None = None
    ) -> ModelComparison:
        """Models side by side (``to_text``, ``to_markdown``, ``to_dict``): from fresh
        ``reports`` in the same order, else from their stored results."""
        from xlsearch.engine.evaluation.suite import compare

        return compare(list(models), list(reports) if reports is not None else None)

    def calibrate_sts(
        self,
        sts_file: str,
        model: str | None = None,
        *,
        save: bool = True,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> StsCalibration:
        """Fit ``model``'s 0-5 STS score curve on an STS file (and, ``save``, store it with
        the model)."""
        from xlsearch.engine.evaluation import sts_calibration as calibration

        encoder = self.encoder(model)
        cal = calibration.calibrate(
            encoder, sts_file, save=save, on_progress=on_progress, cancel=cancel
        )
        return StsCalibration(
            encoder.id,
            cal["data"],
            cal["pairs"],
            cal["spearman"],
            cal["mae"],
            cal["mae_fallback"],
            list(cal["x"]),
            list(cal["y"]),
        )

    @staticmethod
    def _eval_report(model: str, report: BenchmarkReport) -> EvalReport:
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
        k: int = 4,
        margin: str = "ratio",
        retrieval: str = "max",
        exact: bool = True,
        cluster: str | None = None,
    ) -> list[MinedPair]:
        """Parallel pairs by margin score (Artetxe & Schwenk 2019), best first;
        ``self.mined`` then holds the run's figures (``src``, ``tgt`` segments, ``pairs`` …).
        ``exact=False``: approximate (IVF) neighbours for big sides; ``cluster``: encode and
        search the neighbours on a Ray cluster (``local``, ``auto`` or its address)."""
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
                k=k,
                margin=margin,
                retrieval=retrieval,
                threshold=threshold,
                exact=exact,
                cluster=cluster,
                on_progress=on_progress,
                cancel=cancel,
            )
        self.mined: JSONDict = dict(mined.stats)
        from xlsearch.engine.calibration.fill import mining_precision

        expected, said = mining_precision(
            encoder, src, tgt, [(p.src_text, p.tgt_text) for p in mined.pairs]
        )
        self.mined.update(expected_precision=expected, precision_notice=said)
        return list(mined.pairs)

    def align(
        self,
        src: str,
        tgt: str,
        src_lang: str | None = None,
        tgt_lang: str | None = None,
        presplit: bool = False,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        *,
        max_side: int | None = None,
        max_total: int | None = None,
        del_penalty: float | None = None,
        lengths: bool = False,
        outputs: Sequence[str | Path] = (),
    ) -> Alignment:
        """Align two documents (an ``engine.align.Alignment``; resumable after a cancel).

        ``max_side``/``max_total``: most sentences on one side / in a bead; ``del_penalty``:
        the cost of an unaligned sentence; ``lengths``: no model, Gale-Church sentence
        lengths; ``outputs``: files it will be written to, their kind checked first."""
        from xlsearch.engine.align import AlignConfig, Alignment, align_documents, align_lengths
        from xlsearch.engine.align.output import output_format
        from xlsearch.engine.importers.document import read_document, require_text

        for path in outputs:
            output_format(path)  # an unknown kind fails now, not after the alignment
        src_doc = require_text(read_document(src, src_lang or None, presplit=presplit))
        tgt_doc = require_text(read_document(tgt, tgt_lang or None, presplit=presplit))
        config = AlignConfig()
        if max_side is not None:
            config.max_side = max_side
        if max_total is not None:
            config.max_total = max_total
        if del_penalty is not None:
            config.del_penalty = del_penalty
        if lengths:
            beads = align_lengths(src_doc.sentences, tgt_doc.sentences, config)
            return Alignment(src_doc, tgt_doc, beads, "lengths (Gale-Church)")
        return align_documents(
            src_doc, tgt_doc, self.encoder(), config, on_progress=on_progress, cancel=cancel
        )

    def write_alignment(
        self,
        alignment: Alignment,
        collection: str = "",
        path: str | Path = "",
        *,
        beads_path: str | Path = "",
        include_flagged: bool = True,
    ) -> AlignmentSaved:
        """Write the alignment to ``path`` (.tmx, .tsv: units; .beads: Vecalign's beads) and
        ``beads_path``, and/or import it into ``collection`` (as the TMX of ``path``, else one
        kept in the data folder). No sentence pair to save raises ``DataError``."""
        from xlsearch.engine.align import write_beads
        from xlsearch.engine.align.output import (
            output_format,
            require_pairs,
            save_to_collection,
            write_alignment,
        )

        if collection or (path and output_format(path) != "beads"):
            require_pairs(alignment, include_flagged)
        written = beads = 0
        if path:
            written = write_alignment(alignment, path, include_flagged=include_flagged)
        if beads_path:
            write_beads(beads_path, alignment.beads)
            beads = len(alignment.beads)
        imported = None
        if collection:
            tmx = path if path and output_format(path) == "tmx" else None
            imported = save_to_collection(alignment, collection, tmx, include_flagged)
        return AlignmentSaved(written, str(path or ""), beads, str(beads_path or ""), imported)

    def save_alignment(self, alignment: Alignment, collection: str = "", path: str = "") -> str:
        """Import the alignment into ``collection`` and/or write it to ``path``; returns a
        one-line summary."""
        from xlsearch.engine.errors import ConfigError

        if not collection and not path:
            raise ConfigError("nowhere to save the alignment", hint="give a collection or a file")
        return self.write_alignment(alignment, collection, path).summary(collection)

    def export(self, items: Sequence[Hit | MinedPair], path: str, fmt: str) -> int:
        """Write hits (with their translations) or mined pairs as TMX, XLIFF 1.2 or TSV
        (``hits.write_export``; hits as TSV: the search screen's columns)."""
        from xlsearch.service.hits import write_export

        return write_export(items, path, fmt)
