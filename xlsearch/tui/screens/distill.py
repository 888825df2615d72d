"""Distillation wizard: data, teacher, student, preset → live loss and dev-accuracy curves."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Checkbox, Footer, Header, Input, Label, Select, Static
from textual_plotext import PlotextPlot

from xlsearch.engine.progress import Progress
from xlsearch.service.api import (
    CollectionInfo,
    DistillConfig,
    DistillEstimate,
    DistillResult,
    TsvPreview,
)
from xlsearch.tui.messages import JobDone, JobFailed, JobProgress
from xlsearch.tui.screens.base import EngineScreen, cancel_binding
from xlsearch.tui.widgets.card import format_card
from xlsearch.tui.widgets.progress import JobPanel

SHIPPED_CHOICE = ("your memory on top of the shipped multilingual student", "shipped")
"""The first choice where xlsearch ships a multilingual student (``distill --init shipped``)."""
STUDENTS = [
    ("static (fastest, CPU minutes)", "static"),
    ("teacher copy (transformer)", "teacher"),
    ("checkpoint folder…", "checkpoint"),
]
PRESETS = [("quick (CPU)", "quick"), ("full (GPU)", "full")]
PROGRESS_KEYS = ("epoch", "loss", "dev_acc", "pairs_per_s", "eta_s")
ESTIMATE_DELAY_S = 0.4
"""The estimate is made this long after the last change of the form (typing a number)."""


def default_sts_file() -> str:
    """STS-benchmark's training file under ``$XLSEARCH_BENCH_DATA`` (``dev/stsbenchmark/
    sts-train.csv``) when it is there, else empty (the user names an STS file)."""
    root = os.environ.get("XLSEARCH_BENCH_DATA", "")
    path = Path(root) / "dev" / "stsbenchmark" / "sts-train.csv" if root else None
    return str(path) if path is not None and path.is_file() else ""


PERCENT = (0.0, 100.0)


def axis_range(values: list[float], floor: float | None = None) -> tuple[float, float]:
    """Limits around ``values`` with a little headroom; one value (or equal values) gets a
    range around it instead of a degenerate or exaggerated one; never below ``floor``."""
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.1 if hi > lo else max(abs(hi) * 0.5, 1.0)
    lo, hi = lo - pad, hi + pad
    if floor is not None:
        lo = max(lo, floor)
    return lo, hi


def rising_early(losses: list[tuple[float, float]], total: float) -> bool:
    """True while the loss is above its first value in the first third of a run: normal
    (the learning rate warms up and the embedding table moves fast), which the plot says."""
    if len(losses) < 2 or not total:
        return False
    first = losses[0][1]
    early = [y for x, y in losses if x <= total / 3]
    return bool(early) and max(early) > first * 1.05 and losses[-1][0] <= total / 3


class DistillScreen(EngineScreen):
    """Make a multilingual student from parallel sentences and watch it learn."""

    AUTO_FOCUS = "#pick"
    BINDINGS = [
        Binding("ctrl+r", "start", "Start", priority=True),
        Binding("ctrl+u", "resume", "Resume", priority=True),
        cancel_binding(),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.files: list[str] = []
        self.preview: TsvPreview | None = None
        self.collections: dict[str, CollectionInfo] = {}
        self.losses: list[tuple[float, float]] = []
        self.dev: list[tuple[float, float]] = []
        self.total = 0.0
        """The run's planned steps (both plots share this x-axis)."""
        self.result: DistillResult | None = None
        self.last_config: DistillConfig | None = None
        self.last_collection = ""
        """The collection the last run trained on ('' = TSV files)."""
        self.last_resume = False
        self.can_resume = False
        self._last_plot = 0.0
        self.estimate: DistillEstimate | None = None
        self._estimate_timer: Any = None
        self._estimate_for: DistillConfig | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="distill-form"):
            yield Label(
                "1 · Data: English<TAB>translation TSVs, or your imported TM",
                classes="section-title",
            )
            with Horizontal(classes="row"):
                yield Button("Pick TSV files…", id="pick", compact=True)
                yield Checkbox("use my imported translation memory:", id="use-tm", compact=True)
                yield Select([], prompt="collection", id="tm-collection", compact=True)
            yield Static("no data chosen", id="tsv-preview")
            yield Label("2 · Teacher and student", classes="section-title")
            with Horizontal(classes="row"):
                yield Input(value="bundled:teacher", id="teacher", compact=True)
                yield Select(
                    STUDENTS, value="static", allow_blank=False, id="student", compact=True
                )
                yield Input(placeholder="checkpoint folder", id="checkpoint", compact=True)
            yield Label("3 · Preset (empty fields = preset value)", classes="section-title")
            with Horizontal(classes="row"):
                yield Select(PRESETS, value="quick", allow_blank=False, id="preset", compact=True)
                yield Input(placeholder="epochs", id="epochs", compact=True, type="number")
                yield Input(placeholder="batch", id="batch", compact=True, type="integer")
                yield Input(placeholder="max steps", id="max-steps", compact=True, type="integer")
                yield Input(placeholder="minutes", id="minutes", compact=True, type="number")
                yield Input(placeholder="output name", id="output", compact=True)
            with Horizontal(classes="row"):
                sts_file = default_sts_file()
                yield Checkbox(
                    "calibrate 0–5 STS scores on:",
                    value=bool(sts_file),
                    id="calibrate",
                    compact=True,
                )
                yield Input(
                    value=sts_file,
                    placeholder="STS file with 0–5 human scores (e.g. sts-train.csv)",
                    id="sts-file",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Button("Start (ctrl+r)", variant="primary", id="start", compact=True)
                yield Button("Resume (ctrl+u)", id="resume", compact=True, disabled=True)
                yield Button("Cancel (ctrl+x)", variant="error", id="cancel", compact=True)
                yield Label("device: …", id="device")
            yield Static("time: choose the data first", id="estimate", classes="muted")
        yield JobPanel(id="distill-job")
        with Horizontal(id="distill-plots"):
            yield PlotextPlot(id="loss-plot")
            yield PlotextPlot(id="dev-plot")
        yield Static("", id="model-card")
        yield Footer()

    def on_mount(self) -> None:
        self.show_preset()
        self._draw()
        engine = self.engine
        self.run_query(
            "setup",
            lambda: (
                engine.collections(),
                engine.device_description(),
                any(m.shipped for m in engine.list_models()),
            ),
        )

    # -- data ----------------------------------------------------------------------
    @on(Button.Pressed, "#pick")
    def action_pick(self) -> None:
        from xlsearch.tui.widgets.modals import FilePickerScreen

        def picked(paths: list[str] | None) -> None:
            if paths:
                self.set_files(paths)

        self.app.push_screen(
            FilePickerScreen("Training TSVs (English first column)", ".", (".tsv", ".tsv.gz")),
            picked,
        )

    def set_files(self, paths: list[str]) -> None:
        """Use ``paths`` as training data and preview them."""
        self.files = list(paths)
        self.query_one("#use-tm", Checkbox).value = False
        self.query_one("#tsv-preview", Static).update(f"reading {len(paths)} file(s)…")
        engine = self.engine
        self.run_query("preview", lambda: engine.preview_tsv(paths))

    @on(Select.Changed, "#preset")
    @on(Select.Changed, "#student")
    def show_preset(self) -> None:
        """The preset's values in the fields it fills (as their placeholders: a field left
        empty takes that value)."""
        from xlsearch.service.options import preset_values

        preset = str(self.query_one("#preset", Select).value)
        values = preset_values(preset, str(self.query_one("#student", Select).value))

        def show(value: float | None, unit: str = "") -> str:
            return f"{value:g}{unit}" if value else ""

        minutes = values.get("time_limit_min")
        for field, text in (
            ("#epochs", f"epochs {show(values.get('epochs'))}"),
            ("#batch", f"batch {show(values.get('batch_size'))}"),
            ("#max-steps", "max steps auto"),
            ("#minutes", f"≤ {show(minutes)} min" if minutes else "no time limit"),
        ):
            self.query_one(field, Input).placeholder = text.strip()

    @on(Select.Changed, "#tm-collection")
    def _tm_chosen(self, event: Select.Changed) -> None:
        """Choosing a memory means training on it (the checkbox alone was easy to miss)."""
        if event.value != Select.BLANK:
            self.query_one("#use-tm", Checkbox).value = True
        self._show_tm()
        self.schedule_estimate()

    @on(Input.Changed, "#sts-file")
    def _sts_file_typed(self, event: Input.Changed) -> None:
        """Naming an STS file means calibrating on it."""
        if event.value.strip():
            self.query_one("#calibrate", Checkbox).value = True

    @on(Checkbox.Changed, "#use-tm")
    def _use_tm_changed(self, event: Checkbox.Changed) -> None:
        if event.value:
            self._show_tm()
        elif self.preview is not None and self.files:
            self._show_preview(self.preview)
        else:
            self.query_one("#tsv-preview", Static).update("no data chosen")

    def _show_tm(self) -> None:
        """The preview of training on an imported memory (it said "no data chosen")."""
        if not self.query_one("#use-tm", Checkbox).value:
            return
        name = self.query_one("#tm-collection", Select).value
        info = self.collections.get(str(name)) if name != Select.BLANK else None
        out = Text()
        if info is None:
            out.append("choose the collection to train on", style="bold")
        else:
            out.append(f"collection {info.name} · {info.units:,} units · ", style="bold")
            out.append(f"languages {', '.join(info.languages)}\n")
            if any(lang.split("-")[0] == "en" for lang in info.languages):
                out.append("  its English–other pairs become the training data", style="dim")
            else:
                out.append("  no English side: the teacher is English", style="bold red")
        self.query_one("#tsv-preview", Static).update(out)

    def _show_preview(self, p: TsvPreview) -> None:
        self.preview = p
        out = Text()
        out.append(f"{len(p.files)} file(s) · {p.columns} columns · ", style="bold")
        out.append(f"languages {', '.join(p.languages)} · {p.pairs:,} pairs · ")
        out.append(f"{len(p.bad_lines)} bad lines\n", style="bold red" if p.bad_lines else "")
        # two lines under the summary (the form fits 80×24 with Start and the estimate):
        # a bad line first, then the sample
        bad_lines = p.bad_lines[:1]
        for row in p.sample[: 2 - len(bad_lines)]:
            out.append("  " + " | ".join(cell[:40] for cell in row) + "\n", style="dim")
        for bad in bad_lines:
            out.append(f"  {bad}\n", style="red")
        self.query_one("#tsv-preview", Static).update(out)
        self.schedule_estimate()

    # -- time estimate -------------------------------------------------------------
    @on(Input.Changed, "#epochs, #batch, #max-steps, #minutes, #teacher")
    @on(Select.Changed, "#preset, #student")
    @on(Checkbox.Changed, "#use-tm")
    def schedule_estimate(self) -> None:
        """Estimate the run's time shortly after the form stops changing."""
        if self._estimate_timer is not None:
            self._estimate_timer.stop()
        self._estimate_timer = self.set_timer(ESTIMATE_DELAY_S, self._estimate_now)

    def _estimate_now(self) -> None:
        self._estimate_timer = None
        label = self.query_one("#estimate", Static)
        if self.job_running():
            return
        use_tm = self.query_one("#use-tm", Checkbox).value
        if not self.files and not use_tm:
            label.update("time: choose the data first")
            return
        try:
            config, collection = self.build_config(), self.training_collection()
        except ValueError:
            label.update("time: complete the form for an estimate")
            return
        self._estimate_for = config
        label.update("time: estimating (measuring this machine)…")
        self._estimate_worker(config, collection)

    @work(thread=True, exclusive=True, exit_on_error=False, group="estimate")
    def _estimate_worker(self, config: DistillConfig, collection: str) -> None:
        try:
            found: DistillEstimate | str = self.engine.estimate_distill(
                config, use_collection=collection
            )
        except Exception as exc:  # the run itself names the problem at Start
            found = f"time: no estimate ({exc})"
        self.app.call_from_thread(self._show_estimate, config, found)

    def _show_estimate(self, config: DistillConfig, found: DistillEstimate | str) -> None:
        if config is not self._estimate_for:
            return  # the form changed since
        label = self.query_one("#estimate", Static)
        if isinstance(found, str):
            self.estimate = None
            label.update(found)
            return
        self.estimate = found
        label.update(Text("time: " + found.text))

    # -- run -----------------------------------------------------------------------
    def build_config(self) -> DistillConfig:
        """The wizard's fields as a ``DistillConfig`` (raises ValueError on a bad field); an
        empty number, or 0, is the preset's."""

        def number(selector: str, label: str, kind: type = int) -> Any:
            value = self.query_one(selector, Input).value.strip()
            if not value:
                return None
            try:
                parsed = kind(value)
            except ValueError:
                parsed = -1
            if not 0 <= parsed < float("inf"):
                what = "a whole number" if kind is int else "a number"
                raise ValueError(f"{label}: enter {what} ≥ 0 (empty = the preset's value)")
            return parsed or None

        student = str(self.query_one("#student", Select).value)
        start_from = ""
        if student == SHIPPED_CHOICE[1]:
            student, start_from = "static", "shipped"
        if student == "checkpoint":
            folder = self.query_one("#checkpoint", Input).value.strip()
            if not folder:
                raise ValueError("type the checkpoint folder for the student")
            student = folder if folder.startswith("checkpoint:") else f"checkpoint:{folder}"
        output = self.query_one("#output", Input).value.strip()
        out = output if "/" in output else ""  # a path, else a name in the models folder
        sts_file = ""
        if self.query_one("#calibrate", Checkbox).value:
            sts_file = self.query_one("#sts-file", Input).value.strip()
            if not sts_file:
                raise ValueError(
                    "name the STS file to calibrate 0–5 scores on (e.g. STS-benchmark's "
                    "sts-train.csv), or untick the calibration"
                )
            if not Path(sts_file).expanduser().is_file():
                raise ValueError(f"STS file not found: {sts_file}")
            sts_file = str(Path(sts_file).expanduser())
        return DistillConfig(
            train=[] if self.training_collection() else list(self.files),
            teacher=self.query_one("#teacher", Input).value.strip() or "bundled:teacher",
            student=student,
            preset=str(self.query_one("#preset", Select).value),
            epochs=number("#epochs", "Epochs", float),
            batch_size=number("#batch", "Batch"),
            max_steps=number("#max-steps", "Max steps"),
            time_limit_min=number("#minutes", "Minutes", float),
            out=out,
            name="" if out else output,
            start_from=start_from,
            calibrate_sts=sts_file,
        )

    def training_collection(self) -> str:
        """The imported collection to train on ('' = the TSV files); ValueError when the
        box is ticked and none is chosen."""
        if not self.query_one("#use-tm", Checkbox).value:
            return ""
        collection = self.query_one("#tm-collection", Select).value
        if collection == Select.BLANK:
            raise ValueError("choose the collection to train on")
        return str(collection)

    @on(Button.Pressed, "#start")
    def action_start(self, resume: bool = False) -> None:
        """Start (or resume) a run with the form as typed.

        ctrl+r is a priority key: the app handles it as soon as it arrives, while the keys
        typed just before it may still wait in the focused field's queue (a name typed
        quickly lost its last letters, or all of them). The run then starts from that
        field's queue, after the field has taken every key typed before ctrl+r."""
        focused = self.focused
        if isinstance(focused, Input):
            focused.call_later(self._start, resume)
        else:
            self._start(resume)

    def _start(self, resume: bool = False) -> None:
        if self.job_running():
            self.notify("Training is running; cancel it first (ctrl+x)", title="Busy")
            return
        try:
            config, collection = self.build_config(), self.training_collection()
        except ValueError as exc:
            self.notify(str(exc), title="Check the form", severity="error")
            return
        last = self.last_config
        if resume and last is not None and not (config.out or config.name):
            config = replace(config, out=last.out, name=last.name)
        if not resume:
            self.losses, self.dev, self.total = [], [], 0.0
        self.last_config, self.result, self.can_resume = config, None, False
        self.last_collection, self.last_resume = collection, resume
        self.query_one("#resume", Button).disabled = True
        self.query_one("#model-card", Static).update("")
        self._draw()
        engine = self.engine

        def call(post: Callable[[Progress], None], cancel: Any) -> DistillResult:
            def on_progress(event: Progress) -> None:
                self._record(event)  # every point, even when queued messages coalesce
                post(event)

            return engine.distill(
                config, on_progress, cancel, use_collection=collection, resume=resume
            )

        self.run_job("distill", call)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "resume" and isinstance(self.focused, Input) and not self.can_resume:
            return False  # ctrl+u stays the text field's "delete to start"
        return super().check_action(action, parameters)

    @on(Button.Pressed, "#resume")
    def action_resume(self) -> None:
        if self.can_resume:
            self.action_start(resume=True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.cancel_job("distill")

    # -- messages ------------------------------------------------------------------
    def on_job_progress(self, message: JobProgress) -> None:
        if message.job == "use":
            self.query_one(JobPanel).show(message.progress)
        if message.job != "distill":
            return
        p = message.progress
        self.query_one(JobPanel).show(p, PROGRESS_KEYS)
        now = time.monotonic()
        if now - self._last_plot > 0.25 or p.done == p.total:
            self._last_plot = now
            self._draw()

    def _record(self, p: Progress) -> None:
        """Keep the curves' points (called in the worker thread for every event)."""
        step = float(p.metrics.get("step", p.done))
        if p.total:
            self.total = float(p.total)  # fitted to the time limit as the run goes
        if "loss" in p.metrics:
            self.losses.append((step, float(p.metrics["loss"])))
        if "dev_acc" in p.metrics:
            point = (step, float(p.metrics["dev_acc"]))
            if point not in self.dev:
                self.dev.append(point)

    def _draw(self) -> None:
        for selector, points, title in (
            ("#loss-plot", self.losses, "training loss (MSE)"),
            ("#dev-plot", self.dev, "dev translation accuracy %"),
        ):
            plot = self.query_one(selector, PlotextPlot)
            plt = plot.plt
            plt.clear_data()
            plt.clear_figure()
            if points:
                title += f" · last {points[-1][1]:.4g}"
            if selector == "#loss-plot" and rising_early(self.losses, self.total):
                title += " · rising early: normal (warm-up), watch dev"
            plt.title(title)
            plt.xlabel("step")
            if points:
                xs, ys = [x for x, _ in points], [y for _, y in points]
                if len(points) == 1:
                    plt.scatter(xs, ys, marker="●")
                else:
                    plt.plot(xs, ys, marker="braille")
                # one x-axis for both plots: step 0 to the run's planned steps
                last = max([x for x, _ in self.losses] + [x for x, _ in self.dev] + [1.0])
                plt.xlim(0.0, max(self.total, last))
                plt.ylim(*(PERCENT if selector == "#dev-plot" else axis_range(ys, floor=0.0)))
            plot.refresh()

    def on_job_done(self, message: JobDone) -> None:
        if message.job == "setup":
            collections, device, shipped = message.result
            self.query_one("#device", Label).update(f"device: {device}")
            if shipped:  # continuing the shipped student comes first
                student = self.query_one("#student", Select)
                student.set_options([SHIPPED_CHOICE, *STUDENTS])
                student.value = SHIPPED_CHOICE[1]
            self.collections = {c.name: c for c in collections}
            select = self.query_one("#tm-collection", Select)
            select.set_options([(c.name, c.name) for c in collections])
        elif message.job == "preview":
            self._show_preview(message.result)
        elif message.job == "distill":
            self.result = message.result
            for h in self.result.history:
                if "dev_acc" in h:
                    self._record(Progress("eval", int(h.get("step", 0)), metrics=h))
            self._draw()
            if self.result.cancelled:
                self._cancelled(f"cancelled; checkpoint kept in {self.result.run_dir}")
            self.query_one(JobPanel).finish(
                f"saved {self.result.out}"
                + (" (cancelled; resume with ctrl+u)" if self.result.cancelled else "")
            )
            card = Text(f"{self.result.out}\n", style="bold")
            card.append_text(format_card(self.result.card))
            self.query_one("#model-card", Static).update(card)
            self.schedule_estimate()  # this run's rates are the machine's now
            if not self.result.cancelled:
                engine, path = self.engine, str(self.result.out)
                self.run_query("cost", lambda: (path, engine.reindex_cost(path)))
        elif message.job == "cost":
            self.offer_switch(*message.result)
        elif message.job == "use":
            spec, indexed = message.result
            self.query_one(JobPanel).finish(
                f"searching with {spec.rstrip('/').split('/')[-1]}; "
                f"indexed {len(indexed)} collection(s)"
            )
            self.app.warm_up()  # type: ignore[attr-defined]

    def offer_switch(self, path: str, cost: tuple[int, int]) -> None:
        """Ask whether to search with the new student now (never switches by itself)."""
        from xlsearch.tui.widgets.modals import ConfirmScreen

        segments, collections = cost
        name = path.rstrip("/").split("/")[-1]
        work = (
            f"Switching re-indexes {segments:,} segments in {collections} collection(s) now."
            if segments
            else "No re-indexing needed."
        )

        def answer(yes: bool | None) -> None:
            if yes:
                engine = self.engine

                def use(on_progress: Callable[[Progress], None], cancel: Any) -> Any:
                    spec = engine.set_active_model(path)
                    done = [
                        engine.build_index(c.name, spec, on_progress, cancel).collection
                        for c in engine.collections()
                        if c.segments
                    ]
                    return spec, done

                self.run_job("use", use)
            else:
                self.notify(
                    "The active model is unchanged; switch any time in Models (f8, a)",
                    title="Not switched",
                    timeout=6,
                )

        self.app.push_screen(ConfirmScreen(f"Search with {name} now? {work}"), answer)

    def on_job_failed(self, message: JobFailed) -> None:
        if message.job == "preview":
            self.query_one("#tsv-preview", Static).update(
                Text(f"{message.title}: {message.message}", style="red")
            )
        elif message.job == "use":
            self.query_one(JobPanel).finish(f"{message.title}: {message.message}")
        elif message.job == "distill":
            self._draw()
            if message.cancelled:
                self._cancelled(message.message)
            self.query_one(JobPanel).finish(
                f"{message.message} — resume with ctrl+u"
                if message.cancelled
                else f"{message.title}: {message.message}"
            )

    def _cancelled(self, why: str) -> None:
        self.can_resume = True
        self.query_one("#resume", Button).disabled = False
        self.notify(f"{why} — resume with ctrl+u", title="Training stopped", timeout=6)

    def commands(self) -> list[tuple[str, str, Any]]:
        return [
            ("Distill: pick training TSVs", "English<TAB>translation files", self.action_pick),
            ("Distill: start training", "with the wizard's settings", self.action_start),
            ("Distill: cancel training", "keeps a checkpoint", self.action_cancel),
            ("Distill: resume training", "from the last checkpoint", self.action_resume),
        ]
