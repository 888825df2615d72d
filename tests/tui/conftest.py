"""Fixtures for the TUI tests: the real engine over a seeded home, an app factory and Pilot
helpers."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.concepts import build_home, install_home
from helpers.spy import SpyEngine
from helpers.tui import OpenTranslate, settle
from textual.widgets import Input

from xlsearch.tui.app import XLSearchApp, make_app
from xlsearch.tui.screens.translate import TranslateScreen

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


@pytest.fixture(name="settle")
def settle_fixture() -> Callable[..., Awaitable[None]]:
    """``await settle(pilot)``: wait until workers are done and messages handled."""
    return settle


@pytest.fixture()
def translate(request: pytest.FixtureRequest) -> OpenTranslate:
    """``async with translate(job) as (pilot, screen):`` the app on the Translate screen (F9)
    with ``job`` open and the workers settled. The engine is the real one with the tiny
    static model active unless ``engine=`` is given; ``typed=True`` opens the job as a user
    does (path typed into its field, Enter) rather than by ``screen.open_document``; ``src``
    is typed into the source-language field first."""

    @contextlib.asynccontextmanager
    async def open_translate(
        job: Path | None = None,
        *,
        engine: Any = None,
        size: tuple[int, int] = (120, 36),
        typed: bool = False,
        src: str | None = None,
    ) -> AsyncIterator[tuple[Any, TranslateScreen]]:
        if engine is None:
            from xlsearch.engine.models.catalog import set_active_model
            from xlsearch.service.local import LocalEngine

            set_active_model(str(request.getfixturevalue("tiny_static_model")))
            engine = LocalEngine()
        app = make_app(engine=engine, theme="textual-dark")
        async with app.run_test(size=size) as pilot:
            await pilot.press("f9")
            await settle(pilot, 3)
            screen = app.screen
            assert isinstance(screen, TranslateScreen)
            if src is not None:
                screen.query_one("#tr-src", Input).value = src
            if job is not None:
                if typed:
                    screen.query_one("#doc-path", Input).value = str(job)
                    screen.query_one("#doc-path", Input).focus()
                    await pilot.press("enter")
                else:
                    screen.open_document(str(job))
                await settle(pilot, 3)
            yield pilot, screen

    return open_translate


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
