"""Every screen under a key storm: navigation and action keys at 30 a second (as a terminal
sends a held key, without waiting for the screen), a terminal resize in the middle. Afterwards
each screen answers a key within 200 ms and shows what that key asked for, no worker is left
running, and the app's CPU falls back to idle.

One app visits every screen (the screens stay mounted, so the idle check at the end covers
them all); the Translate screen, where held keys once froze the app, gets the full 5 s with a
gettext job open, the others one second each to keep the suite fast."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers.keys import send_keys, wait_idle, write_job_po
from helpers.spy import SpyEngine
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Input, Static

from xlsearch.tui.app import make_app
from xlsearch.tui.screens.translate import TranslateScreen

pytestmark = pytest.mark.anyio

RATE = 30.0
"""Keys a second (a terminal's key repeat)."""
ANSWER_S = 0.2
"""A key after the storm is answered within this (its effect on screen)."""
NAV = ["down", "up", "pagedown", "pageup", "ctrl+home", "ctrl+end", "home", "end", "left", "right"]
FOCUS = ["tab", "shift+tab", "escape"]


@dataclass
class Storm:
    """One screen's storm: its key, the keys pressed, the probe that follows."""

    key: str
    keys: list[str]
    seconds: float = 1.0
    probe_widget: str = ""
    """The widget the probe key goes to (focused first)."""
    probe_keys: list[str] = field(default_factory=lambda: ["ctrl+end"])
    after: str = ""
    """Sent after the probe (the menu it opened closed)."""
    fields: dict[str, str] = field(default_factory=dict)
    """Typed before the storm (the last one's Enter pressed): a query with results."""
    setup_key: str = "ctrl+home"
    """Sent (and waited for) before the probe, so that the probe changes what is shown (a
    text field's probe types what the storm never did)."""
    done: Callable[[Screen[None], Widget], bool] = lambda _s, w: _last_row(w)


def _last_row(widget: Widget) -> bool:
    assert isinstance(widget, DataTable)
    return widget.row_count == 0 or widget.cursor_row == widget.row_count - 1


def _typed(widget: Widget) -> bool:
    assert isinstance(widget, Input)
    return widget.value.endswith("zq")


def _translated_last(screen: Screen[None], _w: Widget) -> bool:
    assert isinstance(screen, TranslateScreen) and screen.doc is not None
    return screen.current == len(screen.doc.segments) - 1


STORMS = [
    Storm(
        "f9",
        NAV + ["ctrl+down", "ctrl+up", "ctrl+n", "ctrl+r"],
        5.0,
        "tr-segments",
        done=_translated_last,
    ),
    Storm(
        "f2",
        NAV + FOCUS + ["enter"],
        probe_widget="query",
        probe_keys=["z", "q"],
        setup_key="end backspace backspace",
        done=lambda _s, w: _typed(w),
        fields={"query": "train"},
    ),
    Storm(
        "f3",
        NAV + FOCUS + ["ctrl+r"],
        probe_widget="sts-a",
        probe_keys=["z", "q"],
        setup_key="end backspace backspace",
        done=lambda _s, w: _typed(w),
    ),
    Storm(
        "f4",
        NAV + FOCUS + ["r"],
        probe_widget="import-collection",
        probe_keys=["z", "q"],
        setup_key="end backspace backspace",
        done=lambda _s, w: _typed(w),
    ),
    Storm(
        "f5",
        NAV + ["tab", "shift+tab"],
        probe_widget="output",
        probe_keys=["z", "q"],
        setup_key="end backspace backspace",
        done=lambda _s, w: _typed(w),
    ),
    # no ctrl+r: an evaluation is a long job that runs to its end (one at a time)
    Storm(
        "f6",
        ["tab", "shift+tab", "escape"],
        probe_widget="eval-model",
        probe_keys=["enter"],
        setup_key="escape",
        after="escape",
        done=lambda _s, w: bool(getattr(w, "expanded", False)),  # its menu open
    ),
    Storm(
        "f7",
        NAV + FOCUS + ["ctrl+r", "minus", "plus"],
        probe_widget="src-lang",
        probe_keys=["z", "q"],
        setup_key="end backspace backspace",
        done=lambda _s, w: _typed(w),
    ),
    Storm("f8", NAV, probe_widget="models-table"),
    Storm(
        "f10",
        NAV + FOCUS + ["ctrl+r"],
        probe_widget="align-src",
        probe_keys=["z", "q"],
        setup_key="end backspace backspace",
        done=lambda _s, w: _typed(w),
    ),
    Storm(
        "f1",
        NAV,
        probe_widget="help-text",
        probe_keys=["end"],
        setup_key="home",
        done=lambda _s, w: w.scroll_target_y == w.max_scroll_y > 0,
    ),
]


def storm_keys(storm: Storm) -> list[str]:
    """``storm.seconds`` worth of keys, cycling through the screen's keys (a fixed order)."""
    n = int(storm.seconds * RATE)
    return list(itertools.islice(itertools.cycle(storm.keys), n))


async def answer_time(pilot, storm: Storm, tries: int = 3) -> float:  # type: ignore[no-untyped-def]
    """Seconds from the probe keys to their effect on screen: the best of ``tries`` (one
    slow answer can be the shared machine; a screen still busy with the storm is slow in
    all of them)."""
    app = pilot.app
    screen = app.screen
    widget = screen.query_one(f"#{storm.probe_widget}")
    times = []
    for _ in range(tries):
        widget.focus()
        await send_keys(app, storm.setup_key.split())
        await pilot.pause()
        settle = time.monotonic() + 5  # keys of the storm still queued on a busy machine
        while storm.done(screen, widget) and time.monotonic() < settle:
            await asyncio.sleep(0.01)
        assert not storm.done(screen, widget), f"{storm.key}: the probe would change nothing"
        start = time.monotonic()
        await send_keys(app, storm.probe_keys, rate=1000)
        while not storm.done(screen, widget):
            assert time.monotonic() - start < 5, (
                f"{storm.key}: the probe key had no effect: focused {app.focused!r}"
            )
            await asyncio.sleep(0.005)
        times.append(time.monotonic() - start)
    await send_keys(app, storm.after.split())
    return min(times)


def cpu_seconds(window: float) -> float:
    """This process's CPU time (every thread) over ``window`` seconds of wall time."""
    start = time.process_time()
    time.sleep(window)
    return time.process_time() - start


async def test_every_screen_survives_a_key_storm(
    seeded_model: Path, tmp_path: Path, settle
) -> None:
    engine = SpyEngine()
    app = make_app(engine=engine, theme="textual-dark")
    job = write_job_po(tmp_path / "job.de.po")
    slow: list[str] = []
    async with app.run_test(size=(120, 36)) as pilot:
        for storm in STORMS:
            await pilot.press(storm.key)
            await settle(pilot, 2)
            screen = app.screen
            if isinstance(screen, TranslateScreen):
                screen.query_one("#tr-src", Input).value = "en"
                screen.query_one("#doc-path", Input).value = str(job)
                screen.query_one("#doc-path", Input).focus()
                await pilot.press("enter")
                await settle(pilot, 3)
                screen.query_one("#tr-segments", DataTable).focus()
            for name, value in storm.fields.items():
                screen.query_one(f"#{name}", Input).value = value
                screen.query_one(f"#{name}", Input).focus()
            if storm.fields:
                await pilot.press("enter")
                await settle(pilot, 2)
            keys = storm_keys(storm)
            calls = len(engine.calls)
            half = len(keys) // 2
            await send_keys(app, keys[:half], RATE)
            await pilot.resize_terminal(160, 44 if storm.key != "f9" else 30)
            await send_keys(app, keys[half:], RATE)
            await wait_idle(app, timeout=20)
            await send_keys(app, ["escape"])  # a menu or dialog the storm opened
            await wait_idle(app, timeout=20)
            assert app.screen is screen, f"{storm.key}: a dialog stayed open: {app.screen}"
            took = await answer_time(pilot, storm)
            if took > ANSWER_S:
                slow.append(f"{storm.key}: {took * 1000:.0f} ms")
            if isinstance(screen, TranslateScreen):
                await wait_idle(app)
                last = screen.doc.segments[-1]
                assert screen.result is not None, "the last segment's matches never came"
                detail = str(screen.query_one("#tr-detail", Static).render())
                assert not detail.startswith("looking up"), detail
                assert screen.current == last.index
                # lookups a newer key made stale were cancelled before any engine work, not
                # queued: far fewer than the keys that moved the cursor
                looked_up = [c for c in engine.calls[calls:] if c.startswith("lookup:")]
                assert len(looked_up) < len(keys) / 4, len(looked_up)
            await pilot.resize_terminal(120, 36)
            await settle(pilot, 1)
        assert not slow, f"keys answered slower than {ANSWER_S * 1000:.0f} ms: {slow}"
        await wait_idle(app)
        assert not [w for w in app.workers if w.is_running]
        # idle: a blinking cursor and the clock, not a spinning loop or a worker left behind
        await asyncio.sleep(0.3)
        busy = await asyncio.to_thread(cpu_seconds, 1.0)
        assert busy < 0.15, f"the app used {busy:.2f} s of CPU in 1 s after the storm"
