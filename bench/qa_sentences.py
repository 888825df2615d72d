"""``xlsearch check`` on sentence files: false flags on human translations, recall on planted
errors, and the time of a 10k-pair file.

A TSV of ``--pairs`` real en-XX pairs (``train/en-XX.tsv.gz``, from line ``--offset``) gets,
at ``--rate`` of its lines each: the target shifted from a line 7 further down (a misaligned
line), the target cut to its first half, the source copied as target, the target replaced by
the same English sentence's translation into ``--other`` (where that sentence is in both
files). A fresh ``xlsearch check`` process checks it; an injected line counts as found when
it is flagged (severity error or warning), by any kind and by the kind that names it; false
flags are flagged untouched lines, per 100 of them, listed per kind.

    python bench/qa_sentences.py [--lang de] [--pairs 1500] [--rate 0.02] [--model PATH]
    python bench/qa_sentences.py --timing 10000 [--lang de]   # clean file: time and flags
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import data_dir, machine  # noqa: E402

KINDS = ("shift", "half", "copy", "other-language")
MATCH = {
    "shift": {"mistranslation"},
    "half": {"omission"},
    "copy": {"untranslated"},
    "other-language": {"wrong-language"},
}


def cpu_name() -> str:
    """The CPU's model name and its widest vector extension."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "CPU unknown"
    name = next((ln.split(":", 1)[1].strip() for ln in info.splitlines() if "model name" in ln), "")
    flags = set(next((ln for ln in info.splitlines() if ln.startswith("flags")), "").split())
    simd = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return f"{name} ({simd})"


def read_pairs(lang: str) -> list[tuple[str, str]]:
    path = data_dir() / "train" / f"en-{lang}.tsv.gz"
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 2 and cols[0].strip() and cols[1].strip():
                out.append((cols[0], cols[1]))
    return out


def plant(
    pairs: list[tuple[str, str]], other: dict[str, str], rate: float, seed: int
) -> tuple[list[tuple[str, str]], dict[int, str]]:
    """The pairs with errors planted, and the line (0-based) → kind of each."""
    rng = random.Random(seed)
    rows = list(pairs)
    n = len(rows)
    free = list(range(n - 7))
    rng.shuffle(free)
    planted: dict[int, str] = {}
    per_kind = max(1, round(rate * n))

    def take(kind: str, ok, fn) -> None:
        done = 0
        for i in free:
            if done >= per_kind:
                break
            if i in planted or not ok(i):
                continue
            rows[i] = fn(i)
            planted[i] = kind
            done += 1

    take("shift", lambda i: i + 7 not in planted, lambda i: (rows[i][0], pairs[i + 7][1]))
    take(
        "half",
        lambda i: len(pairs[i][1].split()) >= 8,
        lambda i: (rows[i][0], " ".join(pairs[i][1].split()[: len(pairs[i][1].split()) // 2])),
    )
    take("copy", lambda i: True, lambda i: (rows[i][0], rows[i][0]))
    take(
        "other-language",
        lambda i: pairs[i][0] in other,
        lambda i: (rows[i][0], other[pairs[i][0]]),
    )
    return rows, planted


def run_check(path: Path, extra: list[str]) -> tuple[dict, float, float, float]:
    exe = Path(sys.executable).parent / "xlsearch"
    load = os.getloadavg()[0]
    before = os.times()
    t = time.perf_counter()
    res = subprocess.run(
        [str(exe), "check", str(path), "--src", "en", "--json", *extra],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t
    after = os.times()
    cpu = after.children_user - before.children_user + after.children_system
    cpu -= before.children_system
    if res.returncode not in (0, 1):
        raise SystemExit(f"xlsearch check failed: {res.stderr.strip()}")
    return json.loads(res.stdout), wall, cpu, load


def write_tsv(path: Path, rows: list[tuple[str, str]]) -> None:
    path.write_text("".join(f"{s}\t{t}\n" for s, t in rows), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", default="de")
    ap.add_argument("--other", default="fr", help="language of the other-language targets")
    ap.add_argument("--pairs", type=int, default=1500)
    ap.add_argument("--offset", type=int, default=11000)
    ap.add_argument("--rate", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model", default=None, help="model (default: the active one)")
    ap.add_argument("--timing", type=int, default=0, help="time a clean file of N pairs")
    ap.add_argument("--show", type=int, default=0, help="print this many false flags")
    ap.add_argument("--show-kind", default="", help="... of this kind")
    args = ap.parse_args()
    extra = ["--tgt", args.lang] + (["--model", args.model] if args.model else [])
    print(
        f"# {cpu_name()}, {machine()}; load {os.getloadavg()[0]:.1f}; "
        f"{time.strftime('%Y-%m-%d %H:%M')}"
    )
    pairs = read_pairs(args.lang)
    with tempfile.TemporaryDirectory(prefix="xlsearch-qas-") as tmp:
        if args.timing:
            path = Path(tmp) / f"news{args.timing}.en-{args.lang}.tsv"
            write_tsv(path, pairs[: args.timing])
            for label, more in (("model", []), ("rules only", ["--rules-only"])):
                payload, wall, cpu, load = run_check(path, extra + more)
                flags = [f for f in payload["flags"] if f["severity"] != "info"]
                kinds = Counter(f["kind"] for f in flags)
                print(
                    f"{args.timing} pairs en-{args.lang}, {label}: {wall:.1f} s wall, "
                    f"{cpu:.1f} CPU-s, load {load:.1f}; {len(flags)} flags "
                    f"({100 * len(flags) / args.timing:.1f} per 100): {dict(kinds.most_common())}"
                )
            return
        chunk = pairs[args.offset : args.offset + args.pairs]
        other = dict(read_pairs(args.other)) if args.other else {}
        rows, planted = plant(chunk, other, args.rate, args.seed)
        path = Path(tmp) / f"planted.en-{args.lang}.tsv"
        write_tsv(path, rows)
        payload, wall, cpu, load = run_check(path, extra)
    by_line: dict[int, list[dict]] = {}
    for f in payload["flags"]:
        if f["severity"] != "info":
            by_line.setdefault(int(f["line"]) - 1, []).append(f)
    print(
        f"{len(rows)} pairs, {len(planted)} planted; {wall:.1f} s wall, {cpu:.1f} CPU-s, "
        f"load {load:.1f}"
    )
    for kind in KINDS:
        lines = [i for i, k in planted.items() if k == kind]
        if not lines:
            continue
        anyk = sum(i in by_line for i in lines)
        named = sum(any(f["kind"] in MATCH[kind] for f in by_line.get(i, [])) for i in lines)
        how = Counter(f["kind"] for i in lines for f in by_line.get(i, [])[:1])
        print(f"  {kind:15} {len(lines):4}  found {100 * anyk / len(lines):5.1f} %"
              f"  by its kind {100 * named / len(lines):5.1f} %  {dict(how)}")  # fmt: skip
    untouched = len(rows) - len(planted)
    false = [f for i, fl in by_line.items() if i not in planted for f in fl]
    lines = {int(f["line"]) for f in false}
    kinds = Counter(f["kind"] for f in false)
    print(f"  false flags: {len(lines)} of {untouched} untouched lines "
          f"({100 * len(lines) / untouched:.1f} per 100): {dict(kinds.most_common())}")  # fmt: skip
    shown = [f for f in false if not args.show_kind or f["kind"] == args.show_kind]
    for f in shown[: args.show]:
        print(f"    {f['kind']}: {f['explanation']}")
        print(f"      {f['source'][:100]}\n      {f['target'][:100]}")
    for c in payload.get("calibration") or []:
        print(f"  calibration {c['pair']}: {c['supported']} {c['thresholds']} {c['note']}")


if __name__ == "__main__":
    main()
