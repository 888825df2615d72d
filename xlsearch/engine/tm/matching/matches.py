"""What a lookup returns: ``Match`` and ``LookupResult``, and the ranking ``Weights``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Weights:
    """``score = 100 × (fuzzy·f/100 + semantic·cos + char·c + overlap·o)``; a 100 % match
    ranks first whatever its score (``rank_key``).

    ``f`` is the CAT fuzzy %, ``cos`` the cosine of the two segments' embeddings, ``c`` the
    character-level similarity (``fuzzy.char_similarity``) and ``o`` the IDF-weighted word
    overlap (``Lookup.overlap``). Tuned on STSb *dev* with the default CPU student (128k
    balanced vocabulary, the quick preset: ``bench/lookup.py --tune``: best same-language
    recall@1 that loses ≤ 1 point to fuzzy on near copies), reported on STSb test; see
    docs/benchmarks.md. Rank fusion (RRF) was measured and not kept.
    """

    fuzzy: float = 0.1
    semantic: float = 0.45
    char: float = 0.35
    overlap: float = 0.1

    cross_fuzzy: float = 0.15
    """Cross-language group: ``score = 100 × ((1 − w)·cos + w·f/100)``."""

    def cross(self, f: float, cos: float) -> float:
        return 100.0 * ((1.0 - self.cross_fuzzy) * cos + self.cross_fuzzy * f / 100.0)

    def score(self, f: float, cos: float | None, c: float, o: float = 0.0) -> float:
        if cos is None:  # no model: the CAT ranking
            return float(f)
        s = 100.0 * (
            self.fuzzy * f / 100.0 + self.semantic * cos + self.char * c + self.overlap * o
        )
        return s

    def rank_key(self, f: float, cos: float | None, c: float, o: float = 0.0) -> tuple:
        """Sort key, best first: 100 % matches, then the score, then the fuzzy %."""
        return (f < 100, -self.score(f, cos, c, o), -f)


DEFAULT_WEIGHTS = Weights()
SEMANTIC_THRESHOLD = 0.80
"""Cosine above which a match counts as a semantic match in the analysis."""
FUZZY_FLOOR = 50
COSINE_FLOOR = 0.5
"""Shown matches have fuzzy ≥ ``FUZZY_FLOOR`` or cosine ≥ ``COSINE_FLOOR`` (CAT tools hide
matches under ~50 %; ``all_matches=True`` keeps them, e.g. for benchmarks)."""


@dataclass
class Match:
    """One memory unit matching the segment."""

    segment_id: int
    source: str
    source_lang: str
    target: str
    """The unit's text in the target language ('' when it has none)."""
    target_lang: str
    fuzzy: int
    semantic: float | None
    """Cosine with the segment (None: looked up without a model)."""
    score: float
    diff: list[tuple[str, str]] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    cross_language: bool = False
    translations: dict[str, str] = field(default_factory=dict)
    collection: str = ""
    document: str = ""
    copies: int = 1
    """How many of the candidates found hold this same source and target (listed once)."""
    newest: int = 0
    """The segment id of the most recently stored of the ``copies`` (0: ``segment_id``)."""
    form_uses: int = 0
    """How many candidates whose source is this one written otherwise (mnemonic, trailing
    punctuation, case: ``_Cancel``, ``Cancel``, ``Cancel:``) translate it with this target's
    words (mnemonic, punctuation and case aside); ``copies`` included."""
    source_tags: list[list[Any]] | None = None
    """Where the stored source's inline codes stood: ``[[offset, kind, id], …]`` (TMX)."""
    target_tags: list[list[Any]] | None = None
    """The same for the stored target: with ``source_tags``, what places the new segment's
    tags in the target (``tm.documents.tags``)."""
    target_breaks: dict[str, Any] | None = None
    """Where the stored target had line breaks (``importers.base.line_breaks``: a PO
    message written on several lines), None when it had none."""
    context: str = ""
    """The stored unit's context (PO ``msgctxt``, XLIFF ``resname``), '' when none; the
    segment's own context when one of the ``copies`` has it (``context.apply``)."""
    contexts: dict[str, int] = field(default_factory=dict)
    """The contexts of the ``copies`` (context → how many), '' for none."""
    plural_forms: list[tuple[str, str]] = field(default_factory=list)
    """When the stored unit is a form of a PO plural entry: the (source, target) of each of
    the entry's forms (``msgid``/``msgstr[0]``, ``msgid_plural``/``msgstr[1]`` …)."""
    projects: list[str] = field(default_factory=list)
    """The projects its units come from (PO ``Project-Id-Version``), as many as its
    copies name."""
    repairs: list[str] = field(default_factory=list)
    """What was done to the stored target to fit the segment (``tm.matching.repair``): a repaired
    match is a 95–99 % match for review."""
    original_target: str = ""
    """The stored target before its repair ('' when not repaired)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class LookupResult:
    """The matches for one segment: same source language, then cross-language."""

    segment: str
    src: str
    tgt: str
    matches: list[Match]
    cross: list[Match]
    ms: float = 0.0
    note: str = ""
    """Why the lookup fell back to fuzzy matching only (no model, no index), if it did."""
    fragments: list[Any] = field(default_factory=list)
    """Parts of the segment the memory translates (``fragments.Fragment``), when it has no
    match ≥ 75 %."""

    @property
    def best(self) -> Match | None:
        return self.matches[0] if self.matches else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "segment": self.segment,
            "src": self.src,
            "tgt": self.tgt,
            "matches": [m.to_dict() for m in self.matches],
            "cross_language": [m.to_dict() for m in self.cross],
            "ms": round(self.ms, 2),
            "note": self.note,
            "fragments": [asdict(f) for f in self.fragments],
        }
