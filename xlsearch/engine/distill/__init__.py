"""Multilingual knowledge distillation (Reimers & Gurevych 2020; EMA teacher, Ham & Kim 2021).

``distill(DistillConfig(train=[...]), on_progress, cancel)`` → ``DistillResult``.
"""

from __future__ import annotations

from xlsearch.engine.distill.config import PRESETS, DistillConfig
from xlsearch.engine.distill.train import DistillResult, distill

__all__ = ["PRESETS", "DistillConfig", "DistillResult", "distill"]
