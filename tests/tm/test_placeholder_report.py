"""The analysis report's "matches that get the placeholders wrong" lists matches a translator
would use (a CAT fuzzy match, or a semantic fill that is written), not 0-50 % matches that are
only shown as suggestions."""

from __future__ import annotations

from dataclasses import replace

from xlsearch.engine.tm.analysis.results import Analysis, SegmentResult, band_of
from xlsearch.engine.tm.matching.fuzzy import PLACEHOLDER_FLAG
from xlsearch.engine.tm.matching.matches import Match


def _segment(i: int, source: str, stored: str, fuzzy: int) -> SegmentResult:
    best = Match(
        segment_id=i,
        source=stored,
        source_lang="en",
        target="Fichier %s",
        target_lang="fr",
        fuzzy=fuzzy,
        semantic=None,
        score=fuzzy / 100,
        flags=[f"{PLACEHOLDER_FLAG} %1$s missing, %s extra"],
    )
    return SegmentResult(i, source, len(source.split()), band_of(fuzzy), fuzzy, best=best)


def test_only_usable_matches_are_listed_for_their_placeholders() -> None:
    segments = [
        _segment(0, "Open %1$s in a new window", "Open %s in a new window", 88),
        _segment(1, "%1$s of %2$d", "File %s", 2),  # shares a letter: nobody uses it
        _segment(2, "%d of %d match", "Line %s", 25),  # a semantic candidate, not written
        _segment(3, "%s (%s, failed)", "Saving %s failed", 50),  # a semantic fill, written
    ]
    for n, seg in enumerate(segments[2:], 2):
        assert seg.best is not None
        segments[n] = replace(seg, semantic=replace(seg.best, semantic=0.8), fill=n == 3)
    analysis = Analysis("fr.po", "en", "fr", "xfce", 0.8, segments)
    report = analysis.to_markdown()
    listed = report.split("## Matches that get the placeholders wrong")[1].split("##")[0]
    assert "Open %1$s in a new window" in listed
    assert "%1$s of %2$d" not in listed
    assert "%d of %d match" not in listed
    assert "%s (%s, failed)" in listed
