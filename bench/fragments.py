"""Fragments on real software catalogues, one word aligner against another.

    python bench/fragments.py [--langs fr de] [--modules thunar mousepad] \\
        [--aligner eflomal] [--aligner vectors] [--aligner cooc] [--cache DIR] [--links DIR] \\
        [--sweep 0.5 0.6 0.7 0.9] [--fallback 0.5 0.6 0.7] [--bound]

For each language of ``$XLSEARCH_BENCH_DATA/l10n/xfce`` and each module, as in
``bench/l10n.py``: the memory is the other modules' translated, non-fuzzy entries, imported
into a store as a user imports them; the entries scored are the module's translated entries
whose msgid is not in the memory and whose best fuzzy match is under 75 % (what gets
fragments). For each aligner, the fragment index is learnt on the memory and asked for the
fragments of each entry: the share of entries shown at least one, the share of the
reference's words the fragments' target words cover (over the entries shown one, and over all
entries), and the share of the fragments' target words found in the reference (word for word;
CJK text: characters; the reference's placeholders and markup tags are no words). A last
column, for information: the share found when a word of 4 letters or more inside a reference
word counts too (a German compound, an Arabic word with its article attached).

``--cache DIR`` keeps each job's memory and scored entries (the store import and the fuzzy
lookups are the slow part) so that a second run only learns and looks up; ``--links DIR``
keeps each job's eflomal links (the aligner's sampling is the slow part of learning; the
alignment seconds of the run that made them are reported).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _data import data_dir, machine  # noqa: E402
from l10n import job_files, reference, reference_words, scored, tokens  # noqa: E402


def prepare(base: Path, lang: str, module: str, modules: list[str]) -> dict[str, Any] | None:
    """The job's memory pairs (as the store gives them) and its entries to score."""
    import polib

    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.matching.fragments import memory_pairs
    from xlsearch.engine.tm.matching.lookup import Lookup

    job_src, mem_files = job_files(base, lang, module, modules)
    if not job_src.is_file() or not mem_files:
        return None
    ids = {e.msgid for f in mem_files for e in polib.pofile(str(f)) if scored(e)}
    entries = [e for e in polib.pofile(str(job_src)) if scored(e) and e.msgid not in ids]
    with tempfile.TemporaryDirectory(prefix="frag-") as tmp:
        with Store(Path(tmp) / "store.db") as store:
            for f in mem_files:
                store.import_file(f, "memory")
            pairs = memory_pairs(store, "memory", "en", lang.replace("_", "-"))
            lk = Lookup(store, None, collection="memory", semantic=False)
            todo = []
            for e in entries:
                res = lk.lookup(e.msgid, "en", "", k=1, cross_k=0)
                if max((m.fuzzy for m in res.matches), default=0) < 75:
                    todo.append([e.msgid, reference(e)])
    return {"pairs": pairs, "todo": todo}


def score(index: Any, todo: list[list[str]], counts: Counter[str]) -> None:
    for source, ref in todo:
        counts["todo"] += 1
        ref_words = reference_words(ref)
        counts["all_ref_words"] += len(ref_words)
        frags = index.find(source)
        if not frags:
            continue
        counts["any"] += 1
        shown = [w for f in frags for w in tokens(f.target)]
        have = set(shown)
        ref_set = set(ref_words)
        counts["ref_words"] += len(ref_words)
        counts["ref_covered"] += sum(1 for w in ref_words if w in have)
        counts["words"] += len(shown)
        counts["words_right"] += sum(1 for w in shown if w in ref_set)
        counts["words_inside"] += sum(
            1 for w in shown if w in ref_set or (len(w) >= 4 and any(w in r for r in ref_set))
        )
        counts["fragments"] += len(frags)


class WithFallback:
    """``--fallback``: the index's fragments, and for an entry that gets none, its one
    n-gram whose translation the memory's units hold most (at least ``least``), weighed by
    how many units have it (``share × seen / (seen + 2)``), the longest on a tie."""

    def __init__(self, index: Any, least: float) -> None:
        self.index, self.least = index, least

    def find(self, source: str) -> list[Any]:
        from xlsearch.engine.tm.matching import fragments as fr

        got = self.index.find(source)
        if got:
            return list(got)
        sw = fr.words(source)
        best: tuple[float, int, Any] | None = None
        for n in range(min(fr.MAX_WORDS, len(sw)), 0, -1):
            for i in range(len(sw) - n + 1):
                phrase = self.index.phrases.get(tuple(sw[i : i + n]))
                if phrase is None:
                    continue
                before = sw[i - 1] if i else fr.EDGE[0]
                opt, share = phrase.choose(before, sw[i + n] if i + n < len(sw) else fr.EDGE[1])
                weight = share * phrase.seen / (phrase.seen + 2)
                if opt.count >= fr.MIN_COUNT and share >= self.least:
                    if best is None or weight > best[0]:
                        best = (
                            weight,
                            n,
                            fr.Fragment(
                                " ".join(sw[i : i + n]), opt.target, i, i + n, opt.count, "aligned"
                            ),
                        )
        return [best[2]] if best is not None else []


def best_possible(index: Any, todo: list[list[str]], out: list[tuple[float, int, int]]) -> None:
    """``--bound``: for each entry, the best selection a perfect judge could make among every
    translation the memory has for the entry's n-grams (``MIN_COUNT`` units or more): all its
    translations found word for word in the reference (non-overlapping, longest first), else
    the one with the largest share found; as (share found, words found, words shown), or
    (-1, 0, 0) where the memory has none."""
    from xlsearch.engine.tm.matching import fragments as fr

    for source, ref in todo:
        ref_set = set(reference_words(ref))
        sw = fr.words(source)
        cands = []
        for n in range(min(fr.MAX_WORDS, len(sw)), 0, -1):
            for i in range(len(sw) - n + 1):
                phrase = index.phrases.get(tuple(sw[i : i + n]))
                for opt in phrase.options if phrase is not None else ():
                    shown = tokens(opt.target)
                    if opt.count >= fr.MIN_COUNT and shown:
                        cands.append((i, n, sum(w in ref_set for w in shown), len(shown)))
        if not cands:
            out.append((-1.0, 0, 0))
            continue
        taken: set[int] = set()
        right = words = 0
        for i, n, r, w in cands:
            if r == w and not taken & set(range(i, i + n)):
                taken |= set(range(i, i + n))
                right, words = right + r, words + w
        if not words:
            _, right, words = max((r / w, r, -w) for _, _, r, w in cands)
            words = -words
        out.append((right / words, right, words))


def _least(v: float) -> str:
    """A ``--sweep`` value, or a ``--fallback`` one (stored negative)."""
    return f"{v}" if v >= 0 else f"shipped, else one ≥ {-v}"


def at_share(entries: list[tuple[float, int, int]], share: float) -> str:
    """The precision of the best-possible selection over the ``share`` of the entries whose
    best selections are the most precise; and the share of entries with any candidate."""
    import math

    have = sorted((e for e in entries if e[0] >= 0), key=lambda e: (-e[0], e[2]))
    k = math.ceil(share * len(entries))
    cand = f"{100 * len(have) / len(entries):.1f}"
    if k > len(have) or not k:
        return f"{cand} | —"
    top = have[:k]
    return f"{cand} | {100 * sum(e[1] for e in top) / sum(e[2] for e in top):.1f}"


def learn_eflomal(pairs: list[tuple[str, str]], path: Path | None) -> tuple[Any, float]:
    """The eflomal fragment index of a memory, its links read from ``path`` where a run
    left them there; and the seconds the alignment took (in the run that made them)."""
    import pickle

    from xlsearch.engine.tm.matching import wordalign as wa
    from xlsearch.engine.tm.matching.fragments import FragmentIndex, memory_units

    if path is not None and path.is_file():
        got = pickle.loads(path.read_bytes())
    else:
        start = time.perf_counter()
        units = memory_units(pairs)
        got = {"units": units, "ef": wa.eflomal_links(units)}
        got["te"] = time.perf_counter() - start
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(pickle.dumps(got))
    units, ef = _project(pairs, got["units"], got["ef"])
    links = [wa.grow_diag_final_and(f, r) for f, r in ef]
    wider = [f | r for f, r in ef]
    return FragmentIndex.from_links(units, links, wider), float(got["te"])


def _project(pairs: list[tuple[str, str]], units: list[Any], ef: list[Any]) -> tuple[Any, Any]:
    """The memory's units as the code reads them now, with the links of ``--links`` (made
    when markup tags still were words): each unit's links to its remaining words, renumbered
    (eflomal is not run again; tags are 3 % of the Xfce units)."""
    import re

    from xlsearch.engine.tm.matching import fragments as fr

    now = fr.memory_units(pairs)
    if now == units:
        return units, ef
    tag = fr._TAG
    fr._TAG = re.compile(r"(?!)")  # the units as they were read when the links were made
    try:
        then = [fr.memory_units([p]) for p in pairs]
    finally:
        fr._TAG = tag
    assert [u for us in then for u in us] == units, "--links were made from other units"
    out_units, out_ef = [], []
    k = 0
    for p, was in zip(pairs, then, strict=True):
        new = fr.memory_units([p])
        if not was:
            if new:  # not aligned then: no links
                out_units.append(new[0])
                out_ef.append((set(), set()))
            continue
        fwd, rev = ef[k]
        k += 1
        if not new:
            continue
        smap = _subsequence(was[0][0], new[0][0])
        tmap = _subsequence(was[0][1], new[0][1])
        out_units.append(new[0])
        out_ef.append(
            tuple(
                {(smap[i], tmap[j]) for i, j in lk if i in smap and j in tmap} for lk in (fwd, rev)
            )
        )
    return out_units, out_ef


def _subsequence(then: list[str], now: list[str]) -> dict[int, int]:
    """Old word index → new word index, ``now`` read as a subsequence of ``then``."""
    out: dict[int, int] = {}
    j = 0
    for i, w in enumerate(then):
        if j < len(now) and now[j] == w:
            out[i] = j
            j += 1
    return out if j == len(now) else {}


def main() -> None:
    from xlsearch.engine.tm.matching import fragments as fr
    from xlsearch.engine.tm.matching.fragments import FragmentIndex, default_aligner

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--langs", nargs="+")
    p.add_argument("--modules", nargs="+")
    p.add_argument("--aligner", action="append", default=[])
    p.add_argument("--cache", help="keep each job's memory and entries here")
    p.add_argument("--links", help="keep each job's eflomal links here")
    p.add_argument("--model", help="for --aligner vectors (default: the shipped student)")
    p.add_argument("--examples", type=int, default=0)
    p.add_argument(
        "--sweep",
        nargs="+",
        type=float,
        default=[],
        help="also score with these least shares found (MIN_FOUND) instead of the shipped one",
    )
    p.add_argument(
        "--fallback",
        nargs="+",
        type=float,
        default=[],
        help="also score with one fragment for an entry that gets none, where its share found "
        "reaches this",
    )
    p.add_argument(
        "--bound",
        action="store_true",
        help="also the best-possible selection's precision at 80 %% of the entries",
    )
    args = p.parse_args()
    encode = None
    if "vectors" in (args.aligner or []):
        from xlsearch.engine.models.cards import shipped_model_path
        from xlsearch.engine.models.encoder import load_encoder

        enc = load_encoder(args.model or str(shipped_model_path()))

        def encode(ws: list[str]) -> Any:
            return enc.encode(ws, batch_size=256)

    base = data_dir() / "l10n" / "xfce"
    modules_all = sorted(d.name for d in base.iterdir() if d.is_dir())
    langs = args.langs or sorted({f.stem for m in modules_all for f in (base / m).glob("*.po")})
    jobs = args.modules or modules_all
    aligners = args.aligner or [default_aligner()]
    totals: dict[str, Counter[str]] = {a: Counter() for a in aligners}
    per_lang: dict[tuple[str, str], Counter[str]] = {}
    seconds: dict[str, float] = dict.fromkeys(aligners, 0.0)
    cache = Path(args.cache) if args.cache else None
    swept: dict[tuple[str, float, str], Counter[str]] = {}
    bounds: dict[tuple[str, str], list[tuple[float, int, int]]] = {}
    for lang in langs:
        for module in jobs:
            got: dict[str, Any] | None = None
            path = cache / f"{lang}-{module}.json" if cache else None
            if path is not None and path.is_file():
                got = json.loads(path.read_text(encoding="utf-8"))
            else:
                got = prepare(base, lang, module, modules_all)
                if got is not None and path is not None:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(json.dumps(got, ensure_ascii=False), encoding="utf-8")
            if got is None:
                continue
            pairs = [(a, b) for a, b in got["pairs"]]
            for a in aligners:
                start = time.perf_counter()
                if a == "eflomal" and args.links:
                    index, aligning = learn_eflomal(
                        pairs, Path(args.links) / f"{lang}-{module}.pkl"
                    )
                    seconds[a] += aligning
                else:
                    index = FragmentIndex.learn(pairs, a, encode)
                seconds[a] += time.perf_counter() - start
                c = per_lang.setdefault((a, lang), Counter())
                score(index, got["todo"], c)
                for v in args.sweep:
                    shipped, fr.MIN_FOUND = fr.MIN_FOUND, v
                    try:
                        score(index, got["todo"], swept.setdefault((a, v, lang), Counter()))
                    finally:
                        fr.MIN_FOUND = shipped
                for v in args.fallback:
                    score(
                        WithFallback(index, v),
                        got["todo"],
                        swept.setdefault((a, -v, lang), Counter()),
                    )
                if args.bound:
                    best_possible(index, got["todo"], bounds.setdefault((a, lang), []))
                if args.examples:
                    for source, ref in got["todo"][: args.examples]:
                        shown = " · ".join(f"{f.source}→{f.target}" for f in index.find(source))
                        print(f"  [{a} {lang}] {source!r} | {shown} | ref {ref!r}")
            print(f"… {lang} {module}", file=sys.stderr, flush=True)
    for (a, _lang), c in per_lang.items():
        totals[a].update(c)

    def row(c: Counter[str]) -> str:
        def per(x: str, y: str) -> str:
            return f"{100 * c[x] / c[y]:.1f}" if c[y] else "—"

        return (
            f"{c['todo']} | {per('any', 'todo')} | {per('ref_covered', 'ref_words')} | "
            f"{per('ref_covered', 'all_ref_words')} | {per('words_right', 'words')} | "
            f"{per('words_inside', 'words')}"
        )

    print(f"Xfce: {len(langs)} languages × {len(jobs)} jobs ({', '.join(langs)}); {machine()}\n")
    print(
        "| aligner | language | entries | with a fragment % | coverage % | coverage, all "
        "entries % | precision % | found inside a word % |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for (a, lang), c in sorted(per_lang.items()):
        print(f"| {a} | {lang} | {row(c)} |")
    for a in aligners:
        print(f"| **{a}** | all | {row(totals[a])} |  learning {seconds[a]:.0f} s")
    if args.sweep or args.fallback:
        print(
            "\n| aligner | least share found | language | entries | with a fragment % | "
            "coverage % | coverage, all entries % | precision % | found inside a word % |"
        )
        print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
        for a in aligners:
            for v in [*args.sweep, *(-f for f in args.fallback)]:
                every: Counter[str] = Counter()
                for (a2, v2, lang), c in sorted(swept.items()):
                    if (a2, v2) == (a, v):
                        every.update(c)
                        print(f"| {a} | {_least(v)} | {lang} | {row(c)} |")
                print(f"| **{a}** | {_least(v)} | all | {row(every)} |")
    if args.bound:
        print(
            "\n| aligner | language | entries with a candidate % | best-possible precision "
            "at 80 % of the entries |"
        )
        print("|---|---|---:|---:|")
        for a in aligners:
            pooled: list[tuple[float, int, int]] = []
            for (a2, lang), got_b in sorted(bounds.items()):
                if a2 == a:
                    pooled += got_b
                    print(f"| {a} | {lang} | {at_share(got_b, 0.8)} |")
            print(f"| **{a}** | all | {at_share(pooled, 0.8)} |")


if __name__ == "__main__":
    main()
