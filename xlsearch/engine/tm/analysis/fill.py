"""Stage 5 of an analysis, **fill policy**: what may be written, on the evidence of the
user's own memory (``tm.calibration``), and CAT QA on the placeholders of what would be."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.engine.tm.analysis.results import SegmentResult, placeholder_flagged
from xlsearch.engine.tm.calibration.fill_policy import decide_fills
from xlsearch.engine.tm.matching.fuzzy import placeholder_problem
from xlsearch.engine.tm.matching.lookup import Lookup


@dataclass(frozen=True)
class Filled:
    """The results with what each may write; ``policy``: the ``FillPolicy`` that decided."""

    results: list[SegmentResult]
    policy: Any


def apply_fill_policy(
    results: Sequence[SegmentResult],
    lookup: Lookup,
    src: str,
    tgt: str,
    threshold: float,
    *,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Filled:
    """Stage 5: ``fill`` (and its evidence) on each semantic match, then the placeholder
    check of every match that would be written (``on_progress``/``cancel``: the memory
    calibration, when it is measured)."""
    policy, fills = decide_fills(
        results, lookup, src, tgt, threshold, on_progress=on_progress, cancel=cancel
    )
    out = []
    for n, res in enumerate(results):
        if n in fills:
            fill, probability, evidence = fills[n]
            res = replace(res, fill=fill, fill_probability=probability, fill_evidence=evidence)
        out.append(check_placeholders(res))
    return Filled(out, policy)


def check_placeholders(res: SegmentResult) -> SegmentResult:
    """CAT QA on a segment's matches: one whose target lacks a placeholder of the segment
    (or has one the segment lacks) is flagged, and its target is a suggestion only —
    ``pretranslate`` does not write it (the result with ``fill`` off for a semantic
    match)."""
    for m in {id(m): m for m in (res.best, res.semantic) if m is not None}.values():
        problem = placeholder_problem(res.source, m.target) if m.target else ""
        if problem and problem not in m.flags:
            m.flags.append(problem)
    if res.fill and res.semantic is not None and placeholder_flagged(res.semantic):
        return replace(res, fill=False)
    return res


__all__ = ["Filled", "apply_fill_policy", "check_placeholders"]
