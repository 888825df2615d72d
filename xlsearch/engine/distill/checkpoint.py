"""Self-describing, atomically written training checkpoints (model, optimizer, scheduler,
step, RNG states, data position, config) and the EMA update."""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

from xlsearch.engine.errors import ModelError

CKPT = "checkpoint"


def ema_tau(step: int, total: int, tau_base: float) -> float:
    """Ham & Kim 2021: τ_k = 1 − (1 − τ_base)(cos(πk/K) + 1)/2 (τ_base at k=0, 1 at k=K)."""
    k = min(step, total)
    return 1.0 - (1.0 - tau_base) * (math.cos(math.pi * k / max(total, 1)) + 1.0) / 2.0


def ema_update(teacher: Any, student: Any, tau: float) -> None:
    """ξ ← τξ + (1−τ)θ for every floating-point parameter (in place, no grad)."""
    import torch

    with torch.no_grad():
        for xi, theta in zip(teacher.parameters(), student.parameters(), strict=True):
            xi.mul_(tau).add_(theta.detach().to(xi.dtype), alpha=1.0 - tau)


def save_checkpoint(
    run_dir: Path,
    *,
    model: Any,
    ema: Any,
    optimizers: list[Any],
    schedulers: list[Any],
    step: int,
    examples: int,
    config: dict[str, Any],
    extra: dict[str, Any],
) -> Path:
    """Write ``run_dir/checkpoint`` atomically (a temp folder renamed into place).

    On a full disk the temp folder is removed and the previous checkpoint stays."""
    from xlsearch.engine.runtime.faults import disk_full_as_error

    tmp = run_dir / (CKPT + ".tmp")
    kept = (
        "the checkpoint was not saved, the previous one is kept"
        if (run_dir / CKPT).is_dir()
        else "the checkpoint was not saved"
    )
    try:
        with disk_full_as_error(run_dir, kept):
            return _save_checkpoint(
                run_dir, model, ema, optimizers, schedulers, step, examples, config, extra
            )
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _save_checkpoint(
    run_dir: Path,
    model: Any,
    ema: Any,
    optimizers: list[Any],
    schedulers: list[Any],
    step: int,
    examples: int,
    config: dict[str, Any],
    extra: dict[str, Any],
) -> Path:
    import torch

    target = run_dir / CKPT
    tmp = run_dir / (CKPT + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    model.save(tmp / "model")
    if ema is not None:
        ema.save(tmp / "ema")
    state = {
        "optimizers": [o.state_dict() for o in optimizers],
        "schedulers": [s.state_dict() for s in schedulers],
        "torch_rng": torch.get_rng_state(),
        "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
    }
    torch.save(state, tmp / "state.pt")
    meta = {"step": step, "examples": examples, "config": config, **extra}
    (tmp / "meta.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False), "utf-8")
    old = run_dir / (CKPT + ".old")
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        os.replace(target, old)
    os.replace(tmp, target)
    if old.exists():
        shutil.rmtree(old)
    return target


def read_meta(run_dir: Path) -> dict[str, Any] | None:
    """The checkpoint's meta.json, or None when there is no checkpoint."""
    path = run_dir / CKPT / "meta.json"
    if not path.is_file():
        old = run_dir / (CKPT + ".old") / "meta.json"  # killed between the two renames
        if not old.is_file():
            return None
        os.replace(run_dir / (CKPT + ".old"), run_dir / CKPT)
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"{path}: unreadable checkpoint ({exc})") from exc


def load_state(run_dir: Path, optimizers: list[Any], schedulers: list[Any]) -> None:
    """Restore optimizer, scheduler and RNG states (``weights_only`` load, no pickle code)."""
    import torch

    state = torch.load(run_dir / CKPT / "state.pt", map_location="cpu", weights_only=True)
    for o, s in zip(optimizers, state["optimizers"], strict=True):
        o.load_state_dict(s)
    for sch, s in zip(schedulers, state["schedulers"], strict=True):
        sch.load_state_dict(s)
    torch.set_rng_state(state["torch_rng"])
    if state["cuda_rng"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda_rng"])
