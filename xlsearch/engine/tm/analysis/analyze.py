"""Analysis of a document against the memory (CAT bands + the semantic band), in named
stages (``analyze``)."""

from __future__ import annotations

import time
from typing import Any

from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.engine.tm.analysis.results import (
    CAT_MIN_FUZZY,
    CREDITS_FLAG,
    REPETITIONS,
    Analysis,
    SegmentResult,
    band_of,
    placeholder_flagged,
)
from xlsearch.engine.tm.matching import context as ctx
from xlsearch.engine.tm.matching.fuzzy import placeholder_problem, words
from xlsearch.engine.tm.matching.lookup import SEMANTIC_THRESHOLD, Lookup, LookupResult


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
    if res.fill and res.semantic is not None and placeholder_flagged(res.semantic):
        res.fill = False


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
       sentences do better (``segment.resegment``, which runs stages 2–5 on the whole
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
    from xlsearch.engine.tm.analysis.segment import LookupCache, resegment

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
    from xlsearch.engine.tm.calibration.fill_policy import apply_to_analysis

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
    from xlsearch.engine.tm.matching.fragments import index_for

    idx = index_for(lookup.store, lookup.collection, src, tgt)
    for r in todo:
        r.fragments = idx.find(r.source)


def find_candidates(
    doc: Any,
) -> tuple[list[SegmentResult], list[int], dict[tuple[str, str], int]]:
    """Stage 2: a result per segment; repetitions, code-only segments and translator
    credits set aside; returns (results, the segments to look up, the first segment of each
    text and context)."""
    from xlsearch.engine.tm.analysis.segment import repetition_key

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
    from xlsearch.engine.tm.matching.shape import same_shape

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


__all__ = ["analyze", "check_placeholders", "tag_penalty"]
