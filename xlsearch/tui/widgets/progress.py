"""A one-line panel showing a running job: stage, bar, figures, and the job's outcome."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar

from xlsearch.engine.progress import Progress


def format_metrics(metrics: dict[str, Any], keys: tuple[str, ...] | None = None) -> str:
    """``loss 0.123 · pairs/s 1,200 · ETA 1m05s`` from a progress event's metrics."""
    parts = []
    for key, value in metrics.items():
        if keys is not None and key not in keys:
            continue
        if key == "eta_s":
            seconds = int(value)
            parts.append(f"ETA {seconds // 60}m{seconds % 60:02d}s")
        elif isinstance(value, float):
            parts.append(f"{key.replace('_per_s', '/s')} {value:,.4g}")
        else:
            parts.append(f"{key.replace('_per_s', '/s')} {value}")
    return " · ".join(parts)


class JobPanel(Horizontal):
    """Shows the latest ``Progress`` of a job; ``finish`` leaves a one-line summary."""

    DEFAULT_CSS = """
    JobPanel { height: 1; }
    JobPanel > #job-stage { width: 14; }
    JobPanel > ProgressBar { width: 32; }
    JobPanel > #job-info { width: 1fr; color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        yield Label("idle", id="job-stage")
        yield ProgressBar(total=None, show_eta=False, show_percentage=True, id="job-bar")
        yield Label("", id="job-info")

    def on_mount(self) -> None:
        self.query_one(ProgressBar).display = False

    def show(self, progress: Progress, keys: tuple[str, ...] | None = None) -> None:
        """Display one progress event."""
        bar = self.query_one(ProgressBar)
        bar.display = True
        self.query_one("#job-stage", Label).update(progress.stage[:13])
        bar.update(total=progress.total, progress=progress.done)
        info = format_metrics(progress.metrics, keys)
        if progress.message:
            info = f"{progress.message} {info}".strip()
        if progress.total is None:
            info = f"{progress.done:,} {info}"
        self.query_one("#job-info", Label).update(info)

    def finish(self, text: str) -> None:
        """Hide the bar and show ``text``."""
        self.query_one(ProgressBar).display = False
        self.query_one("#job-stage", Label).update("")
        self.query_one("#job-info", Label).update(text)

    @property
    def info_text(self) -> str:
        return str(self.query_one("#job-info", Label).content)
