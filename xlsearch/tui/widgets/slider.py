"""A keyboard- and mouse-driven slider for one float value."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget


class Slider(Widget, can_focus=True):
    """``low ━━━━●──── high``; left/right (or -/+) step, home/end jump, click sets."""

    DEFAULT_CSS = """
    Slider { height: 1; width: 1fr; }
    Slider:focus { text-style: bold; }
    """
    BINDINGS = [
        Binding("left,minus", "step(-1)", "Lower", show=False),
        Binding("right,plus,equals_sign", "step(1)", "Raise", show=False),
        Binding("home", "jump(0)", show=False),
        Binding("end", "jump(1)", show=False),
    ]

    value: reactive[float] = reactive(0.0)

    class Changed(Message):
        """The slider's value changed."""

        def __init__(self, slider: Slider, value: float) -> None:
            super().__init__()
            self.slider = slider
            self.value = value

        @property
        def control(self) -> Slider:
            return self.slider

    def __init__(
        self, low: float, high: float, value: float, step: float, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.low, self.high, self.step = low, high, step
        self.set_reactive(Slider.value, self._clamp(value))

    def _clamp(self, value: float) -> float:
        steps = round((value - self.low) / self.step)
        return round(min(self.high, max(self.low, self.low + steps * self.step)), 6)

    def validate_value(self, value: float) -> float:
        return self._clamp(value)

    def watch_value(self, value: float) -> None:
        self.post_message(self.Changed(self, value))

    def action_step(self, direction: int) -> None:
        self.value = self.value + direction * self.step

    def action_jump(self, end: int) -> None:
        self.value = self.high if end else self.low

    def on_click(self, event: events.Click) -> None:
        width = max(1, self.size.width - 1)
        self.value = self.low + (self.high - self.low) * event.x / width

    def render(self) -> Text:
        width = max(3, self.size.width)
        pos = round((self.value - self.low) / (self.high - self.low) * (width - 1))
        out = Text("━" * pos, style="bold")
        out.append("●", style="bold reverse" if self.has_focus else "bold")
        out.append("─" * (width - pos - 1), style="dim")
        return out
