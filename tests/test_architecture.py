"""The layers hold: import-linter's contracts (pyproject.toml) and no import cycles."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept() -> None:
    """fronts → service → capabilities → store/importers/index → models/lang → runtime, and
    the engine and service never import textual or rich."""
    run = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout


def _own_imports() -> list[tuple[str, int, str, str | None]]:
    """Every ``import xlsearch…`` / ``from xlsearch… import name`` in the package, inside
    functions too: (file, line, module, name)."""
    import ast

    out = []
    for path in sorted((ROOT / "xlsearch").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module.startswith("xlsearch"):
                    for alias in node.names:
                        out.append(
                            (str(path.relative_to(ROOT)), node.lineno, node.module, alias.name)
                        )
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("xlsearch"):
                        out.append((str(path.relative_to(ROOT)), node.lineno, alias.name, None))
    return out


def test_every_import_inside_functions_resolves() -> None:
    """A lazy import of a module that moved fails only when that code path runs: check them
    all statically (module exists; the imported name is defined in it or is a submodule)."""
    import ast
    import importlib.util

    bad = []
    names_of: dict[str, set[str]] = {}  # module file → the names it defines (parsed once)
    for file, line, module, name in _own_imports():
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            bad.append(f"{file}:{line}: no module {module}")
            continue
        if name is None or name == "*":
            continue
        if (
            importlib.util.find_spec(f"{module}.{name}")
            if spec.submodule_search_locations
            else None
        ):
            continue
        if spec.origin in names_of:
            if name not in names_of[spec.origin]:
                bad.append(f"{file}:{line}: {module} has no {name}")
            continue
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        defined = {
            t.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Assign | ast.AnnAssign)
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            if isinstance(t, ast.Name)
        }
        defined |= {
            n.name
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        }
        defined |= {
            (a.asname or a.name).split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, ast.Import | ast.ImportFrom)
            for a in n.names
        }
        names_of[spec.origin] = defined
        if name not in defined:
            bad.append(f"{file}:{line}: {module} has no {name}")
    assert not bad, "\n".join(bad)


def test_no_import_cycles() -> None:
    """No two modules import each other, directly or round a loop, counting imports inside
    functions and under ``TYPE_CHECKING``."""
    import grimp

    graph = grimp.build_graph("xlsearch", cache_dir=None)
    cycles = []
    for module in sorted(graph.modules):
        for other in graph.find_modules_directly_imported_by(module):
            chain = graph.find_shortest_chain(importer=other, imported=module)
            if chain:
                cycles.append(" → ".join((module, *chain)))
    assert not cycles, "\n".join(cycles)


def test_capability_folders_form_a_tree() -> None:
    """No two capability folders of the engine import each other, directly or round a loop
    (counting imports inside functions and under ``TYPE_CHECKING``): each folder builds only
    on the ones below it (the order is the layers contract in pyproject.toml)."""
    import grimp

    graph = grimp.build_graph("xlsearch", cache_dir=None)
    folders = sorted(m for m in graph.find_children("xlsearch.engine") if graph.find_children(m))
    below = {
        a: {
            b
            for b in folders
            if b != a and graph.direct_import_exists(importer=a, imported=b, as_packages=True)
        }
        for a in folders
    }
    loops = []
    for start in folders:
        seen, todo = set(), list(below[start])
        while todo:
            folder = todo.pop()
            if folder == start:
                loops.append(start)
                break
            if folder not in seen:
                seen.add(folder)
                todo.extend(below[folder])
    assert not loops, f"capability folders on an import loop: {loops}"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_module(name: str) -> bool:
    """Whether the dotted ``name`` is a module or package of ours (by its file)."""
    where = ROOT.joinpath(*name.split("."))
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def test_no_private_name_crosses_a_module() -> None:
    """A ``_name`` stays in its module: another module neither imports it (``from m import
    _name``) nor reaches it through the module (``m._name``); what is shared is public."""
    import ast

    bad = []
    for path in sorted((ROOT / "xlsearch").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules: dict[str, str] = {}  # local name → an xlsearch module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if not node.module.startswith("xlsearch"):
                    continue
                for alias in node.names:
                    if _private(alias.name):
                        bad.append(f"{path.name}:{node.lineno}: {node.module}.{alias.name}")
                    elif _is_module(f"{node.module}.{alias.name}"):
                        modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("xlsearch") and alias.asname:
                        modules[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and _private(node.attr)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
            ):
                bad.append(f"{path.name}:{node.lineno}: {modules[node.value.id]}.{node.attr}")
    assert not bad, "\n".join(bad)
