"""Cleaning training pairs before a distillation, without a model.

The checks of ``xlsearch check`` that a training corpus needs, made to run on 100,000+
sentence pairs in seconds: copies of the source, blank targets, lost placeholders, targets
in another language, lengths far from the pair's usual ratio, and **misaligned** pairs (a
target shifted from the next line, pasted from elsewhere). Misalignment is judged by the word
translations the pairs themselves teach (``lexicon``: each source word's usual partner in
the targets, naive-Bayes log odds that the target translates the source rather than being
any target, the pair itself left out of the counts): a pair whose words make a random
pairing likelier than a translation is dropped, and of two pairs sharing a target, the one
whose source fits it far worse.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress
from xlsearch.engine.qa.units import QaUnit

CLEAN_KINDS = (
    "empty", "untranslated", "wrong-language", "placeholders", "misaligned", "omission",
    "addition",
)  # fmt: skip
"""What drops a pair from the training data, in the order the checks run (a pair is
dropped for its first)."""
MISALIGNED_ODDS = 0.0
"""A pair is misaligned when its words' log odds (natural log) for "the target translates
the source" against "any target" are below this: the evidence favours a random pairing."""
MIN_EVIDENCE = 2.0
"""... and the pair would score at least this far below zero with none of its words' usual
partners, either way (a pair with few known words cannot be judged)."""
SHARED_TARGET_ODDS = 5.0
"""Of pairs sharing one target, one whose words fit it this much worse than the best one's
(log odds) is misaligned too (a shifted line repeats its neighbour's target) ..."""
SHARED_TARGET_MAX = 5.0
"""... when its own log odds are below this."""
PROFILE_SAMPLE = 5000
"""Targets read to learn which words and scripts the language's targets use."""
MIN_PAIRS = 40
"""Fewer pairs than this teach no word translations: no misalignment check."""
_PLACEHOLDER_HINT = re.compile(r"[%${<]")


@dataclass
class CleanReport:
    """Which pairs a cleaning keeps, and for each dropped one its kind and why."""

    keep: list[bool]
    kind: dict[int, str] = field(default_factory=dict)
    """Index of a dropped pair → its kind (``CLEAN_KINDS``)."""
    why: dict[int, str] = field(default_factory=dict)
    """Index of a dropped pair → a one-line explanation."""

    def counts(self) -> Counter[str]:
        """How many pairs each kind dropped."""
        return Counter(self.kind.values())


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _stem(stem: str) -> str:
    from xlsearch.engine.qa.lexicon import STEM

    return f"{stem}…" if len(stem) >= STEM else stem


def find_noisy(
    src: Sequence[str],
    tgt: Sequence[str],
    src_lang: str,
    tgt_lang: str,
    *,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> CleanReport:
    """The pairs of one language pair to drop before training, with the reason of each."""
    from xlsearch.engine.qa.language import language_flags, target_profile
    from xlsearch.engine.qa.lexicon import (
        Lexicon,
        missing_partners,
        source_tokens,
        target_tokens,
    )
    from xlsearch.engine.qa.rules import RuleContext, rule_flags
    from xlsearch.engine.qa.semantic import length_flags

    on_progress = on_progress or no_progress
    n = len(src)
    rep = CleanReport([True] * n)

    def drop(i: int, kind: str, why: str) -> None:
        if rep.keep[i]:
            rep.keep[i] = False
            rep.kind[i] = kind
            rep.why[i] = why

    def step(k: int, what: str) -> None:
        on_progress(Progress("clean", k, 5, what))
        if cancel is not None:
            cancel.raise_if_cancelled()

    step(0, "copies and placeholders")
    units = [QaUnit("", str(i), s, t) for i, (s, t) in enumerate(zip(src, tgt, strict=True))]
    ctx = RuleContext(src_lang, tgt_lang, "")
    for i, (s, t) in enumerate(zip(src, tgt, strict=True)):
        if not t.strip():
            drop(i, "empty", "the target is blank")
        elif _norm(s) == _norm(t):
            drop(i, "untranslated", "the target is the source")
        elif _PLACEHOLDER_HINT.search(s) or _PLACEHOLDER_HINT.search(t):
            for f in rule_flags(units[i], ctx):
                if f.kind == "placeholders" and f.severity == "error":
                    drop(i, "placeholders", f.message)
                    break
    step(1, "word translations")
    sources = [source_tokens(s) for s in src]
    targets = [target_tokens(t) for t in tgt]
    usable = [rep.keep[i] for i in range(n)]
    lex = Lexicon.learn((sources[i], targets[i]) for i in range(n) if usable[i])
    score = [math.inf] * n
    if lex.pairs >= MIN_PAIRS:
        for i in range(n):
            if usable[i]:
                score[i] = lex.score(sources[i], targets[i], own=True)
    step(2, "languages")
    profile_units = [u for i, u in enumerate(units) if usable[i]]
    if len(profile_units) > PROFILE_SAMPLE:
        stride = len(profile_units) / PROFILE_SAMPLE
        profile_units = [profile_units[int(k * stride)] for k in range(PROFILE_SAMPLE)]
    # Every target is asked (half a millisecond each): a translation of its source in another
    # language shares names and international words with it, and its words can fit well.
    ask = [i for i in range(n) if usable[i]]
    for f in language_flags(
        [units[i] for i in ask], src_lang, tgt_lang, profile=target_profile(profile_units)
    ):
        drop(int(f.key), "wrong-language", f.message)
    step(3, "misaligned pairs")
    if lex.pairs >= MIN_PAIRS:
        for i in range(n):
            if not rep.keep[i] or score[i] >= MISALIGNED_ODDS:
                continue
            # What the pair would score with none of its words' usual partners (either way).
            floor = lex.score(sources[i], frozenset()) + lex.score(frozenset(), targets[i])
            if floor > -MIN_EVIDENCE:
                continue
            lacks = missing_partners(lex, sources[i], targets[i])
            what = (
                f"no {_stem(lacks[0][1])!r}, the usual translation of {_stem(lacks[0][0])!r}"
                if lacks
                else "its words are not the usual translations of the source's"
            )
            drop(i, "misaligned", f"the target does not translate the source ({what}; "
                 f"log odds {score[i]:.1f})")  # fmt: skip
        by_target: dict[str, list[int]] = defaultdict(list)
        for i in range(n):
            if rep.keep[i]:
                by_target[_norm(tgt[i])].append(i)
        for group in by_target.values():
            if len({_norm(src[i]) for i in group}) < 2:
                continue
            best = max(group, key=lambda i: score[i])
            for i in group:
                if (
                    i != best
                    and score[i] < SHARED_TARGET_MAX
                    and score[best] - score[i] >= SHARED_TARGET_ODDS
                ):
                    drop(
                        i,
                        "misaligned",
                        f"the target is also that of {_short(src[best])!r}, whose words fit "
                        f"it better (log odds {score[i]:.1f} vs {score[best]:.1f})",
                    )
    step(4, "lengths")
    kept = [i for i in range(n) if rep.keep[i]]
    for f in length_flags([units[i] for i in kept], [False] * len(kept)):
        drop(int(f.key), f.kind, f.message)
    step(5, "done")
    return rep


def clean_pairs(
    src: Sequence[str], tgt: Sequence[str], src_lang: str, tgt_lang: str
) -> tuple[list[bool], Counter[str]]:
    """Which pairs to keep, and how many each kind dropped (``find_noisy``)."""
    rep = find_noisy(src, tgt, src_lang, tgt_lang)
    return rep.keep, rep.counts()
