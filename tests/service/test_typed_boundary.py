"""What crosses the service is typed: no ``Any`` in the signatures of ``xlsearch/service``."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICE = Path(__file__).resolve().parents[2] / "xlsearch" / "service"


def _mentions_any(annotation: ast.expr) -> bool:
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id == "Any":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "Any":
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _mentions_any(ast.parse(node.value, mode="eval").body):  # a quoted annotation
                return True
    return False


def any_in_signatures(folder: Path) -> list[str]:
    """``file:line`` of each function parameter, return or class field annotated with
    ``Any`` (anywhere inside the annotation)."""
    out = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            annotations: list[ast.expr] = []
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                a = node.args
                for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                    if arg is not None and arg.annotation is not None:
                        annotations.append(arg.annotation)
                if node.returns is not None:
                    annotations.append(node.returns)
            elif isinstance(node, ast.ClassDef):
                annotations += [s.annotation for s in node.body if isinstance(s, ast.AnnAssign)]
            out += [f"{path.name}:{a.lineno}" for a in annotations if _mentions_any(a)]
    return out


def test_counter_sees_any(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "from typing import Any\n"
        "class C:\n    x: dict[str, Any]\n"
        "def f(a: 'list[Any]', *b: int) -> typing.Any: ...\n"
        "def g(a: int) -> int: ...\n"
    )
    assert any_in_signatures(tmp_path) == ["m.py:3", "m.py:4", "m.py:4"]


def test_no_any_crosses_the_service() -> None:
    """Frozen dataclasses and the protocols of ``service.types`` cross it, never ``Any``."""
    assert any_in_signatures(SERVICE) == []
