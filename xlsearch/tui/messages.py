"""Messages that carry engine job progress, results and errors from workers to screens."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from xlsearch.engine.progress import Progress


class JobProgress(Message):
    """A progress event of job ``job``; a newer one replaces a still-queued older one."""

    def __init__(self, job: str, progress: Progress) -> None:
        super().__init__()
        self.job = job
        self.progress = progress

    def can_replace(self, message: Message) -> bool:
        """Drop this event when a newer one of the same job and stage is already queued.

        An event whose metrics hold a key the newer one lacks (e.g. a dev-accuracy figure
        between training steps) is kept, so curves never lose their rarer points.
        """
        return (
            isinstance(message, JobProgress)
            and message.job == self.job
            and message.progress.stage == self.progress.stage
            and set(self.progress.metrics) <= set(message.progress.metrics)
        )

    def __repr__(self) -> str:
        return f"JobProgress({self.job!r}, {self.progress.done}/{self.progress.total})"


class JobDone(Message):
    """Job ``job`` finished with ``result``."""

    def __init__(self, job: str, result: Any) -> None:
        super().__init__()
        self.job = job
        self.result = result

    def __repr__(self) -> str:
        return f"JobDone({self.job!r})"


class JobFailed(Message):
    """Job ``job`` stopped with an error (``cancelled`` when the user stopped it)."""

    def __init__(self, job: str, title: str, message: str, *, cancelled: bool = False) -> None:
        super().__init__()
        self.job = job
        self.title = title
        self.message = message
        self.cancelled = cancelled

    def __repr__(self) -> str:
        return f"JobFailed({self.job!r}, {self.title!r}, cancelled={self.cancelled})"
