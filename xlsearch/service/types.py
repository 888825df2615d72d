"""What the fronts may do with the engine's objects that cross the service.

A document being translated, a lookup's matches, an analysis, an alignment: the engine
builds them, the fronts read them and call exactly the operations named here (the engine's
classes implement these protocols; nothing else of theirs is reachable from a front).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypedDict

if TYPE_CHECKING:  # the engine's own typed classes, named here for the fronts
    from xlsearch.engine.align.beads import Bead as Bead
    from xlsearch.engine.align.core import Alignment as Alignment
    from xlsearch.engine.evaluation.report import Report, Table
    from xlsearch.engine.export.writer import ExportReport as ExportReport
    from xlsearch.engine.models.encoder import Encoder
    from xlsearch.engine.models.numpy_transformer import NumpyTransformer
    from xlsearch.engine.models.static_encoder import StaticEncoder

    LoadedEncoder = Encoder | StaticEncoder | NumpyTransformer
    """A loaded model (``LocalEngine.encoder``; a BERT's numpy twin for a few texts)."""
    BenchmarkReport = Report
    """An evaluation run (``to_text``, ``to_markdown``, ``to_json``)."""
    ModelComparison = Table
    """Models side by side (``to_text``, ``to_markdown``, ``to_dict``)."""

JSONDict = dict[str, object]
"""Free-form JSON data (a model card, a unit's metadata, a table row): read with checks."""

TagPlaces = list[list[object]]
"""Where a text's inline codes stand: ``[[offset, kind, id, …], …]`` (as the memory stores
them)."""


class EncoderOptions(TypedDict, total=False):
    """How a model is loaded, over the saved settings (``LocalEngine(encoder_options=…)``)."""

    device: str
    batch_size: int
    max_seq_length: int | None
    quantize: bool
    precision: str
    threads: int


class Benchmarks(TypedDict, total=False):
    """Which benchmarks ``run_benchmarks`` runs, on what data, and how the model runs."""

    tatoeba_dir: str | None
    langs: list[str] | None
    margin: bool
    sts_files: list[str]
    sts_cross: bool
    sts17_dir: str | None
    bias: bool
    bucc_dir: str | None
    bucc_synthetic: bool
    mse_file: str | None
    teacher: str
    device: str
    quantize: bool
    batch_size: int


class InlineCodes(Protocol):
    """A looked-up segment's inline codes: a 100 % match keeps 100 % only with the same."""

    @property
    def tags(self) -> int:
        """Inline codes in the source."""
        ...

    @property
    def source_tags(self) -> TagPlaces | None:
        """Where they stand in the source, when known."""
        ...


@dataclass(frozen=True)
class SegmentCodes:
    """Inline codes of a segment typed at the command line (``InlineCodes``), and its
    context (a PO ``msgctxt``: the same context in the memory is a 101 % match)."""

    tags: int
    source_tags: TagPlaces | None
    context: str = ""
    context_is_key: bool = True


class TranslationSegment(InlineCodes, Protocol):
    """One segment of a document being translated, as a front reads it."""

    @property
    def index(self) -> int: ...
    @property
    def key(self) -> str:
        """Where it lives: unit id (+ segment id), PO msgctxt/msgid, or paragraph.sentence."""
        ...

    @property
    def source(self) -> str: ...
    @property
    def target(self) -> str: ...
    @property
    def locked(self) -> bool: ...
    @property
    def confirmed(self) -> bool: ...
    @property
    def changed(self) -> bool: ...
    @property
    def origin(self) -> str:
        """How xlsearch found its target (``fuzzy``, ``semantic``, ``edited``; '' = the
        file's own)."""
        ...


class TranslationDocument(Protocol):
    """A document being translated (``open_document``): its segments and the operations a
    front may call on it; the service reads and writes it."""

    src: str
    tgt: str

    @property
    def path(self) -> Path: ...
    @property
    def fmt(self) -> str: ...
    @property
    def segments(self) -> Sequence[TranslationSegment]: ...
    @property
    def translated(self) -> int:
        """Segments with a target."""
        ...

    @property
    def confirmed(self) -> int:
        """Segments confirmed by a translator."""
        ...

    def set_target(
        self,
        index: int,
        text: str,
        *,
        quality: float | None = None,
        origin: str = "edited",
        match_source: str = "",
        tag_hint: tuple[TagPlaces | None, TagPlaces | None] | None = None,
        edited_from: str | None = None,
        line_breaks: Mapping[str, object] | None = None,
    ) -> TranslationSegment:
        """Set segment ``index``'s target (marked for review when saved); ``line_breaks``:
        where the match's stored target had line breaks (``MemoryMatch.target_breaks``)."""
        ...

    def confirm(self, index: int) -> TranslationSegment:
        """Confirm segment ``index``'s target (saved as translated); ``DataError`` when it
        has none."""
        ...

    def next_unconfirmed(self, after: int) -> int | None:
        """The first segment after ``after`` (then from the top) neither confirmed nor
        locked; None when every segment is."""
        ...

    @property
    def language_notice(self) -> str | None:
        """One line when the text reads as another language than ``src``."""
        ...

    def check_output(self, path: str | Path) -> None:
        """A one-line error now when ``path`` cannot take this document's format."""
        ...


class MemoryMatch(Protocol):
    """One memory unit matching a segment (a lookup's or an analysis's)."""

    @property
    def segment_id(self) -> int: ...
    @property
    def source(self) -> str: ...
    @property
    def source_lang(self) -> str: ...
    @property
    def target(self) -> str:
        """The unit's text in the target language ('' when it has none)."""
        ...

    @property
    def target_lang(self) -> str: ...
    @property
    def fuzzy(self) -> int: ...
    @property
    def semantic(self) -> float | None:
        """Cosine with the segment (None: looked up without a model)."""
        ...

    @property
    def score(self) -> float: ...
    @property
    def diff(self) -> Sequence[tuple[str, str]]: ...
    @property
    def flags(self) -> Sequence[str]: ...
    @property
    def cross_language(self) -> bool: ...
    @property
    def collection(self) -> str: ...
    @property
    def copies(self) -> int: ...
    @property
    def contexts(self) -> Mapping[str, int]:
        """The contexts of the ``copies`` (PO ``msgctxt``, XLIFF ``resname``; '' for none)
        with how many copies have each."""
        ...

    @property
    def source_tags(self) -> TagPlaces | None: ...
    @property
    def target_tags(self) -> TagPlaces | None: ...
    @property
    def target_breaks(self) -> Mapping[str, object] | None:
        """Where the stored target had line breaks (a PO message of several lines)."""
        ...

    @property
    def original_target(self) -> str:
        """The stored target before its repair ('' when not repaired)."""
        ...


class MatchFragment(Protocol):
    """A part of a segment and the memory's translation of it (shown, never written)."""

    @property
    def source(self) -> str: ...
    @property
    def target(self) -> str: ...
    @property
    def count(self) -> int: ...
    @property
    def how(self) -> str:
        """``unit`` (a whole memory unit) or ``aligned`` (a word alignment)."""
        ...

    @property
    def evidence(self) -> str:
        """``5 of 6 memory units translate it so``: the same words in every front."""
        ...


class LookupMatches(Protocol):
    """The matches of one segment: same source language, then cross-language."""

    @property
    def matches(self) -> Sequence[MemoryMatch]: ...
    @property
    def cross(self) -> Sequence[MemoryMatch]: ...
    @property
    def fragments(self) -> Sequence[MatchFragment]: ...
    @property
    def ms(self) -> float: ...
    @property
    def note(self) -> str:
        """Why the lookup fell back to fuzzy matching only, if it did."""
        ...

    def to_dict(self) -> JSONDict: ...


class FillPolicyView(Protocol):
    """Which model writes semantic matches, from which cosine."""

    @property
    def model(self) -> str: ...
    @property
    def notice(self) -> str | None: ...
    def describe(self) -> str: ...


class DocumentAnalysis(Protocol):
    """An analysis of a document against the memory: CAT bands, the semantic band."""

    @property
    def tgt(self) -> str: ...
    @property
    def seconds(self) -> float: ...
    @property
    def threshold(self) -> float: ...
    @property
    def fill_policy(self) -> FillPolicyView | None: ...
    def table(self) -> list[JSONDict]:
        """Rows ``{band, segments, words, percent}``."""
        ...

    def to_dict(self, examples: int = 10) -> JSONDict: ...
    def to_markdown(self, examples: int | None = 10) -> str: ...
