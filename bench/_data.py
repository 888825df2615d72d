"""Locating the benchmark data (``XLSEARCH_BENCH_DATA``, default ``../shared/data``)."""

from __future__ import annotations

import csv
import os
import platform
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    """The benchmark data folder; exits with a clear message when it is missing."""
    path = Path(os.environ.get("XLSEARCH_BENCH_DATA", REPO.parent / "shared" / "data"))
    if not path.is_absolute():
        path = (REPO / path).resolve()
    if not path.is_dir():
        raise SystemExit(f"benchmark data not found at {path} (set XLSEARCH_BENCH_DATA)")
    return path


def private_home(prefix: str = "xlsearch-bench-") -> None:
    """Point ``XLSEARCH_HOME`` at a fresh temporary folder unless it is set: a benchmark's
    indexes and calibration caches are then its own (an index is kept per collection name
    and model, so two runs at once with the same collection name in one home read each
    other's vectors)."""
    import atexit
    import shutil
    import tempfile

    if not os.environ.get("XLSEARCH_HOME"):
        home = tempfile.mkdtemp(prefix=prefix)
        os.environ["XLSEARCH_HOME"] = home
        atexit.register(shutil.rmtree, home, True)


def machine() -> str:
    """A one-line description of this machine."""
    cores = os.cpu_count()
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024**2:.0f} GB RAM"
    except (OSError, ValueError, IndexError):
        pass
    cpu = platform.processor() or platform.machine()
    try:  # Linux: the CPU's name and its widest vector instructions, as lscpu shows them
        info = Path("/proc/cpuinfo").read_text()
        name = next(ln.split(":", 1)[1].strip() for ln in info.splitlines() if "model name" in ln)
        flags = set(next(ln for ln in info.splitlines() if ln.startswith("flags")).split())
        simd = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
        cpu = f"{name} ({simd})"
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {cores} cores{mem}"


def stsb_test() -> tuple[list[str], list[str], list[float]]:
    """English STS benchmark test split: sentence1, sentence2, gold score (0–5)."""
    s1: list[str] = []
    s2: list[str] = []
    gold: list[float] = []
    path = data_dir() / "dev" / "stsbenchmark" / "sts-test.csv"
    with path.open(encoding="utf-8") as fh:
        for row in csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            if len(row) >= 7:
                gold.append(float(row[4]))
                s1.append(row[5])
                s2.append(row[6])
    return s1, s2, gold


def tatoeba_english(limit: int) -> list[str]:
    """Distinct English sentences from the Tatoeba test files (deterministic order)."""
    seen: dict[str, None] = {}
    for path in sorted((data_dir() / "dev" / "tatoeba").glob("tatoeba.*-eng.eng")):
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line:
                seen.setdefault(line, None)
            if len(seen) >= limit:
                return list(seen)
    return list(seen)
