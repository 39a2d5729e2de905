"""Package hygiene: the system under test stands alone, outside the harness."""

import ast
import sys
from pathlib import Path

import synthbank

PACKAGE_DIR = Path(synthbank.__file__).parent
ALLOWED_THIRD_PARTY = {"yaml", "synthbank"}


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_only_stdlib_and_pyyaml_are_imported() -> None:
    for path in PACKAGE_DIR.glob("*.py"):
        foreign = _imported_roots(path) - set(sys.stdlib_module_names) - ALLOWED_THIRD_PARTY
        assert foreign == set(), path.name


def test_every_module_states_its_independence() -> None:
    for path in PACKAGE_DIR.glob("*.py"):
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        assert "must not import agent_assay" in " ".join(docstring.split()), path.name


def test_public_api() -> None:
    assert synthbank.__version__ == "1.0.0"
    for name in synthbank.__all__:
        assert hasattr(synthbank, name), name
