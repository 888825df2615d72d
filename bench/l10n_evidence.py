"""Which evidence chooses best among a memory's translations of one source (real catalogues).

    python bench/l10n_evidence.py [--langs fr de]

For every Xfce module and language of ``$XLSEARCH_BENCH_DATA/l10n/xfce`` (as
``bench/l10n.py``: the memory is the other modules' translated, non-fuzzy entries), each job
entry whose msgid the memory holds gets the translation a choice rule picks among the
memory's; the figure is the share equal to the reference (what the module's translators
wrote). Rules are tried in the order the analysis uses (context first, then each evidence,
then use count, then the most recently imported module) with one evidence swapped in at a
time, so each line says what that evidence adds. Reads the catalogues directly (no store):
the choice alone is measured, in seconds.
"""

# ruff: noqa: B023  (each rule is called at once, inside the loop that binds its variables)
from __future__ import annotations

import argparse
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

from xlsearch.engine.tm.matching.repair import twin_key  # noqa: E402

Cand = tuple[str, Any, str, str]
"""(module, entry, source before it, source after it)."""


def _translators(po: Any) -> set[str]:
    names = set()
    for line in (po.header or "").splitlines():
        m = re.match(r"\s*(.+?)\s*(<[^>]*>)?\s*,\s*[0-9][0-9,\- ]*$", line)
        if m:
            names.add(m.group(1).lower())
    return names


_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> str:
    """Lower-case words, mnemonics removed."""
    text = re.sub(r"\([_&]\w\)", "", text).replace("_", "").replace("&", "").lower()
    return " ".join(_WORD.findall(text))


def _inside(small: str, big: str) -> bool:
    """Whether the words ``small`` stand in ``big`` (CJK: the characters)."""
    if not small:
        return False
    if any("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in small):
        return small.replace(" ", "") in big.replace(" ", "")
    return f" {small} " in f" {big} "


def main() -> None:
    import polib

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--langs", nargs="+")
    args = p.parse_args()
    base = data_dir() / "l10n" / "xfce"
    modules = sorted(d.name for d in base.iterdir() if d.is_dir())
    langs = args.langs or sorted({f.stem for m in modules for f in (base / m).glob("*.po")})
    right: Counter[str] = Counter()
    by_lang: Counter[tuple[str, str]] = Counter()  # (language, rule); rule '' = entries
    total = in_memory = several = 0
    for lang in langs:
        cats = {m: polib.pofile(str(base / m / f"{lang}.po")) for m in modules
                if (base / m / f"{lang}.po").is_file()}  # fmt: skip
        rows: dict[str, list[Cand]] = {}
        for m, po in cats.items():
            live = [e for e in po if not e.obsolete and e.msgid]
            ends = ["", *(e.msgid for e in live), ""]
            rows[m] = [(m, e, ends[i], ends[i + 2]) for i, e in enumerate(live)]
        order = {m: i for i, m in enumerate(modules)}
        for job, po in cats.items():
            mem: dict[str, list[Cand]] = defaultdict(list)
            forms: dict[str, Counter[str]] = defaultdict(Counter)  # a source's other forms
            phrases: dict[str, list[tuple[str, str]]] = defaultdict(list)  # by a word
            holds: dict[str, set[str]] = defaultdict(set)
            for m, cands in rows.items():
                if m != job:
                    for c in cands:
                        if scored(c[1]):
                            mem[c[1].msgid].append(c)
                            holds[m].add(c[1].msgid)
                            forms[twin_key(c[1].msgid)][twin_key(reference(c[1]))] += 1
                            src, tgt = _words(c[1].msgid), _words(reference(c[1]))
                            for w in set(src.split()):
                                phrases[w].append((src, tgt))
            agree: Counter[str] = Counter()  # the oracle: each module's agreement with the
            seen: Counter[str] = Counter()  # job's reference where the memory disagrees
            for _m, e, _b, _a in rows[job]:
                if scored(e) and len({reference(c[1]) for c in mem.get(e.msgid, [])}) > 1:
                    for c in mem[e.msgid]:
                        seen[c[0]] += 1
                        agree[c[0]] += reference(c[1]) == reference(e)
            oracle = {m: (agree[m] + 1) / (seen[m] + 2) for m in cats}
            sources = [r[1].msgid for r in rows[job]]
            project = po.metadata.get("Project-Id-Version", "")
            same_project = {
                m: cats[m].metadata.get("Project-Id-Version", "") == project for m in cats
            }
            mine = _translators(po)
            shared = {m: bool(_translators(cats[m]) & mine) for m in cats}
            revised = {m: cats[m].metadata.get("PO-Revision-Date", "") for m in cats}
            for n, (_m, e, before, after) in enumerate(rows[job]):
                if not scored(e) or e.msgid not in mem:
                    continue
                ref, cands = reference(e), mem[e.msgid]
                uses = Counter(reference(c[1]) for c in cands)
                own = forms[twin_key(e.msgid)]
                words = _words(e.msgid)
                inside = [
                    tgt
                    for src, tgt in phrases.get(words.split()[0] if words else "", [])
                    if src != words and _inside(words, src)
                ]
                near = sources[max(0, n - 5) : n] + sources[n + 1 : n + 6]
                nearby = {m: sum(s in holds[m] for s in near) for m in cats}
                total += 1
                by_lang[lang, ""] += 1
                in_memory += ref in uses
                several += len(uses) > 1
                ctx = e.msgctxt or ""

                def pick(evidence: Callable[[Cand], Any], cands: list[Cand] = cands) -> str:
                    best = max(
                        cands,
                        key=lambda c: ((c[1].msgctxt or "") == ctx, evidence(c),
                                       uses[reference(c[1])], order[c[0]]),
                    )  # fmt: skip
                    return reference(best[1])

                rules: dict[str, Callable[[Cand], Any]] = {
                    "context, use count, date (before)": lambda c: 0,
                    "+ the job's project (Project-Id-Version)": lambda c: same_project[c[0]],
                    "+ the same two neighbours": lambda c: (
                        (c[2], c[3]) == (before, after) and bool(before and after)
                    ),
                    "+ the same neighbour before": lambda c: c[2] == before and bool(before),
                    "+ either neighbour the same": lambda c: (
                        (c[2] == before and bool(before)) or (c[3] == after and bool(after))
                    ),
                    "+ a translator in common (header)": lambda c: shared[c[0]],
                    "+ the latest PO-Revision-Date": lambda c: revised[c[0]],
                    "+ project, then use count with the source's other forms (mnemonic, "
                    "punctuation, case aside; the analysis's order)": lambda c: (
                        same_project[c[0]],
                        own[twin_key(reference(c[1]))],
                    ),
                    "+ project, other forms, then how the memory translates longer strings "
                    "holding the source": lambda c: (
                        same_project[c[0]],
                        own[twin_key(reference(c[1]))],
                        sum(_inside(_words(reference(c[1])), t) for t in inside),
                    ),
                    "+ project, then the module holding most of the job's nearby msgids "
                    "(5 either side)": lambda c: (same_project[c[0]], nearby[c[0]]),
                    "oracle (a bound, not a rule): modules ranked by their agreement with "
                    "the job's reference": lambda c: oracle[c[0]],
                }
                for name, rule in rules.items():
                    hit = pick(rule) == ref
                    right[name] += hit
                    by_lang[lang, name] += hit
    print(f"Xfce: {len(langs)} languages × {len(modules)} modules; {machine()}\n")
    print(f"{total:,} job entries with a verbatim memory source; the reference is among the "
          f"memory's translations for {100 * in_memory / total:.1f} %; "
          f"{100 * several / total:.1f} % have several.\n")  # fmt: skip
    print("| choice rule | written = reference | " + " | ".join(langs) + " |")
    print("|---|---:|" + "---:|" * len(langs))
    for name, n in right.items():
        each = " | ".join(f"{100 * by_lang[lang, name] / by_lang[lang, '']:.1f}" for lang in langs)
        print(f"| {name} | {100 * n / total:.1f} % | {each} |")


if __name__ == "__main__":
    main()
