"""``xlsearch serve``: the same Textual app in a web browser (textual-serve, localhost).

textual-serve runs ``python -m xlsearch app`` in a pseudo-terminal per browser session and
streams it to xterm.js. Its page template links a Google font stylesheet; xlsearch works
offline, so the page is served from a copy of the template without that link (the font
itself ships with textual-serve as a local file) and with an empty favicon.
"""

from __future__ import annotations

import re
import shlex
import sys
import threading
import webbrowser
from pathlib import Path


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


def serve(
    host: str = "127.0.0.1", port: int = 8000, *, open_browser: bool = True, command: str = ""
) -> None:
    """Serve the app on ``http://host:port`` until Ctrl+C; open the browser first."""
    from textual_serve.server import Server

    check_port(host, port)
    server = Server(
        command or app_command(),
        host=host,
        port=port,
        title="xlsearch",
        templates_path=offline_templates(),
    )
    print(f"xlsearch in your browser: {server.public_url}  (Ctrl+C to stop)", file=sys.stderr)
    if open_browser:
        threading.Timer(1.0, webbrowser.open, args=(server.public_url,)).start()
    server.serve()
