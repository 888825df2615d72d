"""Pilot helpers of the UI tests."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from textual.widgets import DirectoryTree
from textual.worker import WorkerCancelled

if TYPE_CHECKING:
    from xlsearch.tui.screens.translate import TranslateScreen

OpenTranslate = Callable[..., AbstractAsyncContextManager[tuple[Any, "TranslateScreen"]]]
"""The ``translate`` fixture (tests/tui/conftest.py): opens a job on the Translate screen."""


async def settle(pilot: Any, times: int = 2) -> None:
    """Let timers fire, the engine's workers finish and their messages be handled, ``times``
    over. A worker a newer one replaced (an older lookup) ends cancelled: that is fine. The
    file picker's directory loader never ends, so it is not waited for."""
    for _ in range(times):
        await pilot.pause()
        workers = [w for w in pilot.app.workers if not isinstance(w.node, DirectoryTree)]
        if workers:  # (an empty list would mean "all", the tree's endless loader included)
            with contextlib.suppress(WorkerCancelled):
                await pilot.app.workers.wait_for_complete(workers)
        await pilot.pause()


async def wait_estimate(pilot: Any, screen: Any, source: str, pairs: int) -> Any:
    """The distillation wizard's time estimate for ``pairs`` pairs from ``source``
    (``reference`` or ``measured``), waited for: it comes a moment after the form stops
    changing."""
    for _ in range(200):
        await pilot.pause(0.05)
        found = screen.estimate
        if found is not None and (found.source, found.pairs) == (source, pairs):
            return found
    raise AssertionError(str(screen.query_one("#estimate").content))
