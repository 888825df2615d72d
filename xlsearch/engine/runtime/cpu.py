"""CPU policy: how many threads torch/FAISS/OpenMP use, and which precision ``auto`` means.

Threads. On a shared CPU (a laptop with a browser, a second job, a server with other users)
OpenMP threads that spin while they wait for each other, and more threads than free cores,
collapse throughput: measured on a 2-core machine next to one busy process, teacher encoding
with torch's defaults ran 5–7× slower than with passive waiting and one thread
(``docs/benchmarks.md``). ``configure_threads()`` therefore, before torch is imported:

* sets ``OMP_WAIT_POLICY=PASSIVE`` (idle OpenMP threads sleep instead of spinning), and
* uses as many threads as there are *free* cores: the CPUs this process may run on
  (``os.sched_getaffinity``) minus what other processes keep busy *now*, at least one.
  "Now" is a 0.1 s sample of ``/proc/stat`` on those CPUs (the 1-minute load average,
  used where ``/proc/stat`` is missing, still counts work that ended a minute ago: right
  after a job an idle machine got one thread and encoding ran at 57 % speed).

What the user set always wins, in this order: ``--threads`` / the ``threads`` setting (``>0``),
``XLSEARCH_THREADS``, ``OMP_NUM_THREADS``; a user's ``OMP_WAIT_POLICY`` is kept.
``XLSEARCH_THREAD_POLICY=torch`` leaves torch's own defaults alone (for comparisons).
Long jobs call ``retune()`` now and then: the automatic count follows the machine's load.

Precision. ``auto`` on a CPU picks by the instructions it has (``cpu_precision``): bf16
where the CPU computes in bf16 natively (AMX or AVX-512 BF16), else fp32 — on AVX2-only CPUs
bf16 autocast is ~5× *slower* than fp32. Bulk encoding for the teacher cache may use int8
dynamic quantisation on CPUs without native bf16 (``cache_precision``).

Imports nothing heavy: safe to call at program start.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

POLICY_ENV = "XLSEARCH_THREAD_POLICY"
THREADS_ENV = "XLSEARCH_THREADS"
_MARK = "_XLSEARCH_OMP_NUM_THREADS"  # remembers that OMP_NUM_THREADS was set by us
RETUNE_EVERY_S = 10.0


@dataclass
class ThreadPolicy:
    """The thread count in force and where it came from."""

    threads: int
    source: str  # "XLSEARCH_THREADS", "setting", "OMP_NUM_THREADS", "auto", "torch"
    wait_policy: str
    before_torch: bool  # set before torch was imported (the wait policy only works then)

    @property
    def auto(self) -> bool:
        return self.source == "auto"

    def describe(self) -> str:
        """One line for logs and benchmark tables."""
        when = "" if self.before_torch else ", set after torch import"
        return f"{self.threads} threads ({self.source}), OMP_WAIT_POLICY={self.wait_policy}{when}"


_policy: ThreadPolicy | None = None
_last_tune = 0.0
_last_cpu = 0.0
_last_stat: tuple[float, float] | None = None
_pending: tuple[float, float, tuple[float, float] | None] | None = None
STAT_SAMPLE_S = 0.1


def cpu_count(cpu_max: Path = Path("/sys/fs/cgroup/cpu.max")) -> int:
    """CPUs this process may use: its affinity mask, capped by a cgroup v2 CPU quota."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    try:
        quota, period = cpu_max.read_text().split()[:2]
        if quota != "max":
            n = min(n, -(-int(quota) // int(period)))  # a container limited to N CPUs
    except (OSError, ValueError):
        pass
    return max(1, n)


def cpu_times(stat: str | None = None) -> tuple[float, float] | None:
    """``(busy, total)`` jiffies of the CPUs this process may run on, from ``/proc/stat``
    (None where it cannot be read). Idle time is ``idle + iowait``."""
    try:
        text = Path("/proc/stat").read_text() if stat is None else stat
        allowed = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        return None
    busy = total = 0.0
    for line in text.splitlines():
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or name == "cpu" or int(name[3:]) not in allowed:
            continue
        fields = [float(x) for x in rest.split()[:8]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)
        total += sum(fields)
        busy += sum(fields) - idle
    return (busy, total) if total > 0 else None


def busy_cores(
    before: tuple[float, float] | None, after: tuple[float, float] | None, cpus: int
) -> float | None:
    """Cores kept busy between two ``cpu_times`` samples (None if either is missing)."""
    if before is None or after is None or after[1] <= before[1]:
        return None
    return cpus * (after[0] - before[0]) / (after[1] - before[1])


def current_load(cpus: int) -> float | None:
    """Cores busy right now (a ``STAT_SAMPLE_S`` sample of ``/proc/stat``), or None."""
    before = cpu_times()
    if before is None:
        return None
    time.sleep(STAT_SAMPLE_S)
    return busy_cores(before, cpu_times(), cpus)


def free_cpus(cpus: int | None = None, load: float | None = None, own: float = 0.0) -> int:
    """Cores not used by other processes: ``cpus - (load - own)``, rounded, in ``[1, cpus]``.

    ``load``: busy cores (read when omitted: a short ``/proc/stat`` sample, else the
    1-minute load average); ``own`` is this process's own share of it (busy cores, measured
    by ``retune``), which must not count as "others".
    """
    cpus = cpu_count() if cpus is None else cpus
    if load is None:
        load = current_load(cpus)
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):
            return cpus
    others = max(0.0, load - own)
    return max(1, min(cpus, int(cpus - others + 0.5)))


def _user_threads(explicit: int = 0) -> tuple[int, str] | None:
    """The thread count the user asked for, if any: an explicit value (``--threads``, the
    ``threads`` setting), then ``XLSEARCH_THREADS``, then ``OMP_NUM_THREADS``."""
    if explicit > 0:
        return explicit, "setting"
    env = os.environ.get(THREADS_ENV, "").strip()
    if env:
        try:
            if int(env) > 0:
                return int(env), THREADS_ENV
        except ValueError:
            pass  # settings.load reports a malformed value as a ConfigError
    omp = os.environ.get("OMP_NUM_THREADS", "").strip()
    if omp and omp != os.environ.get(_MARK):
        try:
            return max(1, int(omp.split(",")[0])), "OMP_NUM_THREADS"
        except ValueError:
            pass
    return None


def configure_threads(threads: int = 0) -> ThreadPolicy:
    """Apply the thread policy; call as early as possible (before torch is imported).

    The first call sets the environment (wait policy, thread count) for OpenMP/MKL; later
    calls return the policy in force, or switch to ``threads`` when it is given (``> 0``:
    ``--threads``, the ``threads`` setting). ``import xlsearch.engine`` calls it.
    """
    global _policy, _last_tune, _last_cpu, _last_stat, _pending
    if _policy is not None:
        if threads > 0 and (threads != _policy.threads or _policy.auto):
            _policy.threads, _policy.source = threads, "setting"
            _apply(threads)
        return _policy
    torch_loaded = "torch" in sys.modules
    if os.environ.get(POLICY_ENV, "").strip().lower() == "torch":
        n = _torch_threads() if torch_loaded else cpu_count()
        wait = os.environ.get("OMP_WAIT_POLICY", "(default)")
        _policy = ThreadPolicy(n, "torch", wait, not torch_loaded)
        return _policy
    chosen = _user_threads(threads)
    if chosen:
        n, source = chosen
    else:
        # A first guess from the load average, settled by ``settle_threads`` from a
        # ``/proc/stat`` sample that starts now: no 0.1 s sleep in every fresh process.
        cpus = cpu_count()
        n, source = free_cpus(cpus, _load_average()), "auto"
        _pending = (time.monotonic(), time.process_time(), cpu_times())
    if not torch_loaded:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        if source != "OMP_NUM_THREADS":
            # libgomp (torch's and FAISS's copies) reads these when it loads
            os.environ["OMP_NUM_THREADS"] = str(n)
            os.environ[_MARK] = str(n)
        os.environ.setdefault("MKL_NUM_THREADS", os.environ["OMP_NUM_THREADS"])
    _policy = ThreadPolicy(n, source, os.environ.get("OMP_WAIT_POLICY", ""), not torch_loaded)
    _apply(n)
    _last_tune, _last_cpu, _last_stat = time.monotonic(), time.process_time(), cpu_times()
    return _policy


def _load_average() -> float:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def settle_threads() -> ThreadPolicy:
    """The automatic thread count from the load measured since ``configure_threads`` first
    ran (``/proc/stat``, at least ``STAT_SAMPLE_S``; this process's own work excluded).

    Called before torch loads and by ``retune``; until then the first guess (from the load
    average) stands, which is all a short command (a lookup, a search) ever needs.
    """
    global _pending
    policy = configure_threads()
    if _pending is None:
        return policy
    t0, cpu0, stat0 = _pending
    _pending = None
    if not policy.auto:
        return policy
    wait = STAT_SAMPLE_S - (time.monotonic() - t0)
    if wait > 0:
        time.sleep(wait)
    elapsed = max(time.monotonic() - t0, 1e-9)
    own = (time.process_time() - cpu0) / elapsed
    cpus = cpu_count()
    load = busy_cores(stat0, cpu_times(), cpus)
    if load is None:
        load, own = _load_average(), 0.0
    threads = free_cpus(cpus, load, own=own)
    if threads != policy.threads:
        guess, policy.threads = str(policy.threads), threads
        if os.environ.get(_MARK) == guess and "torch" not in sys.modules:
            os.environ["OMP_NUM_THREADS"] = os.environ[_MARK] = str(threads)
            if os.environ.get("MKL_NUM_THREADS") == guess:
                os.environ["MKL_NUM_THREADS"] = str(threads)
        _apply(threads)
    return policy


def retune() -> ThreadPolicy:
    """Follow the machine's load (automatic policy only; at most every ``RETUNE_EVERY_S``).

    Long jobs call this between chunks of work; it is cheap when nothing changes.
    """
    global _last_tune, _last_cpu, _last_stat
    policy = settle_threads()
    now = time.monotonic()
    if not policy.auto or now - _last_tune < RETUNE_EVERY_S:
        return policy
    cpu, stat = time.process_time(), cpu_times()
    own = (cpu - _last_cpu) / max(now - _last_tune, 1e-9)
    cpus = cpu_count()
    load = busy_cores(_last_stat, stat, cpus)  # the whole interval, no extra sampling
    _last_tune, _last_cpu, _last_stat = now, cpu, stat
    if load is None:
        load = current_load(cpus)
    threads = free_cpus(cpus, load, own=own)
    if threads != policy.threads:
        policy.threads = threads
        _apply(threads)
    return policy


def _apply(threads: int) -> None:
    """Set the count in the libraries already imported (torch, FAISS)."""
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "set_num_threads"):
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
    faiss = sys.modules.get("faiss")
    if faiss is not None and hasattr(faiss, "omp_set_num_threads"):
        faiss.omp_set_num_threads(threads)


def _torch_threads() -> int:
    import torch

    return int(torch.get_num_threads())


# ---------------------------------------------------------------------------- precision


def one_blas_thread() -> Any:
    """A context in which numpy's BLAS runs on one thread: for loops of small matrix
    products a second BLAS thread only spins between calls, stealing the core that the rest
    of the work or another program needs. The aligner's search: 18.8 -> 3.1 s for 10,000
    sentences on a loaded 2-core machine; a 1,000-segment analysis at 1M units: CPU
    10.0 -> 7.2 s for the same wall time on an idle one."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1, user_api="blas")


def cpu_flags(cpuinfo: str | None = None) -> frozenset[str]:
    """The CPU's feature flags (``/proc/cpuinfo``; empty where unavailable)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return frozenset()
    for line in cpuinfo.splitlines():
        if line.startswith(("flags", "Features")):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def native_bf16(flags: frozenset[str] | None = None) -> bool:
    """True when the CPU computes bf16 matrix products natively (AMX or AVX-512 BF16)."""
    if flags is None:
        flags = cpu_flags()
        if not flags:
            return _torch_capability() in {"AMX", "AVX512_BF16"}
    return bool({"amx_bf16", "avx512_bf16"} & flags)


def _torch_capability() -> str:
    """torch's CPU capability name (``AVX2``, ``AVX512``, ``AMX``…) or ``""``."""
    if "torch" not in sys.modules:
        return ""
    try:
        import torch

        return str(torch.backends.cpu.get_cpu_capability()).upper()
    except (AttributeError, RuntimeError):
        return ""


def cpu_precision(flags: frozenset[str] | None = None) -> str:
    """What ``auto`` means for a transformer on this CPU: ``bf16`` if native, else ``fp32``."""
    return "bf16" if native_bf16(flags) else "fp32"


def cache_precision(flags: frozenset[str] | None = None) -> str:
    """``auto`` for bulk teacher-cache encoding: bf16 if native, else int8 where the CPU has
    the integer dot-product instructions FBGEMM needs (AVX2), else fp32."""
    if native_bf16(flags):
        return "bf16"
    flags = cpu_flags() if flags is None else flags
    return "int8" if "avx2" in flags else "fp32"


def describe_cpu(flags: frozenset[str] | None = None) -> str:
    """``AMD EPYC, AVX2, no native bf16 → auto: fp32 (cache: int8)`` — for logs and benchmarks."""
    name = ""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    flags = cpu_flags() if flags is None else flags
    names = (("avx2", "AVX2"), ("avx512f", "AVX-512"), ("amx_tile", "AMX"))
    isa = [n for f, n in names if f in flags]
    bf16 = "native bf16" if native_bf16(flags) else "no native bf16"
    head = ", ".join(x for x in (name, "/".join(isa) or "no AVX2", bf16) if x)
    return f"{head} → auto: {cpu_precision(flags)} (teacher cache: {cache_precision(flags)})"
