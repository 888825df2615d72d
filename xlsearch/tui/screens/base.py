"""The base of every screen: engine access and thread workers that report through messages."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input
from textual.worker import Worker, get_current_worker

from xlsearch.engine.errors import CancelledError, XLSearchError
from xlsearch.engine.progress import CancelToken, Progress
from xlsearch.tui.messages import JobDone, JobFailed, JobProgress

if TYPE_CHECKING:
    from xlsearch.service import EngineAPI

log = logging.getLogger("xlsearch.tui")

EngineCall = Callable[[Callable[[Progress], None], CancelToken], Any]
"""``call(on_progress, cancel) -> result``: one engine call made inside a worker."""


def execute(node: Screen[Any], job: str, call: EngineCall, token: CancelToken) -> None:
    """Run ``call`` in the current worker thread and post its outcome to ``node`` as messages.

    The worker's cancellation (user cancel, or an exclusive newer worker) sets ``token`` at the
    next progress event; a superseded worker's result is dropped. Errors never escape: they
    travel as ``JobFailed`` with the error's title.
    """
    worker = get_current_worker()

    def on_progress(progress: Progress) -> None:
        if worker.is_cancelled:
            token.cancel()
            return
        node.post_message(JobProgress(job, progress))

    try:
        result = call(on_progress, token)
    except CancelledError as exc:
        if not worker.is_cancelled:  # a superseded worker stops without a word
            node.post_message(JobFailed(job, exc.title, str(exc), cancelled=True))
        return
    except XLSearchError as exc:
        from xlsearch.tui.hints import for_app

        controls = getattr(node, "CONTROLS", None)
        node.post_message(JobFailed(job, exc.title, for_app(str(exc), controls)))
        return
    except Exception as exc:  # noqa: BLE001 - shown as a notification, never a traceback
        from xlsearch.service.shared import user_error

        known = user_error(exc)  # a full disk, a damaged store: the fault and its fix
        if known is not None:
            node.post_message(JobFailed(job, known.title, str(known)))
            return
        log.exception("job %s failed", job)
        node.post_message(JobFailed(job, "Unexpected error", f"{type(exc).__name__}: {exc}"))
        return
    if worker.is_cancelled:
        return  # superseded by a newer exclusive worker: its result is stale
    node.post_message(JobDone(job, result))


def cancel_binding(description: str = "Cancel") -> Binding:
    """ctrl+x → ``action_cancel`` from any focus: a priority key, so a text field's "cut" does
    not swallow it while a job runs (with nothing running, a focused field keeps its cut).
    ``EngineScreen`` adds escape, which cancels a running job too (and otherwise does what
    it does in the focused widget)."""
    return Binding("ctrl+x", "cancel", description, priority=True)


ESCAPE_CANCELS = Binding("escape", "cancel_running", "Cancel", show=False, priority=True)
"""escape → the screen's ``action_cancel`` while its long job runs, as ctrl+x."""


class EngineScreen(Screen[None]):
    """A screen whose engine calls run in exclusive thread workers.

    ``run_job`` is for long, cancellable work (one at a time per screen); ``run_query`` for
    quick reads such as refreshing a list (one at a time, independent of the long job).
    Subclasses handle ``JobProgress`` / ``JobDone`` / ``JobFailed`` for their job names; this
    base shows every failure as a titled notification and keeps a message log for tests.
    """

    BINDINGS = [ESCAPE_CANCELS]

    def __init__(self) -> None:
        super().__init__()
        self.tokens: dict[str, CancelToken] = {}
        self.message_log: list[str] = []

    @property
    def engine(self) -> EngineAPI:
        return self.app.engine  # type: ignore[attr-defined,no-any-return]

    def show_model(self) -> None:
        """Name the model in use in the header (``Search · model NAME``): the screens whose
        results depend on it."""
        from xlsearch.service.coverage import display_name

        base = (self.sub_title or "").split(" · model ")[0]
        try:
            name = display_name(self.engine.active_model())
        except XLSearchError:
            return
        self.sub_title = f"{base} · model {name}" if base else f"model {name}"

    def run_job(self, job: str, call: EngineCall) -> Worker[None]:
        """Start a long job (replacing this screen's running long job, if any: its token is
        cancelled, so its thread stops at the next safe point instead of running on)."""
        for old in self.tokens.values():
            old.cancel()
        token = CancelToken()
        self.tokens[job] = token
        return self._job_worker(job, call, token)

    def run_query(self, job: str, call: Callable[[], Any]) -> Worker[None]:
        """Start a quick engine read whose result arrives as ``JobDone(job, result)``."""
        token = CancelToken()
        return self._query_worker(job, lambda _p, _c: call(), token)

    @work(thread=True, exclusive=True, exit_on_error=False, group="job")
    def _job_worker(self, job: str, call: EngineCall, token: CancelToken) -> None:
        execute(self, job, call, token)

    @work(thread=True, exclusive=True, exit_on_error=False, group="query")
    def _query_worker(self, job: str, call: EngineCall, token: CancelToken) -> None:
        execute(self, job, call, token)

    def cancel_job(self, job: str) -> bool:
        """Ask job ``job`` to stop (the engine keeps what it can, e.g. a checkpoint)."""
        token = self.tokens.get(job)
        if token is None or token.cancelled or not self.job_running():
            return False
        token.cancel()
        self.notify("Stopping at the next safe point…", title="Cancelling", timeout=3)
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel" and isinstance(self.focused, Input) and not self.job_running():
            return False  # nothing to stop: ctrl+x stays the text field's "cut"
        if action == "cancel_running":
            return self.job_running() and hasattr(self, "action_cancel")
        return True

    def action_cancel_running(self) -> None:
        """escape while a long job runs: what ctrl+x does (``action_cancel``)."""
        cancel = getattr(self, "action_cancel", None)
        if cancel is not None:
            cancel()

    def job_running(self) -> bool:
        """True while this screen's long job is running."""
        return any(w.node is self and w.group == "job" and w.is_running for w in self.workers)

    def on_job_progress(self, message: JobProgress) -> None:
        message.stop()

    def on_job_done(self, message: JobDone) -> None:
        self.message_log.append(repr(message))
        message.stop()

    def on_job_failed(self, message: JobFailed) -> None:
        self.message_log.append(repr(message))
        message.stop()
        self.notify(
            message.message,
            title=message.title,
            severity="warning" if message.cancelled else "error",
            timeout=8,
        )
