"""Multilingual knowledge distillation (Reimers & Gurevych 2020; EMA teacher, Ham & Kim 2021).

``distill(DistillConfig(train=[...]), on_progress, cancel)`` → ``DistillResult``. The
settings and the result are light to import; ``distill`` (numpy, torch) loads when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xlsearch.engine.distill.config import PRESETS, DistillConfig, DistillResult

if TYPE_CHECKING:
    from xlsearch.engine.distill.train import distill as distill

__all__ = ["PRESETS", "DistillConfig", "DistillResult", "distill"]


def __getattr__(name: str) -> object:
    if name == "distill":
        from xlsearch.engine.distill.train import distill

        return distill
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
