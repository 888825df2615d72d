"""Which evidence chooses best among a memory's translations of one source (real catalogues).

    python bench/l10n_evidence.py [--langs fr de] [--ranker]

For every Xfce module and language of ``$XLSEARCH_BENCH_DATA/l10n/xfce`` (as
``bench/l10n.py``: the memory is the other modules' translated, non-fuzzy entries), each job
entry whose msgid the memory holds gets the translation a choice rule picks among the
memory's; the figure is the share equal to the reference (what the module's translators
wrote). Rules are tried in the order the analysis uses (context first, then each evidence,
then use count, then the most recently imported module) with one evidence swapped in at a
time, so each line says what that evidence adds. Every evidence is one a user has when
pre-translating (the job's sources, msgctxt and header; the memory); the job's reference
only scores, except in the oracle line, a bound.

``--ranker``: a learned ranker (pairwise logistic regression over every evidence below, and
gradient boosting as a bound) trained on five languages and tested on the other five, both
ways, for two splits; and per language, trained on the other jobs. Reads the catalogues
directly (no store): the choice alone is measured, in a minute or two.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _data import data_dir, machine  # noqa: E402
from l10n import reference, scored  # noqa: E402

from xlsearch.engine.tm.matching.repair import parse, twin_key  # noqa: E402

Cand = tuple[str, Any, str, str]
"""(module, entry, source before it, source after it)."""
Feats = dict[str, Any]
"""One translation's evidence (``_features``)."""


def _translators(po: Any) -> set[str]:
    names = set()
    for line in (po.header or "").splitlines():
        m = re.match(r"\s*(.+?)\s*(<[^>]*>)?\s*,\s*[0-9][0-9,\- ]*$", line)
        if m:
            names.add(m.group(1).lower())
    return names


_WORD = re.compile(r"\w+", re.UNICODE)
_SYMBOLS = set("<>\"'()[]{}/-+=*#%;,!?")


def _cjk(text: str) -> bool:
    return any("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in text)


def _words(text: str) -> str:
    """Lower-case words, mnemonics removed."""
    text = re.sub(r"\([_&]\w\)", "", text).replace("_", "").replace("&", "").lower()
    return " ".join(_WORD.findall(text))


def _tokens(text: str) -> set[str]:
    """``_words``, CJK text by character."""
    out: set[str] = set()
    for w in _words(text).split():
        out.update(w if _cjk(w) else [w])
    return out


def _inside(small: str, big: str) -> bool:
    """Whether the words ``small`` stand in ``big`` (CJK: the characters)."""
    if not small:
        return False
    if _cjk(small):
        return small.replace(" ", "") in big.replace(" ", "")
    return f" {small} " in f" {big} "


def _mnemonic(text: str) -> str:
    """Where the mnemonic stands: ``cjk`` ``(_X)``, ``start`` of a word, ``mid``, or ''."""
    if re.search(r"[(（][_&]\w[)）]", text):
        return "cjk"
    m = re.search(r"[_&](\w)", text)
    if not m:
        return ""
    return "start" if m.start() == 0 or not text[m.start() - 1].isalnum() else "mid"


def _marked_words(text: str) -> list[tuple[str, int]]:
    """The word an inline mnemonic stands in, lower case, and the place of its letter."""
    m = re.search(r"(\w*)[_&](\w+)", text)
    return [((m.group(1) + m.group(2)).lower(), len(m.group(1)))] if m else []


def _ellipsis(text: str) -> str:
    return "…" if text.rstrip().endswith("…") else "..." if text.rstrip().endswith("...") else ""


def _symbols(text: str) -> Counter[str]:
    return Counter(ch for ch in text if ch in _SYMBOLS)


class Memory:
    """What the memory (the job's other modules) says, word by word and style by style."""

    def __init__(self, units: list[Cand]) -> None:
        self.forms: dict[str, Counter[str]] = defaultdict(Counter)  # a source's other forms
        self.phrases: dict[str, list[tuple[str, str]]] = defaultdict(list)  # by a word
        self.word_units: Counter[str] = Counter()  # source word → units
        self.cooc: dict[str, Counter[str]] = defaultdict(Counter)  # source → target word
        self.target_words: Counter[str] = Counter()
        self.target_texts: Counter[str] = Counter()
        self.mnemonics: Counter[str] = Counter()  # where the targets place a mnemonic
        self.word_mnemonics: Counter[tuple[str, int]] = Counter()  # (word, letter marked)
        for c in units:
            self.word_mnemonics.update(_marked_words(reference(c[1])))
            if _mnemonic(c[1].msgid):
                self.mnemonics[_mnemonic(reference(c[1]))] += 1
            src, tgt = c[1].msgid, reference(c[1])
            self.forms[twin_key(src)][twin_key(tgt)] += 1
            sw, tw = _words(src), _words(tgt)
            for w in set(sw.split()):
                self.phrases[w].append((sw, tw))
            st, tt = _tokens(src), _tokens(tgt)
            for w in st:
                self.word_units[w] += 1
                self.cooc[w].update(tt)
            self.target_words.update(tt)
            self.target_texts[tw] += 1

    def lexical(self, source: str, target: str) -> float:
        """How the memory translates the source's words elsewhere: the mean, over the
        target's words, of the best share of a source word's units holding it."""
        st, tt = _tokens(source), _tokens(target)
        if not tt:
            return 0.0
        return sum(
            max((self.cooc[w][v] / self.word_units[w] for w in st if self.word_units[w]), default=0)
            for v in tt
        ) / len(tt)


def _features(e: Any, t: str, cands: list[Cand], n: int, job: dict[str, Any], mem: Memory) -> Feats:
    """Translation ``t`` of job entry ``e`` (the ``n``-th), stored in ``cands``."""
    before, after = (
        job["sources"][n - 1] if n else "",
        (job["sources"][n + 1] if n + 1 < len(job["sources"]) else ""),
    )
    src, ctx = e.msgid, e.msgctxt or ""
    mods = {c[0] for c in cands}
    near = job["sources"][max(0, n - 5) : n] + job["sources"][n + 1 : n + 6]
    words = _words(src)
    inside = [
        tgt
        for s, tgt in mem.phrases.get(words.split()[0] if words else "", [])
        if s != words and _inside(words, s)
    ]
    tw = _tokens(t)
    mn = _mnemonic(t) if _mnemonic(src) else "-"
    cased = any(ch.lower() != ch.upper() for ch in t)
    return {
        "ctx": any((c[1].msgctxt or "") == ctx for c in cands),
        "trail": parse(t).trail == parse(src).trail,
        "project": any(job["same_project"][m] for m in mods),
        "team": any(job["same_team"][m] for m in mods),
        "last": any(job["same_last"][m] for m in mods),
        "translator": any(job["shared"][m] for m in mods),
        "revised": max(job["revised"][m] for m in mods),
        "nb2": any((c[2], c[3]) == (before, after) and bool(before and after) for c in cands),
        "nb_before": any(c[2] == before and bool(before) for c in cands),
        "nb_either": any(
            (c[2] == before and bool(before)) or (c[3] == after and bool(after)) for c in cands
        ),
        "uses": len(cands),
        "modules": len(mods),
        "forms": mem.forms[twin_key(src)][twin_key(t)],
        "newest": max(job["order"][m] for m in mods),
        "inside": sum(_inside(_words(t), x) for x in inside),
        "nearby": max(sum(s in job["holds"][m] for s in near) for m in mods),
        "oracle": max(job["oracle"][m] for m in mods),
        "mods": frozenset(mods),
        "word_mnemonic": sum(mem.word_mnemonics[w] for w in _marked_words(t)),
        "consistent": 0.0,  # ``_consistency``
        "lexical": mem.lexical(src, t),
        "target_words": sum(mem.target_words[v] for v in tw) / max(1, len(tw)),
        "target_text": mem.target_texts[_words(t)],
        "job_words": sum(job["words"][v] for v in tw) / max(1, len(tw)),
        "job_mnemonic": job["style"]["mn:" + mn] if mn != "-" else 0,
        "job_ellipsis": job["style"]["ell:" + _ellipsis(t)] if _ellipsis(src) else 0,
        "memory_mnemonic": mem.mnemonics[mn] if mn != "-" else 0,
        "mnemonic_letter": bool(_mnemonic(src))
        and re.sub(r".*?[_&](\w).*", r"\1", t, flags=re.S).lower()
        == re.sub(r".*?[_&](\w).*", r"\1", src, flags=re.S).lower(),
        "mnemonic": bool(_mnemonic(t)) == bool(_mnemonic(src)),
        "spaces": (t != t.strip()) == (src != src.strip()),
        "lines": t.count("\n") == src.count("\n"),
        "capitals": not cased or t.replace("_", "").isupper() == src.replace("_", "").isupper(),
        "symbols": -sum(((_symbols(src) - _symbols(t)) + (_symbols(t) - _symbols(src))).values()),
        "length": abs(math.log((1 + len(t)) / (1 + len(src)))),
    }


def _base(f: Feats) -> tuple[Any, ...]:
    return (f["uses"], f["newest"])


RULES: dict[str, Callable[[Feats], tuple[Any, ...]]] = {
    "context, use count, date (before)": lambda f: (f["ctx"],),
    "+ the job's project (Project-Id-Version)": lambda f: (f["ctx"], f["project"]),
    "+ the same two neighbours": lambda f: (f["ctx"], f["nb2"]),
    "+ the same neighbour before": lambda f: (f["ctx"], f["nb_before"]),
    "+ either neighbour the same": lambda f: (f["ctx"], f["nb_either"]),
    "+ a translator in common (header)": lambda f: (f["ctx"], f["translator"]),
    "+ the latest PO-Revision-Date": lambda f: (f["ctx"], f["revised"]),
    "+ project, then use count with the source's other forms (mnemonic, punctuation, case "
    "aside)": lambda f: (f["ctx"], f["project"], f["forms"]),
    "**+ trailing punctuation like the source's, project, other forms (the analysis's "
    "order now)**": lambda f: (f["ctx"], f["trail"], f["project"], f["forms"]),
    "+ project, other forms, then how the memory translates longer strings holding the "
    "source": lambda f: (f["ctx"], f["project"], f["forms"], f["inside"]),
    "+ project, then the module holding most of the job's nearby msgids (5 either side)": (
        lambda f: (f["ctx"], f["project"], f["nearby"])
    ),
    "+ punctuation, project, then the modules whose translations the analysis's order picks "
    "for the job's other ambiguous entries": lambda f: (
        f["ctx"],
        f["trail"],
        f["project"],
        f["consistent"],
        f["forms"],
    ),
    "+ project, then the same Language-Team": lambda f: (f["ctx"], f["project"], f["team"]),
    "+ project, then the same Last-Translator": lambda f: (f["ctx"], f["project"], f["last"]),
    "+ project, then the mnemonic placed and the ellipsis written as in the memory's "
    "translations of the job's unambiguous sources": lambda f: (
        f["ctx"],
        f["project"],
        f["job_mnemonic"] + f["job_ellipsis"],
        f["forms"],
    ),
    "+ project, then the mnemonic placed as the memory places it in that language": (
        lambda f: (f["ctx"], f["project"], f["memory_mnemonic"], f["forms"])
    ),
    "+ project, other forms, then the mnemonic on the letter the memory marks in that word "
    "(`Aid_e` or `_Aide`, over all its targets)": lambda f: (
        f["ctx"],
        f["trail"],
        f["project"],
        f["forms"],
        f["word_mnemonic"],
    ),
    "+ project, then the mnemonic on the source's letter": lambda f: (
        f["ctx"],
        f["project"],
        f["mnemonic_letter"],
        f["forms"],
    ),
    "+ punctuation, project, then the source's symbols, capitals, spaces, line breaks, "
    "mnemonic kept": lambda f: (
        f["ctx"],
        f["trail"],
        f["project"],
        f["symbols"] + f["capitals"] + f["spaces"] + f["lines"] + f["mnemonic"],
        f["forms"],
    ),
    "+ project, other forms, use count, then how the memory translates the source's words "
    "elsewhere (word co-occurrence)": lambda f: (
        f["ctx"],
        f["project"],
        f["forms"],
        f["uses"],
        f["lexical"],
    ),
    "+ project, other forms, use count, then how often the memory's targets hold its words": (
        lambda f: (f["ctx"], f["project"], f["forms"], f["uses"], f["target_words"])
    ),
    "+ project, other forms, use count, then its words in the memory's unambiguous "
    "translations of the job's other sources": lambda f: (
        f["ctx"],
        f["project"],
        f["forms"],
        f["uses"],
        f["job_words"],
    ),
    "oracle (a bound, not a rule): modules ranked by their agreement with the job's "
    "reference": lambda f: (f["ctx"], f["oracle"]),
}
ANALYSIS = next(name for name in RULES if "the analysis's order now" in name)

RANKED = [
    "project", "trail", "team", "last", "translator", "nb2", "nb_either", "uses", "modules",
    "forms", "newest", "inside", "nearby", "lexical", "target_words", "target_text",
    "job_words", "job_mnemonic", "job_ellipsis", "memory_mnemonic", "mnemonic_letter",
    "mnemonic", "spaces", "lines", "capitals", "symbols", "length", "consistent",
    "word_mnemonic",
]  # fmt: skip
_LOGGED = {
    "word_mnemonic", "uses", "modules", "forms", "inside", "nearby", "target_words",
    "target_text", "job_words", "job_mnemonic", "job_ellipsis", "memory_mnemonic",
}  # fmt: skip


def _vector(f: Feats) -> list[float]:
    return [math.log1p(float(f[k])) if k in _LOGGED else float(f[k]) for k in RANKED]


Entry = tuple[str, str, str, list[tuple[str, Feats]]]
"""(language, job, reference, [(translation, evidence)])."""


def _pick(key: Callable[[Feats], tuple[Any, ...]], group: list[tuple[str, Feats]]) -> str:
    return max(group, key=lambda tf: (*key(tf[1]), *_base(tf[1])))[0]


def collect(langs: list[str]) -> tuple[list[Entry], int, int, int]:
    """Every job entry whose msgid the memory holds, with each translation's evidence."""
    import polib

    base = data_dir() / "l10n" / "xfce"
    modules = sorted(d.name for d in base.iterdir() if d.is_dir())
    entries: list[Entry] = []
    in_memory = several = 0
    for lang in langs:
        cats = {m: polib.pofile(str(base / m / f"{lang}.po")) for m in modules
                if (base / m / f"{lang}.po").is_file()}  # fmt: skip
        rows: dict[str, list[Cand]] = {}
        for m, po in cats.items():
            live = [e for e in po if not e.obsolete and e.msgid]
            ends = ["", *(e.msgid for e in live), ""]
            rows[m] = [(m, e, ends[i], ends[i + 2]) for i, e in enumerate(live)]
        for job_name, po in cats.items():
            units = [c for m, cs in rows.items() if m != job_name for c in cs if scored(c[1])]
            by_src: dict[str, list[Cand]] = defaultdict(list)
            holds: dict[str, set[str]] = defaultdict(set)
            for c in units:
                by_src[c[1].msgid].append(c)
                holds[c[0]].add(c[1].msgid)
            mem = Memory(units)
            agree: Counter[str] = Counter()  # the oracle: each module's agreement with the
            seen: Counter[str] = Counter()  # job's reference where the memory disagrees
            job_style: Counter[str] = Counter()  # the memory's unambiguous translations
            job_words: Counter[str] = Counter()  # of the job's sources
            for _m, e, _b, _a in rows[job_name]:
                if not scored(e) or e.msgid not in by_src:
                    continue
                ts = {reference(c[1]) for c in by_src[e.msgid]}
                if len(ts) > 1:
                    for c in by_src[e.msgid]:
                        seen[c[0]] += 1
                        agree[c[0]] += reference(c[1]) == reference(e)
                else:
                    (t,) = ts
                    if _mnemonic(e.msgid):
                        job_style["mn:" + _mnemonic(t)] += 1
                    if _ellipsis(e.msgid):
                        job_style["ell:" + _ellipsis(t)] += 1
                    job_words.update(_tokens(t))
            project = po.metadata.get("Project-Id-Version", "")
            mine = _translators(po)
            meta = {k: po.metadata.get(k, "") for k in ("Language-Team", "Last-Translator")}
            job = {
                "sources": [r[1].msgid for r in rows[job_name]],
                "order": {m: i for i, m in enumerate(modules)},
                "holds": holds,
                "oracle": {m: (agree[m] + 1) / (seen[m] + 2) for m in cats},
                "same_project": {
                    m: cats[m].metadata.get("Project-Id-Version", "") == project for m in cats
                },
                "same_team": {
                    m: cats[m].metadata.get("Language-Team", "") == meta["Language-Team"]
                    for m in cats
                },
                "same_last": {
                    m: cats[m].metadata.get("Last-Translator", "") == meta["Last-Translator"]
                    for m in cats
                },
                "shared": {m: bool(_translators(cats[m]) & mine) for m in cats},
                "revised": {m: cats[m].metadata.get("PO-Revision-Date", "") for m in cats},
                "style": job_style,
                "words": job_words,
            }
            for n, (_m, e, _b, _a) in enumerate(rows[job_name]):
                if not scored(e) or e.msgid not in by_src:
                    continue
                by_t: dict[str, list[Cand]] = defaultdict(list)
                for c in by_src[e.msgid]:
                    by_t[reference(c[1])].append(c)
                ref = reference(e)
                in_memory += ref in by_t
                several += len(by_t) > 1
                group = [(t, _features(e, t, cs, n, job, mem)) for t, cs in by_t.items()]
                entries.append((lang, job_name, ref, group))
    _consistency(entries)
    return entries, len(entries), in_memory, several


def _consistency(entries: list[Entry]) -> None:
    """Each translation's ``consistent``: how often its modules' translations are the ones
    the analysis's order picks for the job's other entries with several (the job's own
    choices as evidence of which modules it agrees with; the entry itself left out)."""
    by_job: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for e in entries:
        if len(e[3]) > 1:
            by_job[e[0], e[1]].append(e)
    for group_entries in by_job.values():
        offered: Counter[str] = Counter()
        agreed: Counter[str] = Counter()
        votes = []
        for _l, _j, _r, group in group_entries:
            chosen = _pick(RULES[ANALYSIS], group)
            mods = {m for _t, f in group for m in f["mods"]}
            won = next(f["mods"] for t, f in group if t == chosen)
            offered.update(mods)
            agreed.update(won)
            votes.append((mods, won))
        for (_l, _j, _r, group), (mods, won) in zip(group_entries, votes, strict=True):
            for _t, f in group:
                f["consistent"] = max(
                    (agreed[m] - (m in won) + 1) / (offered[m] - (m in mods) + 2) for m in f["mods"]
                )


def _ranker_rows(entries: list[Entry]) -> tuple[Any, Any]:
    """Pairwise differences (the reference's evidence minus another's) among translations
    level in context, both ways."""
    import numpy as np

    xs: list[list[float]] = []
    ys: list[int] = []
    for _l, _j, ref, group in entries:
        top = max(f["ctx"] for _t, f in group)
        level = [(t, _vector(f)) for t, f in group if f["ctx"] == top]
        right = [v for t, v in level if t == ref]
        if len(level) < 2 or not right:
            continue
        for t, v in level:
            if t != ref:
                xs += [list(np.subtract(right[0], v)), list(np.subtract(v, right[0]))]
                ys += [1, 0]
    return np.array(xs), np.array(ys)


def _ranked(score: Callable[[Any], Any], entries: list[Entry]) -> float:
    """The share of ``entries`` whose reference the ranker (``score`` of each translation's
    vector; context first, ties by the analysis's order) puts first."""
    import numpy as np

    right = 0
    for _l, _j, ref, group in entries:
        scores = score(np.array([_vector(f) for _t, f in group]))
        best = max(
            range(len(group)),
            key=lambda i: (group[i][1]["ctx"], round(float(scores[i]), 9),
                           *RULES[ANALYSIS](group[i][1]), *_base(group[i][1])),
        )  # fmt: skip
        right += group[best][0] == ref
    return 100 * right / max(1, len(entries))


def rankers(entries: list[Entry], langs: list[str]) -> list[tuple[str, str, float, float]]:
    """(training languages, test languages, ranker %, the analysis's order %) per split."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    def fit(train: list[Entry]) -> Callable[[Any], Any]:
        x, y = _ranker_rows(train)
        w = LogisticRegression(fit_intercept=False, max_iter=2000).fit(x, y).coef_[0]
        return lambda v: v @ w

    def analysis(es: list[Entry]) -> float:
        return 100 * sum(_pick(RULES[ANALYSIS], g) == r for _l, _j, r, g in es) / len(es)

    out = []
    halves = [langs[: len(langs) // 2], langs[len(langs) // 2 :]]
    halves2 = [langs[0::2], langs[1::2]]
    for a, b in [(halves[0], halves[1]), (halves[1], halves[0]),
                 (halves2[0], halves2[1]), (halves2[1], halves2[0])]:  # fmt: skip
        train = [e for e in entries if e[0] in a]
        test = [e for e in entries if e[0] in b]
        out.append((" ".join(a), " ".join(b), _ranked(fit(train), test), analysis(test)))
    # per language, each job ranked by a ranker trained on that language's other jobs
    right = 0.0
    for lang in langs:
        mine = [e for e in entries if e[0] == lang]
        for job in sorted({e[1] for e in mine}):
            test = [e for e in mine if e[1] == job]
            right += _ranked(fit([e for e in mine if e[1] != job]), test) * len(test) / 100
    out.append(("each language's other jobs", "each job", 100 * right / len(entries),
                analysis(entries)))  # fmt: skip
    x, y = _ranker_rows(entries)
    gb = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_depth=3).fit(x, y)

    def boosted(v: Any) -> Any:
        import numpy as np

        n = len(v)
        if n == 1:
            return np.zeros(1)
        d = np.array([v[i] - v[j] for i in range(n) for j in range(n) if i != j])
        p = gb.predict_proba(d)[:, 1].reshape(n, n - 1)
        return p.sum(axis=1)

    out.append(("all (gradient boosting, in-sample)", "all: a bound", _ranked(boosted, entries),
                analysis(entries)))  # fmt: skip
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--langs", nargs="+")
    p.add_argument("--ranker", action="store_true", help="learned rankers, held out")
    args = p.parse_args()
    base = data_dir() / "l10n" / "xfce"
    modules = sorted(d.name for d in base.iterdir() if d.is_dir())
    langs = args.langs or sorted({f.stem for m in modules for f in (base / m).glob("*.po")})
    entries, total, in_memory, several = collect(langs)
    print(f"Xfce: {len(langs)} languages × {len(modules)} modules; {machine()}\n")
    print(f"{total:,} job entries with a verbatim memory source; the reference is among the "
          f"memory's translations for {100 * in_memory / total:.1f} %; "
          f"{100 * several / total:.1f} % have several.\n")  # fmt: skip
    print("| choice rule | written = reference | " + " | ".join(langs) + " |")
    print("|---|---:|" + "---:|" * len(langs))
    for name, key in RULES.items():
        hits = Counter(lang for lang, _j, ref, group in entries if _pick(key, group) == ref)
        each = Counter(lang for lang, *_ in entries)
        per = " | ".join(f"{100 * hits[lang] / each[lang]:.1f}" for lang in langs)
        print(f"| {name} | {100 * sum(hits.values()) / total:.1f} % | {per} |")
    if args.ranker:
        print("\n| learned ranker (pairwise logistic regression over every evidence above but "
              "the oracle), trained on | tested on | ranker | the analysis's order |")  # fmt: skip
        print("|---|---|---:|---:|")
        for a, b, got, now in rankers(entries, langs):
            print(f"| {a} | {b} | {got:.1f} % | {now:.1f} % |")


if __name__ == "__main__":
    main()
