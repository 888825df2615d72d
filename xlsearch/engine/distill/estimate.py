"""How long a distillation will take, before it starts: the data's size times this
machine's measured rates.

A run has stages whose cost grows with different things: loading the teacher (fixed),
reading and checking the pairs (per pair), the teacher's embeddings of the sentences not yet
in the teacher cache (per sentence, longer ones cost more: ``teacher_cache.sentence_cost``),
building a static student's vocabulary and table (per pair), the training steps (pairs/s
of this student kind and batch; a time limit caps them) and the evaluations and saving
around them. Each finished run stores its per-stage rates in ``cache_dir()/distill-rates.json``
(per device and student kind) with a CPU-speed probe taken at its start; an estimate scales
those rates by the probe now (a busier machine is slower). Before any run on this machine
the rates are reference figures measured on a 2-core Intel Xeon (AVX-512), scaled the
same way, and the estimate says it is rougher.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import json
import math
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from xlsearch.engine.runtime import locations
from xlsearch.engine.runtime.atomic import write_json

RATES_FILE = "distill-rates.json"
SPREAD_MEASURED = 0.3
"""How far off an estimate from a run on this machine may be (the benchmark's check)."""
SPREAD_REFERENCE = 0.6
"""How far off an estimate from the reference figures may be (another CPU, no run yet)."""


@dataclass
class Rates:
    """Seconds a run spends per unit of each stage on one machine (see the module)."""

    load_s: float = 8.0
    """Loading the teacher (and torch)."""
    read_s_per_pair: float = 0.0012
    teacher_work_per_s: float = 9.0e5
    """Teacher-cache encoding speed in ``sentence_cost`` units per second."""
    build_s_per_pair: float = 0.004
    """Static student: vocabulary and table initialisation."""
    build_s: float = 6.0
    pairs_per_s: float = 4000.0
    """Training throughput of this student kind."""
    eval_s: float = 2.0
    """One dev evaluation (a run makes at least ten: its curve)."""
    end_s: float = 6.0
    """Final evaluation, fill calibration, saving."""
    probe: float = 0.0
    """CPU speed measured when these rates were (``cpu_probe``); 0 = unknown."""
    threads: int = 0
    """CPU threads the run used (the teacher and the training run on them); 0 = unknown."""
    date: str = ""
    source: str = "reference"
    """``reference`` (built in) or ``measured`` (a run on this machine)."""


_STATIC = Rates(
    # a quick static run on 8,000 en-fr pairs, 2026-11-27, 2-core Intel Xeon (AVX-512),
    # idle (load 1.5): 55 s wall. (The same run on the machine at load 9-12 took 352 s: the
    # CPU probe and the free threads scale these to the machine when the estimate is made.)
    load_s=2.7,
    read_s_per_pair=0.00021,
    teacher_work_per_s=379_000.0,
    build_s_per_pair=0.00039,
    build_s=0.0,
    pairs_per_s=2_820.0,
    eval_s=0.2,
    end_s=1.6,
    probe=10_270.0,
    threads=2,
)

REFERENCE: dict[str, Rates] = {
    "cpu:static": _STATIC,
    # a continued static student (the shipped one on the user's pairs) builds no vocabulary
    "cpu:continue": replace(_STATIC, build_s_per_pair=0.0, build_s=1.0),
    "cpu:transformer": Rates(
        load_s=8.0,
        read_s_per_pair=0.0005,
        teacher_work_per_s=66_700.0,
        build_s_per_pair=0.0,
        build_s=3.0,
        pairs_per_s=10.0,
        eval_s=5.0,
        end_s=10.0,
        probe=3000.0,
    ),
}


def cpu_probe(seconds: float = 0.2) -> float:
    """This machine's speed for this process now: loops of plain Python arithmetic per
    second, the median of four windows (~0.2 s). It follows the share of a core the process
    gets on a busy machine; measured on a shared 2-core Xeon, it varied by about ±20 %
    where a short numpy matrix-product probe varied 6-fold (BLAS threads fighting)."""
    windows = []
    for _ in range(4):
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 4:
            x = 0
            for i in range(2000):
                x += i * i
            n += 1
        windows.append(n / (time.perf_counter() - start))
    return float(np.median(windows))


def run_threads() -> int:
    """The CPU threads a run would use now: the threads setting, else the cores that other
    processes leave free (the single-thread probe does not see a busy neighbour)."""
    from xlsearch.engine.runtime import cpu

    policy = cpu.configure_threads()
    return policy.threads if policy.source != "auto" else cpu.free_cpus()


def _key(device: str, kind: str) -> str:
    """``cpu:static``, ``cpu:continue`` (a static student continued: no new vocabulary),
    ``gpu:transformer`` …"""
    kind = kind if kind in ("static", "continue") else "transformer"
    return f"{'cpu' if device == 'cpu' else 'gpu'}:{kind}"


def rates_path() -> Path:
    return locations.cache_dir() / RATES_FILE


def load_rates(device: str, kind: str) -> Rates:
    """The rates of the last run of this kind on this machine, else the reference ones."""
    key = _key(device, kind)
    try:
        data = json.loads(rates_path().read_text(encoding="utf-8")).get(key)
        if isinstance(data, dict):
            names = set(Rates.__dataclass_fields__)
            return Rates(**{k: v for k, v in data.items() if k in names})
    except (OSError, ValueError, TypeError):
        pass
    return Rates(**asdict(REFERENCE.get(key, Rates())))


def store_rates(device: str, kind: str, rates: Rates) -> None:
    """Keep ``rates`` as this machine's for the next estimate (atomic; other keys kept)."""
    path = rates_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    data[_key(device, kind)] = asdict(rates)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, data)


@dataclass
class StageClock:
    """Times a run's stages (``distill`` fills it in; ``rates`` turns it into ``Rates``)."""

    probe: float = 0.0
    start: float = field(default_factory=time.monotonic)
    marks: dict[str, float] = field(default_factory=dict)
    pairs: int = 0
    work_encoded: float = 0.0
    examples: int = 0
    steps: int = 0
    evals: int = 0
    train_s: float = 0.0

    def mark(self, name: str) -> None:
        self.marks[name] = time.monotonic()

    def span(self, a: str, b: str) -> float:
        t0 = self.start if a == "start" else self.marks.get(a)
        t1 = self.marks.get(b)
        return max(0.0, t1 - t0) if t0 is not None and t1 is not None else 0.0

    def rates(self, before: Rates) -> Rates:
        """This run's rates; a stage it skipped (a warm teacher cache) keeps ``before``'s."""
        pairs = max(self.pairs, 1)
        teacher_s = self.span("read", "cache")
        r = Rates(
            load_s=self.span("start", "loaded"),
            read_s_per_pair=self.span("loaded", "read") / pairs,
            teacher_work_per_s=(
                self.work_encoded / teacher_s
                if self.work_encoded > 0 and teacher_s > 1.0
                else before.teacher_work_per_s * _ratio(self.probe, before.probe)
            ),
            build_s_per_pair=before.build_s_per_pair,
            build_s=self.span("cache", "built"),
            pairs_per_s=self.examples / self.train_s if self.train_s > 0 else before.pairs_per_s,
            eval_s=(
                max(0.0, self.span("built", "trained") - self.train_s) / self.evals
                if self.evals
                else before.eval_s
            ),
            end_s=self.span("trained", "end"),
            probe=self.probe,
            threads=run_threads(),
            date=_dt.date.today().isoformat(),
            source="measured",
        )
        # one run cannot split the build into fixed and per-pair parts: the per-pair rate
        # carries it (a static student's vocabulary grows with the data)
        if r.build_s > 0:
            r.build_s_per_pair, r.build_s = r.build_s / pairs, 0.0
        return r


def _ratio(now: float, then: float) -> float:
    """Speed-up of this machine now over when the rates were measured (1 when unknown)."""
    if now <= 0 or then <= 0:
        return 1.0
    return min(4.0, max(0.25, now / then))


@dataclass(frozen=True)
class Estimate:
    """A run's expected duration, its range and where it comes from."""

    seconds: float
    low: float
    high: float
    pairs: int
    steps: int
    parts: dict[str, float]
    source: str
    """``measured`` (a run on this machine) or ``reference``."""
    date: str = ""
    capped: bool = False
    """The preset's time limit caps the training."""

    def describe(self) -> str:
        """``about 5 min (3–6 min) · 8,000 pairs, 29 steps; mostly teacher embeddings ·
        from the last run here, ±30 %``."""
        how = (
            f"from the last run here ({self.date}), ±{SPREAD_MEASURED:.0%}"
            if self.source == "measured"
            else "rough: no run here yet"
        )
        big = max(self.parts, key=lambda k: self.parts[k]) if self.parts else ""
        most = f"; mostly {big}" if big and self.parts[big] > 0.4 * self.seconds else ""
        limit = ", training capped by the time limit" if self.capped else ""
        steps = f"{self.steps:,} step{'s' * (self.steps != 1)}"
        return (
            f"about {_duration(self.seconds)} ({_span(self.low, self.high)}) · "
            f"{self.pairs:,} pairs, {steps}{limit}{most} · {how}"
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _span(low: float, high: float) -> str:
    """``3–13 min``: the unit once when both ends have it."""
    a, b = _duration(low), _duration(high)
    if a.split()[-1] == b.split()[-1]:
        return f"{a.rsplit(' ', 1)[0]}–{b}"
    return f"{a}–{b}"


def _duration(s: float) -> str:
    if s < 90:
        return f"{max(1, round(s))} s"
    if s < 5400:
        return f"{round(s / 60)} min"
    return f"{s / 3600:.1f} h"


def read_sources(files: list[str]) -> list[str]:
    """The first column (the teacher's sentences) of TSV files, plain or gzip; unreadable
    files are skipped (the run names them)."""
    out: list[str] = []
    for name in files:
        path = Path(name.rsplit(":", 1)[0] if not Path(name).exists() else name)
        try:
            opener = gzip.open if path.suffix == ".gz" else open
            with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    head, tab, _ = line.partition("\t")
                    if tab and head.strip():
                        out.append(head.strip())
        except OSError:
            continue
    return out


def uncached(teacher: str, texts: list[str]) -> list[str]:
    """The distinct ``texts`` the teacher cache lacks (all of them when it cannot tell)."""
    from xlsearch.engine.distill.data import text_key
    from xlsearch.engine.distill.teacher_cache import teacher_key
    from xlsearch.engine.models.cards import model_id, resolve_model_path
    from xlsearch.engine.runtime.cpu import cache_precision

    unique = list(dict.fromkeys(texts))
    try:
        path = resolve_model_path(teacher)
        cfg_path = path / "sentence_bert_config.json"
        cfg = json.loads(cfg_path.read_text(encoding="utf-8")) if cfg_path.is_file() else {}
        key = teacher_key(path, model_id(path), int(cfg.get("max_seq_length") or 256))
        if cache_precision() == "int8":
            key += "-int8"
        folder = locations.cache_dir() / "teacher" / key
        rows = int(json.loads((folder / "meta.json").read_text())["rows"])
        keys = np.sort(np.fromfile(folder / "keys.u64", dtype=np.uint64, count=rows))
    except Exception:  # no cache yet, or one this function cannot read: all uncached
        return unique
    if not len(keys):
        return unique
    want = np.fromiter((text_key(t) for t in unique), np.uint64, len(unique))
    pos = np.searchsorted(keys, want).clip(0, len(keys) - 1)
    return [t for t, hit in zip(unique, keys[pos] == want, strict=True) if not hit]


def estimate(
    *,
    pairs: int,
    sources: list[str],
    teacher: str,
    kind: str,
    batch_size: int,
    steps: int,
    time_limit_min: float = 0.0,
    eval_every: int = 0,
    device: str = "cpu",
    rates: Rates | None = None,
    probe: float | None = None,
) -> Estimate:
    """The duration of a run on ``pairs`` pairs (``sources``: their teacher-side sentences,
    to count what the teacher cache lacks) of ``steps`` steps of ``batch_size``."""
    from xlsearch.engine.distill.teacher_cache import sentence_cost

    r = rates or load_rates(device, kind)
    speed = _ratio(cpu_probe() if probe is None else probe, r.probe)
    missing = uncached(teacher, sources)
    work = float(sentence_cost(np.fromiter((len(t) for t in missing), float, len(missing))).sum())
    train = steps * batch_size / max(r.pairs_per_s, 1e-9)
    capped = bool(time_limit_min) and train > time_limit_min * 60
    if capped:
        train = time_limit_min * 60
        steps = math.floor(train * r.pairs_per_s / max(batch_size, 1))
    parts = {
        "loading the teacher": r.load_s,
        "reading the pairs": r.read_s_per_pair * pairs,
        "teacher embeddings": work / max(r.teacher_work_per_s, 1e-9),
        "building the student": r.build_s + r.build_s_per_pair * pairs,
        "training": train + ((steps - 1) // eval_every if eval_every else 0) * r.eval_s,
        "evaluation and saving": r.end_s,
    }
    parts = {k: v / speed for k, v in parts.items()}
    if r.threads and device == "cpu":  # the threads free now against those the rates had
        cores = min(4.0, max(0.25, run_threads() / r.threads))
        for k in ("teacher embeddings", "training"):
            parts[k] /= cores
    total = sum(parts.values())
    spread = SPREAD_MEASURED if r.source == "measured" else SPREAD_REFERENCE
    return Estimate(
        seconds=total,
        low=total * (1 - spread),
        high=total * (1 + spread),
        pairs=pairs,
        steps=steps,
        parts=parts,
        source=r.source,
        date=r.date,
        capped=capped,
    )


def estimate_run(cfg: Any, *, device: str = "", probe: float | None = None) -> Estimate:
    """The estimate of a run of ``cfg`` (the engine's ``DistillConfig``) before it starts:
    its TSVs are read for their size (a dev split held out as the run holds it out), the
    preset fills the schedule, and the teacher cache is asked what it already holds."""
    import copy

    from xlsearch.engine.distill.config import apply_preset
    from xlsearch.engine.models.encoder import pick_device

    cfg = copy.deepcopy(cfg)
    device = device or ("cpu" if cfg.device in ("auto", "cpu") else cfg.device)
    if device != "cpu":
        device = pick_device(cfg.device)
    kind = cfg.student
    if cfg.start_from or kind == "static" or (kind == "auto" and device == "cpu"):
        kind = "static"
    else:
        kind = "transformer"
    apply_preset(cfg, kind)
    if cfg.start_from:
        kind = "continue"
    sizes, weights, sources = [], [], []
    for name in cfg.train:
        path, weight = name, 1
        head, _, tail = name.rpartition(":")
        if head and tail.isdigit() and not Path(name).exists():
            path, weight = head, int(tail)
        texts = read_sources([path])
        sources += texts
        held = 0 if cfg.dev else min(cfg.dev_per_lang, len(texts) // 10)
        sizes.append(max(1, len(texts) - held))
        weights.append(weight)
    from xlsearch.engine.distill.setup import dev_interval, total_steps

    steps = total_steps(cfg, sizes, weights, 1) if sizes else 0
    return estimate(
        pairs=len(sources),
        sources=sources,
        teacher=cfg.teacher,
        kind=kind,
        batch_size=int(cfg.batch_size or 1) * int(cfg.accum or 1),
        steps=steps,
        time_limit_min=float(cfg.time_limit_min or 0.0),
        eval_every=dev_interval(cfg.eval_steps, steps),
        device=device,
        probe=probe,
    )
