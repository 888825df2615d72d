"""Tests that need something of the machine (root, a browser) skip without it, saying what;
in CI (``XLSEARCH_CI=1``, set by ``.ci/run``) the same is a failure: CI runs every test."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def needs(reason: str) -> NoReturn:
    """Skip this test for ``reason`` (what the machine lacks), or fail it in CI."""
    if os.environ.get("XLSEARCH_CI"):
        pytest.fail(f"CI must run this test, but {reason}", pytrace=False)
    pytest.skip(reason)
