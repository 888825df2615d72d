"""CPU policy: thread count and OpenMP wait policy set before torch loads; ``auto`` precision."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xlsearch.engine.runtime import cpu

REPO = Path(__file__).resolve().parents[2]
OMP_VARS = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "MKL_NUM_THREADS", cpu._MARK)

PROBE = """
import json, os, sys
import xlsearch.engine  # the policy is applied here, before torch
from xlsearch.engine.runtime.cpu import configure_threads
torch_before = "torch" in sys.modules
import torch
p = configure_threads()
print(json.dumps({"torch_before": torch_before, "torch_threads": torch.get_num_threads(),
    "policy": p.threads, "source": p.source, "before_torch": p.before_torch,
    "wait": os.environ.get("OMP_WAIT_POLICY"), "omp": os.environ.get("OMP_NUM_THREADS"),
    "cpus": __import__("xlsearch.engine.runtime.cpu", fromlist=["x"]).cpu_count()}))
"""


def _probes(*envs: dict[str, str], code: str = PROBE) -> list[dict]:
    """``code``'s JSON answer in a fresh process per environment, run side by side (each
    imports torch: a second apiece)."""
    procs = []
    for env in envs:
        full = {
            k: v for k, v in os.environ.items() if k not in OMP_VARS and not k.startswith("XLS")
        }
        full.update(env, PYTHONPATH=str(REPO))
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", code],
                env=full,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    answers = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        answers.append(json.loads(out.strip().splitlines()[-1]))
    return answers


def _probe(env: dict[str, str], code: str = PROBE) -> dict:
    return _probes(env, code=code)[0]


@pytest.mark.slow
def test_policy_is_set_before_torch_and_respects_the_user() -> None:
    auto, user, ours = _probes(
        {},
        {"OMP_NUM_THREADS": "1", "OMP_WAIT_POLICY": "ACTIVE"},
        {"OMP_NUM_THREADS": "1", "XLSEARCH_THREADS": "2"},
    )
    assert not auto["torch_before"] and auto["before_torch"]
    assert auto["wait"] == "PASSIVE" and auto["source"] == "auto"
    assert 1 <= auto["policy"] <= auto["cpus"]
    assert auto["torch_threads"] == auto["policy"] == int(auto["omp"])

    assert (user["wait"], user["source"], user["torch_threads"]) == ("ACTIVE", "OMP_NUM_THREADS", 1)

    assert (ours["source"], ours["torch_threads"], ours["omp"]) == ("XLSEARCH_THREADS", 2, "2")


@pytest.mark.slow
def test_policy_torch_leaves_defaults_alone_and_children_recompute() -> None:
    off, child = _probes(
        {"XLSEARCH_THREAD_POLICY": "torch"}, {"OMP_NUM_THREADS": "1", cpu._MARK: "1"}
    )
    assert off["source"] == "torch" and off["wait"] is None and off["omp"] is None
    # a child process inherits our OMP_NUM_THREADS: it is still "automatic" there
    assert child["source"] == "auto"


def test_cli_reads_the_threads_setting(tmp_path: Path) -> None:
    code = (
        "import xlsearch.cli as c, torch, json\n"
        "from xlsearch.engine.runtime.cpu import configure_threads\n"
        "c._configure_threads(); p = configure_threads()\n"
        "print(json.dumps({'threads': p.threads, 'source': p.source,"
        " 'torch': torch.get_num_threads()}))"
    )
    good, broken = tmp_path / "good", tmp_path / "broken"
    for home, text in ((good, json.dumps({"threads": 3})), (broken, "{broken")):
        (home / "config").mkdir(parents=True)
        (home / "config" / "config.json").write_text(text)
    got, bad = _probes({"XLSEARCH_HOME": str(good)}, {"XLSEARCH_HOME": str(broken)}, code=code)
    assert got == {"threads": 3, "source": "setting", "torch": 3}
    assert bad["source"] == "auto"  # a broken settings file is reported by the commands


def test_free_cpus_subtracts_other_processes_load() -> None:
    assert cpu.free_cpus(2, 0.0) == 2
    assert cpu.free_cpus(2, 0.4) == 2
    assert cpu.free_cpus(2, 1.0) == 1
    assert cpu.free_cpus(2, 9.5) == 1  # never below one
    assert cpu.free_cpus(8, 2.2) == 6
    assert cpu.free_cpus(2, 2.0, own=2.0) == 2  # our own load is not "others"


def test_cpu_count_honours_a_cgroup_quota(tmp_path: Path) -> None:
    quota = tmp_path / "cpu.max"
    quota.write_text("150000 100000\n")
    assert cpu.cpu_count(quota) == min(2, len(os.sched_getaffinity(0)))
    quota.write_text("max 100000\n")
    assert cpu.cpu_count(quota) == len(os.sched_getaffinity(0))


STAT = """cpu  100 0 100 800 0 0 0 0 0 0
cpu0 50 0 50 400 0 0 0 0 0 0
cpu1 50 0 50 400 0 0 0 0 0 0
intr 1 2 3
"""


def test_cpu_times_and_busy_cores_from_proc_stat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    assert cpu.cpu_times(STAT) == (200.0, 1000.0)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {1})  # only the CPUs we may use
    assert cpu.cpu_times(STAT) == (100.0, 500.0)
    # one core fully busy, the other idle, over the interval
    assert cpu.busy_cores((100.0, 500.0), (200.0, 700.0), 2) == pytest.approx(1.0)
    assert cpu.busy_cores(None, (1.0, 2.0), 2) is None


def test_free_cpus_uses_the_load_now_not_a_minute_ago(monkeypatch: pytest.MonkeyPatch) -> None:
    # a job just ended: the 1-minute load average still says 2, /proc/stat says idle
    monkeypatch.setattr(os, "getloadavg", lambda: (2.0, 2.0, 2.0))
    samples = iter([(100.0, 500.0), (100.5, 700.0)])
    monkeypatch.setattr(cpu, "cpu_times", lambda stat=None: next(samples))
    monkeypatch.setattr(cpu, "STAT_SAMPLE_S", 0.0)
    assert cpu.free_cpus(2) == 2
    # no /proc/stat: the load average is the fallback
    monkeypatch.setattr(cpu, "cpu_times", lambda stat=None: None)
    assert cpu.free_cpus(2) == 1


def test_retune_follows_the_load_and_explicit_threads_win(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    before = torch.get_num_threads()
    monkeypatch.setattr(cpu, "_policy", None)
    monkeypatch.setattr(cpu, "RETUNE_EVERY_S", 0.0)
    monkeypatch.delenv("XLSEARCH_THREADS", raising=False)
    monkeypatch.delenv("XLSEARCH_THREAD_POLICY", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    monkeypatch.setenv(cpu._MARK, "7")  # set by us earlier: still automatic
    try:
        monkeypatch.setattr(cpu, "free_cpus", lambda *a, **k: 2)
        assert cpu.configure_threads().threads == 2 and torch.get_num_threads() == 2
        monkeypatch.setattr(cpu, "free_cpus", lambda *a, **k: 1)
        assert cpu.retune().threads == 1 and torch.get_num_threads() == 1
        assert cpu.configure_threads(3).source == "setting" and torch.get_num_threads() == 3
        assert cpu.retune().threads == 3  # an explicit count is never retuned
    finally:
        torch.set_num_threads(before)


CPUINFO = "processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: fpu sse2 {extra}\n\n"


@pytest.mark.parametrize(
    ("extra", "auto", "cache"),
    [
        ("avx avx2 fma", "fp32", "int8"),  # AMD EPYC / older Xeon: bf16 emulated, ~5× slower
        ("avx2 avx512f avx512_bf16", "bf16", "bf16"),  # Cooper Lake, Zen 4
        ("avx2 avx512f amx_bf16 amx_tile", "bf16", "bf16"),  # Sapphire Rapids
        ("sse4_2", "fp32", "fp32"),  # no AVX2: FBGEMM's int8 kernels do not run
    ],
)
def test_auto_precision_follows_the_cpu_flags(extra: str, auto: str, cache: str) -> None:
    flags = cpu.cpu_flags(CPUINFO.format(extra=extra))
    assert "sse2" in flags
    assert cpu.cpu_precision(flags) == auto
    assert cpu.cache_precision(flags) == cache


def test_encoder_auto_precision_uses_the_cpu_policy(
    monkeypatch: pytest.MonkeyPatch, tiny_st_model: Path
) -> None:
    from xlsearch.engine.models.encoder import load_encoder

    monkeypatch.setattr(cpu, "cpu_flags", lambda *a: frozenset({"avx2"}))
    assert load_encoder(tiny_st_model, device="cpu").precision == "fp32"
    monkeypatch.setattr(cpu, "cpu_flags", lambda *a: frozenset({"avx2", "amx_bf16"}))
    enc = load_encoder(tiny_st_model, device="cpu")
    assert enc.precision == "bf16"
    assert load_encoder(tiny_st_model, device="cpu", precision="fp32").precision == "fp32"
    assert enc.encode(["hello world"]).shape[0] == 1


def test_distill_teacher_cache_precision(
    monkeypatch: pytest.MonkeyPatch, tiny_st_model: Path, tmp_path: Path
) -> None:
    from xlsearch.engine.distill import DistillConfig, distill
    from xlsearch.engine.distill import train as train_mod
    from xlsearch.engine.errors import ConfigError
    from xlsearch.engine.runtime import locations

    words = "the cat dog house tree runs sleeps big small red".split()
    lines = [f"{words[i % 10]} {words[(i * 3) % 10]} {i}\tdie {i} katze" for i in range(60)]
    tsv = tmp_path / "en-de.tsv"
    tsv.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def run(name: str, precision: str) -> None:
        cfg = DistillConfig(
            train=[str(tsv)], teacher=str(tiny_st_model), student="static",
            out=str(tmp_path / name),
            vocab_size=60, batch_size=8, max_steps=2, eval_steps=0, ckpt_steps=0,
            dev_per_lang=8, device="cpu", teacher_precision=precision,
        )  # fmt: skip
        distill(cfg)

    monkeypatch.setattr(train_mod, "cache_precision", lambda *a: "int8")  # an AVX2-only CPU
    run("a", "auto")
    caches = sorted(p.name for p in (locations.cache_dir() / "teacher").iterdir())
    assert len(caches) == 1 and caches[0].endswith("-int8")
    run("b", "fp32")  # fp32 vectors never mix with int8 ones
    caches = sorted(p.name for p in (locations.cache_dir() / "teacher").iterdir())
    assert len(caches) == 2 and caches[0] + "-int8" == caches[1]
    with pytest.raises(ConfigError, match="teacher precision"):
        run("c", "int4")
