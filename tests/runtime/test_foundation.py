"""Import hygiene, settings, locations, CLI basics, offline guard."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from xlsearch.engine import ConfigError
from xlsearch.engine.runtime.settings import Settings


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return out.stdout.strip()


def test_engine_never_imports_textual_or_rich() -> None:
    code = (
        "import sys, pkgutil, importlib, xlsearch.engine as e\n"
        "for m in pkgutil.walk_packages(e.__path__, 'xlsearch.engine.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(sorted(k for k in sys.modules if k.split('.')[0] in ('textual', 'rich')))"
    )
    assert _run(code) == "[]"


def test_help_does_not_import_torch() -> None:
    code = (
        "import sys, contextlib, io\n"
        "from xlsearch.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try: main(['--help'])\n"
        "    except SystemExit: pass\n"
        "print([m for m in ('torch', 'transformers', 'faiss', 'textual') if m in sys.modules])"
    )
    assert _run(code) == "[]"


def test_python_m_xlsearch_help() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "xlsearch", "--help"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and "encode" in out.stdout


def test_settings_file_and_env_override(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"batch_size": 8, "device": "cpu"}))
    monkeypatch.setenv("XLSEARCH_BATCH_SIZE", "64")
    monkeypatch.setenv("XLSEARCH_QUANTIZE", "yes")
    s = Settings.load(path)
    assert (s.batch_size, s.device, s.quantize) == (64, "cpu", True)
    s.save(path)
    assert json.loads(path.read_text())["batch_size"] == 64


def test_settings_reject_unknown_and_bad_values(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"batchsize": 8}))
    with pytest.raises(ConfigError, match="batchsize"):
        Settings.load(path)
    path.write_text("{}")
    monkeypatch.setenv("XLSEARCH_BATCH_SIZE", "many")
    with pytest.raises(ConfigError, match="batch_size"):
        Settings.load(path)


def test_locations_follow_xlsearch_home(_tmp_home: Path) -> None:
    from xlsearch.engine.runtime import locations

    assert locations.data_dir().is_relative_to(_tmp_home)
    assert locations.cache_dir().is_relative_to(_tmp_home)
    assert locations.store_path().parent == locations.data_dir()


def test_network_is_blocked_in_tests() -> None:
    import socket

    with pytest.raises(RuntimeError, match="network access attempted"):
        socket.create_connection(("93.184.216.34", 80), timeout=1)


def test_cli_encode_writes_npy(tiny_static_model: Path, tmp_path: Path) -> None:
    import numpy as np

    from xlsearch.cli import main

    out = tmp_path / "v.npy"
    assert main(["encode", "--model", str(tiny_static_model), "--out", str(out), "hello"]) == 0
    vec = np.load(out)
    assert vec.shape == (1, 16)


def test_cli_reports_missing_model(tmp_path: Path, capsys) -> None:
    from xlsearch.cli import main

    assert main(["encode", "--model", str(tmp_path / "nope"), "x"]) == 2
    err = capsys.readouterr().err
    assert "Model error" in err and str(tmp_path / "nope") in err


def test_unavailable_device_is_a_one_line_error(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    from xlsearch.cli import main
    from xlsearch.engine.errors import ConfigError
    from xlsearch.engine.models.encoder import pick_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert pick_device("cpu") == "cpu"
    for bad, why in [("cuda", "not available"), ("cuda:1", "not available"), ("gpu", "unknown")]:
        with pytest.raises(ConfigError, match=why):
            pick_device(bad)
    train = tmp_path / "t.tsv"
    train.write_text("Hello\tHallo\n" * 20)
    # was: "error: AssertionError: Torch not compiled with CUDA enabled … report it"
    assert main(["distill", "--train", str(train), "--device", "cuda", "--name", "x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: Configuration error: device 'cuda' is not available")
    assert "--device auto" in err[-1]
