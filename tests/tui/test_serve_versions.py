"""serve's dependencies: what it imports is declared with a tested range, it uses no private
part of another package, and a missing browser client is refused with the fix."""

from __future__ import annotations

import ast
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from xlsearch.engine.errors import ConfigError
from xlsearch.tui import serve

ROOT = Path(__file__).parents[2]


def test_serve_s_imports_are_declared_and_the_installed_versions_in_range() -> None:
    declared = {
        (r := Requirement(line)).name: r
        for line in tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"][
            "dependencies"
        ]
    }
    for name in ("textual-serve", "aiohttp"):
        assert name in declared, f"{name} is used by xlsearch serve but not declared"
        assert declared[name].specifier, f"{name}: no version range"
        assert version(name) in declared[name].specifier, (name, version(name))


def test_serve_uses_no_private_name_of_another_package() -> None:
    """The server is xlsearch's own (aiohttp's public API); textual-serve supplies only the
    browser client's files."""
    for module in ("serve.py", "serve_page.py"):
        tree = ast.parse((ROOT / "xlsearch" / "tui" / module).read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("textual_serve"), node.module
                assert not any(a.name.startswith("_") for a in node.names), node.module
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("textual_serve") for a in node.names)


def test_a_missing_browser_client_is_refused_with_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(serve, "CLIENT_FILES", ("js/not-there.js",))
    with pytest.raises(ConfigError) as err:
        serve.make_server("127.0.0.1", 8000)
    assert "not-there.js" in str(err.value) and "textual-serve" in str(err.value.hint)
