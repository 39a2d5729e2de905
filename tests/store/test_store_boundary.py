"""Nothing outside `agent_assay.store` imports a module private to it.

The store's surface is what `agent_assay.store` and its public sub-packages (the
`PUBLIC_PACKAGES` its `__init__` declares) name in `__all__`; a module named there
(`database.schema`, `encoding.chain`, ...) is public as a whole. Every other module of
the store is private: code in src/, tools/, examples/ and tests/ imports the surface
only. The store's own tests (tests/store/) test its parts and may reach inside, and a
test elsewhere that sets a private constant to force a path names it in `PATCHED`.

Read from the source alone (`ast`), so a copy of the tree with a planted import is
checked the same way.
"""

from __future__ import annotations

import ast
import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STORE = "agent_assay.store"
CHECKED = ("src", "tools", "examples", "tests")
WHITE_BOX = ("tests/store/",)
"""The store's own tests: they test its private parts."""
PATCHED = {
    ("tests/integrity/test_damaged_store.py", "agent_assay.store.database.reads"),
    ("tests/mutation/test_mutation.py", "agent_assay.store.facade.run_trajectories"),
}
"""Tests elsewhere that monkeypatch a private module's constant (a batch size, a held
count) to force a path; the import is for the patch alone."""


def _module_file(root: Path, module: str) -> Path | None:
    base = root / "src" / Path(*module.split("."))
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    return None


def _assigned(tree: ast.Module, name: str) -> object:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    return None


def surface(root: Path) -> dict[str, set[str] | None]:
    """Each public module of the store and the names it offers (None: any public name,
    for a module public as a whole)."""
    init = ast.parse((root / "src/agent_assay/store/__init__.py").read_text(encoding="utf-8"))
    packages = _assigned(init, "PUBLIC_PACKAGES")
    assert isinstance(packages, tuple), "agent_assay.store declares no PUBLIC_PACKAGES"
    found: dict[str, set[str] | None] = {}
    for module in (STORE, *(f"{STORE}.{p}" for p in packages)):
        path = _module_file(root, module)
        assert path is not None, f"{module} is declared public but does not exist"
        names = _assigned(ast.parse(path.read_text(encoding="utf-8")), "__all__")
        assert isinstance(names, list), f"{module} declares no __all__"
        found[module] = set(names)
        for name in names:
            if _module_file(root, f"{module}.{name}") is not None and _imports_module(
                path, module, name
            ):
                found[f"{module}.{name}"] = None
    return found


def _imports_module(init: Path, package: str, name: str) -> bool:
    """Whether `package`'s `__init__` binds `name` to its sub-module (not to a function
    of the same name from inside it)."""
    for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == package and any(
            a.name == name and a.asname is None for a in node.names
        ):
            return True
    return False


def _imports(path: Path) -> Iterator[tuple[int, str, str | None]]:
    """(line, module, name) for every absolute import of the store: name None for
    `import module`. A string that parses as Python with an import in it (a script a tool
    hands a subprocess) is read too, its lines counted from the string's."""
    yield from _imports_in(path.read_text(encoding="utf-8"), 0)


def _imports_in(source: str, offset: int) -> Iterator[tuple[int, str, str | None]]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
            "import agent_assay" in node.value or "from agent_assay" in node.value
        ):
            with contextlib.suppress(SyntaxError):
                yield from _imports_in(node.value, offset + node.lineno - 1)
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == STORE or alias.name.startswith(STORE + "."):
                    yield offset + node.lineno, alias.name, None
        elif (isinstance(node, ast.ImportFrom) and node.module and node.level == 0
              and (node.module == STORE or node.module.startswith(STORE + "."))):
            for alias in node.names:
                yield offset + node.lineno, node.module, alias.name


def private_imports(root: Path) -> list[str]:
    """One line per import, outside the store, of what the store keeps private."""
    public = surface(root)
    found: list[str] = []
    for top in CHECKED:
        for path in sorted((root / top).rglob("*.py")):
            where = path.relative_to(root).as_posix()
            if where.startswith("src/agent_assay/store/") or where.startswith(WHITE_BOX):
                continue
            for line, module, name in _imports(path):
                if name is None:
                    target, ok = module, module in public
                elif module in public:
                    names = public[module]
                    target = f"{module}.{name}"
                    ok = not name.startswith("_") if names is None else name in names
                else:
                    sub = f"{module}.{name}"
                    target, ok = (sub if _module_file(root, sub) else module), False
                if not ok and (where, target) not in PATCHED:
                    found.append(f"{where}:{line} imports {target}, private to {STORE}")
    return found


def test_nothing_outside_the_store_imports_its_private_modules() -> None:
    assert private_imports(ROOT) == []


def test_the_surface_is_what_the_packages_declare() -> None:
    public = surface(ROOT)
    assert {"Store", "open_store", "ScoreRecord"} <= (public[STORE] or set())
    assert "check_evidence" in (public[f"{STORE}.evidence"] or set())
    assert public[f"{STORE}.database.schema"] is None  # a module public as a whole
    assert f"{STORE}.facade" not in public and f"{STORE}.database.provision" not in public


def _planted(tmp_path: Path, relative: str, line: str) -> list[str]:
    shutil.copytree(ROOT / "src" / "agent_assay" / "store", tmp_path / "src/agent_assay/store")
    target = tmp_path / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"{line}\n", encoding="utf-8")
    return private_imports(tmp_path)


def test_an_outside_import_of_a_private_module_is_caught(tmp_path: Path) -> None:
    found = _planted(tmp_path, "src/agent_assay/views/planted.py",
                     "from agent_assay.store.facade.store import Store")
    assert found == ["src/agent_assay/views/planted.py:1 imports agent_assay.store.facade.store, "
                     "private to agent_assay.store"]


def test_a_private_module_reached_through_its_package_is_caught(tmp_path: Path) -> None:
    found = _planted(tmp_path, "tools/planted.py",
                     "def f():\n    from agent_assay.store.evidence import chain_check")
    assert found == ["tools/planted.py:2 imports agent_assay.store.evidence.chain_check, "
                     "private to agent_assay.store"]


def test_a_private_import_in_a_script_a_tool_runs_is_caught(tmp_path: Path) -> None:
    script = "import sys\nfrom agent_assay.store.database.engine import shown\n"
    found = _planted(tmp_path, "tools/planted.py", f'SCRIPT = """\n{script}"""')
    assert found == ["tools/planted.py:3 imports agent_assay.store.database.engine, "
                     "private to agent_assay.store"]


def test_the_surface_itself_passes(tmp_path: Path) -> None:
    found = _planted(tmp_path, "tests/core/test_planted.py",
                     "from agent_assay.store import Store\n"
                     "from agent_assay.store.database import schema\n"
                     "from agent_assay.store.database.schema import ledger\n"
                     "from agent_assay.store.evidence import check_evidence")
    assert found == []
