"""Fragments: which parts of a segment without a good match the memory already translates.

The memory's units are word-aligned (``wordalign``: eflomal where the ``align`` extra is
installed, else the words' co-occurrence across the memory), and every phrase pair of up to
``MAX_WORDS`` source words consistent with the links is counted, as is every short unit whose
whole source is the n-gram. An n-gram's translations are then weighed against the memory
itself: of the memory units whose source has the n-gram, in how many does the target hold the
translation's words? A fragment is shown only where that share reaches ``MIN_FOUND`` and at
least ``MIN_COUNT`` units translate it so. Where the memory has the n-gram between the same
neighbours as in the segment (``CONTEXT_MIN`` units or more: *Failed to …* at the start, *…
failed* at the end; *of files*, *the file*), only those units decide, so the form the memory
writes there is the one shown. An n-gram that ends with a stopword or starts with
``to``/``the``/``a``/``an`` is never one (its translation is the context's).

For a segment with no fuzzy match ≥ 75 %, the longest such n-grams are shown first, never
overlapping (``lookup``, the Translate screen, ``analyze --report``), to be inserted by the
translator; they are never written into a file as a target.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlsearch.engine.importers.placeholders import PLACEHOLDER
from xlsearch.engine.progress import Progress, ProgressCallback
from xlsearch.engine.tm.matching.fuzzy import TAG_RE as _TAG

MAX_WORDS = 6
"""Longest source n-gram a fragment may be."""
MIN_COUNT = 2
"""Memory units that must translate an n-gram so (aligned, or as a whole unit) before it is
shown."""
MIN_FOUND = 0.8
"""Least share of a translation's words found in the targets of the memory units whose source
has the n-gram (those with the segment's neighbours around it, where the memory has enough)."""
CONTEXT_MIN = 2
"""Memory units with the n-gram between the segment's neighbours before they decide alone."""
CANDIDATES = 3
"""An n-gram's most frequent aligned translations weighed (whole units' ones besides)."""
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
_PART = re.compile(r"[^\W_]+")
EDGE = ("^", "$")
"""The neighbours of an n-gram at the start and at the end of a segment."""


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
    seen: int = 0
    """Memory units whose source has the n-gram (where the segment has it: between the same
    neighbours, where the memory has enough such units)."""
    held: int = 0
    """Of those, the units whose target has the translation (its words' shares summed)."""

    @property
    def evidence(self) -> str:
        """What the translator is shown as the fragment's evidence, the same everywhere."""
        if not self.seen:
            return f"{self.count} memory units translate it so"
        alone = ", one of them this phrase alone" if self.how == "unit" else ""
        return f"{self.held} of {self.seen} memory units translate it so{alone}"


def _strip_codes(text: str) -> str:
    """The text without markup tags, placeholders, CJK mnemonics ``(_F)`` and mnemonic
    marks: what is copied or placed, not translated (``<b>`` is no word ``b``)."""
    from xlsearch.engine.tm.matching.repair import CJK_MNEMONIC

    text = _TAG.sub(" ", text) if "<" in text else text
    return _PH.sub(" ", CJK_MNEMONIC.sub("", text)).replace("_", "").replace("&", "")


def words(text: str) -> list[str]:
    """Lower-case words, mnemonics and placeholders removed."""
    return [w.lower() for w in _WORD.findall(_strip_codes(text))]


def _parts(token: str) -> list[str]:
    """A target token's lower-case words, apostrophes splitting them (``dell'immagine``)."""
    return _PART.findall(token.lower())


_KANA_PARTICLE = re.compile(r"[\u3041-\u309f]{1,2}")
"""A Japanese particle or ending (を, の, には): what a content word's link to it is not."""


def _particle(target: tuple[str, ...]) -> bool:
    """Whether an aligned translation is a Japanese particle alone (``open → を``: the
    object marker next to the verb, linked with it)."""
    return len(target) == 1 and bool(_KANA_PARTICLE.fullmatch(target[0]))


def _fragment_key(key: tuple[str, ...]) -> bool:
    """Whether an n-gram may be a fragment at all: not only stopwords, none on its edge
    (``to``/``the``/``a``/``an`` first, any last), no bare number, no letter alone."""
    if key[-1] in STOPWORDS or key[0] in EDGE_START:
        return False  # a stopword alone or on the edge: its translation is the context's
    # numbers are copied, not translated; a letter alone is no word
    return not (all(w.isdigit() for w in key) or (len(key) == 1 and len(key[0]) == 1))


@dataclass(frozen=True)
class Option:
    """One of the memory's translations of a source n-gram."""

    target: str
    count: int
    """Units that translate the n-gram so (by the word alignment, or as a whole unit)."""
    unit: bool
    """Whether a memory unit is exactly this n-gram translated so."""
    inner: str = ""
    """The same translation as the memory writes it inside a sentence (lower-case first
    letter), where that differs from ``target`` (``Ouvrir`` as a label, ``ouvrir`` inside)."""


@dataclass(frozen=True)
class Phrase:
    """The memory's translations of a source n-gram, and how often each is found where the
    n-gram stands."""

    options: tuple[Option, ...]
    seen: int
    """Memory units whose source has the n-gram."""
    found: tuple[float, ...]
    """For each option: over those units, the sum of the shares of its words in the target."""
    context: dict[str, tuple[int, tuple[float, ...]]] = field(default_factory=dict)
    """``seen`` and ``found`` again, over the units where the n-gram has a given word before it
    (``<word``), after it (``>word``) or both (``<before>after``); ``^``/``$`` the edges. Only
    where at least ``CONTEXT_MIN`` units and fewer than all of them have it so."""

    def choose(self, before: str, after: str) -> tuple[Option, float]:
        """The option the memory writes most where the n-gram stands between ``before`` and
        ``after`` (the most specific of these contexts the memory knows, else all its units),
        and the share of its words found there."""
        opt, share, _ = self.pick(before, after)
        return opt, share

    def pick(self, before: str, after: str) -> tuple[Option, float, int]:
        """``choose``, and how many memory units that share is over."""
        seen, found = self.seen, self.found
        for key in (f"<{before}>{after}", f"<{before}", f">{after}"):
            got = self.context.get(key)
            if got is not None:
                seen, found = got
                break
        best = max(range(len(self.options)), key=lambda k: (found[k], self.options[k].count))
        return self.options[best], found[best] / seen, seen


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
        weigh each source n-gram's translations against the memory."""
        from xlsearch.engine.tm.matching import wordalign as wa

        if aligner != "eflomal":
            return cls.from_links(*align_units(pairs, aligner, encode))
        units = memory_units(pairs)
        both = wa.eflomal_links(units)
        gdfa = [wa.grow_diag_final_and(f, r) for f, r in both]
        return cls.from_links(units, gdfa, [f | r for f, r in both])

    @classmethod
    def from_links(
        cls,
        units: Sequence[tuple[list[str], list[str]]],
        links: Sequence[set[tuple[int, int]]],
        wider: Sequence[set[tuple[int, int]]] | None = None,
    ) -> FragmentIndex:
        """From aligned units (``align_units``); ``wider``: each unit's looser links (both
        of eflomal's directions together), whose phrase pairs are weighed too."""
        from xlsearch.engine.tm.matching import wordalign as wa

        # the share found is over the targets' characters (CJK) as before; phrase pairs are
        # made over whole words, so that a fragment never ends inside one (プレビュー, not レビュ)
        targets = [frozenset(w for t in tw for w in _parts(t)) for _, tw in units]
        units, links, wider = _whole_words(units, links, wider)
        got: dict[tuple[str, ...], Counter[tuple[str, ...]]] = defaultdict(Counter)
        whole: dict[tuple[str, ...], Counter[tuple[str, ...]]] = defaultdict(Counter)
        surface: dict[tuple[str, ...], Counter[tuple[str, ...]]] = defaultdict(Counter)
        for u, ((sw, tw), lk) in enumerate(zip(units, links, strict=True)):
            low = [t.lower() for t in tw]
            boxes = set(wa.phrase_pairs(len(sw), lk, MAX_WORDS))
            if wider is not None:
                boxes |= set(wa.phrase_pairs(len(sw), wider[u], MAX_WORDS))
            for i, j, k, m in boxes:
                key, tkey = tuple(sw[i:j]), tuple(low[k:m])
                got[key][tkey] += 1
                surface[tkey][tuple(tw[k:m])] += 1
            if len(sw) <= MAX_WORDS:
                whole[tuple(sw)][tuple(low)] += 1
                surface[tuple(low)][tuple(tw)] += 1
        keys = {k for k in (*got, *whole) if _fragment_key(k)}
        # the units whose source has each n-gram, with its neighbours there (first sighting)
        occ: dict[tuple[str, ...], dict[int, tuple[str, str]]] = defaultdict(dict)
        for u, (sw, _tw) in enumerate(units):
            for n in range(1, min(MAX_WORDS, len(sw)) + 1):
                for i in range(len(sw) - n + 1):
                    key = tuple(sw[i : i + n])
                    if key in keys and u not in occ[key]:
                        before = sw[i - 1] if i else EDGE[0]
                        occ[key][u] = (before, sw[i + n] if i + n < len(sw) else EDGE[1])
        phrases: dict[tuple[str, ...], Phrase] = {}
        for key in keys:
            aligned, units_so = got.get(key, Counter()), whole.get(key, Counter())
            chosen = [t for t, _ in aligned.most_common(CANDIDATES) if not _particle(t)]
            chosen += [t for t, _ in units_so.most_common(2) if t not in chosen]
            count = {t: max(aligned[t], units_so[t]) for t in chosen}
            if not chosen or max(count.values()) < MIN_COUNT:
                continue
            where = occ[key]
            parts = {
                t: {w for x in t for y in wa.target_tokens(x) for w in _parts(y)} for t in chosen
            }
            hits = {t: [len(parts[t] & targets[u]) / len(parts[t]) for u in where] for t in chosen}
            options, found = [], []
            for t in chosen:
                forms = surface[t].most_common()
                shown = wa.join_target(forms[0][0])
                inner = next((wa.join_target(f) for f, _ in forms if f[0][:1].islower()), "")
                options.append(
                    Option(shown, count[t], t in units_so, "" if inner == shown else inner)
                )
                found.append(round(sum(hits[t]), 3))
            context: dict[str, list[int]] = defaultdict(list)
            for k, (before, after) in enumerate(where.values()):
                for c in (f"<{before}>{after}", f"<{before}", f">{after}"):
                    context[c].append(k)
            kept = {
                c: (len(ks), tuple(round(sum(hits[t][k] for k in ks), 3) for t in chosen))
                for c, ks in context.items()
                if CONTEXT_MIN <= len(ks) < len(where)
            }
            phrases[key] = Phrase(tuple(options), len(where), tuple(found), kept)
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
                before = sw[i - 1] if i else EDGE[0]
                opt, share, seen = got.pick(before, sw[i + n] if i + n < len(sw) else EDGE[1])
                if opt.count < MIN_COUNT or share < MIN_FOUND:
                    continue
                how = "unit" if opt.unit else "aligned"
                target = opt.inner if opt.inner and i > 0 and raw[i][:1].islower() else opt.target
                held = round(share * seen)
                out.append(Fragment(" ".join(key), target, i, i + n, opt.count, how, seen, held))
                taken[i : i + n] = [True] * n
        return sorted(out, key=lambda f: f.start)


def _whole_words(
    units: Sequence[tuple[list[str], list[str]]],
    links: Sequence[set[tuple[int, int]]],
    wider: Sequence[set[tuple[int, int]]] | None,
) -> tuple[
    Sequence[tuple[list[str], list[str]]],
    Sequence[set[tuple[int, int]]],
    Sequence[set[tuple[int, int]]] | None,
]:
    """The units whose targets are Chinese or Japanese characters, and their links, as whole
    words (``wordalign.whole_words``); other units as they are."""
    from xlsearch.engine.tm.matching import wordalign as wa

    if not any(wa.cjk("".join(tw)) for _, tw in units):
        return units, links, wider
    ja = wa.japanese([tw for _, tw in units])
    out_u: list[tuple[list[str], list[str]]] = []
    out_l: list[set[tuple[int, int]]] = []
    out_w: list[set[tuple[int, int]]] = []
    for u, (sw, tw) in enumerate(units):
        groups = wa.whole_words(tw, ja)
        merged, lk = wa.merge_words(tw, links[u], groups)
        out_u.append((sw, merged))
        out_l.append(lk)
        if wider is not None:
            out_w.append(wa.merge_words(tw, wider[u], groups)[1])
    return out_u, out_l, out_w if wider is not None else None


def align_units(
    pairs: Iterable[tuple[str, str]],
    aligner: str = "eflomal",
    encode: Callable[[list[str]], Any] | None = None,
) -> tuple[list[tuple[list[str], list[str]]], list[set[tuple[int, int]]]]:
    """The memory's units as (source words, target tokens) and their word links."""
    from xlsearch.engine.tm.matching import wordalign as wa

    units = memory_units(pairs)
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


def memory_units(pairs: Iterable[tuple[str, str]]) -> list[tuple[list[str], list[str]]]:
    """The memory's units to align, as (source words, target tokens): not the translator
    credits, not those longer than ``MAX_ALIGN_WORDS``."""
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
    return units


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
CACHE_VERSION = 8


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
        phrases = {tuple(k.split(" ")): _phrase(v) for k, v in data["phrases"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return None
    return FragmentIndex(phrases)


def _phrase(v: list[Any]) -> Phrase:
    """A ``Phrase`` from its cached JSON form."""
    options = tuple(Option(str(t), int(c), bool(u), str(i)) for t, c, u, i in v[0])
    found = tuple(float(x) for x in v[2])
    context = {str(c): (int(n), tuple(float(x) for x in f)) for c, (n, f) in v[3].items()}
    if len(found) != len(options) or any(len(f) != len(options) for _, f in context.values()):
        raise ValueError("a damaged phrase")
    return Phrase(options, int(v[1]), found, context)


def _write_cached(path: Path, generation: int, index: FragmentIndex) -> None:
    from xlsearch.engine.runtime.atomic import write_json

    data = {
        "version": CACHE_VERSION,
        "generation": generation,
        "phrases": {
            " ".join(k): [
                [[o.target, o.count, o.unit, o.inner] for o in p.options],
                p.seen,
                list(p.found),
                {c: [n, list(f)] for c, (n, f) in p.context.items()},
            ]
            for k, p in index.phrases.items()
        },
    }
    try:
        write_json(path, data, indent=None)
    except OSError:  # a read-only or full cache folder: learnt again next time, no harm
        pass


LEARNING = "learning which words your memory translates how (first use of {}, once)…"
"""The notice before an index is learnt (seconds on a memory of a few thousand units)."""
_LEARNING_LOCK = threading.Lock()
"""One index learnt at a time: a second lookup of the same memory waits for it, then reads it."""


def index_for(
    store: object,
    collection: str | None,
    src: str,
    tgt: str,
    on_progress: ProgressCallback | None = None,
) -> FragmentIndex:
    """The fragment index of a memory, cached per store generation in the process and in
    the user's cache folder; ``on_progress`` gets a ``notice`` before it is learnt."""
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
    if got is not None:
        return got
    with _LEARNING_LOCK:
        got = _CACHE.get(key)  # learnt meanwhile by another lookup
        if got is None:
            path = _cache_file(key)
            got = _read_cached(path, generation)
            if got is None:
                if on_progress is not None:
                    name = f"'{collection}'" if collection else "the memory"
                    on_progress(Progress("notice", message=LEARNING.format(name)))
                got = FragmentIndex.learn(memory_pairs(store, collection, src, tgt), aligner)
                _write_cached(path, generation, got)
            if len(_CACHE) > 8:
                _CACHE.clear()
            _CACHE[key] = got
    return got


__all__ = [
    "ALIGNERS",
    "LEARNING",
    "Fragment",
    "FragmentIndex",
    "Option",
    "Phrase",
    "align_units",
    "default_aligner",
    "index_for",
    "memory_pairs",
    "memory_units",
    "words",
]
