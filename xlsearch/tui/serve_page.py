"""The page ``xlsearch serve`` sends: the app's terminal (textual-serve's browser client,
xterm.js) and, until the live terminal draws, a picture of the app's first screen.

The picture is the SVG screenshot the waiting app process took of itself (Textual's
``export_screenshot``), so that the page shows the app from its first paint, also to a tool
that takes one screenshot as soon as the page has loaded. Nothing here is fetched from
another site: the font is textual-serve's local copy, the screenshot's remote font links
are removed.
"""

from __future__ import annotations

import html
import re

SNAPSHOT_ENV = "XLSEARCH_SERVE_SNAPSHOT"
"""Set by ``xlsearch serve`` for an app process that waits for a browser: the file its first
screen's SVG screenshot goes to."""

FIRST_SCREEN = "<!--first-screen-->"
"""Where the picture of the app's first screen goes in the page."""
STARTING = '<div class="starting">xlsearch is starting…</div>'
"""What the page shows where no picture of the app exists (it failed to start)."""

_REMOTE_FONT = re.compile(r""",?\s*url\("https?://[^"]*"\)\s*format\("[^"]*"\)""")

PAGE = """<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>{title}</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="{static}css/xterm.css" />
    <script src="{static}js/textual.js"></script>
    <style>
      @font-face {{
        font-family: "Roboto Mono";
        src: url("{static}fonts/RobotoMono-VariableFont_wght.ttf") format("truetype");
      }}
      html, body {{ margin: 0; height: 100%; background: #0c181f; overflow: hidden; }}
      .first-screen {{
        position: absolute; inset: 0; z-index: 10; display: flex;
        align-items: center; justify-content: center; background: #0c181f;
      }}
      .first-screen svg {{ width: 100%; height: 100%; }}
      .first-screen .starting {{
        color: rgba(255, 255, 255, 0.9); font: 16px "Roboto Mono", monospace;
      }}
      /* the picture stays until the live terminal has drawn the same screen */
      body.-first-byte .first-screen {{
        opacity: 0; pointer-events: none; transition: opacity 0.2s ease-out 1s;
      }}
      body .textual-terminal {{ opacity: 0; }}
      body.-first-byte .textual-terminal {{ opacity: 1; }}
      .closed {{ display: none; }}
      body.-closed .closed {{
        position: absolute; inset: 0; z-index: 20; display: flex; align-items: center;
        justify-content: center; background: rgba(12, 24, 31, 0.85); color: #fff;
        font: 16px "Roboto Mono", monospace; flex-direction: column;
      }}
      .closed button {{
        margin: 16px; padding: 12px 28px; background: #5e0ba7; color: #fff; border: none;
        font: inherit; cursor: pointer;
      }}
    </style>
  </head>
  <body>
    <div class="first-screen" aria-label="{title} is starting">{first_screen}</div>
    <div class="closed">
      <div>Session ended.</div>
      <button type="button" onclick="window.location.reload()">Restart</button>
    </div>
    <div
      id="terminal"
      class="textual-terminal"
      data-session-websocket-url="{websocket}"
      data-font-size="{font_size}"
    ></div>
  </body>
</html>
"""


def offline_svg(svg: str) -> str:
    """A Textual screenshot without its remote font links, drawn in the page's local font."""
    svg = re.sub(r"<!--.*?-->", "", _REMOTE_FONT.sub("", svg), flags=re.S)
    return svg.replace("font-family: Fira Code, monospace", 'font-family: "Roboto Mono", monospace')


def render_page(
    *, title: str, static: str, websocket: str, font_size: int, snapshot: str | None
) -> str:
    """The HTML page: ``snapshot`` (an SVG of the app's screen, or None while none exists
    yet) shown until the terminal's first bytes arrive."""
    first = snapshot if snapshot else STARTING
    return PAGE.format(
        title=html.escape(title),
        static=html.escape(static, quote=True),
        websocket=html.escape(websocket, quote=True),
        font_size=int(font_size),
        first_screen=first,
    )
