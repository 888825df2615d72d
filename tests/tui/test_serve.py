"""``xlsearch serve``: the Textual app over HTTP, driven in a real headless browser.

The browser test needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs
them when missing); without them it is skipped and the server test still runs. The terminal
is drawn on a canvas, so the test reads what the app sends: a script injected before the
page loads records the websocket's output frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.skips import needs

RECORDER = """
window.__xl_out = "";
const RealWS = window.WebSocket;
window.WebSocket = function (...args) {
  const ws = new RealWS(...args);
  ws.addEventListener("message", (ev) => {
    const d = ev.data;
    if (typeof d === "string") { window.__xl_out += d; }
    else if (d instanceof ArrayBuffer) { window.__xl_out += new TextDecoder().decode(d); }
    else if (d && d.arrayBuffer) {
      d.arrayBuffer().then((b) => { window.__xl_out += new TextDecoder().decode(b); });
    }
  });
  return ws;
};
window.WebSocket.prototype = RealWS.prototype;
Object.assign(window.WebSocket, RealWS);
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _descendants(pid: int) -> set[int]:
    """Live (non-zombie) processes below ``pid``."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            parents[int(stat.parent.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@dataclass
class Served:
    """A running ``xlsearch serve``: its process, the printed URL, its port and key."""

    proc: subprocess.Popen[bytes]
    url: str
    port: int
    token: str
    log: Path


def start_serve(tmp_path: Path, *extra: str) -> Served:
    """``xlsearch serve --no-browser`` on a free port; waits until it answers."""
    port = _free_port()
    log_path = tmp_path / f"serve-{port}.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "xlsearch",
                "serve",
                "--no-browser",
                "--port",
                str(port),
                *extra,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        )
    deadline = time.monotonic() + 60
    while True:
        found = re.search(r"(http://\S+\?token=(\S+))", log_path.read_text())
        if found:
            url, token = found.group(1), found.group(2)
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200:
                        return Served(proc, url, port, token, log_path)
            except OSError:
                pass
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_serve(proc)
            raise AssertionError(log_path.read_text())
        time.sleep(0.2)


def stop_serve(proc: subprocess.Popen[bytes]) -> None:
    """End the server and (as a safety net for a failing test) whatever it left running."""
    left = _descendants(proc.pid)
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)


@pytest.fixture()
def served(tmp_path: Path, tiny_static_model: Path) -> Iterator[str]:
    """``xlsearch serve`` on a free port over a store with a tiny indexed memory: the URL it
    printed (with its key)."""
    from helpers.memory import write_tmx

    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    set_active_model(str(tiny_static_model))
    with Store() as store:
        store.import_file(
            write_tmx(tmp_path / "tm.tmx", [("the dog sleeps", "der hund schläft")]), "tm"
        )
        build_index(store, load_encoder(str(tiny_static_model)), "tm")
    server = start_serve(tmp_path)
    try:
        yield server.url
    finally:
        stop_serve(server.proc)


@pytest.mark.slow
def test_serve_serves_the_app_page_offline(served: str) -> None:
    with urllib.request.urlopen(served, timeout=5) as resp:
        html = resp.read().decode("utf-8")
    assert "textual-terminal" in html and "data-session-websocket-url" in html
    assert "https://" not in html  # no remote resources: the app works offline
    # the page itself shows the app's first screen (a picture until the terminal draws)
    picture = html[html.index('class="first-screen"') : html.index('class="closed"')]
    assert "<svg" in picture and "Search&#160;in&#160;any&#160;language" in picture


@pytest.mark.slow
def test_a_plain_headless_screenshot_shows_the_app(served: str, tmp_path: Path) -> None:
    """``chromium --headless --screenshot URL`` (one picture as soon as the page has loaded)
    shows the app's screen, not a splash: mostly the app's own dark surfaces, not the page's
    background."""
    from collections import Counter

    from helpers.png import read_png

    chrome, _driver = _browser()
    shot = tmp_path / "shot.png"
    run = subprocess.run(
        [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=800,500",
         f"--screenshot={shot}", served],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert shot.is_file(), run.stderr[-2000:]
    _w, _h, rows = read_png(shot)
    colours = Counter(row[i : i + 3] for row in rows[::5] for i in range(0, len(row), 15))
    total = sum(colours.values())
    page_background = colours[bytes.fromhex("0c181f")] / total
    app_surfaces = sum(colours[bytes.fromhex(c)] for c in ("1e1e1e", "121212")) / total
    assert page_background < 0.2 and app_surfaces > 0.5, colours.most_common(5)


def _browser() -> tuple[str, str]:
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chrome or not driver:
        needs("the browser test needs Debian's chromium and chromedriver (.ci/run installs them)")
    return chrome, driver


@pytest.mark.slow
def test_browser_types_a_query_and_sees_a_result(served: str) -> None:
    chrome, chromedriver = _browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    opts = webdriver.ChromeOptions()
    opts.binary_location = chrome
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=opts)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
        driver.get(served)
        wait = WebDriverWait(driver, 90, poll_frequency=0.5)

        def output() -> str:
            return str(driver.execute_script("return window.__xl_out || ''"))

        wait.until(lambda _d: "Search in any language" in output())
        box = driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea")
        box.send_keys("the dog sleeps")
        box.send_keys(Keys.ENTER)
        wait.until(lambda _d: "der hund schläft" in output())
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
    finally:
        driver.quit()


def test_serve_on_a_busy_or_impossible_port_is_a_one_line_error(capsys) -> None:  # type: ignore[no-untyped-def]
    """A port another program listens on, or one out of range, is refused with the fix
    (``--port``) before a server or a browser starts."""
    from xlsearch.cli import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--no-browser", "--port", str(port)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error:") and str(port) in err and "--port" in err
    assert main(["serve", "--no-browser", "--port", "80000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "80000" in err and "--port" in err


async def _ws_status(
    port: int, *, cookie: str | None, origin: str | None, host: str | None = None
) -> int:
    """The HTTP status of a WebSocket handshake with ``/ws`` (101 when it was accepted)."""
    import aiohttp

    headers = {"Host": host} if host else {}
    cookies = {f"xlsearch-serve-{port}": cookie} if cookie else {}
    async with aiohttp.ClientSession(cookies=cookies) as session:
        try:
            async with session.ws_connect(
                f"ws://127.0.0.1:{port}/ws?width=80&height=24", origin=origin, headers=headers
            ) as ws:
                await ws.close()
                return 101
        except aiohttp.WSServerHandshakeError as e:
            return e.status


def _http_status(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {})) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def test_serve_lets_in_only_the_printed_url(tmp_path: Path) -> None:
    """Without the key, from a foreign page (Origin) or under a foreign host name (DNS
    rebinding) the page and the WebSocket get 403 and no app process starts (beyond the one
    that waits for the first browser); with the key (its garbage only logged)
    (the printed URL, then its cookie) the WebSocket starts the app."""
    server = start_serve(tmp_path)
    port, key = server.port, server.token
    own = f"http://127.0.0.1:{port}"
    try:
        waiting = _descendants(server.proc.pid)  # the app started for the first browser
        assert len(waiting) == 1, waiting
        assert _http_status(f"{own}/") == 403
        assert _http_status(f"{own}/?token=wrong{key}") == 403
        assert _http_status(f"{own}/static/js/textual.js") == 403
        assert _http_status(server.url, {"Host": f"evil.example:{port}"}) == 403
        assert _http_status(server.url) == 200
        refused = [
            _ws_status(port, cookie=None, origin=own),  # no key
            _ws_status(port, cookie="not-the-key", origin=own),
            _ws_status(port, cookie=key, origin="http://evil.example"),  # a foreign page
            _ws_status(port, cookie=key, origin=f"http://localhost:{port + 1}"),
            _ws_status(port, cookie=key, origin=own, host=f"evil.example:{port}"),  # rebinding
        ]
        for status in refused:
            assert asyncio.run(status) == 403
        time.sleep(0.5)
        assert _descendants(server.proc.pid) == waiting, "an app process was started"
        # the key's holder gets in (so the refusals above are the checks, not a broken server)
        assert asyncio.run(_ws_status(port, cookie=key, origin=own)) == 101
        assert asyncio.run(_ws_status(port, cookie=key, origin=None)) == 101  # not a browser
        # the key's holder sending what is not the protocol: ignored, one log line each
        assert asyncio.run(asyncio.wait_for(_garbage_then_ping(port, key), 60)) == ["pong", "x"]
    finally:
        stop_serve(server.proc)
    log = server.log.read_text()
    assert "Traceback" not in log, log
    assert log.count("client 127.0.0.1: ignored") >= 2, log


async def _garbage_then_ping(port: int, key: str) -> list[object]:
    """Messages that are not the protocol's (not JSON, a number, a bad size, a bad size in
    the URL), then a ping: what the server answers."""
    import aiohttp

    cookies = {f"xlsearch-serve-{port}": key}
    async with aiohttp.ClientSession(cookies=cookies) as client:
        url = f"ws://127.0.0.1:{port}/ws?width=abc&height=-5"
        async with client.ws_connect(url, origin=f"http://127.0.0.1:{port}") as ws:
            for junk in ("not json", "42", '["resize", "wide"]', "[]", '["stdin", 7]'):
                await ws.send_str(junk)
            await ws.send_str('["ping", "x"]')
            async for msg in ws:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    return list(msg.json())
    return []


def test_serve_on_another_machine_s_address_needs_allow_remote(tmp_path: Path) -> None:
    """A non-loopback --host is a one-line error (exit 2) unless --allow-remote is given;
    then a warning says who can reach it, and the key is still required."""
    cmd = [sys.executable, "-m", "xlsearch", "serve", "--no-browser", "--host", "0.0.0.0"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    run = subprocess.run(
        [*cmd, "--port", str(_free_port())], capture_output=True, text=True, env=env
    )
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "--allow-remote" in lines[0]

    server = start_serve(tmp_path, "--host", "0.0.0.0", "--allow-remote")
    try:
        log = server.log.read_text()
        assert log.startswith("warning:") and "anyone who can reach this machine" in log
        own = f"http://127.0.0.1:{server.port}"
        assert _http_status(f"{own}/") == 403
        assert _http_status(f"{own}/?token={server.token}") == 200
    finally:
        stop_serve(server.proc)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_stopping_serve_ends_every_app_it_started(tmp_path: Path, sig: int) -> None:
    """SIGTERM, SIGINT or SIGHUP to ``serve`` (not its group) ends it and the app processes
    of its open sessions within 2 s, while the apps are still starting."""
    server = start_serve(tmp_path)
    own = f"http://127.0.0.1:{server.port}"

    async def two_sessions() -> None:
        import aiohttp

        cookies = {f"xlsearch-serve-{server.port}": server.token}
        async with aiohttp.ClientSession(cookies=cookies) as session:
            url = f"ws://127.0.0.1:{server.port}/ws?width=80&height=24"
            sockets = [await session.ws_connect(url, origin=own) for _ in range(2)]
            deadline = time.monotonic() + 20
            while len(_descendants(server.proc.pid)) < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            apps = _descendants(server.proc.pid)
            assert len(apps) >= 2, apps
            await asyncio.sleep(0.5)  # the apps are importing / warming up
            start = time.monotonic()
            server.proc.send_signal(sig)
            while time.monotonic() - start < 5 and (
                server.proc.poll() is None or any(_alive(p) for p in apps)
            ):
                await asyncio.sleep(0.02)
            took = time.monotonic() - start
            print(
                f"serve {signal.Signals(sig).name}: serve and {len(apps)} apps gone in {took:.2f} s"
            )
            assert server.proc.poll() is not None, "serve still runs"
            assert not [p for p in apps if _alive(p)], "app processes left running"
            assert took < 2.0, f"took {took:.2f} s"
            for ws in sockets:
                await ws.close()

    try:
        asyncio.run(two_sessions())
    finally:
        stop_serve(server.proc)
    log = server.log.read_text()
    assert "Traceback" not in log, log


@pytest.mark.parametrize(
    ("sig", "line"),
    [
        (signal.SIGTERM, "stopped (SIGTERM)"),
        (signal.SIGHUP, "stopped (SIGHUP)"),
        (signal.SIGINT, "interrupted"),
    ],
)
def test_stopped_serve_says_so_and_exits_128_plus_the_signal(
    tmp_path: Path, sig: int, line: str
) -> None:
    """As every command: ``kill`` (SIGTERM), a closed terminal (SIGHUP) or Ctrl+C ends
    ``serve`` with one line and exit status 128 + the signal (it ended silently with 0, so a
    service manager or script could not tell a stop from a clean finish)."""
    server = start_serve(tmp_path)
    try:
        server.proc.send_signal(sig)
        assert server.proc.wait(timeout=10) == 128 + sig
    finally:
        stop_serve(server.proc)
    log = server.log.read_text()
    assert "Traceback" not in log, log
    assert log.strip().splitlines()[-1] == line, log


def test_the_key_is_printed_once_not_logged_with_every_request(tmp_path: Path) -> None:
    """Each request was logged with its ``?token=…`` (a terminal's scrollback, a service
    manager's journal): the access log names the path without the query string."""
    server = start_serve(tmp_path)
    try:
        assert _http_status(server.url) == 200
        assert _http_status(f"http://127.0.0.1:{server.port}/?token=wrong") == 403
    finally:
        stop_serve(server.proc)
    log = server.log.read_text()
    assert log.count(server.token) == 1, log  # the address printed at start
    assert "wrong" not in log and '"GET /"' in log.replace("\n", " ").replace("  ", " ")


def test_an_app_that_fails_to_start_does_not_hold_the_page_up() -> None:
    """The page waits for the first app's screen picture; an app that ends without one (a
    broken environment) lets it go at once: the page says the app is starting, no hang."""
    from aiohttp.test_utils import TestClient, TestServer

    from xlsearch.tui.serve import SNAPSHOT_WAIT_S, make_server

    port = _free_port()
    server = make_server(
        "127.0.0.1", port, command=[sys.executable, "-c", "raise SystemExit(3)"], token="key"
    )

    async def ask() -> tuple[int, str, float]:
        async with TestClient(TestServer(server.make_app(), port=port)) as client:
            start = time.monotonic()
            async with client.get("/?token=key") as resp:
                return resp.status, await resp.text(), time.monotonic() - start

    status, page, took = asyncio.run(ask())
    assert status == 200 and "xlsearch is starting" in page
    assert took < SNAPSHOT_WAIT_S / 3, took


def test_a_browser_leaving_while_the_page_waits_is_one_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The page's head goes out at once and its body when the app's picture exists: a
    client that gives up in between is logged in one line, not as a server error."""
    import logging

    import aiohttp
    from aiohttp.test_utils import TestClient, TestServer

    from xlsearch.tui.serve import make_server

    port = _free_port()
    slow = [sys.executable, "-c", "import time; time.sleep(1)"]  # ends without drawing
    server = make_server("127.0.0.1", port, command=slow, token="key")

    async def leave_early() -> str:
        async with TestClient(TestServer(server.make_app(), port=port)) as client:
            async with client.get("/?token=key") as resp:
                head = await resp.content.read(200)
            await asyncio.sleep(1.5)  # the app ends: the handler writes to a gone client
            return head.decode("utf-8", "replace")

    with caplog.at_level(logging.INFO):
        with contextlib.suppress(aiohttp.ClientError):
            head = asyncio.run(leave_early())
    assert head.startswith("<!DOCTYPE html>")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


PROBE = """\
import sys, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=30) as resp:
        result = str(resp.status)
except Exception as exc:  # a refused connection: what a browser shows as an error page
    result = repr(exc)
with open(sys.argv[2], "w") as fh:
    fh.write(result)
"""


def test_the_browser_is_opened_once_the_server_listens(tmp_path: Path) -> None:
    """``serve`` opened the browser 0.2 s after printing the address, while the server was
    still starting (4 s on a busy machine): the browser's one request was refused and it
    showed an error page. The browser (here ``$BROWSER``, which asks once, as a browser
    does) now gets the page, and the address is printed when it can be opened."""
    port = _free_port()
    result, log_path = tmp_path / "browser.txt", tmp_path / "serve.log"
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        "BROWSER": f"{sys.executable} {probe} %s {result}",
    }
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "xlsearch", "serve", "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=env,
        )
    try:
        url = None
        deadline = time.monotonic() + 60
        while not result.exists() and time.monotonic() < deadline and proc.poll() is None:
            if url is None and (found := re.search(r"http://\S+\?token=\S+", log_path.read_text())):
                url = found.group(0)
                assert _http_status(url) == 200  # asked the moment it is printed
            time.sleep(0.02)
        assert result.exists(), log_path.read_text()
        assert result.read_text() == "200", log_path.read_text()
        assert url is not None
    finally:
        stop_serve(proc)
