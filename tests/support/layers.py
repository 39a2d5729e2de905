"""The import graph of src/, checked against the layer order ARCHITECTURE.md states.

Every import counts, including one inside a function: a lazy import is still a
dependency. Layers are matched by the longest module prefix.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

LAYERS: dict[str, int] = {
    "agent_assay": 9,  # the package itself is the public facade: it re-exports the API
    "agent_assay.errors": 0,
    "agent_assay.exitcodes": 0,
    "agent_assay.findings": 0,
    "agent_assay.hashing": 0,
    "agent_assay.model": 0,
    "agent_assay.statepaths": 0,
    "agent_assay.version": 0,
    "agent_assay.yamlfile": 0,
    "agent_assay.writers": 0,
    "agent_assay.stats": 1,
    "agent_assay.store": 1,
    "agent_assay.scoring": 1,
    "agent_assay.aggregates": 2,
    "agent_assay.adapters": 2,
    "agent_assay.importers": 2,
    "agent_assay.llm": 3,
    "agent_assay.outfiles": 0,
    "agent_assay.infiles": 0,
    "agent_assay.selection": 0,
    "agent_assay.executors": 4,
    "agent_assay.hosting": 4,
    "agent_assay.runner": 4,
    "agent_assay.rescoring": 4,
    "agent_assay.resuming": 4,
    "agent_assay.mutation": 5,
    "agent_assay.controls": 6,
    "agent_assay.integrity": 7,
    "agent_assay.views": 8,
    "agent_assay.api": 9,
    "agent_assay.cli": 10,
    "agent_assay.pytest_plugin": 10,
}
SYSTEMS = ("synthbank", "govsim", "authority_auditor", "synthworld")
BUNDLED = "agent_assay_bundled"
OPENAI_ALLOWED = ("agent_assay.llm.loop",)


def layer_of(module: str) -> int | None:
    matching = [p for p in LAYERS if module == p or module.startswith(p + ".")]
    return LAYERS[max(matching, key=len)] if matching else None


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports(root: Path, path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) for every import; `from package import module` names the module."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = root.joinpath(*node.module.split("."), alias.name)
                is_module = sub.with_suffix(".py").is_file() or (sub / "__init__.py").is_file()
                yield node.lineno, f"{node.module}.{alias.name}" if is_module else node.module


def violations(src: Path) -> list[str]:
    """One line per import that breaks the order or a boundary, for the tree under `src`."""
    found: list[str] = []
    for path in sorted(src.rglob("*.py")):
        module = module_name(src, path)
        top = module.split(".")[0]
        for line, target in imports(src, path):
            target_top = target.split(".")[0]
            where = f"{path.relative_to(src)}:{line}"
            if top == "agent_assay":
                if target_top in (*SYSTEMS, BUNDLED):
                    found.append(f"{where}: the core imports {target}")
                elif target_top == "openai" and module not in OPENAI_ALLOWED:
                    found.append(f"{where}: only agent_assay.llm.loop may import openai")
                elif target_top == "agent_assay":
                    mine, theirs = layer_of(module), layer_of(target)
                    if mine is None or theirs is None:
                        found.append(f"{where}: {module if mine is None else target} has no layer")
                    elif theirs > mine:
                        found.append(f"{where}: {module} (layer {mine}) imports {target} "
                                     f"(layer {theirs})")
            elif top in SYSTEMS and target_top in ("agent_assay", BUNDLED):
                found.append(f"{where}: the system {top} imports the harness ({target})")
    return found
