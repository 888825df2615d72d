"""Analysis of a document against the memory (CAT bands + the semantic band) and
pre-translation with the best match per segment.

Bands are those of CAT tools' analysis reports, on the best fuzzy % among a segment's
matches that have a target: 101 % (a 100 % match in the segment's own context), 100 %,
95–99, 85–94, 75–84, 50–74, no match. A segment whose
text already occurred earlier in the document is a *repetition* (counted once, by its first
occurrence). The band no CAT tool has: segments with **no fuzzy match ≥ 75 %** whose best
semantic match (same or another source language) has a cosine ≥ ``threshold`` — paraphrases
the memory already translated.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.engine.tm import context as ctx
from xlsearch.engine.tm.fuzzy import PLACEHOLDER_FLAG, placeholder_problem, words
from xlsearch.engine.tm.lookup import SEMANTIC_THRESHOLD, Lookup, LookupResult, Match
from xlsearch.engine.tm.repair import REPAIRED

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


@dataclass
class SegmentResult:
    """One document segment's analysis."""

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


@dataclass
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
    """``fill_policy.FillPolicy``: which model writes semantic matches, from which cosine."""
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

    def to_dict(self, examples: int = 10) -> dict[str, Any]:
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
                for s in self.semantic_segments()[:examples]
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

    def to_markdown(self, examples: int = 10) -> str:
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
                "is chosen by context, then use count, then the most recent (listed below).",
            ]
        if self.fill_policy is not None:
            lines += self.fill_policy.report_lines(self.semantic_segments())
        wrong = [  # only matches a translator would use: CAT fuzzy or the semantic band
            s
            for s in self.segments
            if s.best is not None
            and _placeholder_flag(s.best)
            and (s.fuzzy >= CAT_MIN_FUZZY or s.in_semantic_band)
        ]
        if wrong:
            lines += ["", "## Matches that get the placeholders wrong (suggestions only)", ""]
            for s in wrong[:examples]:
                assert s.best is not None
                flag = next(f for f in s.best.flags if f.startswith(PLACEHOLDER_FLAG))
                lines.append(f"- **{s.source}** ({s.best.fuzzy} %): {flag}")
        check = [
            (s, flag)
            for s in self.segments
            if s.best is not None and s.fuzzy >= CAT_MIN_FUZZY and not _placeholder_flag(s.best)
            for flag in [next((f for f in s.best.flags if f.startswith(CHECK_FLAGS)), "")]
            if flag
        ]
        if check:  # a fuzzy match's target is written as it stands: its numbers, its codes
            lines += [
                "",
                "## Repaired matches, matches whose numbers or tags differ, or with other "
                "translations (check their targets)",
                "",
            ]
            for s, flag in check[:examples]:
                assert s.best is not None
                lines.append(f"- **{s.source}** ({s.best.fuzzy} %): {flag}")
            if len(check) > examples:
                lines.append(f"- … and {len(check) - examples} more (the JSON report lists all)")
        frag = [s for s in self.segments if s.fragments]
        if frag:
            lines += [
                "",
                f"## Fragments your memory translates ({len(frag)} segments without a match "
                "≥ 75 %; shown to insert, never written)",
                "",
            ]
            for s in frag[:examples]:
                parts = " · ".join(f"{f.source} → {f.target} (×{f.count})" for f in s.fragments)
                lines.append(f"- **{s.source}**: {parts}")
        sem = self.semantic_segments()[:examples]
        if sem:
            lines += ["", "## Semantic matches fuzzy matching misses", ""]
            for s in sem:
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
        return "\n".join(lines) + "\n"


def _row(name: str, segs: list[SegmentResult], total_words: int) -> dict[str, Any]:
    w = sum(s.words for s in segs)
    return {
        "band": name,
        "segments": len(segs),
        "words": w,
        "percent": round(100.0 * w / total_words, 1),
    }


def _same_places(new: list[list[Any]] | None, stored: list[list[Any]] | None) -> bool:
    """Whether two segments' codes are the same kinds at the same places (ids may differ:
    every file numbers its own)."""
    if not new or not stored:
        return False
    return [(int(t[0]), t[1]) for t in new] == [(int(t[0]), t[1]) for t in stored]


def tag_penalty(matches: list[Any], seg: Any) -> None:
    """A CAT tool's tag penalty: a would-be 100 % match is 100 % only when the memory's
    source has the segment's codes, the same kinds at the same places (its target then
    takes them where the memory's target had them); else 99 % (never ``exact-match``),
    flagged with both counts."""
    has = bool(seg.source_tags or seg.tags)
    for m in matches:
        if (
            m.fuzzy >= 100
            and (has or m.source_tags)
            and not _same_places(seg.source_tags, m.source_tags)
        ):
            m.fuzzy = 99
            new = len(seg.source_tags) if seg.source_tags else seg.tags
            stored = len(m.source_tags) if m.source_tags else "—"
            m.flags.append(f"tags: new {new} · stored {stored}")


def check_placeholders(res: SegmentResult) -> None:
    """CAT QA on a segment's matches: one whose target lacks a placeholder of the segment
    (or has one the segment lacks) is flagged, and its target is a suggestion only —
    ``pretranslate`` does not write it (``fill`` off for a semantic match)."""
    for m in {id(m): m for m in (res.best, res.semantic) if m is not None}.values():
        problem = placeholder_problem(res.source, m.target) if m.target else ""
        if problem and problem not in m.flags:
            m.flags.append(problem)
    if res.fill and res.semantic is not None and _placeholder_flag(res.semantic):
        res.fill = False


CAT_MIN_FUZZY = 75
"""The lowest fuzzy % a CAT tool (and ``analyze --out``, by default) fills in."""
OTHER_TRANSLATIONS = ctx.OTHER_TRANSLATIONS
CREDITS_FLAG = "translator credits: never filled from the memory"
CHECK_FLAGS = (
    ctx.SUGGESTION_ONLY,
    ctx.CONTEXT_FLAG,
    REPAIRED,
    "numbers:",
    "tags:",
    OTHER_TRANSLATIONS,
)
"""The flags of a fuzzy match whose target needs a look before it stands."""


def _placeholder_flag(m: Match) -> bool:
    return any(f.startswith(PLACEHOLDER_FLAG) for f in m.flags)


def analyze(
    doc: Any,
    lookup: Lookup,
    *,
    threshold: float = SEMANTIC_THRESHOLD,
    segment: str = "auto",
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Analysis:
    """Analyse ``doc`` (a ``tm.documents.Document``) against the memory behind ``lookup``,
    in named stages, top-down:

    1. **segment** (``segment_document``): ``always`` splits every unit into sentences,
       ``never`` none; ``auto`` looks every unit up whole and splits only the units whose
       sentences do better (``whole_units.resegment``, which runs stages 2–5 on the whole
       units first);
    2. **candidates** (``find_candidates``): repetitions set aside, every other segment
       looked up once (the lookup scores fuzzy %, cosine and repairs near-exact twins);
    3. **score** (``score_matches``): tag penalty and context (101 %, another context);
    4. **choose** (``choose``): the best match, the band, the alternatives, the semantic
       match;
    5. **fill policy** (``fill_policy.apply_to_analysis``, then ``check_placeholders``):
       what may be written, on the evidence of the user's own memory;
    6. **report** (``add_fragments``, ``Analysis``): fragments for what has no match, and
       the counts."""
    from xlsearch.engine.tm.whole_units import LookupCache, resegment

    start = time.perf_counter()
    cache = LookupCache(lookup, doc, on_progress, cancel)
    segment_document(doc, segment)
    results, policy = _match_stages(doc, cache, lookup, threshold)
    if segment == "auto" and resegment(doc, results, cache):
        results, policy = _match_stages(doc, cache, lookup, threshold)
    for res in results:
        check_placeholders(res)
    add_fragments(results, lookup, doc.src, doc.tgt)
    return _report(doc, lookup, threshold, results, policy, time.perf_counter() - start)


def segment_document(doc: Any, segment: str) -> None:
    """Stage 1 for ``always`` and ``never`` (``auto`` decides after a first look-up)."""
    if segment == "always":
        doc.split_all()
    elif segment == "never":
        doc.merge_all()


def _match_stages(
    doc: Any, cache: Any, lookup: Lookup, threshold: float
) -> tuple[list[SegmentResult], Any]:
    """Stages 2–5 over the document's current segments."""
    from xlsearch.engine.tm.fill_policy import apply_to_analysis

    results, todo, first_text = find_candidates(doc)
    found = cache.results([doc.segments[i].source for i in todo])
    score_matches(doc, todo, found)
    choose(doc, results, todo, found, first_text, threshold)
    return results, apply_to_analysis(results, lookup, doc.src, doc.tgt, threshold)


def _report(
    doc: Any,
    lookup: Lookup,
    threshold: float,
    results: list[SegmentResult],
    policy: Any,
    seconds: float,
) -> Analysis:
    """Stage 6: the analysis as reported."""
    model = ""
    if lookup.semantic:
        enc = lookup.searcher.encoder
        model = str(getattr(enc, "id", "") or getattr(enc, "path", ""))  # bundled:teacher
    out = Analysis(
        doc.path.name,
        doc.src,
        doc.tgt,
        lookup.collection or "",
        threshold,
        results,
        seconds,
        model.rsplit("/", 1)[-1],
        policy,
    )
    out.untranslatable = list(getattr(doc, "untranslatable", []))
    return out


def add_fragments(results: list[SegmentResult], lookup: Lookup, src: str, tgt: str) -> None:
    """The fragments of each segment without a match ≥ ``CAT_MIN_FUZZY`` %."""
    todo = [r for r in results if r.fuzzy < CAT_MIN_FUZZY and r.repetition_of is None]
    if not todo or not tgt:
        return
    from xlsearch.engine.tm.fragments import index_for

    idx = index_for(lookup.store, lookup.collection, src, tgt)
    for r in todo:
        r.fragments = idx.find(r.source)


def find_candidates(
    doc: Any,
) -> tuple[list[SegmentResult], list[int], dict[tuple[str, str], int]]:
    """Stage 2: a result per segment; repetitions, code-only segments and translator
    credits set aside; returns (results, the segments to look up, the first segment of each
    text and context)."""
    from xlsearch.engine.tm.whole_units import repetition_key

    first: dict[Any, int] = {}
    first_text: dict[tuple[str, str], int] = {}  # the same words, perhaps with other codes
    todo: list[int] = []
    results: list[SegmentResult] = []
    for seg in doc.segments:
        key = repetition_key(seg)
        res = SegmentResult(seg.index, seg.source, words(seg.source), "no match")
        if not key[0]:  # only inline codes (a picture, a break): nothing to look up
            pass
        elif ctx.never_leveraged(seg.source):
            res.flags.append(CREDITS_FLAG)
        elif key in first:
            res.band, res.repetition_of = REPETITIONS, first[key]
        else:
            first[key] = seg.index
            first_text.setdefault((key[0], key[2]), seg.index)
            todo.append(seg.index)
        results.append(res)
    return results, todo, first_text


def score_matches(doc: Any, todo: list[int], found: list[LookupResult]) -> None:
    """Stage 3: the tag penalty and the context of each segment's matches."""
    for i, lr in zip(todo, found, strict=True):
        seg = doc.segments[i]
        if seg.tags or any(m.source_tags for m in lr.matches):
            tag_penalty(lr.matches, seg)  # codes on either side only
        ctx.apply(lr.matches, seg.source, getattr(seg, "context", "") or "")


def choose(
    doc: Any,
    results: list[SegmentResult],
    todo: list[int],
    found: list[LookupResult],
    first_text: dict[tuple[str, str], int],
    threshold: float,
) -> None:
    """Stage 4: each segment's best match, band, alternatives and semantic match."""
    from xlsearch.engine.tm.whole_units import same_shape

    for i, lr in zip(todo, found, strict=True):
        res = results[i]
        if lr.matches:
            res.best = lr.matches[0]
            res.fuzzy = max(m.fuzzy for m in lr.matches)
            res.alternatives = ctx.flag_alternatives(res.best, lr.matches)
        res.band = band_of(res.fuzzy)
        pool = [m for m in [*lr.matches, *lr.cross] if m.semantic is not None]
        pool = same_shape(pool, res.source, doc.src)  # a sentence for a sentence
        if pool:
            top = max(pool, key=lambda m: m.semantic or 0.0)
            res.cosine = top.semantic
            if res.fuzzy < 75 and (top.semantic or 0.0) >= threshold:
                res.semantic = top
        seg = doc.segments[i]
        _tag_repetition(res, doc, results[first_text[(" ".join(res.source.split()), seg.context)]])


def _tag_repetition(res: SegmentResult, doc: Any, first: SegmentResult) -> None:
    """A repetition whose inline codes differ from its first occurrence's is what a match
    with other codes is: 99 %, flagged (when the memory gives it no better match)."""
    if first.index == res.index or res.fuzzy >= 99:
        return
    res.band, res.fuzzy, res.repetition_of, res.semantic = "95-99%", 99, first.index, None
    new, old = doc.segments[res.index], doc.segments[first.index]
    res.flags.append(f"tags: new {new.tags} · first occurrence {old.tags}")


def _translated(seg: Any) -> bool:
    """Has a target to keep: not empty, and not the source copy a CAT tool exports in state
    ``new``/``needs-translation`` (2.0 ``initial``) unless set in this session."""
    from xlsearch.engine.importers.xliff import UNTRANSLATED_STATES

    if not seg.target.strip():
        return False
    return bool(seg.origin) or seg.state not in UNTRANSLATED_STATES


def pretranslate(
    doc: Any,
    analysis: Analysis,
    *,
    min_fuzzy: int = CAT_MIN_FUZZY,
    semantic: bool = True,
    overwrite: bool = False,
) -> int:
    """Write the best match per segment into ``doc`` (fuzzy ≥ ``min_fuzzy``, else a semantic
    match when ``semantic`` and ``fill``); repetitions take their first occurrence's target.
    A match whose target gets the segment's placeholders wrong is never written.
    Segments that already have a target are kept unless ``overwrite`` (a target in an untranslated
    state is none); locked and confirmed ones always. The sentences of a PO entry
    (``Document.written_whole``) are filled all or none: the entry has one msgstr.
    Returns segments filled."""
    import copy

    together = doc.written_whole() if hasattr(doc, "written_whole") else []
    before = {i: copy.copy(doc.segments[i]) for a, b in together for i in range(a, b + 1)}
    filled = 0
    for res in analysis.segments:
        seg = doc.segments[res.index]
        if seg.locked or seg.confirmed or (_translated(seg) and not overwrite):
            continue
        if res.repetition_of is not None:
            first = doc.segments[res.repetition_of]
            if first.context != seg.context and ctx.is_short(seg.source):
                continue  # "T" of a calendar grid is not the "T" of a toolbar
            if _translated(first):
                quality = first.quality
                if res.flags and quality is not None:  # other inline codes: at most 99 %
                    quality = min(quality, 99)
                doc.set_target(
                    res.index,
                    first.target,
                    quality=quality,
                    origin=first.origin or "fuzzy",
                    match_source=first.match_source,
                    tag_hint=first.tag_hint,
                )
                filled += 1
                continue
            if not res.flags:  # a repetition proper waits for its first occurrence
                continue
        best = res.best
        if best is not None and placeholder_problem(res.source, best.target or ""):
            best = None  # a suggestion only (``check_placeholders``)
        if best is not None and ctx.suggestion_only(best):
            best = None  # a short string from another context
        if best is not None and best.target and best.fuzzy >= min_fuzzy:
            doc.set_target(
                res.index,
                best.target,
                quality=min(100, best.fuzzy),
                origin="fuzzy",
                match_source=best.source,
                tag_hint=(best.source_tags, best.target_tags),
            )
        elif (
            semantic
            and res.fill
            and res.semantic is not None
            and res.semantic.target
            and not placeholder_problem(res.source, res.semantic.target)
        ):
            m = res.semantic
            doc.set_target(
                res.index,
                m.target,
                quality=round(100 * (m.semantic or 0.0), 1),
                origin="semantic",
                match_source=m.source,
                tag_hint=(m.source_tags, m.target_tags),
            )
        else:
            continue
        filled += 1
    for first, last in together:
        segs = doc.segments[first : last + 1]
        if all(s.target.strip() for s in segs):
            continue
        for seg in segs:  # a sentence without a match: the entry stays as it was
            if seg.changed and not before[seg.index].changed:
                filled -= 1
            seg.__dict__.update(before[seg.index].__dict__)
    return filled


__all__ = ["BANDS", "Analysis", "SegmentResult", "analyze", "band_of", "pretranslate"]
