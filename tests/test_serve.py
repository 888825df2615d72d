"""``xlsearch serve``: the Textual app over HTTP, driven in a real headless browser.

The browser test needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs
them when missing); without them it is skipped and the server test still runs. The terminal
is drawn on a canvas, so the test reads what the app sends: a script injected before the
page loads records the websocket's output frames.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

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


@pytest.fixture()
def served(tmp_path: Path, tiny_static_model: Path) -> Iterator[str]:
    """``xlsearch serve`` on a free port over a store with a tiny indexed memory."""
    from test_lookup import write_tmx

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
    port = _free_port()
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "xlsearch", "serve", "--no-browser", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((tmp_path / "serve.log").read_text()) from None
                time.sleep(0.3)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


def test_serve_serves_the_app_page_offline(served: str) -> None:
    with urllib.request.urlopen(served, timeout=5) as resp:
        html = resp.read().decode("utf-8")
    assert "textual-terminal" in html and "data-session-websocket-url" in html
    assert "googleapis" not in html  # no remote resources: the app works offline


def _browser() -> tuple[str, str]:
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chrome or not driver:
        pytest.skip("needs Debian's chromium and chromium-driver (.ci/run installs them)")
    return chrome, driver


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
