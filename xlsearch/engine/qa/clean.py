"""Cleaning training pairs before a distillation: the checks that need no model."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from xlsearch.engine.qa.units import QaUnit

CLEAN_KINDS = ("empty", "untranslated", "wrong-language", "omission", "addition", "placeholders")
"""Flags that drop a pair from the training data (severity error or warning)."""


def clean_pairs(
    src: Sequence[str], tgt: Sequence[str], src_lang: str, tgt_lang: str
) -> tuple[list[bool], Counter[str]]:
    """Which pairs to keep, and how many each kind dropped: a target copied from the source,
    in another language or script, empty, far shorter/longer than the pair's usual ratio, or
    without the source's placeholders. A pair is dropped for its first such flag."""
    from xlsearch.engine.qa.check import check_units

    units = [QaUnit("", str(i), s, t) for i, (s, t) in enumerate(zip(src, tgt, strict=True))]
    flags, _ = check_units(units, src_lang, tgt_lang)
    why: dict[str, str] = {}
    for f in flags:
        if f.kind in CLEAN_KINDS and f.severity != "info":
            why.setdefault(f.key, f.kind)
    keep = [str(i) not in why for i in range(len(units))]
    return keep, Counter(why.values())
