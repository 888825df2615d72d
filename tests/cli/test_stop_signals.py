"""SIGTERM (and SIGHUP) to a long command: out within 2 s at any stage, one line, nothing lost.

Each test starts a fresh ``xlsearch`` process, signals it at a known stage and checks the time
to exit, the exit status (128 + the signal), stderr (one line, no traceback) and what is on
disk: an import or index batch rolls back whole, distill leaves a checkpoint it resumes from.
A stage is announced by a small wrapper around the real CLI (``_DRIVER``): it prints a marker
when the engine reaches a point (an import batch, an encoding batch), optionally slowing that
point down the way a big file or a slow model would.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.distill import DE, FR, write_pairs
from helpers.memory import write_tmx

ROOT = Path(__file__).resolve().parents[2]
LIMIT_S = 2.0
"""Longest time from the signal to the process's end."""

_DRIVER = r"""
import sys, time
stage, pause, argv = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
said = []

def announce(module, name):
    import importlib
    mod = importlib.import_module(module)
    real = getattr(mod, name)

    def wrapped(*a, **k):
        if not said:
            said.append(1)
            print("STAGE", stage, file=sys.stderr, flush=True)
        time.sleep(pause)
        return real(*a, **k)

    setattr(mod, name, wrapped)

if stage == "main":  # inside the CLI's main(), before torch or the engine load
    announce("xlsearch.cli", "_configure_threads")
elif stage == "import-batch":
    announce("xlsearch.engine.store.ingest", "write_units")
elif stage == "encode-batch":  # the torch encoder and the numpy one (static students)
    import xlsearch.engine.models.encoder as enc
    import xlsearch.engine.models.static_encoder as senc

    def slowed(cls):
        real_encode = cls.encode

        def encode(self, *a, **k):
            if not said:
                said.append(1)
                print("STAGE", stage, file=sys.stderr, flush=True)
            time.sleep(pause)
            return real_encode(self, *a, **k)

        cls.encode = encode

    slowed(enc.Encoder)
    slowed(senc.StaticEncoder)
from xlsearch.cli import main
raise SystemExit(main(argv))
"""


def _env(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "XLSEARCH_HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "OMP_NUM_THREADS": "1",
    }


class Run:
    """A CLI process whose stderr is read as it comes."""

    def __init__(self, args: list[str], home: Path, stage: str = "", pause: float = 0.0) -> None:
        if stage:
            cmd = [sys.executable, "-c", _DRIVER, stage, str(pause), *args]
        else:
            cmd = [sys.executable, "-m", "xlsearch", *args]
        self.proc = subprocess.Popen(
            cmd,
            env=_env(home),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.err = b""
        self.out = b""

    def _pump(self, timeout: float) -> None:
        streams = [s for s in (self.proc.stderr, self.proc.stdout) if s and not s.closed]
        ready, _, _ = select.select(streams, [], [], timeout)
        for s in ready:
            data = os.read(s.fileno(), 65536)
            if s is self.proc.stderr:
                self.err += data
            else:
                self.out += data

    def wait_for(self, marker: bytes, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while marker not in self.err:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                raise AssertionError(f"no {marker!r}: {self.err.decode(errors='replace')}")
            self._pump(0.05)

    def stop(self, sig: int = signal.SIGTERM) -> float:
        """Send ``sig``; the seconds until the process ended (killed after 10 s)."""
        start = time.monotonic()
        self.proc.send_signal(sig)
        while self.proc.poll() is None and time.monotonic() - start < 10:
            self._pump(0.01)
        took = time.monotonic() - start
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.out += self.proc.stdout.read()
        self.err += self.proc.stderr.read()
        return took

    def assert_stopped(self, took: float, sig: int = signal.SIGTERM) -> None:
        err = self.err.decode(errors="replace")
        assert "Traceback" not in err, err
        assert took < LIMIT_S, f"{took:.2f} s to exit: {err}"
        assert self.proc.returncode == 128 + sig, (self.proc.returncode, err)
        lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("STAGE")]
        assert lines[-1] == f"stopped ({signal.Signals(sig).name})", err
        print(f"{signal.Signals(sig).name} → exit in {took:.2f} s")


def _store(home: Path) -> Path:
    return home / "data" / "xlsearch.db"


def _store_counts(home: Path) -> dict[str, int]:
    assert _store(home).is_file()
    con = sqlite3.connect(_store(home))
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return {
            t: int(con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
            for t in ("documents", "segments", "embeddings")
        }
    finally:
        con.close()


def _big_tmx(path: Path, units: int) -> Path:
    words = "the a cat dog house tree runs sleeps big small red green hello world".split()
    pairs = []
    for i in range(units):
        en = " ".join(words[(i * 7 + j * 3) % len(words)] for j in range(6)) + f" n{i}"
        pairs.append((en, f"de {en}"))
    return write_tmx(path, pairs)


def _import(path: Path, collection: str) -> None:
    """An import in this process (into the test's XLSEARCH_HOME, which the CLI runs share)."""
    from xlsearch.engine.store import Store

    with Store() as store:
        store.import_file(path, collection)


def _home() -> Path:
    return Path(os.environ["XLSEARCH_HOME"])


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_import_stopped_mid_file_keeps_the_store_as_before(tmp_path: Path, sig: int) -> None:
    """A stop signal during a file's transaction: the file's units are all rolled back, the
    earlier import stays, and the file imports in full afterwards."""
    home = _home()
    _import(write_tmx(tmp_path / "small.tmx", [("the dog sleeps", "der hund schläft")]), "tm")
    before = _store_counts(home)
    big = _big_tmx(tmp_path / "big.tmx", 5000)
    run = Run(["import", str(big), "--collection", "tm"], home, "import-batch", 0.05)
    run.wait_for(b"STAGE import-batch")
    run.assert_stopped(run.stop(sig), sig)
    assert _store_counts(home) == before
    _import(big, "tm")
    after = _store_counts(home)
    assert after["documents"] == 2 and after["segments"] == before["segments"] + 10000


def test_import_stopped_while_starting(tmp_path: Path) -> None:
    """SIGTERM as the command starts: out within 2 s, nothing stored."""
    home = _home()
    small = write_tmx(tmp_path / "small.tmx", [("the dog sleeps", "der hund schläft")])
    run = Run(["import", str(small), "--collection", "tm"], home, "main")
    run.wait_for(b"STAGE main")
    run.assert_stopped(run.stop())
    if _store(home).exists():
        assert _store_counts(home)["segments"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("when", ["model-loading", "encoding"])
def test_index_stopped_keeps_whole_batches_and_resumes(
    tmp_path: Path, tiny_static_model: Path, when: str
) -> None:
    """SIGTERM while the model loads or between encoding batches: the vector cache holds only
    whole committed batches, and the next ``index`` finishes the job."""
    from xlsearch.engine.index.cache import BATCH

    home = _home()
    _import(_big_tmx(tmp_path / "big.tmx", 2500), "tm")  # 5,000 texts: three cache batches
    model = str(tiny_static_model)
    before = _store_counts(home)
    if when == "encoding":
        run = Run(["index", "--model", model, "--collection", "tm"], home, "encode-batch", 1.5)
        run.wait_for(b"STAGE encode-batch")
        time.sleep(2.0)  # the first batch committed, the second waiting (a slow model)
    else:
        run = Run(["index", "--model", model, "--collection", "tm"], home, "main")
        run.wait_for(b"STAGE main")
        time.sleep(0.2)  # importing torch
    run.assert_stopped(run.stop())
    counts = _store_counts(home)
    assert counts["segments"] == before["segments"]
    assert counts["embeddings"] % BATCH == 0 and counts["embeddings"] < 5000
    again = Run(["index", "--model", model, "--collection", "tm"], home)
    assert again.proc.wait(120) == 0, again.proc.stderr.read() if again.proc.stderr else ""
    assert _store_counts(home)["embeddings"] == 5000


def _distill_args(tmp_path: Path, teacher: Path, out: Path) -> list[str]:
    de = write_pairs(tmp_path / "en-de.tsv", DE, 200, 1)
    fr = write_pairs(tmp_path / "en-fr.tsv", FR, 120, 2)
    return [
        *("distill", "--train", str(de), f"{fr}:2", "--teacher", str(teacher)),
        *("--student", "static", "--out", str(out), "--vocab-size", "120"),
        *("--batch-size", "16", "--device", "cpu", "--dev-per-lang", "12"),
        *("--eval-steps", "0", "--log-steps", "1", "--max-steps", "100000"),
    ]


@pytest.mark.slow
def test_distill_sigterm_while_training_saves_a_checkpoint_it_resumes(
    tmp_path: Path, tiny_st_model: Path
) -> None:
    """SIGTERM mid-training goes the Ctrl-C way: the step ends, the checkpoint is written,
    the run resumes from it."""
    home, out = tmp_path / "home", tmp_path / "s"
    run = Run(_distill_args(tmp_path, tiny_st_model, out), home)
    log = out.with_name("s.run") / "metrics.jsonl"
    deadline = time.monotonic() + 120
    while not (log.is_file() and log.read_text().count('"loss"') >= 3):
        assert run.proc.poll() is None and time.monotonic() < deadline, run.err
        run._pump(0.1)
    run.assert_stopped(run.stop())
    assert b"saving a checkpoint" in run.err
    meta = json.loads((out.with_name("s.run") / "checkpoint" / "meta.json").read_text())
    assert meta["step"] >= 3
    assert b"xlsearch distill --resume" in run.out
    resumed = Run(
        ["distill", "--resume", "--out", str(out), "--max-steps", str(meta["step"] + 2)], home
    )
    assert resumed.proc.wait(120) == 0
    steps = [json.loads(x)["step"] for x in log.read_text().splitlines() if '"loss"' in x]
    assert steps == list(range(1, meta["step"] + 3))  # went on from the checkpoint, no gap


def test_distill_sigterm_while_loading_ends_at_once(tmp_path: Path, tiny_st_model: Path) -> None:
    """Before the first step there is nothing to save: out within 2 s, no checkpoint."""
    home, out = tmp_path / "home", tmp_path / "s"
    run = Run(_distill_args(tmp_path, tiny_st_model, out), home, "main")
    run.wait_for(b"STAGE main")
    time.sleep(0.3)  # importing torch / loading the teacher
    run.assert_stopped(run.stop())
    assert not (out.with_name("s.run") / "checkpoint").exists()


def test_align_and_analyze_stopped_while_the_model_loads(
    tmp_path: Path, tiny_st_model: Path
) -> None:
    home = tmp_path / "home"
    src, tgt = tmp_path / "a.en.txt", tmp_path / "a.de.txt"
    src.write_text("The dog sleeps.\nThe cat runs.\n", "utf-8")
    tgt.write_text("Der Hund schläft.\nDie Katze läuft.\n", "utf-8")
    align = Run(
        ["align", str(src), str(tgt), "--model", str(tiny_st_model), "--show", "2"], home, "main"
    )
    align.wait_for(b"STAGE main")
    time.sleep(0.3)
    align.assert_stopped(align.stop())
    memory = write_tmx(tmp_path / "tm.tmx", [("The dog sleeps.", "Der Hund schläft.")])
    _import(memory, "tm")  # analyze checks the memory's languages before loading the model
    analyze = Run(
        ["analyze", str(src), "--src", "en", "--tgt", "de", "--model", str(tiny_st_model)],
        _home(),
        "main",
    )
    analyze.wait_for(b"STAGE main")
    time.sleep(0.3)
    analyze.assert_stopped(analyze.stop())


def _app_home(tmp_path: Path, model: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home)
    subprocess.run(
        [sys.executable, "-m", "xlsearch", "models", "--use", str(model)],
        env=env,
        check=True,
        capture_output=True,
    )
    return home


def _read_until(fd: int, marker: bytes, proc_alive: object, timeout: float = 60) -> bytes:
    buf = b""
    deadline = time.monotonic() + timeout
    while marker not in buf:
        assert time.monotonic() < deadline, buf[-500:]
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                buf += os.read(fd, 65536)
            except OSError:
                break
    return buf


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_app_in_a_browser_session_stops_during_warm_up(
    tmp_path: Path, tiny_st_model: Path, sig: int
) -> None:
    """The app as ``serve`` runs it (textual-serve's driver on pipes), signalled while its
    warm-up thread still loads torch and the model: out within 2 s."""
    home = _app_home(tmp_path, tiny_st_model)
    env = {**_env(home), "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "xlsearch", "app"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        _read_until(proc.stdout.fileno(), b"Search", proc)
        start = time.monotonic()
        proc.send_signal(sig)
        proc.wait(10)
        took = time.monotonic() - start
    finally:
        proc.kill()
    err = proc.stderr.read().decode(errors="replace")
    assert "Traceback" not in err, err
    assert took < LIMIT_S, f"{took:.2f} s"
    assert proc.returncode == 128 + sig
    assert err.strip().splitlines()[-1] == f"stopped ({signal.Signals(sig).name})"
    print(f"app (browser driver) {signal.Signals(sig).name} → exit in {took:.2f} s")


def test_app_in_a_terminal_stops_during_warm_up_and_restores_it(
    tmp_path: Path, tiny_st_model: Path
) -> None:
    """In a terminal (a pty): SIGTERM during warm-up leaves the alternate screen, ends within
    2 s and says why."""
    home = _app_home(tmp_path, tiny_st_model)
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(sys.executable, [sys.executable, "-m", "xlsearch", "app"], _env(home))
    try:
        _read_until(fd, b"Search", None)
        start = time.monotonic()
        os.kill(pid, signal.SIGTERM)
        rest = b""
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done or time.monotonic() - start > 10:
                break
            ready, _, _ = select.select([fd], [], [], 0.01)
            if ready:
                try:
                    rest += os.read(fd, 65536)
                except OSError:
                    pass
        took = time.monotonic() - start
        try:
            while select.select([fd], [], [], 0.2)[0]:
                rest += os.read(fd, 65536)
        except OSError:
            pass
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)
    assert done, "the app still runs"
    assert os.waitstatus_to_exitcode(status) == 128 + signal.SIGTERM
    assert took < LIMIT_S, f"{took:.2f} s"
    assert b"\x1b[?1049l" in rest  # the alternate screen was left: the terminal is usable
    assert rest.rstrip().endswith(b"stopped (SIGTERM)") and b"Traceback" not in rest
    print(f"app (terminal) SIGTERM → exit in {took:.2f} s")
