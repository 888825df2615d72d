"""Evaluation: the literature's measures (MSE, translation accuracy, STS, mining F1, bias).

Python API (what the TUI calls)::

    from xlsearch.engine.evaluation import run_suite, save_results
    report = run_suite("bundled:teacher", tatoeba_dir="…/tatoeba", langs=["deu", "fra"],
                       sts_files=["…/sts-test.csv"], on_progress=cb, cancel=token)
    report.tables, report.metrics(), report.to_json(), report.to_markdown()
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "Evaluator",
    "LanguageBiasEvaluator",
    "MSEEvaluator",
    "MiningEvaluator",
    "Report",
    "STSEvaluator",
    "Table",
    "TranslationEvaluator",
    "build_bucc_style",
    "compare",
    "run_suite",
    "save_results",
    "stored_metrics",
]

_LAZY = {
    "Evaluator": "evaluators",
    "LanguageBiasEvaluator": "evaluators",
    "MSEEvaluator": "evaluators",
    "MiningEvaluator": "evaluators",
    "STSEvaluator": "evaluators",
    "TranslationEvaluator": "evaluators",
    "Report": "report",
    "Table": "report",
    "build_bucc_style": "synthetic",
    "compare": "suite",
    "run_suite": "suite",
    "save_results": "suite",
    "stored_metrics": "suite",
}


def __getattr__(name: str) -> Any:
    """Lazy attributes: importing ``metrics`` alone stays cheap."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(name)
