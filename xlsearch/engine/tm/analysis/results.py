"""What an analysis reports: CAT bands and the semantic band, per segment and in total.

Bands are those of CAT tools' analysis reports, on the best fuzzy % among a segment's
matches that have a target: 101 % (a 100 % match in the segment's own context), 100 %,
95–99, 85–94, 75–84, 50–74, no match. A segment whose
text already occurred earlier in the document is a *repetition* (counted once, by its first
occurrence). The band no CAT tool has: segments with **no fuzzy match ≥ 75 %** whose best
semantic match (same or another source language) has a cosine ≥ ``threshold`` — paraphrases
the memory already translated.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from xlsearch.engine.tm.matching import context as ctx
from xlsearch.engine.tm.matching.fuzzy import PLACEHOLDER_FLAG, words
from xlsearch.engine.tm.matching.matches import Match
from xlsearch.engine.tm.matching.repair import REPAIRED
from xlsearch.engine.tm.matching.substitute import FLAG as SUBSTITUTED_FLAG

BANDS: list[tuple[str, int, int]] = [
    ("101%", 101, 101),
    ("100%", 100, 100),
    ("95-99%", 95, 99),
    ("85-94%", 85, 94),
    ("75-84%", 75, 84),
    ("50-74%", 50, 74),
    ("no match", 0, 49),
]
SEMANTIC_BAND = "semantic"
REPETITIONS = "repetitions"
UNTRANSLATABLE = "not translatable"
"""Units marked ``translate="no"`` (XLIFF): a row of their own, outside the total."""


def band_of(f: int) -> str:
    """The CAT band of a fuzzy %."""
    for name, lo, hi in BANDS:
        if lo <= f <= hi:
            return name
    return "no match"


@dataclass(frozen=True)
class SegmentResult:
    """One document segment's analysis (each stage makes its own, changed copy)."""

    index: int
    source: str
    words: int
    band: str
    fuzzy: int = 0
    cosine: float | None = None
    repetition_of: int | None = None
    best: Match | None = None
    """The match pre-translation would use: the top-ranked one with a target."""
    semantic: Match | None = None
    """The best-cosine match, when the segment falls in the semantic band."""
    fill: bool = False
    """Whether the semantic match may be written (calibrated precision ≥ 95 %)."""
    fill_probability: float | None = None
    fill_evidence: str = ""
    """Why the semantic match may be written (the memory calibration's counts)."""
    flags: list[str] = field(default_factory=list)
    """What the translator must check (a repetition whose inline codes differ)."""
    alternatives: int = 0
    """Other translations the memory has for the written match's source."""
    fragments: list[Any] = field(default_factory=list)
    """``fragments.Fragment``s of a segment without a match ≥ 75 %: shown, never written."""

    @property
    def in_semantic_band(self) -> bool:
        return self.semantic is not None


@dataclass(frozen=True)
class Analysis:
    """Counts per band, repetitions, the semantic band with examples."""

    document: str
    src: str
    tgt: str
    collection: str
    threshold: float
    segments: list[SegmentResult] = field(default_factory=list)
    seconds: float = 0.0
    model: str = ""
    fill_policy: Any = None
    """``calibration.fill.FillPolicy``: which model writes semantic matches, from which cosine."""
    untranslatable: list[str] = field(default_factory=list)
    """Sources of the units marked ``translate="no"``: counted apart, never looked up."""

    def table(self) -> list[dict[str, Any]]:
        """Rows ``{band, segments, words, percent}`` (percent of words), CAT order, then
        repetitions, the total and the semantic band (a subset of 50-74 % and no match)."""
        total_words = sum(s.words for s in self.segments) or 1
        rows = []
        for name in [b[0] for b in BANDS] + [REPETITIONS]:
            segs = [s for s in self.segments if s.band == name]
            rows.append(_row(name, segs, total_words))
        rows.append(_row("total", self.segments, total_words))
        rows.append(_row(SEMANTIC_BAND, self.semantic_segments(), total_words))
        if self.untranslatable:  # not part of the total: nothing to translate
            w = sum(words(t) for t in self.untranslatable)
            rows.append(
                {"band": UNTRANSLATABLE, "segments": len(self.untranslatable), "words": w,
                 "percent": 0.0}
            )  # fmt: skip
        return rows

    def semantic_segments(self) -> list[SegmentResult]:
        return [s for s in self.segments if s.in_semantic_band]

    def to_dict(self, examples: int | None = None) -> dict[str, Any]:
        """The report as JSON-ready data: every semantic example, or the first ``examples``."""
        return {
            "document": self.document,
            "src": self.src,
            "tgt": self.tgt,
            "collection": self.collection,
            "model": self.model,
            "semantic_threshold": self.threshold,
            "semantic_fill": self.fill_policy.to_dict() if self.fill_policy else None,
            "seconds": round(self.seconds, 2),
            "bands": self.table(),
            "several_translations": sum(1 for s in self.segments if s.alternatives),
            "semantic_examples": [
                {
                    "segment": s.source,
                    "fuzzy": s.fuzzy,
                    "match": s.semantic.source,
                    "match_lang": s.semantic.source_lang,
                    "target": s.semantic.target,
                    "cosine": s.semantic.semantic,
                    "filled": s.fill,
                    "probability": s.fill_probability,
                    "evidence": s.fill_evidence,
                }
                for s in self.semantic_segments()[slice(examples)]
                if s.semantic is not None
            ],
            "segments": [
                {
                    "index": s.index,
                    "source": s.source,
                    "words": s.words,
                    "band": s.band,
                    "fuzzy": s.fuzzy,
                    "cosine": s.cosine,
                    "semantic_band": s.in_semantic_band,
                    "repetition_of": s.repetition_of,
                    "flags": s.flags,
                    "alternatives": s.alternatives,
                    "fragments": [asdict(f) for f in s.fragments],
                    "best": asdict(s.best) if s.best else None,
                }
                for s in self.segments
            ],
        }

    def to_markdown(self, examples: int | None = 10) -> str:
        """The report as Markdown: ``examples`` segments of each list (the terminal's), each
        list followed by how many more there are; None lists them all (a report file)."""

        def shown(items: list[Any]) -> list[Any]:
            return items if examples is None else items[:examples]

        def more(items: list[Any]) -> list[str]:
            if examples is None or len(items) <= examples:
                return []
            return [f"- … and {len(items) - examples} more (--report FILE.md lists all)"]

        lines = [
            f"# Analysis of {self.document}",
            "",
            f"Memory: {self.collection or 'all collections'} · {self.src} → {self.tgt or '?'}"
            f" · model {self.model or '(none: fuzzy only)'} · {self.seconds:.1f} s",
            "",
            "| band | segments | words | % words |",
            "|---|---:|---:|---:|",
        ]
        for r in self.table():
            name = r["band"]
            if name == "101%":
                name = "101% (same context)"
            elif name == SEMANTIC_BAND:
                name = f"**semantic** (no fuzzy ≥ 75 %, cosine ≥ {self.threshold:.2f})"
            elif name == UNTRANSLATABLE:
                name = 'not translatable (translate="no", not in the total)'
            lines.append(f"| {name} | {r['segments']} | {r['words']} | {r['percent']:.1f} |")
        several = sum(1 for s in self.segments if s.alternatives)
        if several:
            lines += [
                "",
                f"{several} segments have several translations in the memory: the one written "
                "is chosen by context, then the job's own project, then use count, then the "
                "most recent (listed below, with the evidence that chose).",
            ]
        if self.fill_policy is not None:
            lines += self.fill_policy.report_lines(self.semantic_segments())
        wrong = [  # only matches a translator would use: a CAT fuzzy match or a written fill
            s
            for s in self.segments
            if s.best is not None
            and placeholder_flagged(s.best)
            and (s.fuzzy >= CAT_MIN_FUZZY or s.fill)
        ]
        if wrong:
            lines += ["", "## Matches that get the placeholders wrong (suggestions only)", ""]
            for s in shown(wrong):
                assert s.best is not None
                flag = next(f for f in s.best.flags if f.startswith(PLACEHOLDER_FLAG))
                lines.append(f"- **{s.source}** ({s.best.fuzzy} %): {flag}")
            lines += more(wrong)
        check = [
            (s, flag)
            for s in self.segments
            if s.best is not None and s.fuzzy >= CAT_MIN_FUZZY and not placeholder_flagged(s.best)
            for flag in [next((f for f in s.best.flags if f.startswith(CHECK_FLAGS)), "")]
            if flag
        ]
        if check:  # a fuzzy match's target is written as it stands: its numbers, its codes
            lines += [
                "",
                "## Repaired, substituted and in-context matches, matches whose numbers or "
                "tags differ, or with other translations (check their targets)",
                "",
            ]
            for s, flag in shown(check):
                assert s.best is not None
                lines.append(f"- **{s.source}** ({s.best.fuzzy} %): {flag}")
            lines += more(check)
        frag = [s for s in self.segments if s.fragments]
        if frag:
            lines += [
                "",
                f"## Fragments your memory translates ({len(frag)} segments without a match "
                "≥ 75 %; shown to insert, never written)",
                "",
            ]
            for s in shown(frag):
                parts = " · ".join(f"{f.source} → {f.target} ({f.evidence})" for f in s.fragments)
                lines.append(f"- **{s.source}**: {parts}")
            lines += more(frag)
        sem = self.semantic_segments()
        if sem:
            lines += ["", "## Semantic matches fuzzy matching misses", ""]
            for s in shown(sem):
                m = s.semantic
                assert m is not None
                lines += [
                    f"- **{s.source}** (best fuzzy {s.fuzzy} %)",
                    f"  - memory [{m.source_lang}]: {m.source} (cosine {m.semantic:.2f})",
                    f"  - target: {m.target or '—'}"
                    + (" (written on pre-translation)" if s.fill else " (suggestion)"),
                ]
                if s.fill_evidence:
                    lines.append(f"  - why: {s.fill_evidence}")
            lines += more(sem)
        return "\n".join(lines) + "\n"


def _row(name: str, segs: list[SegmentResult], total_words: int) -> dict[str, Any]:
    w = sum(s.words for s in segs)
    return {
        "band": name,
        "segments": len(segs),
        "words": w,
        "percent": round(100.0 * w / total_words, 1),
    }


CAT_MIN_FUZZY = 75
"""The lowest fuzzy % a CAT tool (and ``analyze --out``, by default) fills in."""
OTHER_TRANSLATIONS = ctx.OTHER_TRANSLATIONS
CREDITS_FLAG = "translator credits: never filled from the memory"
CHECK_FLAGS = (
    ctx.SUGGESTION_ONLY,
    ctx.CONTEXT_FLAG,
    ctx.CONTEXT_MATCHED,
    REPAIRED,
    SUBSTITUTED_FLAG,
    "numbers:",
    "tags:",
    OTHER_TRANSLATIONS,
)
"""The flags of a fuzzy match whose target needs a look before it stands."""


def placeholder_flagged(m: Match) -> bool:
    return any(f.startswith(PLACEHOLDER_FLAG) for f in m.flags)


__all__ = [
    "BANDS",
    "CAT_MIN_FUZZY",
    "CHECK_FLAGS",
    "CREDITS_FLAG",
    "REPETITIONS",
    "SEMANTIC_BAND",
    "Analysis",
    "SegmentResult",
    "band_of",
]
