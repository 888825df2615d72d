"""``xlsearch check`` against ``pofilter`` on real Xfce catalogues with injected errors.

Copies of the Xfce PO files (``l10n/xfce/<module>/<lang>.po``) get, at about 3 % of their
translated, non-fuzzy, singular entries each: targets swapped with another entry of similar
length, the second half of a target dropped, a number changed, a placeholder dropped, the
source copied as target, the target replaced by the same entry's target in another language.
Both tools check the same files (fuzzy entries left out by both); an injected entry counts
as found when a tool flags it (xlsearch: severity error or warning); false flags are flags
on untouched entries, per 100 of them. Per kind, F1 of the check that matches it.
xlsearch checks every language's files in one run, as a project checks its catalogues
(``xlsearch check po/*.po``: the languages' translations of a unit are evidence for each
other); ``--per-language``: one run per language, as a translator checks one file.

    python bench/qa.py [--modules thunar,mousepad] [--langs fr,de] [--model PATH] [--out F]
                       [--per-language] [--no-pofilter]
    python bench/qa.py --timing 10000 [--langs de] [--model PATH]

``--timing N``: one catalogue of N entries (every module's entries of the first language,
repeated under distinct ``msgctxt`` until N), checked by a fresh ``xlsearch check``
process, rules only and with the model: wall and CPU seconds, with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import data_dir  # noqa: E402

KINDS = ("swap", "half", "number", "placeholder", "copy", "wrong-language")
RATE = 0.03
XL_MATCH = {
    "swap": {"mistranslation"},
    "half": {"omission"},
    "number": {"numbers"},
    "placeholder": {"placeholders"},
    "copy": {"untranslated"},
    "wrong-language": {"wrong-language"},
}
PO_MATCH = {
    "swap": set(),
    "half": {"short"},
    "number": {"numbers"},
    "placeholder": {"printf", "variables", "pythonbraceformat"},
    "copy": {"unchanged"},
    "wrong-language": set(),
}
_PH = re.compile(r"%(?:\d+\$)?[-+ #0]*\d*(?:\.\d+)?(?:l|ll|z)?[sdiufxXcgp]|\{\w*\}|%\d")
_NUM = re.compile(r"(?<![\w%$])\d+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def key(entry) -> str:
    return f"{entry.msgctxt}\x04{entry.msgid}" if entry.msgctxt else entry.msgid


def flag_key(f: dict) -> str:
    """A flag's unit as ``key`` writes it (``msgctxt`` EOT ``msgid``); a plural form's flag
    keeps its ``| msgstr[N]`` (the bench injects into singular entries only)."""
    form = re.search(r" \| msgstr\[\d+\]$", f["unit"])
    if "msgid" not in f:
        return f["unit"]
    base = f"{f['msgctxt']}\x04{f['msgid']}" if f["msgctxt"] is not None else f["msgid"]
    return base + (form.group() if form else "")


def half(text: str) -> str:
    words = text.split()
    if len(words) >= 4:
        return " ".join(words[: (len(words) + 1) // 2])
    if _CJK.search(text) and len(text) >= 8:
        return text[: (len(text) + 1) // 2]
    return ""


def inject(po, others: dict[str, dict[str, str]], rng: random.Random) -> dict[str, str]:
    """Corrupt ``po`` in place; {entry key: injected kind}."""
    pool = [
        e
        for e in po
        if e.msgstr and not e.fuzzy and not e.obsolete and not e.msgid_plural
        and e.msgstr.strip() != e.msgid.strip() and e.msgid != "translator-credits"
    ]  # fmt: skip
    n = max(1, round(RATE * len(pool)))
    used: dict[str, str] = {}
    free = lambda: [e for e in pool if key(e) not in used]  # noqa: E731

    def take(kind: str, cands: list, fn) -> None:
        rng.shuffle(cands)
        done = 0
        for e in cands:
            if done >= n:
                break
            if key(e) in used:
                continue
            if fn(e):
                used[key(e)] = kind
                done += 1

    def swap(e) -> bool:
        lo, hi = 0.75 * len(e.msgstr), 1.33 * len(e.msgstr)
        mates = [
            m for m in free()
            if m is not e and lo <= len(m.msgstr) <= hi and m.msgstr != e.msgstr
            and m.msgid.strip().lower() != e.msgid.strip().lower()
        ]  # fmt: skip
        if not mates:
            return False
        m = rng.choice(mates)
        e.msgstr, m.msgstr = m.msgstr, e.msgstr
        used[key(m)] = "swap"
        return True

    def drop_half(e) -> bool:
        h = half(e.msgstr)
        if not h:
            return False
        e.msgstr = h
        return True

    def number(e) -> bool:
        nums = list(_NUM.finditer(e.msgstr))
        if not nums or not _NUM.search(e.msgid):
            return False
        m = rng.choice(nums)
        new = str(int(m.group()) + rng.choice((1, 2, 10)))
        e.msgstr = e.msgstr[: m.start()] + new + e.msgstr[m.end() :]
        return True

    def placeholder(e) -> bool:
        phs = list(_PH.finditer(e.msgstr))
        if not phs:
            return False
        m = rng.choice(phs)
        e.msgstr = " ".join((e.msgstr[: m.start()] + e.msgstr[m.end() :]).split())
        return True

    def copy(e) -> bool:
        e.msgstr = e.msgid
        return True

    def wrong(e) -> bool:
        alts = [
            t for t in (o.get(key(e)) for o in others.values())
            if t and t != e.msgstr and t != e.msgid
        ]  # fmt: skip
        if not alts:
            return False
        e.msgstr = rng.choice(alts)
        return True

    take("swap", free(), swap)
    take("number", free(), number)
    take("placeholder", free(), placeholder)
    take("half", free(), drop_half)
    take("wrong-language", free(), wrong)
    take("copy", free(), copy)
    return used


def pofilter_flags(path: Path, tmp: Path) -> dict[str, set[str]]:
    import polib

    out = tmp / (path.stem + ".pofilter.po")
    subprocess.run(
        ["pofilter", "--gnome", "--nofuzzy", "-i", str(path), "-o", str(out)],
        check=False,
        capture_output=True,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
    )
    flags: dict[str, set[str]] = defaultdict(set)
    if not out.exists():
        return flags
    for e in polib.pofile(str(out)):
        for line in (e.tcomment or "").splitlines():
            m = re.match(r"\(pofilter\) (\w+):", line.strip())
            if m:
                flags[key(e)].add(m.group(1))
    return flags


def xlsearch_flags(paths: list[Path], model: str | None) -> tuple[dict, dict, float]:
    exe = Path(sys.executable).parent / "xlsearch"
    cmd = [str(exe), "check", *map(str, paths), "--json", "--severity", "info"]
    cmd += ["--model", model] if model else ["--rules-only"]
    t = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True)
    took = time.perf_counter() - t
    if res.returncode not in (0, 1):
        raise SystemExit(f"xlsearch check failed: {res.stderr.strip()}")
    payload = json.loads(res.stdout)
    flags: dict[tuple[str, str], set[str]] = defaultdict(set)
    for f in payload["flags"]:
        if f["severity"] in ("error", "warning"):
            flags[(f["file"], flag_key(f))].add(f["kind"])
    return flags, payload, took


def timing(n: int, lang: str, model: str | None) -> None:
    """Time ``xlsearch check`` on one catalogue of ``n`` real entries."""
    import polib

    root = data_dir() / "l10n" / "xfce"
    entries = []
    for module in sorted(p.name for p in root.iterdir() if p.is_dir()):
        path = root / module / f"{lang}.po"
        if path.exists():
            entries += [e for e in polib.pofile(str(path)) if e.msgstr and not e.obsolete]
    po = polib.POFile()
    po.metadata = {"Language": lang, "Content-Type": "text/plain; charset=UTF-8"}
    copy = 0
    while len(po) < n:
        for e in entries[: n - len(po)]:
            ctx = f"{e.msgctxt or ''}#{copy}" if copy else e.msgctxt
            po.append(polib.POEntry(msgctxt=ctx, msgid=e.msgid, msgstr=e.msgstr))
        copy += 1
    exe = Path(sys.executable).parent / "xlsearch"
    with tempfile.TemporaryDirectory(prefix="xlsearch-qa-") as tmpname:
        out = Path(tmpname) / f"big.{lang}.po"
        po.save(str(out))
        for label, extra in (("rules only", ["--rules-only"]), ("model", ["--model", model])):
            if label == "model" and not model:
                continue
            load = os.getloadavg()[0]
            t = time.perf_counter()
            before = os.times()
            res = subprocess.run([str(exe), "check", str(out), "--json"], capture_output=True,
                                 text=True, check=False) if not extra else subprocess.run(
                [str(exe), "check", str(out), "--json", *extra], capture_output=True,
                text=True, check=False)  # fmt: skip
            wall = time.perf_counter() - t
            after = os.times()
            cpu = (after.children_user - before.children_user) + (
                after.children_system - before.children_system
            )
            if res.returncode not in (0, 1):
                raise SystemExit(f"xlsearch check failed: {res.stderr.strip()}")
            payload = json.loads(res.stdout)
            print(
                f"{len(po)} entries ({lang}), {label}: {wall:.1f} s wall, {cpu:.1f} CPU-s, "
                f"{len(payload['flags'])} flags, load {load:.1f} before"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", default="")
    ap.add_argument("--langs", default="")
    ap.add_argument("--model", default=None, help="model for the semantic checks (default none)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-pofilter", action="store_true")
    ap.add_argument(
        "--per-language", action="store_true",
        help="one xlsearch check per language (default: every file in one run)",
    )  # fmt: skip
    ap.add_argument("--out", type=Path, help="write the figures as JSON")
    ap.add_argument("--timing", type=int, default=0, help="time one catalogue of N entries")
    args = ap.parse_args()
    if args.timing:
        timing(args.timing, (args.langs or "de").split(",")[0], args.model)
        return
    import polib

    root = data_dir() / "l10n" / "xfce"
    modules = args.modules.split(",") if args.modules else sorted(
        p.name for p in root.iterdir() if p.is_dir()
    )  # fmt: skip
    langs = args.langs.split(",") if args.langs else sorted(
        p.stem for p in (root / modules[0]).glob("*.po")
    )  # fmt: skip
    rng = random.Random(args.seed)
    found_xl: Counter[str] = Counter()
    found_po: Counter[str] = Counter()
    injected: Counter[str] = Counter()
    tp_xl, fp_xl, tp_po, fp_po = Counter(), Counter(), Counter(), Counter()
    false_xl: Counter[str] = Counter()
    false_po: Counter[str] = Counter()
    untouched = 0
    xl_time = 0.0
    examples: list[str] = []
    missed: dict[str, list[str]] = defaultdict(list)
    notes: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="xlsearch-qa-") as tmpname:
        tmp = Path(tmpname)
        jobs_of: dict[str, list] = {}
        for lang in langs:
            jobs = jobs_of[lang] = []
            for module in modules:
                src = root / module / f"{lang}.po"
                if not src.exists():
                    continue
                others = {}
                for other in langs:
                    if other != lang and (root / module / f"{other}.po").exists():
                        po_o = polib.pofile(str(root / module / f"{other}.po"))
                        others[other] = {key(e): e.msgstr for e in po_o if e.msgstr and not e.fuzzy}
                po = polib.pofile(str(src))
                truth = inject(po, others, rng)
                out = tmp / f"{module}.{lang}.po"
                po.save(str(out))
                units = [
                    key(e) for e in po
                    if e.msgstr and not e.fuzzy and not e.obsolete and e.msgid
                ]  # fmt: skip
                shown = {key(e): e.msgstr for e in po if key(e) in truth}
                jobs.append((out, truth, units, shown))
        # One run over every language's files (a project's catalogues checked together), or
        # one run per language (``--per-language``: a translator checking one language).
        runs = [langs] if not args.per_language else [[lang] for lang in langs]
        flags: dict = {}
        payload: dict = {"flags": [], "calibration": []}
        for run in runs:
            got, pay, took = xlsearch_flags(
                [j[0] for lang in run for j in jobs_of[lang]], args.model
            )
            xl_time += took
            flags.update(got)
            payload["flags"] += pay["flags"]
            payload["calibration"] += pay.get("calibration", [])
        tgt_of = {(f["file"], flag_key(f)): f["target"] for f in payload["flags"]}
        notes_of: dict[tuple[str, str], list[str]] = defaultdict(list)
        for f in payload["flags"]:
            notes_of[(f["file"], flag_key(f))].append(f"{f['kind']}/{f['severity']}")
        for c in payload["calibration"]:
            notes.add(f"{c['pair']} supported={c['supported']} {c['note'][:60]}")
        for lang in langs:
            jobs = jobs_of[lang]
            for out, truth, units, shown in jobs:
                pf = {} if args.no_pofilter else pofilter_flags(out, tmp)
                for k in units:
                    xk = flags.get((str(out), k), set())
                    pk = pf.get(k, set())
                    kind = truth.get(k)
                    if kind is None:
                        untouched += 1
                        false_xl.update(xk)
                        false_po.update(pk)
                        if xk and len(examples) < 3000:
                            target = tgt_of.get((str(out), k), "")[:50]
                            examples.append(f"{lang} {sorted(xk)} {k[:50]!r} -> {target!r}")
                    else:
                        injected[kind] += 1
                        found_xl[kind] += bool(xk)
                        if not xk and len(missed[kind]) < 300:
                            missed[kind].append(
                                f"{lang} {k[:60]!r} -> {shown.get(k, '')[:60]!r} "
                                f"{notes_of.get((str(out), k), [])}"
                            )
                        found_po[kind] += bool(pk)
                    for kk in KINDS:
                        if xk & XL_MATCH[kk]:
                            (tp_xl if kind == kk else fp_xl)[kk] += 1
                        if pk & PO_MATCH[kk]:
                            (tp_po if kind == kk else fp_po)[kk] += 1

    def f1(tp: int, fp: int, n: int) -> float:
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / n if n else 0.0
        return 2 * p * r / (p + r) if p + r else 0.0

    rows = []
    print(f"{len(modules)} modules x {len(langs)} languages; {untouched} untouched entries")
    print("kind            injected  xl-recall  po-recall   xl-F1  po-F1")
    for k in KINDS:
        n = injected[k]
        row = {
            "kind": k,
            "injected": n,
            "xlsearch_recall": found_xl[k] / n if n else 0.0,
            "pofilter_recall": found_po[k] / n if n else 0.0,
            "xlsearch_f1": f1(tp_xl[k], fp_xl[k], n),
            "pofilter_f1": f1(tp_po[k], fp_po[k], n) if PO_MATCH[k] else None,
        }
        rows.append(row)
        po_f1 = f"{row['pofilter_f1']:.2f}" if row["pofilter_f1"] is not None else "  -"
        print(
            f"{k:15} {n:8}  {row['xlsearch_recall']:8.1%}  {row['pofilter_recall']:8.1%}"
            f"   {row['xlsearch_f1']:.2f}   {po_f1}"
        )
    fx = sum(false_xl.values()) / untouched * 100
    fpo = sum(false_po.values()) / untouched * 100
    print(f"false flags per 100 untouched entries: xlsearch {fx:.2f}, pofilter {fpo:.2f}")
    print("xlsearch false flags by kind:", dict(false_xl.most_common()))
    print("pofilter false flags by check:", dict(false_po.most_common(12)))
    print(f"xlsearch check time (all files, fresh processes): {xl_time:.1f} s")
    for n in sorted(notes):
        print("calibration", n)
    if args.out:
        args.out.write_text(
            json.dumps(
                {
                    "modules": modules, "langs": langs, "model": args.model,
                    "untouched": untouched, "rows": rows,
                    "false_per_100": {"xlsearch": fx, "pofilter": fpo},
                    "false_xlsearch": dict(false_xl), "false_pofilter": dict(false_po),
                    "examples": examples, "missed": missed, "seconds": xl_time,
                },
                ensure_ascii=False, indent=1,
            )
        )  # fmt: skip


if __name__ == "__main__":
    main()
