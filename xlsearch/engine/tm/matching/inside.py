"""A sentence of the new text that sits inside a paragraph unit of the memory.

A memory built from aligned paragraphs, or from a CAT tool that segmented by paragraph,
holds "The printer is ready. Press the green button to start printing." as one unit; a new
text that says only the second sentence gets a 50 % match for the whole paragraph, or none.
CAT tools answer with subsegment matches (memoQ's LSC, Trados' fragment recall); here, the
paragraph's source and target are split into sentences and, where both sides split into
the same number of sentences, paired by order: the sentence of the source that matches the
segment gives the sentence of the target at the same place, as a fuzzy match of its own
(99 % at best: the pairing is ours, not a translator's), flagged so that the translator
knows where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz

from xlsearch.engine.tm.matching import fuzzy as fz

PARTIAL = 80
"""A paragraph is split only when the segment is this similar to some part of it (rapidfuzz
``partial_ratio``): most candidates never are."""
LONGER = 1.5
"""…and when it is at least this much longer than the segment."""
MOST = 8
"""Paragraph candidates split per lookup at most."""
TOP = 99
"""The best such match: the sentences are paired by order, not by a translator, so even the
segment's exact words are a 99 % match to check, never a 100 % one."""
FLAG = "from a paragraph unit:"
"""How the flag of a sentence match starts."""


@dataclass(frozen=True, slots=True)
class Inside:
    """The sentence of a paragraph unit that matches a segment, and its translation."""

    source: str
    target: str
    fuzzy: int
    position: int
    count: int

    @property
    def flag(self) -> str:
        return f"{FLAG} sentence {self.position} of {self.count} (paired by order)"


def worth_splitting(segment: str, paragraph: str) -> bool:
    """Whether ``paragraph`` may hold ``segment`` as one of its sentences."""
    if len(paragraph) < LONGER * len(segment):
        return False
    return fuzz.partial_ratio(segment.lower(), paragraph.lower()) >= PARTIAL


def sentence_match(
    segment: str, source: str, target: str, src_lang: str, tgt_lang: str
) -> Inside | None:
    """The sentence of the paragraph ``source`` closest to ``segment`` and the sentence at
    the same place in ``target``; None when either side is one sentence or they split into
    different numbers of sentences (no safe pairing)."""
    from xlsearch.engine.lang.sentences import split_sentences

    sources = split_sentences(source, src_lang or "en")
    if len(sources) < 2:
        return None
    targets = split_sentences(target, tgt_lang or "en")
    if len(targets) != len(sources):
        return None
    scores = fz.fuzzy_many(segment, sources)
    best = max(range(len(sources)), key=lambda i: scores[i])
    score = min(TOP, int(scores[best]))
    return Inside(sources[best], targets[best], score, best + 1, len(sources))


__all__ = ["FLAG", "Inside", "sentence_match", "worth_splitting"]
