"""``xlsearch serve``: the same Textual app in a web browser (textual-serve, localhost).

textual-serve runs ``python -m xlsearch app`` in a pseudo-terminal per browser session and
streams it to xterm.js. Its page template links a Google font stylesheet; xlsearch works
offline, so the page is served from a copy of the template without that link (the font
itself ships with textual-serve as a local file) and with an empty favicon.

Access: the app can read every memory and import or export any file the user can, so the
server lets in only whoever holds the address it printed. Each run makes a fresh random key;
the printed URL carries it (``?token=…``), the page sets it as an ``HttpOnly``,
``SameSite=Strict`` cookie, and every request (page, WebSocket, static files, downloads)
without it gets HTTP 403 before any app process starts. The ``Host`` header must name the
served address (DNS rebinding) and an ``Origin`` header must be that same address
(cross-site WebSocket hijacking). Stopping ``serve`` (Ctrl+C, SIGTERM, SIGHUP) ends every
app process it started: each runs in its own process group, which gets SIGTERM and, after a
grace period, SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import os
import re
import secrets
import shlex
import signal
import sys
import threading
import time
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiohttp import web

TOKEN_PARAM = "token"
"""The query parameter of the printed URL that carries the access key."""
GRACE_S = 1.0
"""How long an app process gets to end after SIGTERM before it is killed."""
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def offline_templates() -> Path:
    """A templates folder: textual-serve's page minus the remote font stylesheet."""
    import textual_serve

    from xlsearch.service.shared import cache_dir

    src = Path(textual_serve.__file__).parent / "templates" / "app_index.html"
    html = re.sub(r"<link[^>]*fonts\.googleapis\.com[^>]*>", "", src.read_text("utf-8"))
    # an empty icon: browsers otherwise ask for /favicon.ico and log a 404 error
    html = html.replace("<head>", '<head>\n    <link rel="icon" href="data:," />', 1)
    folder = cache_dir() / "serve-templates"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "app_index.html").write_text(html, encoding="utf-8")
    return folder


def app_command(extra: str = "") -> str:
    """The shell command each browser session runs."""
    return f"{shlex.quote(sys.executable)} -m xlsearch app {extra}".strip()


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


EXTENDED = {
    "textual_serve.server:Server": ("_make_app", "_process_messages", "request_exit"),
    "textual_serve.app_service:AppService": ("_open_app_process", "_build_environment"),
}
"""The parts of textual-serve that ``make_server`` overrides or calls: on a version without
one of them the access checks could be skipped silently, so serve refuses to start."""


def check_textual_serve() -> None:
    """A ``ConfigError`` naming the installed textual-serve when it lacks a part ``serve``
    extends (``EXTENDED``)."""
    import importlib
    from importlib.metadata import version

    from xlsearch.engine.errors import ConfigError

    for target, names in EXTENDED.items():
        module, cls = target.split(":")
        owner = getattr(importlib.import_module(module), cls, None)
        missing = [n for n in names if owner is None or not callable(getattr(owner, n, None))]
        if missing:
            raise ConfigError(
                f"textual-serve {version('textual-serve')} is not supported by xlsearch serve "
                f"({cls} has no {', '.join(missing)})",
                hint="pip install 'textual-serve>=1.1.3,<1.2'",
            )


def make_server(
    host: str, port: int, *, command: str = "", remote: bool = False, token: str | None = None
) -> Any:
    """A textual-serve ``Server`` with the access checks and process-group shutdown."""
    check_textual_serve()
    from aiohttp import WSCloseCode, web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    class GuardedAppService(AppService):
        """An app process in its own process group, so that stopping reaches all of it."""

        async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
            env = self._build_environment(width=width, height=height)
            self._process = process = await asyncio.create_subprocess_shell(
                self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                start_new_session=True,
            )
            assert process.stdin is not None
            self._stdin = process.stdin
            server.app_pids.add(process.pid)
            server.processes.add(process)
            return process

    class GuardedServer(Server):
        """textual-serve's server behind a key, a Host check and an Origin check."""

        def __init__(self) -> None:
            super().__init__(
                command or app_command(),
                host=host,
                port=port,
                title="xlsearch",
                public_url=f"http://{_url_host(host)}:{port}",
                templates_path=offline_templates(),
            )
            self.token = token or secrets.token_urlsafe(32)
            self.cookie = f"xlsearch-serve-{port}"
            self.app_pids: set[int] = set()
            self.processes: set[asyncio.subprocess.Process] = set()
            self.termed: set[int] = set()  # app process groups sent SIGTERM
            self.sockets: set[web.WebSocketResponse] = set()
            self.stopped_by = 0  # the signal that stopped the server (0: none yet)

        @property
        def private_url(self) -> str:
            """The address to open: the public URL with the access key."""
            return f"{self.public_url}/?{TOKEN_PARAM}={self.token}"

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(self._guard)
            return app

        def _host_allowed(self, request: web.Request) -> bool:
            try:
                url = request.url  # built from the Host header
            except ValueError:  # a malformed Host header
                return False
            if url.port != self.port:
                return False
            return remote or (url.host or "").lower().strip("[]") in LOOPBACK_NAMES | {host}

        def _has_key(self, request: web.Request) -> tuple[bool, bool]:
            """(has the key, came in the query)."""
            given = request.query.get(TOKEN_PARAM)
            if given is not None and hmac.compare_digest(given.encode(), self.token.encode()):
                return True, True
            cookie = request.cookies.get(self.cookie)
            ok = cookie is not None and hmac.compare_digest(cookie.encode(), self.token.encode())
            return ok, False

        @web.middleware
        async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
            if not self._host_allowed(request):
                return _forbidden(f"unknown host {request.host!r}")
            origin = request.headers.get("Origin")
            if origin is not None and origin.lower() != f"http://{request.host}".lower():
                return _forbidden(f"requests from {origin} are not allowed")
            ok, in_query = self._has_key(request)
            if not ok:
                return _forbidden(
                    "open the address (with its ?token=…) that `xlsearch serve` printed"
                )
            response: web.StreamResponse = await handler(request)
            if in_query and isinstance(response, web.Response):
                response.set_cookie(
                    self.cookie, self.token, path="/", httponly=True, samesite="Strict"
                )
            return response

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            """The page, its WebSocket and static URLs on the address the browser used (so
            that ``localhost`` and ``127.0.0.1`` both keep their cookie)."""
            import aiohttp_jinja2

            base = f"http://{request.host}"
            router = request.app.router
            static = f"{base}{router['static'].url_for(filename='/')}".rstrip("/") + "/"
            context = {
                "font_size": _to_int(request.query.get("fontsize", "16"), 16),
                "app_websocket_url": f"ws://{request.host}{router['websocket'].url_for()}",
                "config": {"static": {"url": static}},
                "application": {"name": self.title},
            }
            return aiohttp_jinja2.render_template("app_index.html", request, context)

        async def on_startup(self, app: web.Application) -> None:
            """Quiet: ``serve`` prints the address itself (with the key)."""

        async def on_shutdown(self, app: web.Application) -> None:
            for ws in list(self.sockets):
                await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server stopped")
            await asyncio.get_running_loop().run_in_executor(None, self.stop_apps)
            for process in list(self.processes):  # reap them while the loop still runs
                await _reap(process)

        def term_apps(self) -> set[int]:
            """SIGTERM to every app process group not sent one yet; all the groups."""
            pids = set(self.app_pids)  # a copy: sessions end meanwhile (stop_apps' thread)
            for pid in pids - self.termed:
                _signal_group(pid, signal.SIGTERM)
            self.termed |= pids
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

        def request_exit(self) -> None:
            """On SIGINT/SIGTERM/SIGHUP: stop the apps, then the server."""
            self.term_apps()
            super().request_exit()

        def on_signal(self, signum: int) -> None:
            """A stop signal: remember the first (the exit status says it), then stop."""
            self.stopped_by = self.stopped_by or signum
            self.request_exit()

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            """textual-serve's handler, with the app in a process group and the socket
            tracked (closed on shutdown)."""
            websocket = web.WebSocketResponse(heartbeat=15)
            width = _to_int(request.query.get("width", "80"), 80)
            height = _to_int(request.query.get("height", "24"), 24)
            app_service: AppService | None = None
            self.sockets.add(websocket)
            try:
                await websocket.prepare(request)
                app_service = GuardedAppService(
                    self.command,
                    write_bytes=websocket.send_bytes,
                    write_str=websocket.send_str,
                    close=websocket.close,  # type: ignore[arg-type]  # returns a bool
                    download_manager=self.download_manager,
                    debug=self.debug,
                )
                await app_service.start(width, height)
                await self._process_messages(websocket, app_service)
            except asyncio.CancelledError:
                await websocket.close()
            except Exception as error:  # noqa: BLE001 - as textual-serve: log, end the session
                import logging

                logging.getLogger("textual-serve").exception(error)
            finally:
                self.sockets.discard(websocket)
                if app_service is not None:
                    await app_service.stop()
                    if app_service._process is not None:
                        await _reap(app_service._process)
                        self.app_pids.discard(app_service._process.pid)
                        self.processes.discard(app_service._process)
            return websocket

        def serve(self, debug: bool = False) -> None:
            """Run until SIGINT, SIGTERM or SIGHUP; every app process ends with it."""
            self.debug = debug
            self.initialize_logging()
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                loop.add_signal_handler(sig, self.on_signal, sig)
            try:
                web.run_app(
                    self._make_app(),
                    host=self.host,
                    port=self.port,
                    handle_signals=False,
                    loop=loop,
                    shutdown_timeout=GRACE_S,
                    print=lambda *args: None,
                    access_log_class=_keyless_access_log(),
                )
            finally:
                self.stop_apps()

    server = GuardedServer()
    return server


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
    command: str = "",
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
    print(f"xlsearch in your browser: {server.private_url}  (Ctrl+C to stop)", file=sys.stderr)
    if open_browser:
        timer = threading.Timer(1.0, webbrowser.open, args=(server.private_url,))
        timer.daemon = True
        timer.start()
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
