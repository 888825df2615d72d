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

Cand = tuple[str, Any, str, str]
"""(module, entry, source before it, source after it)."""


def _translators(po: Any) -> set[str]:
    names = set()
    for line in (po.header or "").splitlines():
        m = re.match(r"\s*(.+?)\s*(<[^>]*>)?\s*,\s*[0-9][0-9,\- ]*$", line)
        if m:
            names.add(m.group(1).lower())
    return names


def main() -> None:
    import polib

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--langs", nargs="+")
    args = p.parse_args()
    base = data_dir() / "l10n" / "xfce"
    modules = sorted(d.name for d in base.iterdir() if d.is_dir())
    langs = args.langs or sorted({f.stem for m in modules for f in (base / m).glob("*.po")})
    right: Counter[str] = Counter()
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
            for m, cands in rows.items():
                if m != job:
                    for c in cands:
                        if scored(c[1]):
                            mem[c[1].msgid].append(c)
            project = po.metadata.get("Project-Id-Version", "")
            same_project = {
                m: cats[m].metadata.get("Project-Id-Version", "") == project for m in cats
            }
            mine = _translators(po)
            shared = {m: bool(_translators(cats[m]) & mine) for m in cats}
            revised = {m: cats[m].metadata.get("PO-Revision-Date", "") for m in cats}
            for _m, e, before, after in rows[job]:
                if not scored(e) or e.msgid not in mem:
                    continue
                ref, cands = reference(e), mem[e.msgid]
                uses = Counter(reference(c[1]) for c in cands)
                total += 1
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
                }
                for name, rule in rules.items():
                    right[name] += pick(rule) == ref
    print(f"Xfce: {len(langs)} languages × {len(modules)} modules; {machine()}\n")
    print(f"{total:,} job entries with a verbatim memory source; the reference is among the "
          f"memory's translations for {100 * in_memory / total:.1f} %; "
          f"{100 * several / total:.1f} % have several.\n")  # fmt: skip
    print("| choice rule | written = reference |")
    print("|---|---:|")
    for name, n in right.items():
        print(f"| {name} | {100 * n / total:.1f} % |")


if __name__ == "__main__":
    main()
