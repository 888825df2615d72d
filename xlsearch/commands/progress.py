"""The CLI's progress display: rich's live bars on a terminal, plain lines otherwise.

Engine jobs report ``Progress`` events (stage, done, total, metrics); this turns them into a
width-aware bar with an ETA. Where a job knows its remaining work better than a rate does
(the teacher cache encodes longest sentences first), its ``metrics["eta_s"]`` is shown instead
of rich's rate-based estimate. ``plan`` and ``notice`` events become lines of their own.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress as RichProgress

LINE_STAGES = ("plan", "notice")
"""Stages printed as lines of their own instead of a bar."""
PLAIN_INTERVAL = 10.0
"""Seconds between plain progress lines of one stage (a log, not a redraw)."""
METRICS_SHOWN = 4


def _fmt_seconds(seconds: float) -> str:
    seconds = int(max(0, seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def format_metrics(metrics: dict[str, Any], limit: int = METRICS_SHOWN) -> str:
    """``loss=0.123 pairs_per_s=812`` for the first ``limit`` metrics (ETA left out)."""
    parts = []
    for key, value in metrics.items():
        if key in ("eta_s", "step"):
            continue
        parts.append(f"{key}={value:.4g}" if isinstance(value, float) else f"{key}={value}")
        if len(parts) == limit:
            break
    return " ".join(parts)


@cache
def _eta_column() -> type:
    """The ETA column class (rich is imported on first use: a lookup shows no bar)."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class EtaColumn(ProgressColumn):
        """The job's own ETA (``eta`` field) when it gave one, else rich's rate estimate."""

        def render(self, task: Any) -> Text:
            eta = task.fields.get("eta")
            if eta is None:
                eta = task.time_remaining
            if task.finished or eta is None:
                return Text("", style="progress.remaining")
            return Text(f"ETA {_fmt_seconds(eta)}", style="progress.remaining")

    return EtaColumn


class ProgressDisplay:
    """A callable ``on_progress`` for engine jobs; use it via ``progress_display()``."""

    def __init__(self, console: Console | None = None, live: bool | None = None) -> None:
        self._console = console
        self._live = live
        self._rich: RichProgress | None = None
        self._tasks: dict[str, Any] = {}
        self._plain: dict[str, float] = {}
        self._plain_done: set[str] = set()

    @property
    def console(self) -> Console:
        """rich's console on stderr, made on the first event (importing rich costs a fresh
        process tens of milliseconds, and most lookups and searches show no progress)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True, highlight=False)
        return self._console

    @property
    def live(self) -> bool:
        """Live bars on a terminal, plain lines otherwise."""
        if self._live is None:
            self._live = self.console.is_terminal
        return self._live

    # -- rich (terminal) ------------------------------------------------------------
    def _progress(self) -> RichProgress:
        if self._rich is None:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                SpinnerColumn,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
            )
            from rich.progress import Progress as RichProgress
            from rich.table import Column

            self._rich = RichProgress(
                SpinnerColumn(),
                TextColumn(
                    "[bold]{task.description}",
                    table_column=Column(no_wrap=True, overflow="ellipsis"),
                ),
                BarColumn(bar_width=24),
                TaskProgressColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                _eta_column()(),
                TextColumn(
                    "{task.fields[extra]}",
                    style="dim",
                    table_column=Column(ratio=1, no_wrap=True, overflow="ellipsis"),
                ),
                console=self.console,
                transient=False,
                expand=True,
                refresh_per_second=5,
            )
            self._rich.start()
        return self._rich

    def _update_rich(self, event: Any) -> None:
        progress = self._progress()
        task = self._tasks.get(event.stage)
        extra = " ".join(x for x in (format_metrics(event.metrics), event.message) if x)
        if task is None:
            for other in self._tasks.values():  # a new stage finishes the previous ones
                t = progress.tasks[other]
                if t.total is not None and not t.finished:
                    progress.update(other, completed=t.completed)
            task = progress.add_task(
                event.stage, total=event.total, completed=event.done, extra=extra, eta=None
            )
            self._tasks[event.stage] = task
        progress.update(
            task,
            completed=event.done,
            total=event.total,
            extra=extra,
            eta=event.metrics.get("eta_s"),
        )

    # -- plain lines (pipes, CI logs) -----------------------------------------------
    def _update_plain(self, event: Any) -> None:
        now = time.monotonic()
        final = event.total is not None and event.done >= event.total
        last = self._plain.get(event.stage)
        if event.stage in self._plain_done and final:
            return
        if last is not None and not final and now - last < PLAIN_INTERVAL:
            return
        self._plain[event.stage] = now
        if final:
            self._plain_done.add(event.stage)
        count = f"{event.done:,}/{event.total:,}" if event.total else f"{event.done:,}"
        pct = f" {100 * event.fraction:.0f}%" if event.fraction is not None else ""
        eta = event.metrics.get("eta_s")
        parts = [f"{event.stage}: {count}{pct}"]
        if eta is not None and not final:
            parts.append(f"ETA {_fmt_seconds(eta)}")
        for x in (format_metrics(event.metrics), event.message):
            if x:
                parts.append(x)
        self.console.print("  ".join(parts), soft_wrap=True, markup=False)

    def __call__(self, event: Any) -> None:
        if event.stage in LINE_STAGES:
            prefix = "notice: " if event.stage == "notice" else "plan: "
            text = event.message
            if event.stage == "plan" and event.total:
                text += f" for {event.total:,} segments"
            self.print(prefix + text)
            return
        if self.live:
            self._update_rich(event)
        else:
            self._update_plain(event)

    def print(self, text: str) -> None:
        """A line above the bars (or in the plain log)."""
        target = self._rich.console if self._rich is not None else self.console
        target.print(text, soft_wrap=True, markup=False, highlight=False)

    def close(self) -> None:
        """Stop the live display (bars stay on screen as they ended)."""
        if self._rich is not None:
            self._rich.stop()
            self._rich = None
            self._tasks.clear()


class NoticeLines:
    """The ``-q`` display: no bars, but ``notice`` events (say, a collection indexed on the
    spot) still print their one line on stderr, so a long silence is explained."""

    def __call__(self, event: Any) -> None:
        if event.stage == "notice":
            print(f"notice: {event.message}", file=sys.stderr, flush=True)

    def close(self) -> None:
        """Nothing to stop."""


@contextmanager
def progress_display(quiet: bool = False) -> Iterator[Any]:
    """``with progress_display() as bar: job(on_progress=bar)``; ``quiet`` shows nothing."""
    if quiet:
        yield None
        return
    display = ProgressDisplay()
    try:
        yield display
    finally:
        display.close()
