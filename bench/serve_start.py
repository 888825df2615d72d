"""``xlsearch serve`` start-up, step by step, in fresh processes: the address printed, the page
served (it holds a picture of the app's first screen), the WebSocket open, the app's first bytes
and its first screen (the footer drawn).

``--after S``: the page is asked for S seconds after the address was printed (a user who
opens the address a moment later); the steps are then also given from that request.
``--xlsearch PATH``: another checkout's ``xlsearch`` (a baseline in the same run).
A browser adds its own page load (xterm.js and the font, ~1 MB from localhost) before it
opens the WebSocket; the figures here are the server's and the app's part.

    .venv/bin/python bench/serve_start.py [--runs 3] [--port 8765] [--after 0] [--xlsearch X]
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


async def one_run(port: int, after: float = 0.0, xlsearch: Path = XLSEARCH) -> list[float]:
    """Seconds from launching ``serve`` to each of ``STEPS`` (the page asked for ``after``
    seconds after the address was printed)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        [str(xlsearch), "serve", "--no-browser", "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        found = re.search(r"http://\S+", proc.stderr.readline())
        assert found, "serve printed no address"
        out = [time.monotonic() - start]
        await asyncio.sleep(after)
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
    ap.add_argument("--after", type=float, default=0.0)
    ap.add_argument("--xlsearch", type=Path, default=XLSEARCH)
    args = ap.parse_args()
    runs = [asyncio.run(one_run(args.port, args.after, args.xlsearch)) for _ in range(args.runs)]
    print(f"{args.xlsearch}, page asked for {args.after:g} s after the address was printed")
    for i, step in enumerate(STEPS):
        times = [r[i] for r in runs]
        each = ", ".join(f"{t:.2f}" for t in times)
        line = f"{step:>16}: median {statistics.median(times):.2f} s ({each})"
        if args.after and i:
            since = [r[i] - r[0] - args.after for r in runs]
            line += f"; from the request: median {statistics.median(since):.2f} s"
        print(line)


if __name__ == "__main__":
    main()
