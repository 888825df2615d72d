"""``xlsearch serve`` start-up, step by step, in fresh processes: the address printed, the page
served, the WebSocket open, the app's first bytes and its first screen (the footer drawn).

A browser adds its own page load (xterm.js and the font, ~1 MB from localhost) before it
opens the WebSocket; the figures here are the server's and the app's part.

    .venv/bin/python bench/serve_start.py [--runs 3] [--port 8765]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

XLSEARCH = Path(sys.executable).with_name("xlsearch")
STEPS = ("address printed", "page", "websocket", "first app bytes", "first screen")
ANSI = re.compile(r"\x1b\[[0-9;?<>$]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]|\x1b[=>]")


async def one_run(port: int) -> list[float]:
    """Seconds from launching ``serve`` to each of ``STEPS``."""
    start = time.monotonic()
    proc = subprocess.Popen(
        [str(XLSEARCH), "serve", "--no-browser", "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        found = re.search(r"http://\S+", proc.stderr.readline())
        assert found, "serve printed no address"
        out = [time.monotonic() - start]
        jar = aiohttp.CookieJar(unsafe=True)  # the key's cookie, on 127.0.0.1
        async with aiohttp.ClientSession(cookie_jar=jar) as session:
            while True:
                try:
                    async with session.get(found.group(0)) as r:
                        page = await r.text()
                    break
                except aiohttp.ClientConnectorError:
                    await asyncio.sleep(0.02)
            out.append(time.monotonic() - start)
            ws_url = re.search(r'data-session-websocket-url="([^"]+)"', page)
            assert ws_url, "no WebSocket address in the page"
            async with session.ws_connect(f"{ws_url.group(1)}?width=120&height=36") as ws:
                out.append(time.monotonic() - start)
                await ws.send_json(["resize", {"width": 120, "height": 36}])
                screen = ""
                async for msg in ws:
                    if msg.type != aiohttp.WSMsgType.BINARY:
                        continue
                    if len(out) == 3:
                        out.append(time.monotonic() - start)
                    screen += msg.data.decode("utf-8", "replace")
                    if "f1 Help" in ANSI.sub("", screen):  # the footer: the screen is drawn
                        out.append(time.monotonic() - start)
                        break
        return out
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--port", type=int, default=8765)
    args = ap.parse_args()
    runs = [asyncio.run(one_run(args.port)) for _ in range(args.runs)]
    for i, step in enumerate(STEPS):
        times = [r[i] for r in runs]
        each = ", ".join(f"{t:.2f}" for t in times)
        print(f"{step:>16}: median {statistics.median(times):.2f} s ({each})")


if __name__ == "__main__":
    main()
