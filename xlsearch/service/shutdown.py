"""Stopping on SIGTERM and SIGHUP as on Ctrl-C, and never hanging on the way out.

A service manager, ``kill`` or a closed terminal ends a command with SIGTERM or SIGHUP. In the
CLI both raise ``Terminated`` (a ``KeyboardInterrupt``) in the main thread, so the Ctrl-C
paths run: a store transaction rolls back, distill saves its checkpoint, the command prints
one line. The first such signal also arms a watchdog: if the process has not ended
``EXIT_GRACE_S`` later (its main thread inside a long native call, a worker thread still
loading a model), it ends there, with the same one line (SQLite rolls back the unfinished
transaction; index files and checkpoints are written to a temporary name and renamed).

A thread woken through ``signal.set_wakeup_fd`` arms the watchdog even while the main thread
cannot run Python code; an asyncio loop that installs its own signal handlers (the app, the
server) replaces that wake-up channel and arms the watchdog itself (``arm``).
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from types import FrameType
from typing import NoReturn

EXIT_GRACE_S = 1.0
"""Seconds from the first SIGTERM/SIGHUP to the forced exit."""
CHECKPOINT_GRACE_S = 60.0
"""How long a stopping distillation may take to finish its step and write its checkpoint."""
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """Raised in the main thread by SIGTERM or SIGHUP (handled like Ctrl-C)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def stopped_line(signum: int) -> str:
    """The one line a command prints when a signal stops it."""
    return f"stopped ({signal.Signals(signum).name})"


_lock = threading.Condition()
_armed: list[int] = []
_raised: list[int] = []
"""The stop signal already raised in the main thread (at most one)."""
_deadline = 0.0
_grace = EXIT_GRACE_S
_watcher: socket.socket | None = None


@contextmanager
def installed() -> Iterator[None]:
    """While the block runs (in the main thread): SIGTERM and SIGHUP raise ``Terminated``
    and arm the watchdog; the previous handlers are restored after it."""
    global _watcher
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    _save_terminal()
    if _watcher is None:
        reader, writer = socket.socketpair()
        writer.setblocking(False)
        _watcher = writer
        threading.Thread(target=_watch, args=(reader,), name="xlsearch-stop", daemon=True).start()
    old_fd = signal.set_wakeup_fd(_watcher.fileno(), warn_on_full_buffer=False)
    for sig in STOP_SIGNALS:
        signal.signal(sig, _raise_terminated)
    hook = sys.unraisablehook
    sys.unraisablehook = partial(_unraisable, hook)
    try:
        yield
    finally:
        sys.unraisablehook = hook
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        current = signal.set_wakeup_fd(old_fd)
        if current != _watcher.fileno():  # an event loop has it now (or had, and cleared it)
            signal.set_wakeup_fd(current)


def _unraisable(
    hook: Callable[[sys.UnraisableHookArgs], object], unraisable: sys.UnraisableHookArgs
) -> None:
    """``Terminated`` raised where it cannot propagate (a weakref callback, a ``__del__``)
    is dropped silently: the watchdog, armed by then, ends the process."""
    if isinstance(unraisable.exc_value, Terminated):
        return
    hook(unraisable)


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    """The first stop signal interrupts the main thread; later ones leave its clean-up (a
    rollback, the one line) alone: the watchdog is armed. (The wake-up thread may have armed
    the watchdog first: that must not keep the main thread from being interrupted.)"""
    if _raised:
        return
    _raised.append(signum)
    arm(signum)
    raise Terminated(signum)


def _watch(reader: socket.socket) -> None:
    """Arm the watchdog as soon as a stop signal arrives, whatever the main thread does."""
    while True:
        try:
            data = reader.recv(64)
        except OSError:  # pragma: no cover - the socket was closed
            return
        if not data:  # pragma: no cover
            return
        for signum in data:
            if signum in STOP_SIGNALS:
                arm(signum)


def set_grace(seconds: float) -> None:
    """The watchdog's grace from now on (distill while it trains: time for the checkpoint)."""
    global _grace
    _grace = seconds


def arm(signum: int, grace: float | None = None) -> None:
    """End the process ``grace`` seconds (default: ``set_grace``'s, else ``EXIT_GRACE_S``)
    from now unless it ends by itself first; a later call may only postpone the end."""
    global _deadline
    with _lock:
        first = not _armed
        if first:
            _armed.append(signum)
        _deadline = max(_deadline, time.monotonic() + (_grace if grace is None else grace))
        _lock.notify_all()
    if first:
        threading.Thread(
            target=_expire, args=(signum,), name="xlsearch-stop-watchdog", daemon=True
        ).start()


def armed() -> bool:
    """Whether a stop signal has arrived."""
    return bool(_armed)


def armed_by() -> int:
    """The first stop signal that arrived (``armed()`` must be true)."""
    return _armed[0]


def exit_now(code: int) -> NoReturn:
    """End the process at once after a stop signal: atexit handlers run and stdio is flushed,
    but not the interpreter's teardown (seconds of garbage collection once torch is loaded)."""
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream
            pass
    os._exit(code)


def _expire(signum: int) -> None:
    with _lock:
        while (left := _deadline - time.monotonic()) > 0:
            _lock.wait(left)
    _restore_terminal()
    # os.write: the main thread may hold the lock of sys.stderr, blocked in a write
    try:
        os.write(2, f"\n{stopped_line(signum)}\n".encode())
    except OSError:  # pragma: no cover - stderr closed
        pass
    os._exit(128 + signum)


_TERMINAL_RESET = b"\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?2004l"
"""Leave the alternate screen, show the cursor, stop mouse and paste reporting (the app's)."""
_terminal: list[object] = []


def _save_terminal() -> None:
    """Remember the terminal's mode (before the app makes it raw) for a forced exit."""
    try:
        import termios

        if os.isatty(0) and not _terminal:
            _terminal.append(termios.tcgetattr(0))
    except (ImportError, OSError):  # not a terminal, or not POSIX
        pass


def _restore_terminal() -> None:
    """Give the terminal back as it was, should the forced exit cut the app short."""
    if not _terminal:
        return
    try:
        import termios

        if os.isatty(1):
            os.write(1, _TERMINAL_RESET)
        termios.tcsetattr(0, termios.TCSANOW, _terminal[0])  # type: ignore[arg-type]
    except (ImportError, OSError):
        pass
