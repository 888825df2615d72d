"""The xlsearch Textual application: one mode per screen, the engine behind an ``EngineAPI``."""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen

from xlsearch.tui.serve_page import SNAPSHOT_ENV

if TYPE_CHECKING:
    from xlsearch.service import EngineAPI

WIDE_FOOTER = 140
"""Terminal width from which the footer names every screen key."""
READY_ENV = "XLSEARCH_EXIT_WHEN_READY"
"""When set to a file path, the app writes (JSON) the wall-clock time the search screen became
interactive and which heavy modules were loaded by then, and exits (``bench/startup.py``)."""

SNAPSHOT_DELAYS_S = (0.2, 1.5)
"""After the first screen is ready, when its screenshot is saved for ``xlsearch serve``: soon
(its filters and model name shown), and again when a busy machine has drawn the rest."""

LIGHT_THEME = "textual-light"
DARK_THEME = "textual-dark"

# mode → (key, title, help, "module:Class"); screens are imported on first use.
SCREENS: dict[str, tuple[str, str, str, str]] = {
    "search": ("f2", "Search", "Search your corpus in any language", "search:SearchScreen"),
    "compare": ("f3", "Compare", "Sentence similarity (STS), one vs many", "compare:CompareScreen"),
    "corpus": ("f4", "Corpus", "Collections, import, index status", "corpus:CorpusScreen"),
    "distill": ("f5", "Distill", "Train a multilingual student model", "distill:DistillScreen"),
    "evaluate": ("f6", "Evaluate", "Benchmark a model", "evaluate:EvaluateScreen"),
    "mine": ("f7", "Mine", "Find translation pairs in two languages", "mining:MiningScreen"),
    "models": ("f8", "Models", "Model cards, choose the active model", "models:ModelsScreen"),
    "align": ("f10", "Align", "Align a document and its translation", "align:AlignScreen"),
    "translate": (
        "f9",
        "Translate",
        "Translate a document with your memory",
        "translate:TranslateScreen",
    ),
    "help": ("f1", "Help", "Key bindings", "help:HelpScreen"),
}


def _loader(target: str, title: str) -> Callable[[], Screen[Any]]:
    module, cls = target.split(":")

    def load() -> Screen[Any]:
        screen: Screen[Any] = getattr(
            importlib.import_module(f"xlsearch.tui.screens.{module}"), cls
        )()
        screen.sub_title = title  # the header names the screen (the footer may not)
        return screen

    return load


class XLSearchApp(App[None]):
    """Cross-lingual search in the terminal."""

    TITLE = "xlsearch"
    CSS_PATH = "xlsearch.tcss"
    MODES = {mode: _loader(target, title) for mode, (_k, title, _h, target) in SCREENS.items()}
    DEFAULT_MODE = "search"
    BINDINGS = [
        *(
            Binding(key, f"switch_mode('{mode}')", title, priority=True)
            for mode, (key, title, _h, _t) in SCREENS.items()
        ),
        Binding("ctrl+t", "toggle_theme", "Theme", show=False),
    ]

    def __init__(
        self,
        engine: EngineAPI | None = None,
        query: str = "",
        theme: str | None = None,
    ) -> None:
        super().__init__()
        if engine is None:
            from xlsearch.service import make_engine

            engine = make_engine()
        self.engine = engine
        self.initial_query = query
        self._fixed_theme = theme is not None
        self._wide_footer: bool | None = None
        self.stopped_by: int | None = None
        """The signal that closed the app, if one did."""
        self.unsaved_checks: list[Callable[[], str | None]] = []
        """Screens holding a user's unsaved work: each names its document, or None."""
        self._quit_warned_until = 0.0
        wanted = theme or _saved_theme()
        self.theme = wanted if wanted in self.available_themes else DARK_THEME

    async def action_quit(self) -> None:
        """Quit; when a document holds unsaved translations, the first ctrl+q says so and a
        second one (within 10 s) quits without saving."""
        if time.monotonic() > self._quit_warned_until:
            names = [name for check in self.unsaved_checks if (name := check())]
            if names:
                self._quit_warned_until = time.monotonic() + 10
                self.notify(
                    f"{', '.join(names)} has translations that are not saved: ctrl+s on the "
                    "Translate screen saves them; ctrl+q again quits without saving.",
                    title="Unsaved translations",
                    severity="warning",
                    timeout=10,
                )
                return
        self.exit()

    def on_mount(self) -> None:
        self.fit_footer(self.size.width)
        self.warm_up()  # while the first screen is built: the model is ready sooner

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, taking the stop signals over once it has set its own up."""
        base = super().get_driver_class()
        app = self

        class StopSignalDriver(base):  # type: ignore[valid-type,misc]
            def start_application_mode(self) -> None:
                super().start_application_mode()
                app._catch_stop_signals()

        return StopSignalDriver

    def _catch_stop_signals(self) -> None:
        """SIGTERM, SIGHUP and SIGINT (``kill``, a closed terminal or browser session) close
        the app as its quit key does; a worker still busy (the model loading) cannot hold the
        process up: it ends within seconds (xlsearch/service/shutdown.py)."""
        import asyncio
        import signal

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            try:
                loop.add_signal_handler(sig, self._stop_signal, sig)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
                return

    def _stop_signal(self, signum: int) -> None:
        from xlsearch.service import shutdown

        shutdown.arm(signum)
        self.stopped_by = signum
        self.exit(return_code=128 + signum)

    async def _shutdown(self) -> None:
        """Textual's shutdown (the terminal is restored by then); after a stop signal the
        process ends here instead of waiting for a worker thread (a model still loading)."""
        await super()._shutdown()
        if self.stopped_by is not None:
            import sys

            from xlsearch.service import shutdown

            print(shutdown.stopped_line(self.stopped_by), file=sys.stderr)
            shutdown.exit_now(128 + self.stopped_by)

    def on_resize(self, event: events.Resize) -> None:
        self.fit_footer(event.size.width)

    def fit_footer(self, width: int) -> None:
        """Below ``WIDE_FOOTER`` columns the footer shows "f2…f10 Screens" instead of one key
        per screen, so a screen's own keys and f1 Help always fit (the keys all still work)."""
        wide = width >= WIDE_FOOTER
        if wide == self._wide_footer:
            return
        self._wide_footer = wide
        keys = self._bindings.key_to_bindings
        for key, bindings in keys.items():
            keys[key] = [_fit(b, wide) for b in bindings]
        self.refresh_bindings()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The built-in commands plus one "Open …" command per screen."""
        yield from super().get_system_commands(screen)
        for mode, (key, title, help_text, _t) in SCREENS.items():
            yield SystemCommand(
                f"Open {title}", f"{help_text} ({key})", partial(self.switch_mode, mode)
            )
        yield SystemCommand("Toggle light/dark theme", "ctrl+t", self.action_toggle_theme)
        commands = getattr(screen, "commands", None)
        if callable(commands):
            for title, help_text, callback in commands():
                yield SystemCommand(title, help_text, callback)

    def action_toggle_theme(self) -> None:
        """Switch between the light and the dark theme and remember the choice."""
        self.theme = DARK_THEME if self.theme == LIGHT_THEME else LIGHT_THEME
        if not self._fixed_theme:
            from xlsearch.service.shared import save_theme

            save_theme(self.theme)

    def screen_ready(self) -> None:
        """Called by the first screen once it can take input: the start-up benchmark hook.
        (The active model loads in the background from ``on_mount``, so the first semantic
        search finds it loaded.)"""
        if os.environ.get(SNAPSHOT_ENV):  # a waiting app of `xlsearch serve`
            for delay in SNAPSHOT_DELAYS_S:  # soon, then again once all is drawn
                self.set_timer(delay, self.save_first_screen)
        target = os.environ.get(READY_ENV)
        if target:
            import json
            import sys

            heavy = {name: name in sys.modules for name in ("torch", "faiss", "transformers")}
            with open(target, "w", encoding="utf-8") as fh:
                json.dump({"time": time.time(), "loaded": heavy}, fh)
            self.exit()

    def save_first_screen(self, tries: int = 40) -> None:
        """Save an SVG screenshot of the screen where ``SNAPSHOT_ENV`` says (atomically):
        ``xlsearch serve``'s page shows it until the live terminal draws. The footer lays
        its keys out in later refreshes: until they are drawn, a moment later (``tries``)."""
        target = os.environ.get(SNAPSHOT_ENV)
        if not target:
            return
        keys = self.screen.query("FooterKey")
        if tries and (not keys or not any(k.region.width for k in keys)):
            self.set_timer(0.05, partial(self.save_first_screen, tries - 1))
            return
        self.call_after_refresh(self._write_screenshot, target)

    def _write_screenshot(self, target: str) -> None:
        part = f"{target}.part"
        with open(part, "w", encoding="utf-8") as fh:
            fh.write(self.export_screenshot(title="xlsearch"))
        os.replace(part, target)

    def warm_up(self) -> None:
        """Load the active model (and open its indexes) in a thread worker."""
        warm = getattr(self.engine, "warm_up", None)
        if callable(warm):
            self.run_worker(warm, thread=True, group="warm-up", exclusive=True, exit_on_error=False)


def _fit(binding: Binding, wide: bool) -> Binding:
    """``binding`` as the footer shows it at this width (screen keys only; see fit_footer)."""
    if not binding.action.startswith("switch_mode(") or binding.key == "f1":
        return binding
    if binding.key == "f2":
        return replace(
            binding,
            show=True,
            description=SCREENS["search"][1] if wide else "Screens",
            key_display=None if wide else "f2…f10",
        )
    return replace(binding, show=wide)


def _saved_theme() -> str:
    from xlsearch.service.shared import saved_theme

    return saved_theme(DARK_THEME)


def make_app(
    engine: EngineAPI | None = None, query: str = "", theme: str | None = None
) -> XLSearchApp:
    """Build the app (default: ``LocalEngine``); tests pass their engine and a fixed theme."""
    return XLSearchApp(engine=engine, query=query, theme=theme)


def run_app(query: str = "", engine: EngineAPI | None = None) -> int:
    """Run the app in the terminal (headless when ``XLSEARCH_EXIT_WHEN_READY`` is set); the
    exit status (128 + the signal when one closed it)."""
    import signal

    app = make_app(engine=engine, query=query)
    stops = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
    previous = {sig: signal.getsignal(sig) for sig in stops}
    for sig in stops:  # until the app's driver has started (StopSignalDriver)
        signal.signal(sig, partial(_early_stop, app))
    try:
        app.run(headless=bool(os.environ.get(READY_ENV)))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if app.stopped_by is not None:
        import sys

        from xlsearch.service.shutdown import stopped_line

        print(stopped_line(app.stopped_by), file=sys.stderr)
    return app.return_code or 0


def _early_stop(app: XLSearchApp, signum: int, frame: object) -> None:
    """A stop signal while the app starts: close it once its loop runs, else stop at once."""
    import asyncio

    from xlsearch.service import shutdown

    shutdown.arm(signum)
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # the loop is not running yet
        raise shutdown.Terminated(signum) from None
    app.stopped_by = signum
    loop.call_soon_threadsafe(partial(app.exit, return_code=128 + signum))
