"""Fragments: which parts of a segment without a good match the memory already translates.

For a segment with no fuzzy match ≥ 75 %, its word n-grams are looked up in what the memory
itself teaches, two ways:

* **whole units** — a memory unit whose source is one to ``MAX_UNIT_WORDS`` words (a UI
  label, a term: ``Open Location``, ``File``) found word for word inside the segment: its
  target is a translation a translator wrote; the most used one is shown, with its count;
* **word alignments** — for a remaining content word, the target word that co-occurs with
  it across the memory's units most strongly (Dice coefficient ≥ ``MIN_DICE`` over at least
  ``MIN_PAIRS`` units, and the word's best partner in both directions — the intersection
  heuristic of statistical word alignment).

Longest fragments first, never overlapping. Fragments are shown (``lookup``, the Translate
screen, ``analyze --report``) to be inserted by the translator; they are never written into
a file as a target.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

MAX_UNIT_WORDS = 4
UNIT_MIN_USES = 2
MIN_DICE = 0.5
MIN_PAIRS = 2
MAX_ALIGN_WORDS = 25
"""Units longer than this (words a side) teach no word alignments (too many pairs)."""

STOPWORDS = frozenset(
    "a an the of to in on at for from by with and or not no is are be been was were it its "
    "this that these those as if then than into onto over under do does did can could will "
    "would should may might must has have had you your we our they their he she his her i "
    "me my all any some each every there here which what when where who how".split()
)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True)
class Fragment:
    """A part of the segment and the memory's translation of it."""

    source: str
    target: str
    start: int
    """First word (index into the segment's words)."""
    end: int
    """One past the last word."""
    count: int
    """Memory units that translate it so."""
    how: str
    """``unit`` (a whole memory unit) or ``aligned`` (a word alignment)."""


def words(text: str) -> list[str]:
    """Lower-case words, mnemonics removed."""
    return [w.lower() for w in _WORD.findall(text.replace("_", "").replace("&", ""))]


def _clean_target(text: str) -> str:
    from xlsearch.engine.tm.matching.repair import CJK_MNEMONIC, INLINE_MNEMONIC

    out = CJK_MNEMONIC.sub("", text)
    out = INLINE_MNEMONIC.sub("", out)
    return re.sub(r"\s*(\.\.\.|…|[:：.。])$", "", out.strip()).strip()


@dataclass
class FragmentIndex:
    """What the memory teaches about its parts, for one language pair."""

    units: dict[tuple[str, ...], Counter[str]] = field(default_factory=dict)
    align: dict[str, tuple[str, int]] = field(default_factory=dict)
    """source word → (target word, units where both occur)."""

    @classmethod
    def learn(cls, pairs: Iterable[tuple[str, str]]) -> FragmentIndex:
        """From the memory's (source, target) units."""
        units: dict[tuple[str, ...], Counter[str]] = defaultdict(Counter)
        cs: Counter[str] = Counter()
        ct: Counter[str] = Counter()
        cst: Counter[tuple[str, str]] = Counter()
        for src, tgt in pairs:
            sw = words(src)
            if not sw or not tgt.strip():
                continue
            if len(sw) <= MAX_UNIT_WORDS:
                clean = _clean_target(tgt)
                if clean:
                    units[tuple(sw)][clean] += 1
            if _CJK.search(tgt):
                continue  # no spaces between words: whole units only
            tw = set(words(tgt))
            if len(sw) > MAX_ALIGN_WORDS or len(tw) > MAX_ALIGN_WORDS:
                continue
            ss = set(sw) - STOPWORDS
            cs.update(ss)
            ct.update(tw)
            cst.update((s, t) for s in ss for t in tw)
        best_t: dict[str, tuple[float, str, int]] = {}
        best_s: dict[str, tuple[float, str]] = {}
        for (s, t), n in cst.items():
            if n < MIN_PAIRS:
                continue
            dice = 2.0 * n / (cs[s] + ct[t])
            old = best_t.get(s, (0.0, "", 0))
            if (dice, len(t)) > (old[0], len(old[1])):  # a tie: the longer word, not "le"
                best_t[s] = (dice, t, n)
            if (dice, len(s)) > (best_s.get(t, (0.0, ""))[0], len(best_s.get(t, (0.0, ""))[1])):
                best_s[t] = (dice, s)
        align = {
            s: (t, n)
            for s, (dice, t, n) in best_t.items()
            if dice >= MIN_DICE and best_s.get(t, (0.0, ""))[1] == s
        }
        return cls(dict(units), align)

    def _agrees(self, word: str, target: str, got: Counter[str]) -> bool:
        """A one-word unit as a fragment: its translation is the memory's word alignment,
        or the one translation it has, used at least twice (a label alone — *View* →
        *Affichage* — is often not what the word is inside a sentence)."""
        aligned = self.align.get(word)
        if aligned is not None and aligned[0] in words(target):
            return True
        total = sum(got.values())
        return got[target] >= UNIT_MIN_USES and got[target] == total and aligned is None

    def find(self, segment: str) -> list[Fragment]:
        """The segment's fragments, longest first, in the segment's order."""
        sw = words(segment)
        taken = [False] * len(sw)
        out: list[Fragment] = []
        for n in range(min(MAX_UNIT_WORDS, len(sw)), 0, -1):
            for i in range(len(sw) - n + 1):
                if any(taken[i : i + n]):
                    continue
                key = tuple(sw[i : i + n])
                if n == 1 and key[0] in STOPWORDS:
                    continue
                if n == len(sw):
                    continue  # the whole segment: a fuzzy match, not a fragment
                got = self.units.get(key)
                if not got:
                    continue
                target, count = got.most_common(1)[0]
                if n == 1 and not self._agrees(key[0], target, got):
                    continue
                out.append(Fragment(" ".join(key), target, i, i + n, count, "unit"))
                taken[i : i + n] = [True] * n
        for i, w in enumerate(sw):
            if taken[i] or w in STOPWORDS or w not in self.align:
                continue
            t, count = self.align[w]
            out.append(Fragment(w, t, i, i + 1, count, "aligned"))
            taken[i] = True
        return sorted(out, key=lambda f: f.start)


def memory_pairs(
    store: object, collection: str | None, src: str, tgt: str
) -> list[tuple[str, str]]:
    """(source, target) of the memory's units in ``src`` and ``tgt`` (primary subtags)."""
    from xlsearch.engine.lang.tags import primary

    where, params = store._filters(collection, [primary(src)])  # type: ignore[attr-defined]
    rows = store.conn.execute(  # type: ignore[attr-defined]
        f"SELECT s.text, t.text FROM segments s JOIN segments t ON t.tu_id = s.tu_id "
        f"AND t.document_id = s.document_id AND t.id != s.id "
        f"AND (t.lang = ? OR t.lang LIKE ?){where.replace(' WHERE ', ' WHERE 1 AND ', 1)}",
        [primary(tgt), primary(tgt) + "-%", *params],
    ).fetchall()
    return [(str(a), str(b)) for a, b in rows]


_CACHE: dict[tuple[str, str | None, str, str, int], FragmentIndex] = {}
CACHE_VERSION = 1


def _cache_file(key: tuple[str, str | None, str, str, int]) -> Path:
    """Where the fragment index of one memory generation and pair is kept between processes
    (a CAT tool's hook runs ``lookup`` once per segment: learning it again each time cost
    seconds)."""
    import hashlib

    from xlsearch.engine.runtime import locations

    name = hashlib.blake2b(
        "|".join(str(part) for part in key[:4]).encode("utf-8"), digest_size=10
    ).hexdigest()
    return locations.cache_dir() / "fragments" / f"{name}.json"


def _read_cached(path: Path, generation: int) -> FragmentIndex | None:
    """The index saved for this generation of the memory, or None (missing, stale, damaged)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != CACHE_VERSION or data.get("generation") != generation:
            return None
        units = {tuple(k.split(" ")): Counter(v) for k, v in data["units"].items()}
        align = {k: (str(v[0]), int(v[1])) for k, v in data["align"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return None
    return FragmentIndex(units, align)


def _write_cached(path: Path, generation: int, index: FragmentIndex) -> None:
    from xlsearch.engine.runtime.atomic import write_json

    data = {
        "version": CACHE_VERSION,
        "generation": generation,
        "units": {" ".join(k): dict(v) for k, v in index.units.items()},
        "align": {k: [t, n] for k, (t, n) in index.align.items()},
    }
    try:
        write_json(path, data, indent=None)
    except OSError:  # a read-only or full cache folder: learnt again next time, no harm
        pass


def index_for(store: object, collection: str | None, src: str, tgt: str) -> FragmentIndex:
    """The fragment index of a memory, cached per store generation in the process and in
    the user's cache folder."""
    from xlsearch.engine.lang.tags import primary

    generation = int(store.generation())  # type: ignore[attr-defined]
    key = (str(getattr(store, "path", "")), collection, primary(src), primary(tgt), generation)
    got = _CACHE.get(key)
    if got is None:
        path = _cache_file(key)
        got = _read_cached(path, generation)
        if got is None:
            got = FragmentIndex.learn(memory_pairs(store, collection, src, tgt))
            _write_cached(path, generation, got)
        if len(_CACHE) > 8:
            _CACHE.clear()
        _CACHE[key] = got
    return got


__all__ = ["Fragment", "FragmentIndex", "index_for", "memory_pairs", "words"]
