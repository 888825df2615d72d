"""serve's dependencies: what it imports is declared with a tested range, and a textual-serve
without the parts serve extends is refused with the fix rather than served unguarded."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from xlsearch.engine.errors import ConfigError
from xlsearch.tui import serve

PYPROJECT = Path(__file__).parents[2] / "pyproject.toml"


def test_serve_s_imports_are_declared_and_the_installed_versions_in_range() -> None:
    declared = {
        (r := Requirement(line)).name: r
        for line in tomllib.loads(PYPROJECT.read_text("utf-8"))["project"]["dependencies"]
    }
    for name in ("textual-serve", "aiohttp", "aiohttp-jinja2"):
        assert name in declared, f"{name} is imported by xlsearch serve but not declared"
        assert declared[name].specifier, f"{name}: no version range"
        assert version(name) in declared[name].specifier, (name, version(name))


def test_a_textual_serve_without_what_serve_extends_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from textual_serve.server import Server

    monkeypatch.delattr(Server, "_make_app")  # where serve adds its access checks
    with pytest.raises(ConfigError) as err:
        serve.make_server("127.0.0.1", 8000)
    assert f"textual-serve {version('textual-serve')} is not supported" in str(err.value)
    assert "_make_app" in str(err.value)
