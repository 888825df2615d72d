"""Command-line interface: the same service calls the TUI makes, with progress bars.

Each command group lives in ``xlsearch/commands/<group>.py`` with ``register(subparsers)``;
command modules reach the engine only through ``xlsearch.service`` (error and progress types
aside; an import-linter contract checks it), imported inside their handlers so ``--help``
stays light.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from xlsearch import __version__

COMMAND_MODULES = (
    "xlsearch.commands.app",
    "xlsearch.commands.models",
    "xlsearch.commands.distill",
    "xlsearch.commands.corpus",
    "xlsearch.commands.index",
    "xlsearch.commands.search",
    "xlsearch.commands.sts",
    "xlsearch.commands.mine",
    "xlsearch.commands.evaluate",
    "xlsearch.commands.align",
    "xlsearch.commands.lookup",
    "xlsearch.commands.analyze",
    "xlsearch.commands.serve",
    "xlsearch.commands.check",
)


class _Parser(argparse.ArgumentParser):
    """argparse, but a wrong option is one line with the fix, as every other error is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (hint: {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (used by tests to check every command is documented)."""
    parser = _Parser(
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
    """The CPU thread policy, before any command imports torch (service/threads.py)."""
    from xlsearch.service.threads import configure_threads

    configure_threads()


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
    from xlsearch.service import shutdown

    debug = bool(os.environ.get("XLSEARCH_DEBUG"))
    with shutdown.installed():  # SIGTERM/SIGHUP: as Ctrl-C, and out within seconds
        rc = _run(args, debug)
    if shutdown.armed():  # stopped by a signal: skip the interpreter's slow teardown
        shutdown.exit_now(rc)
    return rc


def _run(args: argparse.Namespace, debug: bool) -> int:
    """Run the command; every failure becomes one line and an exit status."""
    from xlsearch.commands import error_line
    from xlsearch.engine.errors import XLSearchError
    from xlsearch.service import shutdown

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
        from xlsearch.service.shared import unwritable_hint, user_error

        known = user_error(exc)  # a full disk the engine did not name: still the fix
        if known is not None:
            print(error_line(known), file=sys.stderr)
            return 2
        where = f" {exc.filename}:" if exc.filename else ""
        print(f"error:{where} {exc.strerror or exc}{unwritable_hint(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: still one line, with how to see more
        if debug:
            raise
        from xlsearch.service.shared import user_error

        known = user_error(exc)  # a damaged store or a full disk met outside the engine's
        if known is not None:  # own checks: the machine's fault, with its fix
            print(error_line(known), file=sys.stderr)
            return 2
        print(
            f"error: {type(exc).__name__}: {exc} (xlsearch {args.command}; "
            "rerun with XLSEARCH_DEBUG=1 for the traceback and report it)",
            file=sys.stderr,
        )
        return 2


def _silence_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the exit flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a file descriptor
        pass


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
