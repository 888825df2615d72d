"""Command-line interface: the same engine calls the TUI makes, with progress bars.

Each command group lives in ``xlsearch/commands/<group>.py`` with ``register(subparsers)``;
command modules import the engine only inside their handlers so ``--help`` stays light.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Sequence
from typing import Any

from xlsearch import __version__

COMMAND_MODULES = (
    "xlsearch.commands.app",
    "xlsearch.commands.models",
    "xlsearch.commands.distill",
    "xlsearch.commands.corpus",
    "xlsearch.commands.search",
    "xlsearch.commands.evaluate",
    "xlsearch.commands.align",
    "xlsearch.commands.lookup",
)


class ProgressBar:
    """A one-line progress bar on stderr, fed with engine ``Progress`` events."""

    def __init__(self, stream: Any = None, width: int = 30) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self.start = time.monotonic()
        self._last = 0.0
        self._stage = ""
        self._open = False

    def __call__(self, event: Any) -> None:
        now = time.monotonic()
        final = event.total is not None and event.done >= event.total
        if event.stage != self._stage:
            self.close()
            self._stage = event.stage
            self.start = now
        elif now - self._last < 0.2 and not final:
            return
        self._last = now
        frac = event.fraction
        if frac is None:
            bar = f"{event.done:,}"
        else:
            filled = int(frac * self.width)
            bar = "#" * filled + "-" * (self.width - filled) + f" {event.done:,}/{event.total:,}"
        extra = " ".join(
            f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in list(event.metrics.items())[:5]
        )
        msg = f" {event.message}" if event.message else ""
        line = f"\r{event.stage:>10} [{bar}] {now - self.start:5.0f}s {extra}{msg}"
        self.stream.write(line[:160].ljust(80))
        self.stream.flush()
        self._open = True

    def close(self) -> None:
        """End the current line."""
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (used by tests to check every command is documented)."""
    parser = argparse.ArgumentParser(
        prog="xlsearch",
        description="Offline cross-lingual sentence search: distill a multilingual student, "
        "index your corpus, search across languages.",
    )
    parser.add_argument("--version", action="version", version=f"xlsearch {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _configure_threads() -> None:
    """The CPU thread policy, before any command imports torch (engine/cpu.py)."""
    from xlsearch.engine.cpu import configure_threads
    from xlsearch.engine.errors import ConfigError
    from xlsearch.engine.settings import Settings

    try:
        threads = Settings.load().threads
    except ConfigError:  # reported by the commands that read the settings
        threads = 0
    configure_threads(threads)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``xlsearch`` console script."""
    from xlsearch.engine.errors import XLSearchError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):  # bare `xlsearch` opens the app
        args = parser.parse_args(["app"])
    try:
        _configure_threads()
        return int(args.func(args) or 0)
    except XLSearchError as exc:
        print(f"error: {exc.title}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
