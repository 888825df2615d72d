"""Every CLI command is documented in the README (as sqlite-utils' test_docs does)."""

from __future__ import annotations

import argparse
from pathlib import Path

from xlsearch.cli import build_parser

README = Path(__file__).resolve().parents[2] / "README.md"


def _commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(sub.choices)


def test_every_command_is_in_the_readme_reference() -> None:
    text = README.read_text(encoding="utf-8")
    reference = text.split("## CLI reference", 1)[1]
    missing = [c for c in _commands() if f"`xlsearch {c}" not in reference]
    assert not missing, f"commands missing from README's CLI reference: {missing}"
    assert len(_commands()) >= 14


def test_readme_names_the_two_setup_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "make run" in text and "make test" in text
