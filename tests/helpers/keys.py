"""Keys as a terminal sends them (held down: posted on a clock, not awaited), waiting for the
app's workers, and the gettext job the key storm walks."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from textual import events

ENTRIES = [
    ("menu", "_Restart the server", ""),
    ("", "Where is the nearest pharmacy?", ""),
    ("", "The train to %1$s leaves at %2$d.", ""),
    ("tooltip", "The weather will be sunny tomorrow.", ""),
    ("", "\n\nPlease restart the server after the update.", ""),
    ("", "A table for %d, please", ""),
    ("", "_Nearest", ""),
    ("status", "The train was late because of the storm.", ""),
    ("", "Where is the train?", ""),
    ("", "Restart", ""),
    ("", "Server", ""),
    ("button", "_Update", ""),
    ("", "Sunny", ""),
    ("", "Storm warning for %s", ""),
]


def write_job_po(path: Path) -> Path:
    """An English→German gettext catalogue as xgettext + msginit write one: header,
    references, msgctxt, mnemonics, positional placeholders, a msgid that starts with blank
    lines."""

    def quote(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'

    out = [
        'msgid ""',
        'msgstr ""',
        '"Project-Id-Version: demo 1.0\\n"',
        '"Language: de\\n"',
        '"MIME-Version: 1.0\\n"',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        '"Content-Transfer-Encoding: 8bit\\n"',
        '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"',
        "",
    ]
    for n, (ctx, msgid, msgstr) in enumerate(ENTRIES):
        out.append(f"#: src/main.c:{100 + n}")
        if "%" in msgid:
            out.append("#, c-format")
        if ctx:
            out.append(f"msgctxt {quote(ctx)}")
        out += [f"msgid {quote(msgid)}", f"msgstr {quote(msgstr)}", ""]
    path.write_text("\n".join(out), encoding="utf-8")
    return path


async def send_keys(app: Any, keys: list[str], rate: float = 30.0, burst: int = 1) -> None:
    """``keys`` at ``rate`` a second, as a terminal sends a held key: posted, not awaited,
    on a fixed clock (keys the app is too busy to take queue up, as in a terminal);
    ``burst`` keys arrive together (what a busy screen reads from the terminal at once)."""
    start = time.monotonic()
    for i in range(0, len(keys), burst):
        delay = start + i / rate - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        for key in keys[i : i + burst]:
            app.post_message(events.Key(key, None))


def _queued(app: Any) -> int:
    """Messages waiting in the app, its screen and the focused widget (keys not yet taken)."""
    pumps = [app, app.screen, app.focused]
    return sum(p.message_queue_size for p in pumps if p is not None)


async def wait_idle(app: Any, timeout: float = 15.0) -> float:
    """Seconds until every key sent was taken and no worker runs, twice in a row (fails
    after ``timeout``, where a frozen screen ends)."""
    start = time.monotonic()
    calm = 0
    while calm < 2:
        busy = _queued(app) or any(w.is_running for w in app.workers)
        assert time.monotonic() - start < timeout, [(w.name, w.state) for w in app.workers]
        calm = 0 if busy else calm + 1
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.05)  # the last result's message handled
    return time.monotonic() - start
