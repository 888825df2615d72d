"""Quality checks of translations: rules, consistency, language and calibrated semantics."""

from __future__ import annotations

from xlsearch.engine.qa.check import CheckResult, check_files, check_units
from xlsearch.engine.qa.units import KINDS, SEVERITIES, Flag, QaUnit

__all__ = ["KINDS", "SEVERITIES", "CheckResult", "Flag", "QaUnit", "check_files", "check_units"]
