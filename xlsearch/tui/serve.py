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

    from xlsearch.engine.locations import cache_dir

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


def serve(
    host: str = "127.0.0.1", port: int = 8000, *, open_browser: bool = True, command: str = ""
) -> None:
    """Serve the app on ``http://host:port`` until Ctrl+C; open the browser first."""
    from textual_serve.server import Server

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
