"""Pre-translation: the best match of an analysis written into the document, per segment."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xlsearch.engine.tm.analysis.plurals import plural_targets
from xlsearch.engine.tm.analysis.results import CAT_MIN_FUZZY, Analysis
from xlsearch.engine.tm.matching import context as ctx
from xlsearch.engine.tm.matching.fuzzy import placeholder_problem
from xlsearch.engine.tm.matching.repair import REPAIRED
from xlsearch.engine.tm.matching.substitute import FLAG as SUBSTITUTED

if TYPE_CHECKING:
    from xlsearch.engine.tm.documents.document import Document


def _translated(seg: Any) -> bool:
    """Has a target to keep: not empty, and not the source copy a CAT tool exports in state
    ``new``/``needs-translation`` (2.0 ``initial``) unless set in this session. A draft in
    such a state (other words than the source's) is the translator's: kept too."""
    from xlsearch.engine.importers.xliff import UNTRANSLATED_STATES

    if not seg.target.strip():
        return False
    if seg.origin or seg.state not in UNTRANSLATED_STATES:
        return True
    return " ".join(seg.target.split()).casefold() != " ".join(seg.source.split()).casefold()


def drafts_kept(doc: Document) -> int:
    """Segments whose target is a draft that pre-translation left as it was: a target the
    file holds but no translator confirmed — a PO ``#, fuzzy`` entry's msgstr (msgmerge
    keeps the old translation as one), memoQ ``PartiallyEdited``, Trados ``Draft``, XLIFF
    ``new``/``needs-translation`` (not a copy of the source) — replaced only with
    ``overwrite``."""
    return sum(
        1
        for s in doc.segments
        if not s.origin and not s.locked and not s.confirmed and _translated(s)
    )


def _repairs(m: Any) -> list[str]:
    """What was done to ``m``'s target, as its flags (and the report) say it."""
    return [f for f in m.flags if f.startswith((REPAIRED, SUBSTITUTED))] if m.repairs else []


def _context_match(m: Any) -> str:
    """The flag of a 101 % match (same context), for the review comment; else ''."""
    if m.fuzzy < ctx.CONTEXT_MATCH:
        return ""
    return next((f for f in m.flags if f.startswith(ctx.CONTEXT_MATCHED)), "")


def pretranslate(
    doc: Document,
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
                    plural_targets=first.plural_targets,
                    repairs=first.repairs,
                    context_match=first.context_match if first.context == seg.context else "",
                    line_breaks=first.line_breaks,
                )
                filled += 1
                continue
            if not res.flags:  # a repetition proper waits for its first occurrence
                continue
        best = res.best
        if best is not None and placeholder_problem(res.source, best.target or ""):
            best = None  # a suggestion only (``check_placeholders``)
        if best is not None and ctx.suggestion_only(best):
            best = None  # a short string from another context, a plural entry's half
        forms = plural_targets(seg, best)[0] if best is not None else None
        if best is not None and forms is not None and best.target and best.fuzzy >= min_fuzzy:
            doc.set_target(
                res.index,
                forms[0] if forms else best.target,  # a plural entry: its msgstr[0]
                quality=min(100, best.fuzzy),
                origin="fuzzy",
                match_source=best.source,
                tag_hint=(best.source_tags, best.target_tags),
                plural_targets=forms[1:],
                repairs=_repairs(best),
                context_match=_context_match(best),
                line_breaks=best.target_breaks,
            )
        elif (
            semantic
            and res.fill
            and res.semantic is not None
            and res.semantic.target
            and not placeholder_problem(res.source, res.semantic.target)
            and plural_targets(seg, res.semantic)[0] is not None
        ):
            m = res.semantic
            forms = plural_targets(seg, m)[0] or [m.target]
            doc.set_target(
                res.index,
                forms[0],
                quality=round(100 * (m.semantic or 0.0), 1),
                origin="semantic",
                match_source=m.source,
                tag_hint=(m.source_tags, m.target_tags),
                plural_targets=forms[1:],
                line_breaks=m.target_breaks,
            )
        else:
            continue
        filled += 1
    for start, end in together:
        segs = doc.segments[start : end + 1]
        if all(s.target.strip() for s in segs):
            continue
        for seg in segs:  # a sentence without a match: the entry stays as it was
            if seg.changed and not before[seg.index].changed:
                filled -= 1
            seg.__dict__.update(before[seg.index].__dict__)
    return filled


__all__ = ["drafts_kept", "pretranslate"]
