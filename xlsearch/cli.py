"""Command-line interface: the same engine calls the TUI makes, with progress bars.

Each command group lives in ``xlsearch/commands/<group>.py`` with ``register(subparsers)``;
command modules import the engine only inside their handlers so ``--help`` stays light.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
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


def ProgressBar() -> Any:  # noqa: N802 - kept for callers of the former class
    """The CLI progress display (rich bars on a terminal, plain lines otherwise)."""
    from xlsearch.commands.progress import ProgressDisplay

    return ProgressDisplay()


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
    """Entry point of the ``xlsearch`` console script.

    Every failure is one line on stderr and exit status 2 (Ctrl-C: 130; SIGTERM, SIGHUP:
    128 + the signal, within seconds); a closed pipe (``xlsearch search … --json | head``)
    ends quietly. ``XLSEARCH_DEBUG=1`` shows tracebacks.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):  # bare `xlsearch` opens the app
        args = parser.parse_args(["app"])
    from xlsearch.engine import shutdown

    debug = bool(os.environ.get("XLSEARCH_DEBUG"))
    with shutdown.installed():  # SIGTERM/SIGHUP: as Ctrl-C, and out within seconds
        rc = _run(args, debug)
    if shutdown.armed():  # stopped by a signal: skip the interpreter's slow teardown
        shutdown.exit_now(rc)
    return rc


def _run(args: argparse.Namespace, debug: bool) -> int:
    """Run the command; every failure becomes one line and an exit status."""
    from xlsearch.engine import shutdown
    from xlsearch.engine.errors import XLSearchError

    try:
        _configure_threads()
        rc = int(args.func(args) or 0)
        sys.stdout.flush()  # a reader that went away (| head) surfaces here, not at exit
        return rc
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except XLSearchError as exc:
        if debug:
            raise
        print(error_line(exc), file=sys.stderr)
        return 2
    except shutdown.Terminated as exc:  # SIGTERM / SIGHUP
        print(f"\n{shutdown.stopped_line(exc.signum)}", file=sys.stderr)
        return 128 + exc.signum
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        if debug:
            raise
        where = f" {exc.filename}:" if exc.filename else ""
        print(f"error:{where} {exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: still one line, with how to see more
        if debug:
            raise
        print(
            f"error: {type(exc).__name__}: {exc} (xlsearch {args.command}; "
            "rerun with XLSEARCH_DEBUG=1 for the traceback and report it)",
            file=sys.stderr,
        )
        return 2


def error_line(exc: Any) -> str:
    """An ``XLSearchError`` as one line: ``error: Title: message (hint: fix)``."""
    text = " ".join(str(exc.message).split())
    hint = f" (hint: {' '.join(str(exc.hint).split())})" if exc.hint else ""
    return f"error: {exc.title}: {text}{hint}"


def _silence_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the exit flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a file descriptor
        pass


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
