"""Speed next to another CPU-bound process: old thread policy (torch defaults) vs the new one.

Workloads, each in a fresh process, as a user runs them:
  encode — teacher encoding of Tatoeba English sentences (sentences/s, model load excluded);
  train  — ``xlsearch distill`` of a static student on a slice of ../shared/data/train (wall s);
  demo   — ``xlsearch demo --fresh --no-app`` in an empty XLSEARCH_HOME (wall s).
Policies: ``old`` = ``XLSEARCH_THREAD_POLICY=torch`` (torch's defaults: all cores, spinning
OpenMP waits), ``new`` = xlsearch's policy (engine/runtime/cpu.py). Conditions: ``idle`` and
``busy`` = next to one process doing torch matrix products with torch's default threads.
Runs are interleaved (order rotates per round); the ratio busy/idle is per policy, from
medians of the same run.

    python bench/contention.py [--rounds 2] [--workloads encode,train,demo] [--timeout 240]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import REPO, data_dir, machine  # noqa: E402

BUSY = """
import torch
a = torch.randn(512, 512)
while True:
    a = torch.tanh(a @ a)
"""

ENCODE = """
import sys, time
sys.path.insert(0, {bench!r})
from _data import tatoeba_english
from xlsearch.engine import load_encoder
from xlsearch.engine.runtime.cpu import configure_threads
texts = tatoeba_english({n})
enc = load_encoder("bundled:teacher", precision="fp32")
enc.encode(texts[:16])
t = time.perf_counter()
enc.encode(texts)
print("RATE", len(texts) / (time.perf_counter() - t), configure_threads().describe())
"""

POLICY_VARS = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "MKL_NUM_THREADS", "_XLSEARCH_OMP_NUM_THREADS")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in POLICY_VARS}
    env.pop("XLSEARCH_THREADS", None)
    env.pop("XLSEARCH_THREAD_POLICY", None)
    env["PYTHONPATH"] = str(REPO)
    env["HF_HUB_OFFLINE"] = "1"
    env.update(extra)
    return env


def write_slice(path: Path, pairs: int) -> None:
    """The first ``pairs`` pairs of each of de, fr, ru, zh (a small multilingual slice)."""
    lines: list[str] = []
    for lang in ("de", "fr", "ru", "zh"):
        with gzip.open(data_dir() / "train" / f"en-{lang}.tsv.gz", "rt", encoding="utf-8") as fh:
            for i, line in enumerate(fh):
                if i >= pairs // 4:
                    break
                lines.append(line.rstrip("\n"))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def run(cmd: list[str], env: dict[str, str], timeout: float) -> tuple[float, str, bool]:
    """(wall seconds, stdout, finished) of one command; killed after ``timeout``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, _ = proc.communicate(timeout=timeout)
        return time.perf_counter() - start, out, proc.returncode == 0
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return time.perf_counter() - start, "", False


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--workloads", default="encode,train,demo")
    ap.add_argument("--encode-n", type=int, default=400, help="sentences per encode run")
    ap.add_argument("--pairs", type=int, default=4000, help="training pairs (train slice)")
    ap.add_argument("--steps", type=int, default=150, help="training steps (train)")
    ap.add_argument("--timeout", type=float, default=240, help="seconds before a run is cut")
    ap.add_argument("--json", type=Path, help="also write the raw runs here")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="xlsearch-contention-"))
    py, xl = sys.executable, str(Path(sys.executable).with_name("xlsearch"))
    train_home = work / "train-home"
    slice_tsv = work / "slice.tsv"
    workloads = args.workloads.split(",")
    if "train" in workloads:
        write_slice(slice_tsv, args.pairs)
        # the teacher cache once, outside the timings: training is measured, not encoding
        run(
            distill_cmd(xl, slice_tsv, work / "warm", 1),
            clean_env(XLSEARCH_HOME=str(train_home)),
            3600,
        )

    def command(workload: str, tag: str) -> tuple[list[str], dict[str, str]]:
        if workload == "encode":
            code = ENCODE.format(bench=str(REPO / "bench"), n=args.encode_n)
            return [py, "-c", code], {}
        if workload == "train":
            out = work / f"student-{tag}"
            return distill_cmd(xl, slice_tsv, out, args.steps), {"XLSEARCH_HOME": str(train_home)}
        home = work / f"demo-{tag}"
        return [xl, "demo", "--fresh", "--no-app"], {"XLSEARCH_HOME": str(home)}

    results: list[dict] = []
    combos = [(w, p, c) for w in workloads for p in ("old", "new") for c in ("idle", "busy")]
    load_start = os.getloadavg()
    for r in range(args.rounds):
        shift = r % len(combos)
        for i, (workload, policy, cond) in enumerate(combos[shift:] + combos[:shift]):
            cmd, extra = command(workload, f"{r}-{i}")
            env = clean_env(**extra)
            if policy == "old":
                env["XLSEARCH_THREAD_POLICY"] = "torch"
            busy = None
            if cond == "busy":
                busy = subprocess.Popen([py, "-c", BUSY], env=clean_env())
                time.sleep(2.0)  # let it start spinning
            load = os.getloadavg()[0]
            try:
                wall, out, ok = run(cmd, env, args.timeout)
            finally:
                if busy is not None:
                    busy.kill()
                    busy.wait()
            value = wall
            if workload == "encode" and ok:
                line = next(ln for ln in out.splitlines() if ln.startswith("RATE"))
                value = float(line.split()[1])
            row = dict(workload=workload, policy=policy, cond=cond, value=value, ok=ok, load=load)
            results.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    report(results, args, load_start)
    return 0


def distill_cmd(xl: str, tsv: Path, out: Path, steps: int) -> list[str]:
    return [
        xl, "distill", "--train", str(tsv), "--student", "static", "--out", str(out),
        "--vocab-size", "4000", "--max-steps", str(steps), "--batch-size", "256",
        "--eval-steps", "0", "--dev-per-lang", "100",
    ]  # fmt: skip


def report(results: list[dict], args: argparse.Namespace, load_start: tuple) -> None:
    unit = {"encode": "sentences/s", "train": "s", "demo": "s"}
    print(f"\nContention benchmark — {dt.date.today()} — {machine()}")
    print(f"load average at start {load_start[0]:.1f}; {args.rounds} interleaved rounds")
    print("slowdown = busy/idle time (encode: idle rate / busy rate); median [min–max]\n")
    print("| workload | policy | idle | next to a busy process | slowdown | load avg |")
    print("|---|---|---:|---:|---:|---:|")
    for workload in dict.fromkeys(r["workload"] for r in results):
        for policy in ("old", "new"):
            key = (workload, policy)
            sel = {
                c: [r for r in results if (r["workload"], r["policy"], r["cond"]) == (*key, c)]
                for c in ("idle", "busy")
            }

            def fmt(rows: list[dict]) -> str:
                vals = [r["value"] for r in rows]
                cut = "" if all(r["ok"] for r in rows) else " (cut)"
                med = statistics.median(vals)
                return f"{med:,.1f} [{min(vals):,.1f}–{max(vals):,.1f}]{cut}"

            idle = statistics.median(r["value"] for r in sel["idle"])
            busy = statistics.median(r["value"] for r in sel["busy"])
            slow = idle / busy if workload == "encode" else busy / idle
            loads = [r["load"] for rows in sel.values() for r in rows]
            print(
                f"| {workload} ({unit[workload]}) | {policy} | {fmt(sel['idle'])} "
                f"| {fmt(sel['busy'])} | **{slow:.1f}×** | {min(loads):.1f}–{max(loads):.1f} |"
            )


if __name__ == "__main__":
    raise SystemExit(main())
