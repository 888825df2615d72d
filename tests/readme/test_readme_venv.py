"""The README's step after the two commands runs: how a user reaches ``xlsearch`` in ``.venv/``.

The ``sh`` block of the section "Then: the `xlsearch` command" runs as one shell script (its
``. .venv/bin/activate`` must carry over to the next line, as in a terminal) in a folder that
holds a ``.venv`` — the virtual environment running these tests, as ``make`` leaves it — with
a PATH on which ``xlsearch`` is not found before the block runs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.journey import README, ROOT, section_blocks

SECTION = "## Then: the `xlsearch` command"


def _venv() -> Path:
    if sys.prefix == sys.base_prefix or not (Path(sys.prefix) / "bin" / "activate").is_file():
        pytest.skip("the tests do not run in a virtual environment (make test does)")
    if not (Path(sys.prefix) / "bin" / "xlsearch").is_file():
        pytest.skip("xlsearch is not installed in this virtual environment (make test does)")
    return Path(sys.prefix)


def _bare_env(home: Path) -> dict[str, str]:
    """A user's shell right after ``make run``: the venv neither active nor on PATH."""
    path = [  # no folder holding an xlsearch command (the venv's, or one installed elsewhere)
        p
        for p in os.environ.get("PATH", "").split(os.pathsep)
        if p and not (Path(p) / "xlsearch").exists()
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME")}
    env.update(
        PATH=os.pathsep.join(path or ["/usr/bin", "/bin"]),
        XLSEARCH_HOME=str(home),
        PYTHONPATH=str(ROOT),  # this checkout's code, whatever the venv installed
    )
    env.pop("XLSEARCH_ACTIVE_MODEL", None)
    return env


def _block() -> str:
    blocks = section_blocks(README.read_text("utf-8"), SECTION)
    assert [lang for lang, _ in blocks] == ["sh"], blocks
    return blocks[0][1]


def test_the_step_comes_right_after_the_two_commands() -> None:
    headings = re.findall(r"^## (.+)$", README.read_text("utf-8"), re.M)
    assert headings[headings.index("Two commands") + 1] == SECTION[3:]
    code = _block()
    assert ".venv/bin/xlsearch " in code and ". .venv/bin/activate" in code


def test_readme_reaches_xlsearch_from_the_venv(tmp_path: Path) -> None:
    venv = _venv()
    folder = tmp_path / "xlsearch"
    folder.mkdir()
    (folder / ".venv").symlink_to(venv, target_is_directory=True)
    env = _bare_env(tmp_path / "home")

    def bash(script: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", script],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    before = bash("xlsearch models")  # the dead end the section is there for
    assert before.returncode == 127 and "not found" in before.stderr, before

    steps = [line for line in _block().splitlines() if line.strip()]
    assert len(steps) == 3 and not [s for s in steps if s.lstrip().startswith("#")]
    done = bash("set -e\n" + _block())
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    # each of the two xlsearch commands listed the models, the active one (a fresh home:
    # the bundled teacher) marked with *
    assert len(re.findall(r"^\* teacher", done.stdout, re.M)) == 2, done.stdout
