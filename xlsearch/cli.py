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
from pathlib import Path
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

    Every failure is one line on stderr and exit status 2 (Ctrl-C: 130); a closed pipe
    (``xlsearch search … --json | head``) ends quietly. ``XLSEARCH_DEBUG=1`` shows tracebacks.
    """
    from xlsearch.engine.errors import XLSearchError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):  # bare `xlsearch` opens the app
        args = parser.parse_args(["app"])
    debug = bool(os.environ.get("XLSEARCH_DEBUG"))
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
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        if debug:
            raise
        from xlsearch.engine.faults import user_error

        known = user_error(exc)  # a full disk the engine did not name: still the fix
        if known is not None:
            print(error_line(known), file=sys.stderr)
            return 2
        where = f" {exc.filename}:" if exc.filename else ""
        print(f"error:{where} {exc.strerror or exc}{_unwritable_hint(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: still one line, with how to see more
        if debug:
            raise
        from xlsearch.engine.faults import user_error

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


def _unwritable_hint(exc: OSError) -> str:
    """The fix for a write refused by a read-only disk or missing permissions."""
    import errno

    if exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM) or not exc.filename:
        return ""
    from xlsearch.engine import locations

    path = Path(str(exc.filename)).resolve()
    home = locations.home()
    ours = [home] if home is not None else []
    if home is None:
        import platformdirs

        for getter in (
            platformdirs.user_data_path,
            platformdirs.user_cache_path,
            platformdirs.user_config_path,
        ):
            ours.append(getter(locations.APP, appauthor=False))
    if any(path.is_relative_to(Path(root).resolve()) for root in ours):
        return (
            " (hint: make the folder writable (chmod -R u+w) or point XLSEARCH_HOME at a "
            "writable folder)"
        )
    return " (hint: choose a path in a writable folder, or make that folder writable)"


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
