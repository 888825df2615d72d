"""Run the README's shell steps as a user types them: one folder, one XLSEARCH_HOME."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


README = ROOT / "README.md"


SECTION = "## Your own data, step by step"


def section_blocks(text: str, heading: str = SECTION) -> list[tuple[str, str]]:
    """``(language, code)`` of each fenced block in the README section under ``heading``."""
    body = text.split(heading, 1)[1]
    body = re.split(r"\n## ", body, maxsplit=1)[0]
    return [(m[1], m[2]) for m in re.finditer(r"```(\w+)\n(.*?)```", body, re.S)]


def shell_steps(blocks: list[tuple[str, str]]) -> list[str]:
    """Every command line of the ``sh`` blocks (comments stay: the shell ignores them)."""
    return [
        line.strip()
        for lang, code in blocks
        if lang == "sh"
        for line in code.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def subcommand(line: str) -> str:
    words = shlex.split(line, comments=True)
    assert words[0] == "xlsearch", f"README step is not an xlsearch command: {line}"
    return words[1]


class Journey:
    """Runs steps in one folder with one XLSEARCH_HOME, like one user's terminal."""

    def __init__(self, folder: Path, home: Path) -> None:
        self.folder = folder
        bindir = Path(sys.executable).parent
        self.env = {
            **os.environ,
            "XLSEARCH_HOME": str(home),
            "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": str(ROOT),
            "COLUMNS": "120",
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2"),
        }
        self.env.pop("XLSEARCH_ACTIVE_MODEL", None)
        self.timings: dict[str, float] = {}

    def run(self, line: str, *, shell: bool = True, stdin: str | None = None) -> Step:
        start = time.monotonic()
        proc = subprocess.run(
            line if shell else [sys.executable, "-"],
            shell=shell,
            executable="/bin/bash" if shell else None,
            cwd=self.folder,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=600,
        )
        self.timings[line[:60]] = took = time.monotonic() - start
        print(f"[{took:6.1f}s] {line[:90]}", file=sys.stderr)
        return Step(line, proc.returncode, proc.stdout, proc.stderr)


class Step:
    def __init__(self, line: str, rc: int, out: str, err: str) -> None:
        self.line, self.rc, self.out, self.err = line, rc, out, err

    def ok(self) -> Step:
        assert self.rc == 0, f"`{self.line}` exited {self.rc}:\n{self.out}\n{self.err}"
        assert "Traceback" not in self.err, self.err
        return self
