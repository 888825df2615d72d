"""The shipped multilingual student: a fresh home uses it without any command (the teacher
stays available by name), ``models --json`` lists it, and its folder loads without torch.

The behaviour is checked with a tiny stand-in (``XLSEARCH_SHIPPED_MODEL``); only the last
test touches the real shipped folder, and only to load it and encode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "assets" / "models" / "multilingual"


def _cli(*args: str, shipped: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if shipped is None:
        env.pop("XLSEARCH_SHIPPED_MODEL", None)
    else:
        env["XLSEARCH_SHIPPED_MODEL"] = shipped
    return subprocess.run(
        [sys.executable, "-m", "xlsearch", *args], env=env, capture_output=True, text=True
    )


def test_a_fresh_home_uses_the_shipped_student_and_lists_it(tiny_static_model: Path) -> None:
    from xlsearch.engine.models.shrink import shrink_static

    stand_in = shrink_static(tiny_static_model, tiny_static_model.parent / "multilingual")
    run = _cli("models", "--json", shipped=str(stand_in))
    assert run.returncode == 0, run.stderr
    rows = {r["name"]: r for r in json.loads(run.stdout)}
    mine = rows["multilingual"]
    assert mine["active"] and mine["shipped"]
    assert Path(mine["folder"]) == stand_in.resolve()
    assert mine["languages"] == ["en", "de"] and mine["size_bytes"] > 0
    teacher = next(r for r in rows.values() if r["spec"] == "bundled:teacher")
    assert not teacher["active"] and teacher["languages"] == ["en"]
    # the teacher by name, then back to the shipped student by its short name
    assert _cli("models", "--use", "bundled:teacher", shipped=str(stand_in)).returncode == 0
    rows2 = json.loads(_cli("models", "--json", shipped=str(stand_in)).stdout)
    assert [r["name"] for r in rows2 if r["active"]] == ["teacher (all-MiniLM-L6-v2)"]
    assert _cli("models", "--use", "shipped", shipped=str(stand_in)).returncode == 0
    rows3 = json.loads(_cli("models", "--json", shipped=str(stand_in)).stdout)
    assert [r["name"] for r in rows3 if r["active"]] == ["multilingual"]


def test_without_a_shipped_model_the_teacher_is_the_default() -> None:
    from xlsearch.engine.models.catalog import active_model

    assert active_model() == "bundled:teacher"  # the tests' own setting: none shipped


@pytest.mark.skipif(not (SHIPPED / "modules.json").is_file(), reason="no shipped model here")
def test_the_shipped_folder_loads_without_torch_and_encodes() -> None:
    size = sum(p.stat().st_size for p in SHIPPED.rglob("*") if p.is_file())
    assert size <= 60_000_000
    code = (
        "import sys; from xlsearch.engine.models.catalog import active_model; "
        "from xlsearch.engine.models.encoder import load_encoder; "
        "enc = load_encoder(active_model()); v = enc.encode(['a cat', 'eine Katze']); "
        "assert v.shape == (2, 384) and abs(float((v * v).sum()) - 2) < 1e-3; "
        "assert 'torch' not in sys.modules, 'torch imported'; print(enc.path)"
    )
    env = {k: v for k, v in os.environ.items() if k != "XLSEARCH_SHIPPED_MODEL"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()) == SHIPPED.resolve()
