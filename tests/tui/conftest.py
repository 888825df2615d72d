"""Fixtures for the TUI tests: the real engine over a seeded home, an app factory and Pilot
helpers."""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from concepts import build_home, install_home
from spy import SpyEngine

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


@pytest.fixture(scope="session")
def _home_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The concept model and the seed memory, built once per session."""
    return build_home(tmp_path_factory.mktemp("ui-home"))


@pytest.fixture()
def seeded_model(_home_template: Path, _tmp_home: Path) -> Path:
    """This test's XLSEARCH_HOME with the concept model active and the seed memory imported
    and indexed as collection ``demo``; returns the model folder."""
    return install_home(_home_template, _tmp_home)


@pytest.fixture()
def teacher(tiny_st_model: Path, seeded_model: Path) -> str:
    """A tiny teacher in the models folder, named as a user types it."""
    shutil.copytree(tiny_st_model, seeded_model.parent / "tiny-teacher")
    return "tiny-teacher"


@pytest.fixture()
def engine(seeded_model: Path) -> SpyEngine:
    """The real engine (recording its calls) over the seeded home."""
    return SpyEngine()


@pytest.fixture()
def app(engine: SpyEngine) -> XLSearchApp:
    """The app over ``engine`` with a fixed theme."""
    return make_app(engine=engine, theme="textual-dark")


async def _settle(pilot: Any, times: int = 2) -> None:
    """Let timers fire, workers finish and their messages be handled (a worker a newer one
    replaced, such as an older lookup, ends cancelled: that is fine)."""
    from textual.worker import WorkerCancelled

    for _ in range(times):
        await pilot.pause()
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            pass
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
