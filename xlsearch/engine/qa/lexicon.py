"""What a file's own translations teach about its words, and targets that contradict it.

A target pasted from another unit says something else than its source, and on short UI
strings a multilingual model can hardly tell (``Open`` and ``Open With`` are near
neighbours). The file itself can: the words it always translates one way (*file* →
*Datei*, *always* → *immer*) are learnt from its own pairs (co-occurrence over units, each
word's best partner by the Dice coefficient, crude stems so that *Datei* and *Dateien* are
one word; two-character pieces of Chinese and Japanese, the first two syllables of a Korean
word). A pair is scored as a naive-Bayes log-likelihood ratio: each source word with a
partner the file uses in at least ``MIN_SHARE`` of its units is evidence for the pair when
the partner is in the target (the chance of that: the file's share; against: how often the
partner appears in any target) and against it when it is missing; the same from the
target's words back to the source. The unit's own pair is left out of the counts when it is
scored (leave-one-out), so a misplaced target cannot vouch for itself.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

STEM = 5
"""Letters kept of a word (a crude stem: ``Dateien`` and ``Datei`` are one word)."""
MIN_PAIRS = 2
"""A word and its partner must share at least this many units."""
MIN_DICE = 0.3
"""A word's partner must have at least this Dice coefficient (pieces of CJK text that
straddle two words pair with anything)."""
MIN_SHARE = 0.5
"""A partner counts as evidence when at least this share of the word's units have it."""
BACK_WEIGHT = 0.5
"""Weight of the target-to-source direction (it repeats much of the other's evidence)."""
MAX_COMPETITORS = 30
"""Other units a target is compared with (those sharing most of its partner words)."""
STOPWORDS = frozenset(
    "a an the of to in on at for from by with and or not no is are be been was were it its "
    "this that these those as if then than into do does can will would should may you your "
    "we our they their all any some each there here which what when where who how".split()
)
_WORD = re.compile(r"[^\W\d_]+")
_CODES = re.compile(r"<[^<>]*>|%\S|\{[^{}]*\}|&\w+;")
_MNEMONIC = re.compile(r"\(\s*[_&~][^\W_]\)|[_&~](?=[^\W_])")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_WIDE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")


@functools.lru_cache(maxsize=65536)
def source_tokens(text: str) -> frozenset[str]:
    """The source's content words, stemmed."""
    text = _CODES.sub(" ", _MNEMONIC.sub("", text))
    return frozenset(
        w.casefold()[:STEM]
        for w in _WORD.findall(text)
        if len(w) > 1 and w.casefold() not in STOPWORDS
    )


@functools.lru_cache(maxsize=65536)
def target_tokens(text: str) -> frozenset[str]:
    """The target's words, stemmed; pieces of two characters of a text written without
    spaces; the first two syllables of a Korean word."""
    text = _CODES.sub(" ", _MNEMONIC.sub("", text))
    out: set[str] = set()
    for w in _WORD.findall(text):
        if _HANGUL.search(w):
            out.add(w[:2])
        elif _WIDE.search(w):
            out.update(w[i : i + 2] for i in range(len(w) - 1)) if len(w) > 1 else out.add(w)
        elif len(w) > 1:
            out.add(w.casefold()[:STEM])
    return frozenset(out)


@dataclass
class Lexicon:
    """Word partners learnt from (source, target) pairs, with the counts behind them."""

    pairs: int = 0
    source_count: Counter[str] = field(default_factory=Counter)
    target_count: Counter[str] = field(default_factory=Counter)
    forward: dict[str, tuple[str, int]] = field(default_factory=dict)
    """source word → (its best target partner, units with both)."""
    backward: dict[str, tuple[str, int]] = field(default_factory=dict)
    """target word → (its best source partner, units with both)."""

    @classmethod
    def learn(cls, pairs: Iterable[tuple[frozenset[str], frozenset[str]]]) -> Lexicon:
        """From tokenised pairs (``source_tokens``, ``target_tokens``). The co-occurrence
        counts are a sparse matrix product (scipy): a second for 100,000 sentence pairs,
        where counting word pairs one by one took a minute and a gigabyte."""
        import numpy as np
        from scipy import sparse

        lex = cls()
        s_ids: dict[str, int] = {}
        t_ids: dict[str, int] = {}
        s_cols: list[int] = []
        t_cols: list[int] = []
        s_ptr, t_ptr = [0], [0]
        for s, t in pairs:
            if not s or not t:
                continue
            lex.pairs += 1
            s_cols.extend(s_ids.setdefault(a, len(s_ids)) for a in s)
            t_cols.extend(t_ids.setdefault(b, len(t_ids)) for b in t)
            s_ptr.append(len(s_cols))
            t_ptr.append(len(t_cols))
        if not lex.pairs:
            return lex

        def matrix(cols: list[int], ptr: list[int], width: int) -> sparse.csr_matrix:
            data = np.ones(len(cols), dtype=np.int32)
            return sparse.csr_matrix((data, cols, ptr), shape=(lex.pairs, width))

        s_mat = matrix(s_cols, s_ptr, len(s_ids))
        t_mat = matrix(t_cols, t_ptr, len(t_ids))
        both = (s_mat.T.tocsr() @ t_mat).tocoo()
        keep = both.data >= MIN_PAIRS
        rows, cols, n = both.row[keep], both.col[keep], both.data[keep]
        s_words = np.array(list(s_ids), dtype=object)
        t_words = np.array(list(t_ids), dtype=object)
        s_n = np.bincount(s_cols, minlength=len(s_ids)).astype(np.float64)
        t_n = np.bincount(t_cols, minlength=len(t_ids)).astype(np.float64)
        lex.source_count = Counter(dict(zip(s_ids, s_n.astype(int).tolist(), strict=True)))
        lex.target_count = Counter(dict(zip(t_ids, t_n.astype(int).tolist(), strict=True)))
        dice = 2.0 * n / (s_n[rows] + t_n[cols])

        def best(of: np.ndarray, other: np.ndarray, words: list[str]) -> np.ndarray:
            """Each word's best partner: the highest Dice; a tie: the longer word (not
            "die"), then the first in alphabetical order."""
            rank = np.empty(len(words), dtype=np.int64)
            rank[sorted(range(len(words)), key=words.__getitem__)] = np.arange(len(words))
            length = np.array([len(w) for w in words], dtype=np.int64)
            order = np.lexsort((rank[other], -length[other], -dice, of))
            first = np.ones(len(order), dtype=bool)
            first[1:] = of[order][1:] != of[order][:-1]
            return order[first]

        for k in best(rows, cols, list(t_ids)).tolist():
            if dice[k] >= MIN_DICE:
                lex.forward[s_words[rows[k]]] = (t_words[cols[k]], int(n[k]))
        for k in best(cols, rows, list(s_ids)).tolist():
            if dice[k] >= MIN_DICE:
                lex.backward[t_words[cols[k]]] = (s_words[rows[k]], int(n[k]))
        return lex

    def _evidence(self, has: bool, n_word: int, n_both: int, n_partner: int) -> float:
        if n_word < MIN_PAIRS:
            return 0.0
        p = min((n_both + 0.5) / (n_word + 1), 0.999)
        if p < MIN_SHARE:
            return 0.0
        q = min((n_partner + 0.5) / (self.pairs + 1), 0.999)
        return math.log(p / q) if has else math.log((1 - p) / (1 - q))

    def score(self, s: frozenset[str], t: frozenset[str], own: bool = False) -> float:
        """Log-likelihood ratio that ``t`` translates ``s`` rather than being any target;
        ``own``: the pair is one of those learnt (left out of the counts)."""
        loo = 1 if own and s and t else 0  # a pair without words was not learnt
        total = 0.0
        for a in s:
            got = self.forward.get(a)
            if got is None:
                continue
            b, n = got
            has = b in t
            drop = loo if has else 0
            total += self._evidence(
                has, self.source_count[a] - loo, n - drop, self.target_count[b] - drop
            )
        for b in t:
            got = self.backward.get(b)
            if got is None:
                continue
            a, n = got
            has = a in s
            drop = loo if has else 0
            total += BACK_WEIGHT * self._evidence(
                has, self.target_count[b] - loo, n - drop, self.source_count[a] - drop
            )
        return total


def missing_evidence(lex: Lexicon, s: frozenset[str], t: frozenset[str]) -> float:
    """The evidence (a log-likelihood ratio, ≤ 0) of the source words whose partner the
    target lacks, the pair left out of the counts: what a dropped part of a target costs,
    however well the rest translates."""
    loo = 1 if s and t else 0
    total = 0.0
    for a in s:
        got = lex.forward.get(a)
        if got is None or got[0] in t:
            continue
        total += min(
            0.0, lex._evidence(False, lex.source_count[a] - loo, got[1], lex.target_count[got[0]])
        )
    return total


def misplaced(
    sources: Sequence[frozenset[str]],
    targets: Sequence[frozenset[str]],
    lex: Lexicon,
    rows: Iterable[int],
) -> dict[int, tuple[float, float, int]]:
    """For each unit in ``rows``: its own pair's score, the best score its target gets with
    another unit's source (not the same words), and that unit (-1: none)."""
    by_word: dict[str, list[int]] = defaultdict(list)
    for j, s in enumerate(sources):
        for a in s:
            by_word[a].append(j)
    out: dict[int, tuple[float, float, int]] = {}
    for i in rows:
        own = lex.score(sources[i], targets[i], own=True)
        hits: Counter[int] = Counter()
        for b in targets[i]:
            got = lex.backward.get(b)
            if got is not None and len(by_word[got[0]]) <= 50 * MAX_COMPETITORS:
                hits.update(by_word[got[0]])
        best, who = -math.inf, -1
        ranked = sorted(hits.items(), key=lambda jn: (-jn[1], jn[0]))  # ties: file order
        for j, _ in ranked[: MAX_COMPETITORS + 1]:
            if j == i or sources[j] == sources[i]:
                continue
            sc = lex.score(sources[j], targets[i])
            if sc > best:
                best, who = sc, j
        out[i] = (own, best, who)
    return out


def missing_partners(lex: Lexicon, s: frozenset[str], t: frozenset[str]) -> list[tuple[str, str]]:
    """The source words whose partner (the file's usual translation) the target lacks."""
    out = []
    for a in sorted(s):
        got = lex.forward.get(a)
        if got is None or got[0] in t:
            continue
        if lex._evidence(False, lex.source_count[a], got[1], lex.target_count[got[0]]) < 0:
            out.append((a, got[0]))
    return out


TERM_MIN_UNITS = 5
TERM_MIN_SHARE = 0.9


def terms(lex: Lexicon, s: frozenset[str], t: frozenset[str]) -> list[tuple[str, str, int, int]]:
    """The source's terms the user always translates one way (the same partner in at least
    ``TERM_MIN_SHARE`` of at least ``TERM_MIN_UNITS`` units) that the target translates
    otherwise: (source word, partner, units with it, units with the word)."""
    out = []
    for a in sorted(s):
        got = lex.forward.get(a)
        if got is None or got[0] in t:
            continue
        n_word = lex.source_count[a] - (1 if s and t else 0)
        if n_word >= TERM_MIN_UNITS and got[1] >= TERM_MIN_SHARE * n_word:
            out.append((a, got[0], got[1], n_word))
    return out
