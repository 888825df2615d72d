"""``SpyEngine``: the real ``LocalEngine`` that records the calls the UI makes and can slow
its long jobs down (a delay per progress event), for tests of debouncing and cancelling."""

from __future__ import annotations

import time
from typing import Any

from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback
from xlsearch.service.local import LocalEngine


class SpyEngine(LocalEngine):
    """``calls``: ``search:MODE:QUERY``, ``lookup:SEGMENT`` and ``warm_up``, in order."""

    def __init__(self, *args: Any, step_delay: float = 0.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.step_delay = step_delay
        self.calls: list[str] = []

    def _slowed(
        self, on_progress: ProgressCallback | None, cancel: CancelToken | None
    ) -> ProgressCallback | None:
        if not self.step_delay:
            return on_progress

        def report(p: Progress) -> None:
            end = time.monotonic() + self.step_delay
            while time.monotonic() < end and not (cancel and cancel.cancelled):
                time.sleep(0.005)
            if on_progress:
                on_progress(p)

        return report

    def search(self, query: str, mode: Any = "semantic", *args: Any, **kwargs: Any) -> Any:
        self.calls.append(f"search:{mode}:{query}")
        return super().search(query, mode, *args, **kwargs)

    def lookup(self, segment: str, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(f"lookup:{segment}")
        return super().lookup(segment, *args, **kwargs)

    def warm_up(self) -> str:
        self.calls.append("warm_up")
        return super().warm_up()

    def distill(
        self,
        config: Any,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Any:
        return super().distill(config, self._slowed(on_progress, cancel), cancel)
