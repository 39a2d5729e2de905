"""govsim stands alone: stdlib, PyYAML and numpy only, and never the harness."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import govsim

ALLOWED_THIRD_PARTY = {"yaml", "numpy"}


def _imports() -> set[str]:
    roots: set[str] = set()
    for path in Path(govsim.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                roots |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                roots.add(node.module.split(".")[0])
    return roots


def test_only_stdlib_yaml_and_numpy_are_imported() -> None:
    foreign = _imports() - set(sys.stdlib_module_names) - ALLOWED_THIRD_PARTY - {"govsim"}
    assert not foreign
    assert "agent_assay" not in _imports()


def test_package_data_ships_with_the_package() -> None:
    root = Path(govsim.__file__).parent
    assert (root / "clauses.yaml").is_file() and (root / "names.yaml").is_file()


def test_public_api_is_exported() -> None:
    for name in govsim.__all__:
        assert hasattr(govsim, name), name
