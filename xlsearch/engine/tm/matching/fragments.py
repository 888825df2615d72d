"""Fragments: which parts of a segment without a good match the memory already translates.

The memory's units are word-aligned (``wordalign``: eflomal where the ``align`` extra is
installed, else the words' co-occurrence across the memory), and every phrase pair of up to
``MAX_WORDS`` source words consistent with the links is counted. A source n-gram becomes a
fragment only where the memory is consistent about it: its most frequent translation comes
from at least ``MIN_COUNT`` units (``MIN_COUNT_WORD`` for one word) and from at least
``MIN_SHARE`` of the n-gram's occurrences; an n-gram that ends with a stopword or starts with
``to``/``the``/``a``/``an`` is never one (its translation is the context's).

For a segment with no fuzzy match ≥ 75 %, the longest such n-grams are shown first, never
overlapping (``lookup``, the Translate screen, ``analyze --report``), to be inserted by the
translator; they are never written into a file as a target.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlsearch.engine.importers.placeholders import PLACEHOLDER

MAX_WORDS = 4
"""Longest source n-gram a fragment may be."""
MIN_COUNT = 2
"""Units that must translate an n-gram of two words or more the same way before it is shown."""
MIN_COUNT_WORD = 3
"""The same for one word (a word alone is more often translated by another form)."""
MIN_SHARE = 0.6
"""Share of the n-gram's occurrences in the memory translated that way."""
MAX_ALIGN_WORDS = 40
"""Units longer than this (words a side) are not aligned (a paragraph teaches little)."""
ALIGNERS = ("eflomal", "vectors", "cooc")
MIN_DICE = 0.5
"""The ``cooc`` aligner: least Dice coefficient of a linked word pair."""

STOPWORDS = frozenset(
    "a an the of to in on at for from by with and or not no is are be been was were it its "
    "this that these those as if then than into onto over under do does did can could will "
    "would should may might must has have had you your we our they their he she his her i "
    "me my all any some each every there here which what when where who how".split()
)
EDGE_START = frozenset({"to", "the", "a", "an"})
"""Words an n-gram may not start with (``to save the`` is translated by its context)."""
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_PH = re.compile(PLACEHOLDER)


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


def _strip_codes(text: str) -> str:
    """The text without placeholders, CJK mnemonics ``(_F)`` and mnemonic marks: what is
    copied or placed, not translated."""
    from xlsearch.engine.tm.matching.repair import CJK_MNEMONIC

    return _PH.sub(" ", CJK_MNEMONIC.sub("", text)).replace("_", "").replace("&", "")


def words(text: str) -> list[str]:
    """Lower-case words, mnemonics and placeholders removed."""
    return [w.lower() for w in _WORD.findall(_strip_codes(text))]


@dataclass(frozen=True)
class Phrase:
    """The memory's translation of a source n-gram."""

    target: str
    count: int
    """Units where the n-gram is translated so (by the word alignment)."""
    seen: int
    """Occurrences of the n-gram in the memory's sources."""
    unit: bool
    """Whether a memory unit is exactly this n-gram translated so."""
    inner: str = ""
    """The same translation as the memory writes it inside a sentence (lower-case first
    letter), where that differs from ``target`` (``Ouvrir`` as a label, ``ouvrir`` inside)."""


@dataclass
class FragmentIndex:
    """What the memory teaches about its parts, for one language pair."""

    phrases: dict[tuple[str, ...], Phrase] = field(default_factory=dict)

    @classmethod
    def learn(
        cls,
        pairs: Iterable[tuple[str, str]],
        aligner: str = "eflomal",
        encode: Callable[[list[str]], Any] | None = None,
    ) -> FragmentIndex:
        """From the memory's (source, target) units: align their words (``aligner``: one of
        ``ALIGNERS``; ``vectors`` needs ``encode``), extract the consistent phrase pairs and
        keep, for each source n-gram, the translation the memory gives it most often."""
        units, links = align_units(pairs, aligner, encode)
        return cls.from_links(units, links)

    @classmethod
    def from_links(
        cls, units: Sequence[tuple[list[str], list[str]]], links: Sequence[set[tuple[int, int]]]
    ) -> FragmentIndex:
        """From aligned units (``align_units``)."""
        from xlsearch.engine.tm.matching import wordalign as wa

        seen: Counter[tuple[str, ...]] = Counter()
        got: dict[tuple[str, ...], Counter[tuple[str, ...]]] = defaultdict(Counter)
        surface: dict[tuple[str, ...], Counter[tuple[str, ...]]] = defaultdict(Counter)
        whole: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
        for (sw, tw), lk in zip(units, links, strict=True):
            for n in range(1, MAX_WORDS + 1):
                for i in range(len(sw) - n + 1):
                    seen[tuple(sw[i : i + n])] += 1
            low = [t.lower() for t in tw]
            for i, j, k, m in wa.phrase_pairs(len(sw), lk, MAX_WORDS):
                key, tkey = tuple(sw[i:j]), tuple(low[k:m])
                got[key][tkey] += 1
                surface[tkey][tuple(tw[k:m])] += 1
                if i == 0 and j == len(sw) and k == 0 and m == len(tw):
                    whole.add((key, tkey))
        phrases: dict[tuple[str, ...], Phrase] = {}
        for key, options in got.items():
            tkey, count = options.most_common(1)[0]
            least = MIN_COUNT_WORD if len(key) == 1 else MIN_COUNT
            if count < least or count < MIN_SHARE * seen[key]:
                continue
            if key[-1] in STOPWORDS or key[0] in EDGE_START:
                continue  # a stopword alone or on the edge: its translation is the context's
            if all(w.isdigit() for w in key) or (len(key) == 1 and len(key[0]) == 1):
                continue  # numbers are copied, not translated; a letter alone is no word
            forms = surface[tkey].most_common()
            shown = wa.join_target(forms[0][0])
            inner = next((wa.join_target(f) for f, _ in forms if f[0][:1].islower()), "")
            phrases[key] = Phrase(
                shown, count, seen[key], (key, tkey) in whole, inner if inner != shown else ""
            )
        return cls(phrases)

    def find(self, segment: str) -> list[Fragment]:
        """The segment's fragments, longest first, in the segment's order (a segment of a
        few words may be one: it has no match, and the memory translates it in parts)."""
        from xlsearch.engine.tm.matching.context import never_leveraged

        raw = [] if never_leveraged(segment) else _WORD.findall(_strip_codes(segment))
        sw = [w.lower() for w in raw]
        taken = [False] * len(sw)
        out: list[Fragment] = []
        for n in range(min(MAX_WORDS, len(sw)), 0, -1):
            for i in range(len(sw) - n + 1):
                if any(taken[i : i + n]):
                    continue
                key = tuple(sw[i : i + n])
                got = self.phrases.get(key)
                if got is None:
                    continue
                how = "unit" if got.unit else "aligned"
                target = got.inner if got.inner and i > 0 and raw[i][:1].islower() else got.target
                out.append(Fragment(" ".join(key), target, i, i + n, got.count, how))
                taken[i : i + n] = [True] * n
        return sorted(out, key=lambda f: f.start)


def align_units(
    pairs: Iterable[tuple[str, str]],
    aligner: str = "eflomal",
    encode: Callable[[list[str]], Any] | None = None,
) -> tuple[list[tuple[list[str], list[str]]], list[set[tuple[int, int]]]]:
    """The memory's units as (source words, target tokens) and their word links."""
    from xlsearch.engine.tm.matching import wordalign as wa
    from xlsearch.engine.tm.matching.context import never_leveraged

    units: list[tuple[list[str], list[str]]] = []
    for src, tgt_text in pairs:
        if never_leveraged(src):
            continue  # a list of names teaches no words
        sw = words(src)
        tw = wa.target_tokens(_strip_codes(tgt_text))
        if sw and tw and len(sw) <= MAX_ALIGN_WORDS and len(tw) <= MAX_ALIGN_WORDS * 3:
            units.append((sw, tw))
    if aligner == "eflomal":
        links = [wa.grow_diag_final_and(f, r) for f, r in wa.eflomal_links(units)]
    elif aligner == "vectors":
        if encode is None:
            raise ValueError("the vectors aligner needs a model")
        links = wa.vector_links(units, encode)
    elif aligner == "cooc":
        links = _cooc_links(units)
    else:
        raise ValueError(f"unknown aligner {aligner!r} (one of {', '.join(ALIGNERS)})")
    return units, links


def _cooc_links(units: Sequence[tuple[list[str], list[str]]]) -> list[set[tuple[int, int]]]:
    """Links between words that are each other's strongest co-occurring partner across the
    memory (Dice ≥ ``MIN_DICE`` over at least ``MIN_COUNT`` units): no extra needed."""
    cs: Counter[str] = Counter()
    ct: Counter[str] = Counter()
    cst: Counter[tuple[str, str]] = Counter()
    for sw, tw in units:
        ss, ts = set(sw) - STOPWORDS, {t.lower() for t in tw}
        cs.update(ss)
        ct.update(ts)
        cst.update((s, t) for s in ss for t in ts)
    best_t: dict[str, tuple[float, int, str]] = {}
    best_s: dict[str, tuple[float, int, str]] = {}
    for (s, t), n in cst.items():
        if n < MIN_COUNT:
            continue
        dice = 2.0 * n / (cs[s] + ct[t])
        # a tie: the longer word (not "le"), then the first in alphabetical order
        best_t[s] = max(best_t.get(s, (0.0, 0, "")), (dice, len(t), t))
        best_s[t] = max(best_s.get(t, (0.0, 0, "")), (dice, len(s), s))
    pair = {s: t for s, (d, _, t) in best_t.items() if d >= MIN_DICE and best_s[t][2] == s}
    out: list[set[tuple[int, int]]] = []
    for sw, tw in units:
        low = [t.lower() for t in tw]
        out.append(
            {(i, j) for i, s in enumerate(sw) for j, t in enumerate(low) if pair.get(s) == t}
        )
    return out


def memory_pairs(
    store: object, collection: str | None, src: str, tgt: str
) -> list[tuple[str, str]]:
    """(source, target) of the memory's units in ``src`` and ``tgt`` (primary subtags)."""
    from xlsearch.engine.lang.tags import primary

    s, t = primary(src.replace("_", "-")), primary(tgt.replace("_", "-"))  # pt_BR as pt-BR
    where, params = store._filters(collection, [s])  # type: ignore[attr-defined]
    rows = store.conn.execute(  # type: ignore[attr-defined]
        f"SELECT s.text, t.text FROM segments s JOIN segments t ON t.tu_id = s.tu_id "
        f"AND t.document_id = s.document_id AND t.id != s.id "
        f"AND (t.lang = ? OR t.lang LIKE ?){where.replace(' WHERE ', ' WHERE 1 AND ', 1)}",
        [t, t + "-%", *params],
    ).fetchall()
    return [(str(a), str(b)) for a, b in rows]


def default_aligner() -> str:
    """``XLSEARCH_ALIGNER`` where it names one of ``ALIGNERS`` that runs without a model,
    else ``eflomal`` where it is installed (the ``align`` extra), else ``cooc``."""
    import os

    from xlsearch.engine.tm.matching.wordalign import aligner_available

    chosen = os.environ.get("XLSEARCH_ALIGNER", "")
    if chosen in ("eflomal", "cooc") and aligner_available(chosen):
        return chosen
    return "eflomal" if aligner_available("eflomal") else "cooc"


_CACHE: dict[tuple[str, str | None, str, str, int, str], FragmentIndex] = {}
CACHE_VERSION = 4


def _cache_file(key: tuple[str, str | None, str, str, int, str]) -> Path:
    """Where the fragment index of one memory generation and pair is kept between processes
    (a CAT tool's hook runs ``lookup`` once per segment: learning it again each time cost
    seconds)."""
    import hashlib

    from xlsearch.engine.runtime import locations

    name = hashlib.blake2b(
        "|".join(str(part) for i, part in enumerate(key) if i != 4).encode("utf-8"), digest_size=10
    ).hexdigest()
    return locations.cache_dir() / "fragments" / f"{name}.json"


def _read_cached(path: Path, generation: int) -> FragmentIndex | None:
    """The index saved for this generation of the memory, or None (missing, stale, damaged)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != CACHE_VERSION or data.get("generation") != generation:
            return None
        phrases = {
            tuple(k.split(" ")): Phrase(str(v[0]), int(v[1]), int(v[2]), bool(v[3]), str(v[4]))
            for k, v in data["phrases"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return None
    return FragmentIndex(phrases)


def _write_cached(path: Path, generation: int, index: FragmentIndex) -> None:
    from xlsearch.engine.runtime.atomic import write_json

    data = {
        "version": CACHE_VERSION,
        "generation": generation,
        "phrases": {
            " ".join(k): [p.target, p.count, p.seen, p.unit, p.inner]
            for k, p in index.phrases.items()
        },
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
    aligner = default_aligner()
    key = (
        str(getattr(store, "path", "")),
        collection,
        primary(src.replace("_", "-")),
        primary(tgt.replace("_", "-")),
        generation,
        aligner,
    )
    got = _CACHE.get(key)
    if got is None:
        path = _cache_file(key)
        got = _read_cached(path, generation)
        if got is None:
            got = FragmentIndex.learn(memory_pairs(store, collection, src, tgt), aligner)
            _write_cached(path, generation, got)
        if len(_CACHE) > 8:
            _CACHE.clear()
        _CACHE[key] = got
    return got


__all__ = [
    "ALIGNERS",
    "Fragment",
    "FragmentIndex",
    "Phrase",
    "align_units",
    "default_aligner",
    "index_for",
    "memory_pairs",
    "words",
]
