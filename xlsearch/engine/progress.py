"""Progress events and cancel tokens shared by every long engine job."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xlsearch.engine.errors import CancelledError


@dataclass(frozen=True)
class Progress:
    """One progress report from a long job.

    ``done``/``total`` count the job's own units (sentences, steps, segments); ``total`` is
    None when unknown. ``metrics`` carries job-specific figures (loss, pairs/s, dev accuracy…).
    """

    stage: str
    done: int = 0
    total: int | None = None
    message: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    time: float = field(default_factory=time.monotonic)

    @property
    def fraction(self) -> float | None:
        """Completed fraction in [0, 1], or None when the total is unknown."""
        if not self.total:
            return None
        return min(1.0, self.done / self.total)


ProgressCallback = Callable[[Progress], None]


def no_progress(_: Progress) -> None:
    """A progress callback that ignores every event."""


class CancelToken:
    """A thread-safe flag a UI sets and a long job polls (``raise_if_cancelled``)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the job to stop at its next check."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """True once ``cancel`` was called."""
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``, waking when cancelled; True if cancelled."""
        return self._event.wait(seconds)

    def raise_if_cancelled(self) -> None:
        """Raise ``CancelledError`` if cancellation was requested."""
        if self._event.is_set():
            raise CancelledError("cancelled by the user")


def ensure_token(token: CancelToken | None) -> CancelToken:
    """Return ``token`` or a fresh token that is never cancelled."""
    return token if token is not None else CancelToken()
