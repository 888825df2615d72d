"""The distillation time estimate against the run: is it within ±30 % on this machine?

Each run is what a new user does: a fresh XLSEARCH_HOME (a cold teacher cache), the quick
preset, a static student, ``xlsearch distill`` in a fresh process; the estimate is the one
the wizard and ``distill`` print before Start. The machine's rates file is carried from run
to run (as it stays on a user's machine), so the first run is estimated from the reference
figures and every later one from the run before it.

Run: python bench/distill_estimate.py --sizes 3000,8000,3000 --lang fr
Writes bench/results/distill-estimate-DATE.json and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _data import REPO, data_dir

ESTIMATE = """
import json, sys
from xlsearch.engine.distill import DistillConfig
from xlsearch.engine.distill.estimate import estimate_run
e = estimate_run(DistillConfig(train=[sys.argv[1]], preset="quick", student="static"))
print(json.dumps(e.to_dict() | {"text": e.describe()}))
"""


def sample(lang: str, n: int, out: Path, seed: int) -> Path:
    """``n`` random pairs of train/en-LANG.tsv.gz (a user's small data set)."""
    with gzip.open(data_dir() / "train" / f"en-{lang}.tsv.gz", "rt", encoding="utf-8") as fh:
        lines = [line for line in fh if "\t" in line]
    random.Random(seed).shuffle(lines)
    out.write_text("".join(lines[:n]), encoding="utf-8")
    return out


def load() -> float:
    return os.getloadavg()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="3000,8000,3000", help="pairs per run, in order")
    ap.add_argument("--lang", default="fr")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="xl-estimate-"))
    rates = work / "distill-rates.json"
    rows = []
    for i, n in enumerate(int(x) for x in args.sizes.split(",")):
        home = work / f"home{i}"
        (home / "cache").mkdir(parents=True)
        if rates.is_file():
            shutil.copy(rates, home / "cache" / "distill-rates.json")
        env = {**os.environ, "XLSEARCH_HOME": str(home)}
        data = sample(args.lang, n, work / f"en-{args.lang}-{n}-{i}.tsv", seed=i)
        got = subprocess.run(
            [sys.executable, "-c", ESTIMATE, str(data)],
            env=env, capture_output=True, text=True, check=True, cwd=REPO,
        )  # fmt: skip
        est = json.loads(got.stdout)
        load0, start = load(), time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "xlsearch", "distill", "--train", str(data),
             "--name", f"est{i}", "--quiet"],
            env=env, check=True, cwd=REPO, capture_output=True, text=True,
        )  # fmt: skip
        took = time.monotonic() - start
        shutil.copy(home / "cache" / "distill-rates.json", rates)
        row = {
            "pairs": n,
            "estimate_s": round(est["seconds"], 1),
            "actual_s": round(took, 1),
            "ratio": round(est["seconds"] / took, 3),
            "within_30": abs(est["seconds"] / took - 1) <= 0.3,
            "source": est["source"],
            "load_before": round(load0, 2),
            "load_after": round(load(), 2),
            "text": est["text"],
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    shutil.rmtree(work, ignore_errors=True)
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        "",
    )
    flags = Path("/proc/cpuinfo").read_text()
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else ""
    result = {
        "date": dt.date.today().isoformat(),
        "cpu": f"{cpu} ({isa}), {os.cpu_count()} cores",
        "command": f"python bench/distill_estimate.py --sizes {args.sizes} --lang {args.lang}",
        "runs": rows,
    }
    out = REPO / "bench" / "results" / f"distill-estimate-{result['date']}.json"
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print("| pairs | estimate | actual | estimate/actual | from | load |")
    print("|---:|---:|---:|---:|---|---|")
    for r in rows:
        print(
            f"| {r['pairs']:,} | {r['estimate_s']:.0f} s | {r['actual_s']:.0f} s | "
            f"{r['ratio']:.2f} | {r['source']} | {r['load_before']}–{r['load_after']} |"
        )


if __name__ == "__main__":
    main()
