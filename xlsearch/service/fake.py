"""A deterministic in-memory ``EngineAPI`` for tests and UI development (no torch, no disk).

Embeddings are hashed bags of words; a translation unit's segments share the unit's best
score, so a German query finds the English and Russian translations of its matches. Long jobs
emit a few progress events, wait ``step_delay`` seconds per step and honour the cancel token.
"""

from __future__ import annotations

import re
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlsearch.engine.errors import ConfigError, DataError, ModelError
from xlsearch.engine.lang.tags import tag_matches
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, ensure_token
from xlsearch.service.api import (
    EVAL_DEMO,
    EVAL_DEV,
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
    cosine,
)
from xlsearch.service.fake_data import SEED_UNITS, embed, script_lang, words
from xlsearch.service.fake_lookup import FakeLookupMixin

TEACHER = "bundled:teacher"
STUDENT = "/models/demo-student"


@dataclass
class _Segment:
    id: int
    unit: int
    lang: str
    text: str
    doc: int


@dataclass
class _Doc:
    id: int
    collection: str
    name: str
    segments: list[int] = field(default_factory=list)


def _wait(seconds: float, cancel: CancelToken) -> bool:
    """Sleep up to ``seconds``; True if ``cancel`` was set meanwhile."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and not cancel.cancelled:
        time.sleep(0.005)
    return cancel.cancelled


class FakeEngine(FakeLookupMixin):
    """In-memory engine with one ``demo`` collection; see the module docstring."""

    def __init__(self, *, step_delay: float = 0.0, seed: bool = True) -> None:
        self.step_delay = step_delay
        self.segments: dict[int, _Segment] = {}
        self.docs: dict[int, _Doc] = {}
        self.indexed: dict[tuple[str, str], int] = {}
        self.active = STUDENT
        self.students: dict[str, dict[str, Any]] = {
            STUDENT: {
                "teacher": TEACHER,
                "kind": "static",
                "dim": 256,
                "languages": ["en", "de", "ru", "zh"],
                "created": "2026-11-20T00:00:00",
                "metrics": {"demo_heldout_accuracy": 91.5, "demo_heldout_mse_x100": 0.42},
            }
        }
        self.calls: list[str] = []
        self.notices: list[str] = []
        if seed:
            self._add_units("demo", "demo.tmx", SEED_UNITS)
            self.indexed[("demo", STUDENT)] = len(self.segments)

    # -- helpers ---------------------------------------------------------------------
    def _add_units(self, collection: str, name: str, units: list[dict[str, str]]) -> _Doc:
        doc = _Doc(len(self.docs) + 1, collection, name)
        self.docs[doc.id] = doc
        unit_base = max((s.unit for s in self.segments.values()), default=0)
        for u, unit in enumerate(units, start=1):
            for lang, text in unit.items():
                seg = _Segment(len(self.segments) + 1, unit_base + u, lang, text, doc.id)
                self.segments[seg.id] = seg
                doc.segments.append(seg.id)
        return doc

    def _steps(
        self, stage: str, total: int, on_progress: ProgressCallback | None, cancel: CancelToken
    ):
        """Yield step numbers, reporting progress and honouring cancel between steps."""
        for i in range(total):
            cancel.raise_if_cancelled()
            if self.step_delay:
                _wait(self.step_delay, cancel)
                cancel.raise_if_cancelled()
            yield i
            if on_progress:
                on_progress(Progress(stage, i + 1, total))

    def _unit_segments(self, unit: int) -> list[_Segment]:
        return [s for s in self.segments.values() if s.unit == unit]

    # -- search --------------------------------------------------------------------
    def search(
        self,
        query: str,
        mode: SearchMode = "semantic",
        langs: Sequence[str] = (),
        collection: str | None = None,
        k: int = 50,
        where: Any = "",
        *,
        variants: bool = False,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[Hit]:
        self.calls.append(f"search:{mode}:{query}")
        self.notices = []
        if where:
            from xlsearch.engine.store.units import UnitFilter

            if not isinstance(where, UnitFilter):
                where = UnitFilter.parse(where)  # bad input raises, as the real engine
            if where:
                return []  # the fake corpus has no memory metadata: nothing passes a filter
        if not query.strip():
            return []
        if mode == "regex":
            try:
                pattern = re.compile(query, re.IGNORECASE)
            except re.error as exc:
                raise ConfigError(f"invalid regular expression {query!r}: {exc}") from exc
        qv, qw = embed(query), set(words(query))
        unit_sem: dict[int, float] = {}
        for s in self.segments.values():
            unit_sem[s.unit] = max(unit_sem.get(s.unit, 0.0), cosine(qv, embed(s.text)))
        hits: list[Hit] = []
        for s in self.segments.values():
            doc = self.docs[s.doc]
            if (langs and not any(tag_matches(f, s.lang) for f in langs)) or (
                collection and doc.collection != collection
            ):
                continue
            lexical = len(qw & set(words(s.text))) / max(1, len(qw))
            if mode == "regex":
                score = 1.0 if pattern.search(s.text) else 0.0
            elif mode == "phrase":
                score = 1.0 if query.strip().lower() in s.text.lower() else 0.0
            elif mode == "lexical":
                score = lexical
            elif mode == "hybrid":
                score = 0.5 * unit_sem[s.unit] + 0.5 * lexical
            else:  # the unit's best match, the segment's own match breaking ties
                score = 0.9 * unit_sem[s.unit] + 0.1 * max(0.0, cosine(qv, embed(s.text)))
            if score <= 0.0:
                continue
            translations = {t.lang: t.text for t in self._unit_segments(s.unit) if t.lang != s.lang}
            hits.append(
                Hit(s.id, round(score, 4), s.lang, s.text, doc.name, doc.collection, translations)
            )
        hits.sort(key=lambda h: (-h.score, h.segment_id))
        if not variants:  # one hit per unit, its best segment (as LocalEngine)
            seen: set[int] = set()
            unique = []
            for h in hits:
                unit = self.segments[h.segment_id].unit
                if unit not in seen:
                    seen.add(unit)
                    unique.append(h)
            hits = unique
        return hits[:k]

    def detect_language(self, text: str) -> str:
        lang = script_lang(text)
        if lang != "und":
            return lang
        return "de" if re.search(r"[äöüß]|\b(der|die|das|nach)\b", text.lower()) else "en"

    def context(self, segment_id: int, window: int = 2) -> ContextView:
        seg = self.segments[segment_id]
        doc = self.docs[seg.doc]
        same = [self.segments[i] for i in doc.segments if self.segments[i].lang == seg.lang]
        pos = next(i for i, s in enumerate(same) if s.id == segment_id)
        translations = {t.lang: t.text for t in self._unit_segments(seg.unit) if t.id != seg.id}
        return ContextView(
            seg.id,
            seg.lang,
            seg.text,
            doc.name,
            [s.text for s in same[max(0, pos - window) : pos]],
            [s.text for s in same[pos + 1 : pos + 1 + window]],
            translations,
        )

    def sts(self, a: str, b_list: Sequence[str]) -> list[StsScore]:
        av = embed(a)
        scores = [StsScore(b, round(cosine(av, embed(b)), 4)) for b in b_list]
        return sorted(scores, key=lambda s: -s.cosine)

    # -- corpus --------------------------------------------------------------------
    def collections(self) -> list[CollectionInfo]:
        names = sorted({d.collection for d in self.docs.values()})
        out = []
        for name in names:
            docs = [d for d in self.docs.values() if d.collection == name]
            segs = [self.segments[i] for d in docs for i in d.segments]
            out.append(
                CollectionInfo(
                    name,
                    len(docs),
                    len(segs),
                    len({s.unit for s in segs}),
                    sorted({s.lang for s in segs}),
                )
            )
        return out

    def documents(self, collection: str | None = None) -> list[DocumentInfo]:
        return [
            DocumentInfo(
                d.id,
                d.collection,
                d.name,
                len(d.segments),
                sorted({self.segments[i].lang for i in d.segments}),
            )
            for d in self.docs.values()
            if collection is None or d.collection == collection
        ]

    def languages(self) -> list[str]:
        return sorted({s.lang for s in self.segments.values()})

    def import_files(
        self,
        paths: Sequence[str],
        collection: str,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        langs: Sequence[str] | None = None,
    ) -> list[ImportReport]:
        """Import TAB-separated lines (``en<TAB>de<TAB>ru…``); lines without a TAB are bad."""
        cancel = ensure_token(cancel)
        reports = []
        for path in paths:
            p = Path(path)
            if not p.is_file():
                raise DataError(f"{p}: no such file")
            lines = p.read_text(encoding="utf-8").splitlines()
            units, problems = [], []
            for _ in self._steps("import", 3, on_progress, cancel):
                pass
            for n, line in enumerate(lines, start=1):
                cells = line.split("\t")
                if len(cells) < 2:
                    problems.append(f"{p.name}:{n}: no TAB-separated translation")
                    continue
                units.append(dict(zip(["en", "de", "ru", "zh"], cells, strict=False)))
            self._add_units(collection, p.name, units)
            langs = sorted({lang for unit in units for lang in unit})
            reports.append(
                ImportReport(
                    str(p),
                    collection,
                    sum(len(u) for u in units),
                    sum(len(u) for u in units),
                    len(problems),
                    problems,
                    langs,
                )
            )
        return reports

    def index_status(self) -> list[IndexStatus]:
        out = []
        for info in self.collections():
            for model in sorted({self.active} | {m for c, m in self.indexed if c == info.name}):
                done = self.indexed.get((info.name, model))
                state = "missing" if done is None else "fresh" if done == info.segments else "stale"
                out.append(IndexStatus(info.name, model, state, done or 0, info.segments))
        return out

    def build_index(
        self,
        collection: str,
        model: str | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> IndexStatus:
        cancel = ensure_token(cancel)
        model = model or self.active
        info = next((c for c in self.collections() if c.name == collection), None)
        if info is None:
            raise DataError(f"no collection named {collection!r}")
        for _ in self._steps("index", 4, on_progress, cancel):
            pass
        self.indexed[(collection, model)] = info.segments
        return IndexStatus(collection, model, "fresh", info.segments, info.segments)

    def delete_collection(self, name: str) -> None:
        for doc in [d for d in self.docs.values() if d.collection == name]:
            for i in doc.segments:
                del self.segments[i]
            del self.docs[doc.id]
        self.indexed = {key: v for key, v in self.indexed.items() if key[0] != name}

    # -- models --------------------------------------------------------------------
    def list_models(self) -> list[ModelEntry]:
        entries = [ModelEntry(TEACHER, "teacher (all-MiniLM-L6-v2)", "transformer", 384, ["en"])]
        for spec, card in self.students.items():
            entries.append(
                ModelEntry(
                    spec, Path(spec).name, card["kind"], card["dim"], card["languages"], True
                )
            )
        return [
            ModelEntry(
                e.spec,
                e.name,
                e.kind,
                e.dim,
                e.languages,
                e.is_student,
                e.spec == self.active,
                self.model_card(e.spec),
            )
            for e in entries
        ]

    def active_model(self) -> str:
        return self.active

    def set_active_model(self, spec: str) -> str:
        if spec != TEACHER and spec not in self.students:
            raise ModelError(f"no model at {spec}")
        self.active = spec
        return spec

    def model_card(self, spec: str) -> dict[str, Any]:
        if spec == TEACHER:
            return {"kind": "transformer", "dim": 384, "languages": ["en"]}
        if spec not in self.students:
            raise ModelError(f"no model at {spec}")
        return dict(self.students[spec])

    # -- distillation, evaluation, mining -------------------------------------------
    def preview_tsv(self, paths: Sequence[str]) -> TsvPreview:
        columns, pairs, bad, sample, langs = 0, 0, [], [], ["en"]
        for path in paths:
            p = Path(path)
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1):
                cells = line.split("\t")
                if len(cells) < 2 or not all(c.strip() for c in cells):
                    bad.append(f"{p.name}:{n}: expected English<TAB>translation")
                    continue
                columns = max(columns, len(cells))
                pairs += len(cells) - 1
                if len(sample) < 5:
                    sample.append(cells)
                for cell in cells[1:]:
                    lang = script_lang(cell)
                    if lang not in langs:
                        langs.append(lang)
        return TsvPreview([str(p) for p in paths], columns, langs, pairs, bad, sample)

    def distill(
        self,
        config: DistillConfig,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> DistillResult:
        cancel = ensure_token(cancel)
        if not config.data and not config.use_collection:
            raise ConfigError("no training data", hint="pick TSV files or use the imported TM")
        steps = 8
        start = 4 if config.resume else 0
        out = f"/models/{config.output or 'student-' + config.student}"
        for i in range(start, steps):
            if cancel.cancelled or (self.step_delay and _wait(self.step_delay, cancel)):
                return DistillResult(out, {}, cancelled=True, checkpoint=f"{out}.run")
            if on_progress:
                metrics: dict[str, Any] = {
                    "epoch": 1,
                    "loss": round(1.0 / (i + 1), 4),
                    "pairs_per_s": 1200.0,
                    "eta_s": float(steps - i - 1),
                }
                if i % 2 == 1:
                    metrics["dev_acc"] = round(40 + 7 * i, 1)
                on_progress(Progress("distill", i + 1, steps, "", metrics))
        card = {
            "teacher": config.teacher,
            "kind": config.student,
            "dim": 256,
            "languages": ["en", "de"],
            "created": "2026-11-20T01:00:00",
            "metrics": {"dev_accuracy": 89.0},
        }
        self.students[out] = card
        return DistillResult(out, card, history=[{"step": steps, "dev_acc": 89.0}])

    def evaluate(
        self,
        model: str,
        data_dir: str = "",
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> EvalReport:
        cancel = ensure_token(cancel)
        if data_dir == EVAL_DEV and model == TEACHER:
            raise ConfigError(f"{model} has no training data recorded, so no dev split")
        for _ in self._steps("evaluate", 3, on_progress, cancel):
            pass
        base = zlib.crc32(model.encode()) % 10
        if data_dir in (EVAL_DEMO, EVAL_DEV):
            key = "demo-heldout" if data_dir == EVAL_DEMO else "dev-split"
            rows = [
                {"set": lang, "xx→en": 80.0 + base + i, "en→xx": 78.0 + base + i}
                for i, lang in enumerate(["de", "ru", "zh"])
            ]
            return EvalReport(model, {key: rows}, {key: 80.0 + base}, [])
        tatoeba = [
            {"language": lang, "src→en": 80.0 + base + i, "en→src": 79.0 + base + i}
            for i, lang in enumerate(["de", "ru", "zh"])
        ]
        sts = [{"pair": "en-en", "spearman": 70.0 + base}, {"pair": "de-en", "spearman": 60.0}]
        points = [
            (float(i % 3) + (0.5 if lang == "de" else 0.0), float(i // 3), lang)
            for i, lang in enumerate(["en", "de", "en", "de", "ru", "ru"])
        ]
        summary = {"tatoeba": 80.0 + base + 1, "sts": 70.0 + base}
        return EvalReport(model, {"tatoeba": tatoeba, "sts": sts}, summary, points)

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
        cancel = ensure_token(cancel)
        for _ in self._steps("mine", 2, on_progress, cancel):
            pass
        if tgt_collection and tgt_collection != collection:  # two sides, paired in order
            a_side, b_side = (
                [
                    s
                    for s in self.segments.values()
                    if s.lang == lang and self.docs[s.doc].collection == c
                ]
                for lang, c in ((src, collection), (tgt, tgt_collection))
            )
            pairs = [
                MinedPair(a.id, b.id, a.text, b.text, src, tgt, round(1.2 - i / 100, 3))
                for i, (a, b) in enumerate(zip(a_side, b_side, strict=False))
            ]
            return [p for p in pairs if p.score >= threshold]
        by_unit: dict[int, dict[str, _Segment]] = {}
        for s in self.segments.values():
            if collection and self.docs[s.doc].collection != collection:
                continue
            by_unit.setdefault(s.unit, {})[s.lang] = s
        pairs = []
        for unit, segs in sorted(by_unit.items()):
            if src in segs and tgt in segs:
                score = round(1.0 + (zlib.crc32(str(unit).encode()) % 40) / 100, 3)
                a, b = segs[src], segs[tgt]
                pairs.append(MinedPair(a.id, b.id, a.text, b.text, src, tgt, score))
        return sorted((p for p in pairs if p.score >= threshold), key=lambda p: -p.score)

    def export(self, items: Sequence[Hit | MinedPair], path: str, fmt: str) -> int:
        from xlsearch.service.hits import write_export

        return write_export(items, path, fmt)

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
        """Real documents, aligned by sentence lengths (no model)."""
        from xlsearch.engine.align import align_lengths
        from xlsearch.engine.align.core import Alignment
        from xlsearch.engine.importers.document import read_document

        cancel = ensure_token(cancel)
        for _ in self._steps("align", 2, on_progress, cancel):
            pass
        a = read_document(src, src_lang or None, presplit=presplit)
        b = read_document(tgt, tgt_lang or None, presplit=presplit)
        return Alignment(a, b, align_lengths(a.sentences, b.sentences), "fake:lengths")

    def save_alignment(self, alignment: Any, collection: str = "", path: str = "") -> str:
        from xlsearch.engine.align.output import write_alignment

        parts = []
        if path:
            parts.append(f"{write_alignment(alignment, path)} units written to {path}")
        if collection:
            units = [
                {alignment.src.lang: s, alignment.tgt.lang: t} for s, t, _ in alignment.pairs()
            ]
            self._add_units(collection, Path(alignment.src.path).name, units)
            parts.append(f"{len(units)} units saved in {collection!r}")
        return "; ".join(parts) or "nothing saved"

    def device_description(self) -> str:
        return "CPU (fake engine)"

    def warm_up(self) -> str:
        self.calls.append("warm_up")
        return self.active

    def reindex_cost(self, spec: str) -> tuple[int, int]:
        todo = [c for c in self.collections() if (c.name, spec) not in self.indexed]
        return sum(c.segments for c in todo), len(todo)
