"""One check run: read files, run the rule, consistency, language and semantic checks."""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xlsearch.engine.progress import CancelToken, ProgressCallback, no_progress
from xlsearch.engine.qa.language import Profile
from xlsearch.engine.qa.lexicon import Lexicon
from xlsearch.engine.qa.rules import KEPT_WORDS
from xlsearch.engine.qa.semantic import Calibration
from xlsearch.engine.qa.units import Flag, QaUnit

KEPT_MIN = 1
"""A word is one the user's targets use when more than this many of them have it."""
MIN_LEXICON_UNITS = 40
"""Fewer translated units than this teach no word translations: no lexical flags."""
_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass
class CheckResult:
    """Every flag of a check run, what it checked and the semantic calibrations."""

    checked: int = 0
    skipped: int = 0
    drafts: int = 0
    """Of the ``checked``: drafts no translator confirmed (xlsearch's fills, PO ``fuzzy``)."""
    drafts_skipped: int = 0
    """Of the ``skipped``: drafts another tool left (PO ``fuzzy``; ``fuzzy=True`` checks
    them)."""
    flags: list[Flag] = field(default_factory=list)
    calibrations: list[Calibration] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def unmark(text: str, marker: str) -> str:
    if marker:
        text = re.sub(rf"{re.escape(marker)}(?=\w)|\(\s*{re.escape(marker)}\w\)", "", text)
    return " ".join(text.split())


def norm_text(text: str, marker: str) -> str:
    """A target as compared: without its mnemonic, spaces and case."""
    return "".join(unmark(text, marker).split()).casefold()


def consistency_flags(
    units: Sequence[QaUnit], marker: str, memory: dict[str, dict[str, str]] | None = None
) -> list[Flag]:
    """One source translated differently in the file (units without a context of their
    own) or otherwise than the memory always translates it."""
    by_source: dict[str, list[QaUnit]] = defaultdict(list)
    for u in units:
        if "\x04" not in u.key:
            by_source[unmark(u.source, marker)].append(u)
    flags: list[Flag] = []
    for group in by_source.values():
        targets = {norm_text(u.target, marker) for u in group}
        if len(group) > 1 and len(targets) > 1:
            share = Counter(norm_text(u.target, marker) for u in group)
            for u in group:
                # Two renderings: either may be the odd one (a note); of three or more, the
                # minority rendering is the likely slip (a warning).
                minority = len(group) > 2 and share[norm_text(u.target, marker)] < max(
                    share.values()
                )
                others = sorted(
                    {
                        g.target
                        for g in group
                        if norm_text(g.target, marker) != norm_text(u.target, marker)
                    }
                )
                flags.append(
                    Flag(
                        u.file, u.key, u.source, u.target, "consistency",
                        "warning" if minority else "info",
                        f"the same source is translated {others[0]!r} elsewhere in the file",
                        line=u.line,
                    )
                )  # fmt: skip
    if memory:
        for u in units:
            known = memory.get(unmark(u.source, marker))
            if known and norm_text(u.target, marker) not in known:
                # The memory's one translation: the user asked to keep to it (a warning);
                # one of several: a note.
                one = len(known) == 1
                flags.append(
                    Flag(
                        u.file, u.key, u.source, u.target, "consistency",
                        "warning" if one else "info",
                        f"the memory {'always ' if one else ''}translates this source "
                        f"{sorted(known.values())[0]!r}",
                        line=u.line,
                    )
                )  # fmt: skip
    return flags


MISPLACED_ODDS = math.log(100.0)
"""A target is flagged as another unit's when the file's own word translations make its
source at least this much less likely (natural log: 100 to 1) than any target ..."""
OTHER_UNIT_ODDS = 10.0
"""... or make it somewhat unlikely (``ODD_PAIR``) and another unit's source at least this
much likelier than its own."""
ODD_PAIR = -1.0
LEXICAL_Z = 2.5
"""In a file of sentences, both bars are at least this many robust standard deviations of
the file's own pairs' word evidence (a word more or less moves a sentence's evidence by
several nats) ..."""
SENTENCE_WORDS = 6
"""... a file whose sources have at least this many content words (the median)."""


def _spread(values: Sequence[float]) -> float:
    """A robust standard deviation (1.4826 × the median absolute deviation)."""
    x = np.asarray(values, dtype=np.float64)
    return float(np.median(np.abs(x - np.median(x)))) * 1.4826 if len(x) else 0.0


SHORT_Z = -2.5
"""A target this many robust standard deviations shorter than the file's translations of
that length usually are ..."""
LOST_ODDS = 2.0
"""... that lacks the file's usual translations of source words worth this much evidence
(natural log) has lost part of the source (an omission)."""


WIDE_SHARE = 0.6
"""A piece of Chinese or Japanese is shown grown by a character while at least this share
of the targets that have it have the longer piece too."""
_WIDE_LETTER = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_HIRAGANA = re.compile(r"[\u3040-\u309f]")
_NOT_HIRAGANA = re.compile(r"[\u30a0-\u30ff\u3400-\u9fff\uf900-\ufaff]")


def _wide_word(piece: str, texts: Sequence[str]) -> str:
    """The word that a two-character piece of a text written without spaces stands for, as
    the file's targets write it: the piece grown, a character at a time, while most targets
    with it agree on the next character (``ッキ`` → ``スティッキー``); never a whole phrase."""
    having = [t for t in texts if piece in t][:200]
    word = piece
    # Kanji and katakana do not grow into hiragana (the particles を, の, に between words).
    letter = _WIDE_LETTER if _HIRAGANA.search(piece) else _NOT_HIRAGANA
    while len(word) < 8 and having:
        grown: Counter[str] = Counter()
        for t in having:
            at = t.find(word)
            if at > 0 and letter.match(t[at - 1]):
                grown[t[at - 1] + word] += 1
            end = at + len(word)
            if end < len(t) and letter.match(t[end]):
                grown[word + t[end]] += 1
        if not grown:
            break
        best, n = grown.most_common(1)[0]
        if n < WIDE_SHARE * len(having):
            break
        word = best
    return word


def _word_in(stem: str, texts: Sequence[str], tokens: Sequence[frozenset[str]]) -> str:
    """A word of ``texts`` (tokenised as ``tokens``) that ``stem`` stands for (as written),
    else the stem. A piece of Chinese or Japanese: the characters around it that the file's
    targets agree on (the lexicon does not segment those languages into words)."""
    from xlsearch.engine.qa.lexicon import target_tokens

    if _WIDE_LETTER.search(stem):
        return _wide_word(stem, [t for t, toks in zip(texts, tokens, strict=True) if stem in toks])
    for text, toks in zip(texts, tokens, strict=True):
        if stem in toks:
            for w in re.findall(r"[^\W\d_]+", text.replace("_", "").replace("&", "")):
                if stem in target_tokens(w):
                    return w
    return stem


def _word_of(text: str, stem: str) -> str:
    from xlsearch.engine.qa.lexicon import source_tokens

    for w in re.findall(r"[^\W\d_]+", text.replace("_", "").replace("&", "")):
        if source_tokens(w) == frozenset({stem}):
            return w
    return stem


def _translated(u: QaUnit) -> bool:
    return bool(u.target.strip()) and u.target.strip() != u.source.strip()


def learn_lexicon(
    unit_lists: Sequence[Sequence[QaUnit]], memory: dict[str, dict[str, str]] | None = None
) -> Lexicon:
    """The word translations of the user's own units (every file of one language pair
    checked together) and memory: what the lexical checks compare each unit with."""
    from xlsearch.engine.qa.lexicon import Lexicon, source_tokens, target_tokens

    pairs = [
        (source_tokens(u.source), target_tokens(u.target))
        for units in unit_lists
        for u in units
        if _translated(u)
    ]
    for source, targets in (memory or {}).items():
        pairs.extend((source_tokens(source), target_tokens(t)) for t in targets.values())
    return Lexicon.learn(pairs)


def lexical_flags(
    units: Sequence[QaUnit],
    skip: Sequence[bool],
    flagged: set[str] | None = None,
    lexicon: Lexicon | None = None,
    embedding: Callable[[Sequence[int]], np.ndarray] | None = None,
    pivot: Sequence[float] | None = None,
    scores: dict[int, float] | None = None,
) -> list[Flag]:
    """Targets that do not translate their source by the user's own word translations
    (``lexicon``: learnt from the units, or given — every file of the pair and the memory;
    it must include ``units``): the words the file always translates one way are missing,
    or another unit's source fits the target far better (a target pasted from another
    unit). ``embedding``: the model's log odds, per unit, that a target belongs to another
    unit (``semantic.EmbeddingEvidence``), added to the words' evidence; ``pivot``: per
    unit, the same words' evidence between its target and its translations into the other
    languages checked with it (``pivot_evidence``); ``scores``: filled with each scored
    unit's word evidence (row → log-likelihood ratio)."""
    from xlsearch.engine.qa.lexicon import (
        misplaced,
        missing_evidence,
        missing_partners,
        source_tokens,
        target_tokens,
        terms,
    )
    from xlsearch.engine.qa.semantic import length_z

    flagged = flagged or set()
    sources = [source_tokens(u.source) for u in units]
    targets = [target_tokens(u.target) for u in units]
    usable = [not skip[i] and _translated(u) for i, u in enumerate(units)]
    lex = lexicon or learn_lexicon([units])
    if lex.pairs < MIN_LEXICON_UNITS:
        return []
    rows = [i for i in range(len(units)) if usable[i] and units[i].key not in flagged]
    first = {i: lex.score(sources[i], targets[i], own=True) for i in rows}
    if pivot is not None:  # the other languages' translations vouch for the target or not
        first = {i: v + pivot[i] for i, v in first.items()}
    if scores is not None:
        scores.update(first)
    scored = misplaced(sources, targets, lex, [i for i in rows if first[i] < ODD_PAIR])
    model = dict(zip(rows, embedding(rows), strict=True)) if embedding is not None else {}
    if model:  # the model's word counts too: every pair it finds odd is compared
        extra = [i for i in rows if i not in scored and first[i] - model[i] < ODD_PAIR]
        scored.update(misplaced(sources, targets, lex, extra))
    # Sentences sum the evidence of many words: the bars grow with the spread of the file's
    # own pairs' evidence (UI strings, a few words each, keep the fixed ones).
    sentences = len(first) >= MIN_LEXICON_UNITS and (
        float(np.median([len(sources[i]) for i in first])) >= SENTENCE_WORDS
    )
    spread = _spread(list(first.values())) if sentences else 0.0
    misplaced_bar = max(MISPLACED_ODDS, LEXICAL_Z * spread)
    other_bar = max(OTHER_UNIT_ODDS, LEXICAL_Z * spread)
    flags: list[Flag] = []
    surface: dict[str, str] = {}
    texts = [u.target for u in units]

    def shown(stem: str) -> str:
        if stem not in surface:
            surface[stem] = _word_in(stem, texts, targets)
        return surface[stem]

    for i, (own, other, who) in scored.items():
        own -= model.get(i, 0.0)
        own += pivot[i] if pivot is not None else 0.0
        if own >= -misplaced_bar and not (other - own >= other_bar):
            continue
        u = units[i]
        lacks = missing_partners(lex, sources[i], targets[i])
        why = (
            f"no {shown(lacks[0][1])!r}, which this file uses for "
            f"{_word_of(u.source, lacks[0][0])!r}"
            if lacks
            else "its words are not how this file translates the source's"
        )
        if who >= 0 and other - own >= other_bar:
            why += f"; it fits the source {units[who].source!r} better"
        flags.append(
            Flag(
                u.file, u.key, u.source, u.target, "mistranslation", "warning",
                f"the target does not translate the source ({why})",
                line=u.line, score=round(own, 2),
            )
        )  # fmt: skip
    wrong = {f.key for f in flags}
    for i in rows:
        u = units[i]
        if u.key in wrong:
            continue
        for a, b, n, total in terms(lex, sources[i], targets[i])[:1]:
            flags.append(
                Flag(
                    u.file, u.key, u.source, u.target, "consistency", "info",
                    f"{_word_of(u.source, a)!r} is translated with {shown(b)!r} "
                    f"in {n} of {total} other units; not in this one",
                    line=u.line,
                )
            )  # fmt: skip
    z = length_z(units)
    lost_bar = LOST_ODDS
    if spread > 0:  # sentences: the bar grows with the spread of the file's missing words
        lost_bar = max(
            LOST_ODDS,
            LEXICAL_Z * _spread([missing_evidence(lex, sources[i], targets[i]) for i in rows]),
        )
    for i in rows:
        if units[i].key in wrong or z[i] >= SHORT_Z:
            continue
        lost = missing_evidence(lex, sources[i], targets[i])
        if lost >= -lost_bar:
            continue
        u = units[i]
        lacks = missing_partners(lex, sources[i], targets[i])
        what = (
            f"has no {shown(lacks[0][1])!r}, which this file uses for "
            f"{_word_of(u.source, lacks[0][0])!r}"
            if lacks
            else "lacks the file's usual translations of some source words"
        )
        flags.append(
            Flag(
                u.file, u.key, u.source, u.target, "omission", "warning",
                f"the target is shorter than this file's translations usually are and {what}",
                line=u.line, score=round(float(z[i]), 2),
            )
        )  # fmt: skip
    return flags


def _runs_of_copies(units: Sequence[QaUnit], flags: list[Flag]) -> list[Flag]:
    """A short copied source between two other copied sources (a list of program names, key
    names) is a note, not a warning: a slip is a copy among translated units. Copies of words the
    file translates elsewhere stay warnings."""
    copied = [bool(u.target.strip()) and u.target.strip() == u.source.strip() for u in units]
    pos = {u.key: i for i, u in enumerate(units)}
    out = []
    for f in flags:
        i = pos.get(f.key, -1)
        if (
            f.kind == "untranslated"
            and f.severity == "warning"
            and "translates" not in f.message
            and i >= 0
            and len(re.findall(r"[^\W\d_]+", f.source)) <= 3
            and (i == 0 or copied[i - 1])
            and (i + 1 == len(units) or copied[i + 1])
        ):
            f = dataclasses.replace(
                f, severity="info", message="the target is the source, like its neighbours' "
                "(names kept as written?)"
            )  # fmt: skip
        out.append(f)
    return out


Siblings = dict[tuple[str, str], dict[str, str]]
"""Per unit (its id and source), its target in each target language of the files checked
together (a catalogue's translations into several languages)."""
SIBLINGS_MIN = 2
"""Other languages' translations of a unit needed before they count as evidence ..."""
KEPT_BY_MOST = 0.5
"""... a copied source that at least this share of them keep as written is a name (a note);
..."""
KEPT_BY_FEW = 0.25
"""... one that at most this share keep is a term the others translate (a warning)."""


def sibling_targets(reads: Sequence[tuple[str, Sequence[QaUnit]]]) -> Siblings:
    """Per unit (id, source), its target in each language of ``reads`` ((target language,
    units) of each file): empty when the files are all of one language."""
    if len({lang for lang, _ in reads}) < 2:
        return {}
    out: Siblings = defaultdict(dict)
    for lang, units in reads:
        for u in units:
            if u.target.strip():
                out[(u.key, u.source)].setdefault(lang, u.target)
    return dict(out)


def latin_script(lang: str) -> bool:
    """Whether ``lang`` is written in Latin letters."""
    from xlsearch.engine.qa.language import writes_latin

    return writes_latin(lang)


def others_of(siblings: Siblings | None, u: QaUnit, tgt: str) -> dict[str, str]:
    """The unit's targets in the other languages checked with it."""
    if not siblings:
        return {}
    return {lang: t for lang, t in siblings.get((u.key, u.source), {}).items() if lang != tgt}


def _alike_script(others: dict[str, str], tgt: str) -> dict[str, str]:
    """A language written in Latin letters is compared with the others that are (a Japanese
    translation always differs from an English name; CJK drop a label's full stop)."""
    latin = {k: t for k, t in others.items() if latin_script(k)}
    return latin if latin_script(tgt) and len(latin) >= SIBLINGS_MIN else others


def _copies_by_siblings(
    units: Sequence[QaUnit], flags: list[Flag], siblings: Siblings | None, tgt: str
) -> list[Flag]:
    """A copied source that most other languages keep as written is a name (a note); one
    that nearly all of them translate is a slip (a warning). A space or end punctuation
    that differs from the source as most other translations' do is a convention (a note)."""
    if not siblings:
        return flags
    from xlsearch.engine.qa.rules import edge_whitespace, end_class

    by_key = {u.key: u for u in units}
    out = []
    for f in flags:
        u = by_key.get(f.key)
        if f.kind in ("whitespace", "punctuation") and f.severity == "warning" and u:
            # The other translations do the same (the source's odd space, a label's colon
            # every language drops): the languages' convention, a note.
            others = _alike_script(others_of(siblings, u, tgt), tgt)
            same = edge_whitespace if f.kind == "whitespace" else end_class
            alike = sum(same(t) == same(u.target) for t in others.values())
            if len(others) >= SIBLINGS_MIN and alike >= KEPT_BY_MOST * len(others):
                f = dataclasses.replace(
                    f, severity="info",
                    message=f"{f.message} (as in {alike} of {len(others)} other languages)",
                )  # fmt: skip
            out.append(f)
            continue
        others = others_of(siblings, u, tgt) if f.kind == "untranslated" and u else {}
        if not u or len(others) < SIBLINGS_MIN:
            out.append(f)
            continue
        others = _alike_script(others, tgt)
        kept = sum(t.strip() == u.source.strip() for t in others.values())
        share = kept / len(others)
        if share >= KEPT_BY_MOST and f.severity == "warning":
            f = dataclasses.replace(
                f, severity="info",
                message=f"the target is the source, as in {kept} of {len(others)} other "
                "languages (a name?)",
            )  # fmt: skip
        elif share <= KEPT_BY_FEW and f.severity == "info" and f.message != KEPT_WORDS:
            f = dataclasses.replace(
                f, severity="warning",
                message=f"the target is the source; {len(others) - kept} of {len(others)} "
                "other languages translate it",
            )  # fmt: skip
        out.append(f)
    return out


PIVOT_CLIP = 4.0
"""The most (natural log) the other languages' translations say for or against a target."""


def pivot_evidence(
    reads: Sequence[tuple[str, Sequence[QaUnit]]], siblings: Siblings
) -> dict[tuple[str, str, str], float]:
    """Per unit (target language, id, source): how well its target translates its
    translations into the other languages checked with it, by the word translations those
    pairs of languages teach each other (``Lexicon``, each pair left out of its own counts),
    averaged over the languages and clipped to ``PIVOT_CLIP``. A target pasted from another
    unit fits none of them."""
    from xlsearch.engine.qa.lexicon import Lexicon, target_tokens

    by_lang: dict[str, list[QaUnit]] = defaultdict(list)
    for lang, units in reads:
        by_lang[lang].extend(u for u in units if _translated(u))
    out: dict[tuple[str, str, str], float] = {}
    for lang, units in by_lang.items():
        sums = np.zeros(len(units))
        counts = np.zeros(len(units))
        for other in by_lang:
            if other == lang:
                continue
            rows = [
                (i, target_tokens(t), target_tokens(u.target))
                for i, u in enumerate(units)
                if (t := siblings.get((u.key, u.source), {}).get(other))
                and t.strip() != u.source.strip()
            ]
            lex = Lexicon.learn((a, b) for _, a, b in rows)
            if lex.pairs < MIN_LEXICON_UNITS:
                continue
            for i, a, b in rows:
                if a and b:
                    sums[i] += lex.score(a, b, own=True)
                    counts[i] += 1
        for i, u in enumerate(units):
            if counts[i]:
                value = float(np.clip(sums[i] / counts[i], -PIVOT_CLIP, PIVOT_CLIP))
                out[(lang, u.key, u.source)] = value
    return out


MNEMONIC_HABIT_UNITS = 20
"""With this many sources with a mnemonic, a team's habit is measured: ..."""
MNEMONIC_KEPT = 0.9
"""... one that keeps the mnemonic in fewer of their targets than this leaves them out by
choice (a dropped one is a note); slips are rarer (1-3 % of units in catalogues whose
translators keep them). Fewer sources: a dropped mnemonic is a note when most are dropped."""


def keeps_mnemonics(units: Sequence[QaUnit], marker: str) -> bool:
    """Whether the translations of ``units`` keep the sources' mnemonics (``marker``)."""
    with_one = [u for u in units if marker in u.source and u.target.strip()]
    kept = sum(marker in u.target for u in with_one)
    share = MNEMONIC_KEPT if len(with_one) >= MNEMONIC_HABIT_UNITS else 0.5
    return not with_one or kept >= share * len(with_one)


@dataclass
class Pool:
    """What the user's own units of one language pair teach the checks: every file checked
    together and the memory (word translations, the words targets use, the source words
    the user translates rather than keeps)."""

    lexicon: Lexicon
    profile: Profile
    translated: frozenset[str]
    units: Sequence[QaUnit] = ()

    @classmethod
    def of(
        cls,
        unit_lists: Sequence[Sequence[QaUnit]],
        memory: dict[str, dict[str, str]] | None = None,
    ) -> Pool:
        from xlsearch.engine.qa.language import target_profile
        from xlsearch.engine.qa.rules import accelerator_marker, translated_words

        units = [u for lst in unit_lists for u in lst]
        marker = accelerator_marker(u.source for u in units)
        return cls(
            learn_lexicon(unit_lists, memory),
            target_profile(units),
            translated_words(((u.source, u.target) for u in units), marker),
            units,
        )


def check_units(
    units: Sequence[QaUnit],
    src: str,
    tgt: str,
    *,
    encoder: Any = None,
    memory: dict[str, dict[str, str]] | None = None,
    pool: Pool | None = None,
    siblings: Siblings | None = None,
    vocabularies: dict[str, Counter[str]] | None = None,
    pivots: dict[tuple[str, str, str], float] | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[list[Flag], Calibration | None]:
    """Every flag of one file's units (one language pair). ``encoder``: the model for the
    semantic checks (None: rules, consistency and language only); ``pool``: what every file
    of the pair checked with this one teaches (``Pool.of``; by default this file and the
    memory); ``siblings``: the units' translations into the other languages checked with
    them (``sibling_targets``); ``vocabularies``: the words each other target language's
    translations checked with them use (per language tag); ``pivots``: ``pivot_evidence``."""
    from xlsearch.engine.qa.language import language_flags
    from xlsearch.engine.qa.rules import (
        RuleContext,
        accelerator_marker,
        is_credits,
        lower_words,
        rule_flags,
        source_names,
        target_words,
        translated_words,
    )

    on_progress = on_progress or no_progress
    marker = accelerator_marker(u.source for u in units)
    # The model's vectors and margins (numpy, outside the interpreter lock) are computed
    # on the second core while the rule and language checks run on the first.
    embedding = None
    if encoder is not None and len(units) >= MIN_LEXICON_UNITS:
        from concurrent.futures import ThreadPoolExecutor

        from xlsearch.engine.qa.semantic import Margins, encode_pairs

        def embed() -> tuple[tuple[np.ndarray, ...], Margins]:
            vectors = encode_pairs(units, encoder, marker, on_progress=on_progress, cancel=cancel)
            return vectors, Margins(vectors[0], vectors[1])

        workers = ThreadPoolExecutor(1, thread_name_prefix="xlsearch-check")
        embedding = workers.submit(embed)
        workers.shutdown(wait=False)
    ctx = RuleContext(
        src,
        tgt,
        marker,
        source_names(u.source for u in units),
        # Words the user's targets use (every file of the pair): a copy of such words is
        # a term the languages share ("Status", "Palette"), a note.
        frozenset(w for w in pool.profile[1] if pool.profile[1][w] > KEPT_MIN)
        if pool is not None
        else target_words((u.source, u.target) for u in units),
        lower_words(u.source for u in units),
    )
    ctx.tgt_latin = not tgt or latin_script(tgt)
    ctx.translated = (
        pool.translated
        if pool is not None
        else translated_words(((u.source, u.target) for u in units), marker)
    )
    if marker:
        ctx.uses_mnemonics = keeps_mnemonics(
            pool.units if pool is not None and pool.units else units, marker
        )
    flags: list[Flag] = []
    ruled: dict[tuple[str, str], list[Flag]] = {}  # a pair written twice is judged once
    for u in units:
        if (u.source, u.target) not in ruled:
            ruled[(u.source, u.target)] = rule_flags(u, ctx)
        flags.extend(
            dataclasses.replace(f, file=u.file, key=u.key, line=u.line)
            for f in ruled[(u.source, u.target)]
        )
        if u.source_tags >= 0 and u.target_tags >= 0 and u.source_tags != u.target_tags:
            flags.append(
                Flag(
                    u.file, u.key, u.source, u.target, "tags", "error",
                    f"{u.source_tags} inline codes in the source, {u.target_tags} in the target",
                    line=u.line,
                )
            )  # fmt: skip
    flags = _copies_by_siblings(units, _runs_of_copies(units, flags), siblings, tgt)
    if cancel is not None:
        cancel.raise_if_cancelled()
    flags.extend(consistency_flags(units, marker, memory))
    lang_flags = language_flags(
        units,
        src,
        tgt,
        profile=pool.profile if pool is not None else None,
        vocabularies=vocabularies,
    )
    flags.extend(lang_flags)
    no_text = {f.key for f in flags if f.kind in ("empty", "untranslated")}
    no_text |= {f.key for f in lang_flags}
    skip = [u.key in no_text or is_credits(u.source) for u in units]
    cal = None
    vectors = evidence = margins = None
    if embedding is not None:
        from xlsearch.engine.qa.semantic import EmbeddingEvidence

        vectors, margins = embedding.result()
        evidence = EmbeddingEvidence(margins)
    word_scores: dict[int, float] = {}
    flags.extend(
        lexical_flags(
            units,
            skip,
            flagged={f.key for f in flags if f.severity != "info"},
            lexicon=pool.lexicon if pool is not None else learn_lexicon([units], memory),
            embedding=evidence,
            pivot=[pivots.get((tgt, u.key, u.source), 0.0) for u in units] if pivots else None,
            scores=word_scores,
        )
    )
    from xlsearch.engine.qa.semantic import length_flags

    flags.extend(length_flags(units, skip, flagged={f.key for f in flags if f.severity != "info"}))
    if encoder is not None:
        from xlsearch.engine.lang.tags import direction
        from xlsearch.engine.qa.semantic import semantic_flags

        sem, cal = semantic_flags(
            units,
            encoder,
            direction(src, tgt),
            marker=marker,
            skip=skip,
            vectors=vectors,
            margins=margins,
            lexical=np.array([word_scores.get(i, np.nan) for i in range(len(units))]),
            on_progress=on_progress,
            cancel=cancel,
        )
        flags.extend(sem)
    flags.sort(key=lambda f: (_SEVERITY_ORDER.get(f.severity, 3), f.line or 0, f.key))
    return flags, cal


def check_files(
    paths: Sequence[str],
    *,
    src: str | None = None,
    tgt: str | None = None,
    encoder: Any = None,
    memory: dict[str, dict[str, str]] | None = None,
    fuzzy: bool = False,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> CheckResult:
    """Check each file in ``paths``: its confirmed targets and the fills xlsearch wrote
    for review, every draft (PO ``fuzzy``) with ``fuzzy``; a draft's flags say so."""
    from xlsearch.engine.qa.read import read_units

    result = CheckResult()
    reads = [read_units(path, src, tgt, fuzzy=fuzzy) for path in paths]
    by_pair: dict[tuple[str, str], list[Sequence[QaUnit]]] = defaultdict(list)
    for read in reads:
        by_pair[(read.src, read.tgt)].append(read.units)
    # The files of one language pair teach the checks together (with the memory).
    pools = {pair: Pool.of(lists, memory) for pair, lists in by_pair.items()}
    # A catalogue's translations into other languages checked with it: evidence for names
    # kept as written and for a target that is another language's translation.
    siblings = sibling_targets([(read.tgt, read.units) for read in reads])
    vocabularies = {tgt: pool.profile[1] for (_, tgt), pool in pools.items()}
    pivots = (
        pivot_evidence([(read.tgt, read.units) for read in reads], siblings) if siblings else {}
    )
    for path, read in zip(paths, reads, strict=True):
        result.checked += len(read.units) - read.forms
        result.skipped += read.skipped
        result.drafts += read.drafts
        result.drafts_skipped += read.drafts_skipped
        result.notes.extend(read.warnings)
        flags, cal = check_units(
            read.units,
            read.src,
            read.tgt,
            encoder=encoder,
            memory=memory,
            pool=pools[(read.src, read.tgt)],
            siblings=siblings,
            vocabularies={t: v for t, v in vocabularies.items() if t != read.tgt},
            pivots=pivots,
            on_progress=on_progress,
            cancel=cancel,
        )
        drafts = {u.key for u in read.units if u.draft}
        result.flags.extend(
            dataclasses.replace(f, draft=True) if f.key in drafts else f for f in flags
        )
        if cal is not None:
            result.calibrations.append(cal)
            if cal.note:
                result.notes.append(f"{path}: {cal.note}{_word_note(cal, flags, read.tgt)}")
    return result


def _word_note(cal: Any, flags: Sequence[Flag], tgt: str) -> str:
    """What the file's own word translations flagged where the model could not: how many,
    and for Chinese or Japanese that their words are two-character pieces."""
    if cal.supported:
        return ""
    n = sum(f.kind in ("mistranslation", "omission") for f in flags)
    note = f"; {n} flag{'' if n == 1 else 's'} here from those word translations"
    if tgt.replace("_", "-").split("-")[0].lower() in ("ja", "zh"):
        note += f" ({tgt} read in two-character pieces: it is not segmented into words)"
    return note
