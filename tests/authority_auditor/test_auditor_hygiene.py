"""The package keeps its independence promises, checked on the source itself."""

import ast
from pathlib import Path

import pytest

import authority_auditor

SOURCE_DIR = Path(authority_auditor.__file__).parent
MODULES = sorted(SOURCE_DIR.glob("*.py"))

#: The only synthworld modules the auditor may read from: data models, and the
#: public-tree loader. Replay, relationship derivation, projection, integrity,
#: baselines, trace validation and evaluation must stay out, or agreement with
#: the evaluator would stop being an independent result.
ALLOWED_SYNTHWORLD = {
    "synthworld.agentic.models": None,
    "synthworld.agentic.serialization": {"load_public_agentic_bundle"},
}


def _imports(path: Path) -> list[tuple[str, set[str]]]:
    found: list[tuple[str, set[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, set()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            found.append((node.module, {alias.name for alias in node.names}))
    return found


@pytest.mark.parametrize("path", MODULES, ids=[path.name for path in MODULES])
def test_module_imports_stay_inside_the_allowed_surface(path: Path) -> None:
    for module, names in _imports(path):
        assert not module.startswith("agent_assay"), module
        if module.startswith("synthworld"):
            assert module in ALLOWED_SYNTHWORLD, module
            allowed_names = ALLOWED_SYNTHWORLD[module]
            assert allowed_names is None or names <= allowed_names, names


@pytest.mark.parametrize("path", MODULES, ids=[path.name for path in MODULES])
def test_module_docstring_states_its_promise_and_its_forbidden_imports(path: Path) -> None:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))

    assert docstring is not None
    assert "agent_assay" in docstring
    assert "Promise" in docstring or path.name == "__init__.py"
