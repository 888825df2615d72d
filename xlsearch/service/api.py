"""The engine calls the TUI makes (``EngineAPI``) and the plain data types they return."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from xlsearch.engine.distill.config import DistillConfig as DistillConfig
from xlsearch.engine.distill.config import DistillResult as DistillResult
from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.engine.search.pairs import MinedPair as MinedPair
from xlsearch.service.types import (
    DocumentAnalysis,
    InlineCodes,
    JSONDict,
    LookupMatches,
    TranslationDocument,
)

if TYPE_CHECKING:
    from xlsearch.engine.store.ingest import ImportReport as ImportReport
    from xlsearch.engine.store.units import UnitFilter
    from xlsearch.service.coverage import LanguageNotice
    from xlsearch.service.qa import CheckReport
    from xlsearch.service.types import Alignment

SearchMode = Literal["semantic", "lexical", "hybrid", "phrase", "regex"]
SEARCH_MODES: tuple[SearchMode, ...] = ("semantic", "lexical", "hybrid", "phrase", "regex")
EVAL_DEMO = "builtin:demo"
"""``evaluate(data_dir=EVAL_DEMO)``: the demo's held-out units (every tenth, never trained on)."""
EVAL_DEV = "builtin:dev"
"""``evaluate(data_dir=EVAL_DEV)``: the model's own dev split, rebuilt from its card."""
HIT_COLUMNS = ("rank", "score", "lang", "text", "translation_lang", "translation", "document")
"""The header of a TSV export of search hits: one row per hit, as the search screen shows it."""
IndexState = Literal["fresh", "stale", "missing"]


@dataclass(frozen=True)
class Hit:
    """One search result: a stored segment and the translations aligned with it."""

    segment_id: int
    score: float
    lang: str
    text: str
    document: str = ""
    collection: str = ""
    translations: dict[str, str] = field(default_factory=dict)
    """Aligned segments of the same translation unit, by language."""
    unit: JSONDict = field(default_factory=dict)
    """The unit's memory metadata: tuid, created/changed (ISO dates) and created_by/
    changed_by, props [{type, text}], notes [{text}] (see ``store.units``); {} if none."""
    path: str = ""
    """The document's path as imported (``document`` is its file name)."""
    document_id: int = 0
    tu_id: str = ""
    """The translation unit's id in the store (``""``: none)."""
    aligned: list[dict[str, str | int]] = field(default_factory=list)
    """Every aligned segment in stored order, ``{"id", "lang", "text"}`` (``translations``
    keeps the first of each language)."""
    copies: int = 1
    """Units with the same text and translations this hit stands for."""

    def to_dict(self) -> JSONDict:
        """The hit as the command line's ``--json`` prints it."""
        return {
            "id": self.segment_id,
            "score": self.score,
            "lang": self.lang,
            "text": self.text,
            "path": self.path,
            "collection": self.collection,
            "document_id": self.document_id,
            "tu_id": self.tu_id,
            "translations": [dict(t) for t in self.aligned],
            "unit": self.unit,
            "copies": self.copies,
        }


@dataclass(frozen=True)
class ContextView:
    """A hit with its neighbouring segments (same document and language)."""

    segment_id: int
    lang: str
    text: str
    document: str = ""
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    translations: dict[str, str] = field(default_factory=dict)
    unit: JSONDict = field(default_factory=dict)
    """The unit's memory metadata (as ``Hit.unit``)."""


@dataclass(frozen=True)
class StsScore:
    """Similarity of ``text`` to the reference sentence."""

    text: str
    cosine: float
    calibrated_score: float | None = None
    """0–5 from the model's STS calibration; None when the model has none."""

    @property
    def score(self) -> float:
        """The 0–5 STS score: calibrated if the model has a calibration, else the fallback
        ``5 × clip(cosine, 0, 1)``."""
        if self.calibrated_score is not None:
            return round(self.calibrated_score, 2)
        return round(5.0 * max(0.0, min(1.0, self.cosine)), 2)

    @property
    def calibrated(self) -> bool:
        return self.calibrated_score is not None


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    documents: int = 0
    segments: int = 0
    units: int = 0
    languages: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DocumentInfo:
    id: int
    collection: str
    name: str
    segments: int = 0
    languages: list[str] = field(default_factory=list)
    source: str = ""


@dataclass(frozen=True)
class IndexStatus:
    collection: str
    model: str
    state: IndexState
    vectors: int = 0
    segments: int = 0
    kind: str = ""
    """After ``build_index``: the index kind (flat, hnsw, ivf, sq8, ivfpq) and what changed."""
    added: int = 0
    removed: int = 0
    rebuilt: bool = False
    folder: str = ""


@dataclass(frozen=True)
class ModelEntry:
    """A model the user can pick, with its card."""

    spec: str
    name: str
    kind: str = ""
    dim: int | None = None
    languages: list[str] = field(default_factory=list)
    is_student: bool = False
    active: bool = False
    card: JSONDict = field(default_factory=dict)
    folder: str = ""
    """The model's folder on disk."""
    size: int | None = None
    """Bytes on disk of the model's folder (None: not measured)."""
    shipped: bool = False
    """The multilingual student that comes with xlsearch."""


@dataclass(frozen=True)
class TsvPreview:
    """A look at distillation TSVs before training on them."""

    files: list[str]
    columns: int
    languages: list[str]
    pairs: int
    bad_lines: list[str] = field(default_factory=list)
    sample: list[list[str]] = field(default_factory=list)


@dataclass(frozen=True)
class DistillEstimate:
    """How long a distillation will take (``estimate_distill``), before it starts."""

    seconds: float
    low: float
    high: float
    pairs: int
    steps: int
    source: str
    """``measured``: from the last run on this machine; ``reference``: no run here yet."""
    text: str
    """One line for people: ``about 3 min (2–4 min) · 8,000 pairs, 29 steps · from …``."""
    parts: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class StsCalibration:
    """A model's fitted 0-5 STS score curve (``calibrate_sts``)."""

    model: str
    """The model's id."""
    data: str
    """The STS file it was fitted on."""
    pairs: int
    spearman: float
    """Spearman × 100 of cosine against the gold scores."""
    mae: float
    """Mean absolute error of the calibrated score (0-5 scale)."""
    mae_fallback: float
    """The same of the fallback ``5 × cosine``."""
    x: list[float] = field(default_factory=list)
    """Knots: cosines …"""
    y: list[float] = field(default_factory=list)
    """… and their scores."""


@dataclass(frozen=True)
class EvalReport:
    """Evaluation of one model: a table (list of row dicts) per benchmark, and bias points."""

    model: str
    tables: dict[str, list[JSONDict]] = field(default_factory=dict)
    summary: dict[str, float] = field(default_factory=dict)
    bias_points: list[tuple[float, float, str]] = field(default_factory=list)
    """2-D PCA coordinates of sentence embeddings and their language."""


@dataclass(frozen=True)
class AlignmentSaved:
    """Where an alignment went (``save_alignment``)."""

    written: int = 0
    """Units (or beads, for a .beads file) written to ``path``."""
    path: str = ""
    beads: int = 0
    """Beads written to ``beads_path``."""
    beads_path: str = ""
    imported: ImportReport | None = None
    """The import of its TMX into a collection."""

    def summary(self, collection: str = "") -> str:
        """One line: ``N written to PATH; S segments in collection 'c' (status)``."""
        parts = []
        if self.path:
            parts.append(f"{self.written:,} written to {self.path}")
        if self.beads_path:
            parts.append(f"{self.beads:,} beads written to {self.beads_path}")
        if self.imported is not None:
            r = self.imported
            parts.append(f"{r.segments:,} segments in collection {collection!r} ({r.status})")
        return "; ".join(parts)


class EngineAPI(Protocol):
    """Exactly the calls the TUI makes. Long calls take ``on_progress`` and ``cancel``."""

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
        """``langs``: BCP 47 prefixes (``en`` finds ``en-GB``); ``where``: memory metadata
        filters, a ``UnitFilter`` or its one-line form (``client=ACME changed>=2024-01-01``;
        bad input raises ``ConfigError``). One hit per translation unit unless ``variants``;
        a collection without an index for the model is indexed on the spot (progress via
        ``on_progress``; afterwards the engine's ``notices`` list says what was done)."""
        ...

    def context(self, segment_id: int, window: int = 2) -> ContextView: ...

    def detect_language(self, text: str) -> str: ...

    def sts(self, a: str, b_list: Sequence[str]) -> list[StsScore]: ...

    def collections(self) -> list[CollectionInfo]: ...

    def documents(self, collection: str | None = None) -> list[DocumentInfo]: ...

    def languages(self) -> list[str]: ...

    def collection_names(self) -> list[str]: ...

    def toy_notice(self, collection: str | None = None) -> str | None: ...

    def language_notice(
        self,
        langs: Sequence[str | None] = (),
        texts: Sequence[str] = (),
        model: str | None = None,
    ) -> LanguageNotice | None:
        """The languages among ``langs`` and those of ``texts`` the model's card does not
        cover, with the fix (``service.coverage``); None when it covers them all."""
        ...

    def import_files(
        self,
        paths: Sequence[str],
        collection: str,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        langs: Sequence[str] | None = None,
        encoding: str | None = None,
    ) -> list[ImportReport]: ...

    def index_status(self) -> list[IndexStatus]: ...

    def build_index(
        self,
        collection: str,
        model: str | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> IndexStatus: ...

    def delete_collection(self, name: str) -> str: ...

    def list_models(self) -> list[ModelEntry]: ...

    def active_model(self) -> str: ...

    def set_active_model(self, spec: str) -> str: ...

    def model_card(self, spec: str) -> JSONDict: ...

    def preview_tsv(self, paths: Sequence[str]) -> TsvPreview: ...

    def distill(
        self,
        config: DistillConfig,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        *,
        use_collection: str = "",
        resume: bool = False,
    ) -> DistillResult:
        """Train a student on ``config.train`` and (``use_collection``) an imported
        collection's translation units (English pivot); ``resume``: from the checkpoint of
        the run in ``config.out``/``config.name``."""
        ...

    def estimate_distill(
        self, config: DistillConfig, *, use_collection: str = ""
    ) -> DistillEstimate:
        """How long ``distill(config)`` will take here, before it starts."""
        ...

    def evaluate(
        self,
        model: str,
        data_dir: str = "",
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> EvalReport: ...

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
    ) -> list[MinedPair]: ...

    def export(self, items: Sequence[Hit | MinedPair], path: str, fmt: str) -> int: ...

    def align(
        self,
        src: str,
        tgt: str,
        src_lang: str | None = None,
        tgt_lang: str | None = None,
        presplit: bool = False,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Alignment:
        """Align two documents (an ``engine.align.Alignment``; resumable after a cancel)."""
        ...

    def save_alignment(self, alignment: Alignment, collection: str = "", path: str = "") -> str:
        """Import the alignment into ``collection`` and/or write it to ``path`` (.tmx, .tsv,
        .beads); returns a one-line summary."""
        ...

    def device_description(self) -> str: ...

    def warm_up(self) -> str:
        """Load the active model (and open its indexes) so the first search is fast; returns
        the model's spec. Never raises: a problem shows at the first search instead."""
        ...

    def reindex_cost(self, spec: str) -> tuple[int, int]:
        """``(segments, collections)`` that would have to be embedded to search every
        collection with ``spec`` (the cost of switching to it)."""
        ...

    # -- translating with the memory ------------------------------------------------------
    def lookup(
        self,
        segment: str,
        src: str,
        tgt: str = "",
        collection: str | None = None,
        k: int = 5,
        *,
        doc_segment: InlineCodes | None = None,
        cancel: CancelToken | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> LookupMatches:
        """CAT matches (fuzzy %, semantic, diff, target, flags).
        ``doc_segment``: the document's segment being looked up; its inline codes decide
        100 % or 99 % as in an analysis. ``cancel``: a stale lookup stops early.
        ``on_progress``: a ``notice`` before seconds of work done once (the memory's
        fragments learnt on its first use)."""
        ...

    def open_document(self, path: str, src: str = "", tgt: str = "") -> TranslationDocument:
        """A document to translate (XLIFF, PO, text, DOCX)."""
        ...

    def analyze(
        self,
        doc: TranslationDocument,
        collection: str | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        segment: str = "auto",
    ) -> DocumentAnalysis:
        """The analysis of ``doc`` against the memory; ``segment``: how units of
        several sentences are segmented (``documents.SEGMENT_MODES``; ``auto``: whole units
        first, split only where the whole has no good match)."""
        ...

    def segment_document(
        self,
        doc: TranslationDocument,
        collection: str | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        segment: str = "auto",
    ) -> int:
        """Segment ``doc`` in place as its analysis does (its first stage); how many units
        were split or paragraphs made whole."""
        ...

    def pretranslate(self, doc: TranslationDocument, analysis: DocumentAnalysis) -> int:
        """Fill ``doc``'s empty targets from ``analysis`` (what may be written); how many."""
        ...

    def save_document(self, doc: TranslationDocument, path: str = "") -> str:
        """Write ``doc`` back (in its format, or XLIFF 2.0 for an .xlf path)."""
        ...

    def check_document(
        self,
        doc: TranslationDocument,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> CheckReport:
        """The check of ``doc``'s targets: rule, consistency, language and (with
        the active model) calibrated semantic checks; each flag names its segment."""
        ...


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors (0 when either is all zeros)."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def __getattr__(name: str) -> object:
    """``ImportReport`` is the store's own (imported when first asked for: the store's
    package loads numpy, which a front's start does without)."""
    if name == "ImportReport":
        from xlsearch.engine.store.ingest import ImportReport

        return ImportReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
