"""``SpyEngine``: the real ``LocalEngine`` that records the calls the UI makes and can slow
its long jobs down (a delay per progress event), for tests of debouncing and cancelling."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback
from xlsearch.service.local import LocalEngine


class SpyEngine(LocalEngine):
    """``calls``: ``search:MODE:QUERY``, ``lookup:SEGMENT``, ``warm_up`` and ``collections``, in
    order."""

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

    def collections(self) -> Any:
        self.calls.append("collections")
        return super().collections()

    def distill(
        self,
        config: Any,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        **kw: Any,
    ) -> Any:
        return super().distill(config, self._slowed(on_progress, cancel), cancel, **kw)


class PictureEngine(SpyEngine):
    """For snapshot pictures: what changes from run to run and from machine to machine is
    shown as fixed text: the temporary folders (``places``: folder → its label), the clock,
    the CPU's thread count. A finished distillation's path and card are otherwise the real
    ones (``reindex_cost`` takes the shown path back)."""

    CREATED = "2026-11-20T00:00:00"

    def __init__(self, places: dict[str, str], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.places = sorted(places.items(), key=lambda kv: -len(kv[0]))

    def _steady(self, value: Any) -> Any:
        if isinstance(value, str):
            for folder, label in self.places:
                value = value.replace(folder, label)
            return value
        if isinstance(value, dict):
            return {k: self._steady(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._steady(v) for v in value]
        return value

    def device_description(self) -> str:
        return "CPU"

    def estimate_distill(self, config: Any, **kwargs: Any) -> Any:
        """A fixed estimate: the real one depends on the machine and its load."""

        found = super().estimate_distill(config, **kwargs)
        text = f"about 1 min (25 s–2 min) · {found.pairs:,} pairs, {found.steps:,} steps · "
        return replace(found, seconds=60.0, low=25.0, high=120.0, text=text + "(a picture)")

    def reindex_cost(self, spec: str) -> tuple[int, int]:
        for folder, label in self.places:
            spec = spec.replace(label, folder)
        return super().reindex_cost(spec)

    def preview_tsv(self, paths: Any) -> Any:
        found = super().preview_tsv(paths)
        return replace(
            found, files=self._steady(found.files), bad_lines=self._steady(found.bad_lines)
        )

    def distill(
        self,
        config: Any,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        **kw: Any,
    ) -> Any:
        result = super().distill(config, on_progress, cancel, **kw)
        card = self._steady(result.card) | ({"created": self.CREATED} if result.card else {})
        out, run_dir = (Path(self._steady(str(p))) for p in (result.out, result.run_dir))
        return replace(result, out=out, run_dir=run_dir, card=card)
