"""Fixtures for the TUI tests: a fake engine, an app factory and Pilot helpers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from xlsearch.service.fake import FakeEngine
from xlsearch.tui.app import XLSearchApp, make_app

SIZE = (100, 30)


@pytest.fixture()
def anyio_backend() -> str:
    """Async tests (``pytest.mark.anyio``) run on asyncio, as Textual does."""
    return "asyncio"


@pytest.fixture(autouse=True)
def _fixed_bench_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Evaluate screen's default benchmark folder, fixed (snapshots must not vary)."""
    monkeypatch.setenv("XLSEARCH_BENCH_DATA", "bench-data")


@pytest.fixture()
def engine() -> FakeEngine:
    """A fresh deterministic in-memory engine with the demo collection."""
    return FakeEngine()


@pytest.fixture()
def app(engine: FakeEngine) -> XLSearchApp:
    """The app over ``engine`` with a fixed theme."""
    return make_app(engine=engine, theme="textual-dark")


async def _settle(pilot: Any, times: int = 2) -> None:
    """Let timers fire, workers finish and their messages be handled."""
    for _ in range(times):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


@pytest.fixture()
def settle() -> Callable[..., Awaitable[None]]:
    """``await settle(pilot)``: wait until workers are done and messages handled."""
    return _settle


@pytest.fixture()
def tsv_file(tmp_path: Path) -> Path:
    """Three good English–German pairs and one bad line (no TAB)."""
    path = tmp_path / "en-de.tsv"
    path.write_text(
        "the dog sleeps\tder Hund schläft\n"
        "a red house\tein rotes Haus\n"
        "no tab on this line\n"
        "good morning\tguten Morgen\n",
        encoding="utf-8",
    )
    return path
