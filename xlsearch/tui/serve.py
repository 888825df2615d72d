"""``xlsearch serve``: the same Textual app in a web browser, on localhost.

A small aiohttp server of our own: each browser session (a WebSocket) drives one
``python -m xlsearch app`` process through Textual's web driver (packets on its stdin and
stdout), drawn in the browser by textual-serve's client (xterm.js; textual-serve supplies
those files and nothing else).

Start-up: one app process is started before any browser asks for it and waits, its output
kept; a session takes it (its output so far is replayed, then its size set) and the next one
starts. It saves an SVG screenshot of its first screen, which the page shows until the live
terminal draws, so a browser (or a one-shot headless screenshot) shows the app at once.

Access: the app can read every memory and import or export any file the user can, so the
server lets in only whoever holds the address it printed. Each run makes a fresh random key;
the printed URL carries it (``?token=…``), the page sets it as an ``HttpOnly``,
``SameSite=Strict`` cookie, and every request (page, WebSocket, static files) without it gets
HTTP 403 before any app process is given to it. The ``Host`` header must name the served
address (DNS rebinding) and an ``Origin`` header must be that same address (cross-site
WebSocket hijacking). A client sending what is not a message of the protocol gets one log
line naming it. Stopping ``serve`` (Ctrl+C, SIGTERM, SIGHUP) ends every app process it
started: each runs in its own process group, which gets SIGTERM and, after a grace period,
SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
import os
import secrets
import signal
import sys
import tempfile
import threading
import time
import webbrowser
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xlsearch.tui.serve_page import SNAPSHOT_ENV, STARTING

if TYPE_CHECKING:
    from aiohttp import web

TOKEN_PARAM = "token"
"""The query parameter of the printed URL that carries the access key."""
GRACE_S = 1.0
"""How long an app process gets to end after SIGTERM before it is killed."""
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WAITING_SIZE = (132, 40)
"""Columns and rows a waiting app starts with (a session then sets its own)."""
SNAPSHOT_WAIT_S = 15.0
"""How long the first page request waits for the first app's screenshot."""
KEPT_OUTPUT_LIMIT = 8 * 1024 * 1024
"""A waiting app whose kept output grows past this many bytes is replaced on use."""
CLIENT_FILES = ("js/textual.js", "css/xterm.css", "fonts/RobotoMono-VariableFont_wght.ttf")

log = logging.getLogger("xlsearch.serve")


def app_command() -> list[str]:
    """The command each browser session runs."""
    return [sys.executable, "-m", "xlsearch", "app"]


def client_files() -> Path:
    """textual-serve's browser client (``static/``: textual.js, xterm.css, the font); a
    ``ConfigError`` with the fix when it is missing or lacks a file the page loads."""
    import importlib.util

    from xlsearch.engine.errors import ConfigError

    spec = importlib.util.find_spec("textual_serve")
    folder = Path(spec.origin).parent / "static" if spec and spec.origin else None
    missing = [f for f in CLIENT_FILES if folder is None or not (folder / f).is_file()]
    if folder is None or missing:
        raise ConfigError(
            "xlsearch serve needs textual-serve's browser client"
            + (f" (missing: {', '.join(missing)})" if folder is not None else ""),
            hint="pip install 'textual-serve>=1.1.3,<1.2'",
        )
    return folder


def app_environment(width: int, height: int, snapshot: Path | None = None) -> dict[str, str]:
    """The environment of an app process: Textual's web driver, the terminal's size, and
    where to save its first screen's screenshot (a waiting app)."""
    env = dict(os.environ)
    env.pop(SNAPSHOT_ENV, None)
    env.update(
        TEXTUAL_DRIVER="textual.drivers.web_driver:WebDriver",
        TEXTUAL_FPS="60",
        TEXTUAL_COLOR_SYSTEM="truecolor",
        TERM_PROGRAM="textual",
        COLUMNS=str(width),
        ROWS=str(height),
    )
    if snapshot is not None:
        env[SNAPSHOT_ENV] = str(snapshot)
    return env


def packet(kind: bytes, payload: bytes) -> bytes:
    """One packet of Textual's web driver protocol: kind (``D`` data, ``M`` meta), length,
    payload."""
    return kind + len(payload).to_bytes(4, "big") + payload


class AppProcess:
    """One ``xlsearch app`` process under Textual's web driver, in its own process group.

    Until a browser session attaches, what the app draws is kept; ``attach`` replays it to
    the session's WebSocket and from then on forwards each packet as it comes."""

    def __init__(self, process: asyncio.subprocess.Process, snapshot: Path | None) -> None:
        self.process = process
        self.snapshot = snapshot
        self.kept: deque[bytes] = deque()
        self.kept_bytes = 0
        self.send: Callable[[bytes], Awaitable[None]] | None = None
        self.send_text: Callable[[str], Awaitable[None]] | None = None
        self.on_exit: Callable[[], Awaitable[Any]] | None = None
        self.ended = asyncio.Event()
        self.stderr = bytearray()
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(
        cls, command: Sequence[str], width: int, height: int, snapshot: Path | None
    ) -> AppProcess:
        """Start ``command`` at ``width`` x ``height`` (``snapshot``: where it saves its first
        screen)."""
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=app_environment(width, height, snapshot),
            start_new_session=True,
        )
        return cls(process, snapshot)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def usable(self) -> bool:
        """Still running and its kept output within ``KEPT_OUTPUT_LIMIT``."""
        return not self.ended.is_set() and self.kept_bytes <= KEPT_OUTPUT_LIMIT

    async def _read(self) -> None:
        """Read the app's packets until it ends; keep or forward its screen output."""
        stdout, stderr = self.process.stdout, self.process.stderr
        assert stdout is not None and stderr is not None

        async def drain_stderr() -> None:
            while chunk := await stderr.read(4096):
                self.stderr += chunk[: max(0, 65536 - len(self.stderr))]

        errors = asyncio.ensure_future(drain_stderr())
        try:
            for _ in range(10):  # Textual's web driver announces itself first
                line = await stdout.readline()
                if not line or line == b"__GANGLION__\n":
                    break
            while True:
                kind = await stdout.readexactly(1)
                size = int.from_bytes(await stdout.readexactly(4), "big")
                payload = await stdout.readexactly(size)
                if kind == b"D":
                    await self._screen(payload)
                elif kind == b"M":
                    await self._meta(payload)
                # b"P": file deliveries; the app offers none in the browser
        except (asyncio.IncompleteReadError, ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(errors, GRACE_S)
            self.ended.set()
            if self.on_exit is not None:
                with contextlib.suppress(Exception):
                    await self.on_exit()

    async def _screen(self, payload: bytes) -> None:
        if self.send is None:
            self.kept.append(payload)
            self.kept_bytes += len(payload)
            return
        with contextlib.suppress(ConnectionResetError, RuntimeError):
            await self.send(payload)

    async def _meta(self, payload: bytes) -> None:
        try:
            meta = json.loads(payload)
        except ValueError:
            return
        if not isinstance(meta, dict):
            return
        if meta.get("type") == "exit" and self.on_exit is not None:
            await self.on_exit()
        elif meta.get("type") == "open_url" and self.send_text is not None:
            url = {"url": meta.get("url"), "new_tab": meta.get("new_tab", True)}
            await self.send_text(json.dumps(["open_url", url]))

    async def attach(
        self,
        send: Callable[[bytes], Awaitable[None]],
        send_text: Callable[[str], Awaitable[None]],
        on_exit: Callable[[], Awaitable[Any]],
        width: int,
        height: int,
    ) -> None:
        """Give the app to a session: replay what it drew, then set the session's size."""
        while self.kept:
            chunk = self.kept.popleft()
            await send(chunk)
        self.send, self.send_text, self.on_exit = send, send_text, on_exit
        self.kept_bytes = 0
        await self.resize(width, height)

    async def write(self, data: bytes) -> bool:
        """``data`` on the app's stdin; False when the app has gone."""
        stdin = self.process.stdin
        if stdin is None or self.ended.is_set():
            return False
        try:
            stdin.write(data)
            await stdin.drain()
        except (ConnectionResetError, BrokenPipeError, RuntimeError):
            return False
        return True

    async def keys(self, text: str) -> bool:
        return await self.write(packet(b"D", text.encode("utf-8")))

    async def meta(self, data: dict[str, object]) -> bool:
        return await self.write(packet(b"M", json.dumps(data).encode("utf-8")))

    async def resize(self, width: int, height: int) -> None:
        await self.meta({"type": "resize", "width": width, "height": height})

    async def stop(self) -> None:
        """Ask the app to quit; SIGTERM then SIGKILL to its group if it does not; reap it."""
        self.on_exit = None
        await self.meta({"type": "quit"})
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.process.wait(), GRACE_S)
        if self.process.returncode is None and _signal_group(self.pid, signal.SIGTERM):
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.process.wait(), GRACE_S)
        if self.process.returncode is None:
            _signal_group(self.pid, signal.SIGKILL)
        await _reap(self.process)
        self.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.reader
        if self.snapshot is not None:
            with contextlib.suppress(OSError):
                self.snapshot.unlink()


class Server:
    """The page, the client's files and one app process per WebSocket, behind a key, a Host
    check and an Origin check."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        command: Sequence[str] | None = None,
        remote: bool = False,
        token: str | None = None,
    ) -> None:
        self.host, self.port, self.remote = host, port, remote
        self.command = list(command) if command else app_command()
        self.static = client_files()
        self.public_url = f"http://{_url_host(host)}:{port}"
        self.token = token or secrets.token_urlsafe(32)
        self.cookie = f"xlsearch-serve-{port}"
        self.apps: set[AppProcess] = set()
        self.sockets: set[web.WebSocketResponse] = set()
        self.waiting: asyncio.Future[AppProcess] | None = None
        self.first_screen: str | None = None  # the latest waiting app's screenshot (SVG)
        self.first_screen_ready: asyncio.Event | None = None
        self.folder = Path(tempfile.mkdtemp(prefix="xlsearch-serve-"))
        self.started = 0
        self.stopping = False
        self.stopped_by = 0  # the signal that stopped the server (0: none yet)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.on_listening: Callable[[], None] | None = None
        """Called once the server accepts connections (``serve`` prints the address then)."""

    @property
    def private_url(self) -> str:
        """The address to open: the public URL with the access key."""
        return f"{self.public_url}/?{TOKEN_PARAM}={self.token}"

    # -- access ---------------------------------------------------------------------------

    def _host_allowed(self, request: web.Request) -> bool:
        try:
            url = request.url  # built from the Host header
        except ValueError:  # a malformed Host header
            return False
        if url.port != self.port:
            return False
        name = (url.host or "").lower().strip("[]")
        return self.remote or name in LOOPBACK_NAMES | {self.host}

    def _has_key(self, request: web.Request) -> tuple[bool, bool]:
        """(has the key, came in the query)."""
        given = request.query.get(TOKEN_PARAM)
        if given is not None and hmac.compare_digest(given.encode(), self.token.encode()):
            return True, True
        cookie = request.cookies.get(self.cookie)
        ok = cookie is not None and hmac.compare_digest(cookie.encode(), self.token.encode())
        return ok, False

    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if not self._host_allowed(request):
            return _forbidden(f"unknown host {request.host!r}")
        origin = request.headers.get("Origin")
        if origin is not None and origin.lower() != f"http://{request.host}".lower():
            return _forbidden(f"requests from {origin} are not allowed")
        ok, in_query = self._has_key(request)
        if not ok:
            return _forbidden("open the address (with its ?token=…) that `xlsearch serve` printed")
        request["key_in_query"] = in_query  # the page then sets the key's cookie
        return await handler(request)

    # -- the app processes ----------------------------------------------------------------

    async def _start_app(self, width: int, height: int, snapshot: Path | None) -> AppProcess:
        app = await AppProcess.start(self.command, width, height, snapshot)
        self.apps.add(app)
        if self.stopping:  # stopped while it started
            _signal_group(app.pid, signal.SIGTERM)
        return app

    def _start_waiting(self) -> None:
        """Start the next app process, which waits for a session (and saves its screen)."""
        if self.stopping:
            return
        self.started += 1
        snapshot = self.folder / f"first-screen-{self.started}.svg"
        self.waiting = asyncio.ensure_future(self._start_app(*WAITING_SIZE, snapshot))
        asyncio.ensure_future(self._watch_snapshot(self.waiting, snapshot))

    async def _watch_snapshot(self, starting: asyncio.Future[AppProcess], path: Path) -> None:
        """Read the waiting app's screenshot each time it saves it, until a session takes the
        app (the page shows the latest). A page waiting for it is let go either way: an app
        that ended without one (it failed to start) must not hold the page up."""
        from xlsearch.tui.serve_page import offline_svg

        try:
            app = await starting
            seen = 0.0
            while not app.ended.is_set() and not self.stopping and app.send is None:
                with contextlib.suppress(OSError):
                    if (mtime := path.stat().st_mtime) != seen:  # saved (again)
                        seen, self.first_screen = mtime, offline_svg(path.read_text("utf-8"))
                        if self.first_screen_ready is not None:
                            self.first_screen_ready.set()
                await asyncio.sleep(0.05)
        except Exception as e:  # noqa: BLE001 - the page shows "starting" instead
            log.warning("the app did not start: %s", e)
        finally:
            if self.first_screen_ready is not None:
                self.first_screen_ready.set()

    async def _take_app(self, width: int, height: int) -> AppProcess:
        """The waiting app process when it is usable (a fresh one otherwise); the next starts."""
        app: AppProcess | None = None
        if self.waiting is not None:
            with contextlib.suppress(Exception):
                app = await self.waiting
            self.waiting = None
        if app is not None and not app.usable:
            await app.stop()
            self.apps.discard(app)
            app = None
        self._start_waiting()
        return app if app is not None else await self._start_app(width, height, None)

    # -- handlers -------------------------------------------------------------------------

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page, on the address the browser used (so that ``localhost`` and ``127.0.0.1``
        both keep their cookie). Its head goes out at once (the browser fetches the client's
        files meanwhile); its body once the first app's screenshot is there (at most
        ``SNAPSHOT_WAIT_S``), so that the loaded page shows the app."""
        from aiohttp import web

        from xlsearch.tui.serve_page import FIRST_SCREEN, render_page

        page = render_page(
            title="xlsearch",
            static=f"http://{request.host}/static/",
            websocket=f"ws://{request.host}/ws",
            font_size=_to_int(request.query.get("fontsize", "16"), 16),
            snapshot=FIRST_SCREEN,
        )
        head, tail = page.split(FIRST_SCREEN, 1)
        response = web.StreamResponse(headers={"Content-Type": "text/html; charset=utf-8"})
        if request.get("key_in_query"):
            response.set_cookie(self.cookie, self.token, path="/", httponly=True, samesite="Strict")
        try:
            await response.prepare(request)
            await response.write(head.encode("utf-8"))
            if self.first_screen is None and self.first_screen_ready is not None:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.first_screen_ready.wait(), SNAPSHOT_WAIT_S)
            first = self.first_screen or STARTING
            await response.write((first + tail).encode("utf-8"))
            await response.write_eof()
        except ConnectionResetError:  # the browser went away while the app started
            log.info("client %s: left before the page was complete", request.remote)
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One browser session: an app process driven by the client's messages."""
        from aiohttp import web

        ws = web.WebSocketResponse(heartbeat=15)
        width = _size(request.query.get("width"), 80)
        height = _size(request.query.get("height"), 24)
        app: AppProcess | None = None
        self.sockets.add(ws)
        try:
            await ws.prepare(request)
            app = await self._take_app(width, height)
            await app.attach(ws.send_bytes, ws.send_str, ws.close, width, height)
            await self._messages(request, ws, app)
        except asyncio.CancelledError:
            await ws.close()
        except (ConnectionResetError, OSError) as e:
            log.info("client %s: connection lost (%s)", request.remote, e)
        finally:
            self.sockets.discard(ws)
            if app is not None:
                await app.stop()
                self.apps.discard(app)
        return ws

    async def _messages(
        self, request: web.Request, ws: web.WebSocketResponse, app: AppProcess
    ) -> None:
        """The client's messages: ``["stdin", text]``, ``["resize", {width, height}]``,
        ``["ping", x]``, ``["focus"]``, ``["blur"]``; anything else is logged and ignored."""
        from aiohttp import WSMsgType

        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
                kind = envelope[0]
                data = envelope[1] if len(envelope) > 1 else None
            except (ValueError, TypeError, KeyError, IndexError):
                log.warning(
                    "client %s: ignored a message that is not JSON [type, data]", request.remote
                )
                continue
            if kind == "stdin" and isinstance(data, str):
                await app.keys(data)
            elif kind == "resize" and isinstance(data, dict):
                await app.resize(_size(data.get("width"), 80), _size(data.get("height"), 24))
            elif kind == "ping":
                await ws.send_json(["pong", data])
            elif kind in ("focus", "blur"):
                await app.meta({"type": kind})
            else:
                log.warning("client %s: ignored an unknown message %.40r", request.remote, kind)
            if app.ended.is_set():
                break

    # -- running --------------------------------------------------------------------------

    def make_app(self) -> web.Application:
        """The aiohttp application: routes, the access check, start-up and shutdown."""
        from aiohttp import web

        guard = self._guard

        @web.middleware
        async def access(
            request: web.Request,
            handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
        ) -> web.StreamResponse:
            return await guard(request, handler)

        app = web.Application(middlewares=[access])
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.static("/static", self.static, name="static"),
            ]
        )
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """Start the first app process: the first browser finds it ready."""
        self.first_screen_ready = asyncio.Event()
        self._start_waiting()

    async def on_shutdown(self, app: web.Application) -> None:
        from aiohttp import WSCloseCode

        self.stopping = True
        for ws in list(self.sockets):
            await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server stopped")
        if self.waiting is not None and not self.waiting.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self.waiting), GRACE_S)
        await asyncio.get_running_loop().run_in_executor(None, self.stop_apps)
        for proc in list(self.apps):  # reap them while the loop still runs
            await _reap(proc.process)

    def term_apps(self) -> set[int]:
        """SIGTERM to every app process group; their ids."""
        pids = {a.pid for a in list(self.apps)}
        for pid in pids:
            _signal_group(pid, signal.SIGTERM)
        return pids

    def stop_apps(self) -> None:
        """SIGTERM to every app process group, SIGKILL to those alive after the grace."""
        deadline = time.monotonic() + GRACE_S
        alive = [pid for pid in self.term_apps() if _group_alive(pid)]
        while alive and time.monotonic() < deadline:
            time.sleep(0.02)
            alive = [pid for pid in alive if _group_alive(pid)]
        for pid in alive:
            _signal_group(pid, signal.SIGKILL)

    def on_signal(self, signum: int) -> None:
        """A stop signal: remember the first (the exit status says it), then stop."""
        from aiohttp.web_runner import GracefulExit

        self.stopped_by = self.stopped_by or signum
        self.stopping = True
        self.term_apps()
        raise GracefulExit()

    def serve(self) -> None:
        """Run until SIGINT, SIGTERM or SIGHUP; every app process ends with it."""
        import shutil

        from aiohttp import web

        logging.basicConfig(level=logging.INFO, format="%(levelname)-8s %(message)s")
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self.loop = loop
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(sig, self.on_signal, sig)
        try:
            web.run_app(
                self.make_app(),
                host=self.host,
                port=self.port,
                handle_signals=False,
                loop=loop,
                shutdown_timeout=GRACE_S,
                print=self._listening,  # aiohttp calls it once its sites listen
                access_log_class=_keyless_access_log(),
            )
        finally:
            self.stop_apps()
            shutil.rmtree(self.folder, ignore_errors=True)

    def _listening(self, *_message: object) -> None:
        """The server accepts connections: ``on_listening`` (aiohttp's own banner is not
        printed)."""
        if self.on_listening is not None:
            self.on_listening()


def make_server(
    host: str,
    port: int,
    *,
    command: Sequence[str] | None = None,
    remote: bool = False,
    token: str | None = None,
) -> Server:
    """The server for ``host:port`` (not started)."""
    return Server(host, port, command=command, remote=remote, token=token)


def _size(value: object, default: int) -> int:
    """A terminal dimension from a client: an int in 1..1000, else ``default``."""
    try:
        n = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return default
    return n if 0 < n <= 1000 else default


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is reachable from this machine only."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str, allow_remote: bool) -> None:
    """A ``ConfigError`` unless ``host`` is loopback or ``allow_remote`` was given."""
    from xlsearch.engine.errors import ConfigError

    if not is_loopback(host) and not allow_remote:
        raise ConfigError(
            f"--host {host} would serve the app (your memories, files you can read) to other "
            "machines",
            hint="serve on 127.0.0.1 (the default), or add --allow-remote if that is intended",
        )


def check_port(host: str, port: int) -> None:
    """A ``ConfigError`` with the fix when ``host:port`` cannot be served (out of range, in
    use by another program, or not an address of this machine)."""
    import socket

    from xlsearch.engine.errors import ConfigError

    hint = "choose another port, e.g. --port 8001 (or --host 127.0.0.1)"
    if not 0 < port < 65536:
        raise ConfigError(f"cannot serve on port {port}: ports are 1-65535", hint=hint)
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
            s.bind((host, port))
    except OSError as e:
        raise ConfigError(f"cannot serve on {host}:{port}: {e.strerror or e}", hint=hint) from e


def _url_host(host: str) -> str:
    """``host`` as it appears in a URL (IPv6 in brackets; a wildcard as this machine's name)."""
    import socket

    if host in ("0.0.0.0", "::", ""):
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host


def _keyless_access_log() -> type:
    """An access log line per request without its query string (the ``?token=…``): the key
    is printed once, when the server starts, not again with each request."""
    from aiohttp.abc import AbstractAccessLogger

    class KeylessAccessLogger(AbstractAccessLogger):
        def log(self, request: Any, response: Any, time: float) -> None:
            if request is None:
                return
            self.logger.info(
                '%s "%s %s" %s %s',
                request.remote,
                request.method,
                request.path,
                response.status,
                response.body_length,
            )

    return KeylessAccessLogger


async def _reap(process: asyncio.subprocess.Process) -> None:
    """Close an ended app's stdin and collect its status, so its transport closes now (not
    when collected after the loop closed)."""
    if process.stdin is not None:
        process.stdin.close()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(process.wait(), GRACE_S)


def _forbidden(reason: str) -> web.Response:
    from aiohttp import web

    return web.Response(status=403, text=f"403 Forbidden: {reason}\n")


def _to_int(value: str, default: int) -> int:
    try:
        return int(value)
    except ValueError:
        return default


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to a process group; False when it is gone."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _group_alive(pgid: int) -> bool:
    """Whether a process group has a member that is not a zombie."""
    proc = Path("/proc")
    if not proc.is_dir():  # pragma: no cover - not Linux
        return _signal_group(pgid, 0)
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    open_browser: bool = True,
    command: Sequence[str] | None = None,
    allow_remote: bool = False,
) -> None:
    """Serve the app on ``http://host:port`` until stopped; open the browser first."""
    check_host(host, allow_remote)
    check_port(host, port)
    remote = not is_loopback(host)
    server = make_server(host, port, command=command, remote=remote)
    if remote:
        print(
            f"warning: serving on {host}:{port}: anyone who can reach this machine on port "
            f"{port} and has the address below can use xlsearch as you (read your memories, "
            "import and export files); the connection is not encrypted",
            file=sys.stderr,
        )

    def listening() -> None:  # not before: a browser refused a connection does not retry
        print(
            f"xlsearch in your browser: {server.private_url}  (Ctrl+C to stop)",
            file=sys.stderr,
            flush=True,
        )
        if open_browser:  # the page waits for the first screen: it can ask for it at once
            opener = threading.Thread(target=webbrowser.open, args=(server.private_url,))
            opener.daemon = True
            opener.start()

    server.on_listening = listening
    server.serve()
    from xlsearch.service import shutdown

    # as every command: one line and 128 + the signal (Ctrl+C: 130)
    sig = server.stopped_by
    if sig == signal.SIGINT:
        print("\ninterrupted", file=sys.stderr)
    elif sig:
        print(f"\n{shutdown.stopped_line(sig)}", file=sys.stderr)
    # every app process is reaped; skip the teardown that would collect their asyncio
    # transports after the loop closed ("Exception ignored … BaseSubprocessTransport")
    shutdown.exit_now(128 + sig if sig else 0)
