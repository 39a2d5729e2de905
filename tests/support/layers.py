"""The import graph of src/, checked against the layer order ARCHITECTURE.md states.

Every import counts, including one inside a function: a lazy import is still a
dependency. Layers are matched by the longest module prefix.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Set
from pathlib import Path

LAYERS: dict[str, int] = {
    "agent_assay": 9,  # the package itself is the public facade: it re-exports the API
    "agent_assay.collector": 0,
    "agent_assay.errors": 0,
    "agent_assay.exitcodes": 0,
    "agent_assay.findings": 0,
    "agent_assay.hashing": 0,
    "agent_assay.model": 0,
    "agent_assay.statepaths": 0,
    "agent_assay.version": 0,
    "agent_assay.yamlfile": 0,
    "agent_assay.plugins": 0,
    "agent_assay.writers": 0,
    "agent_assay.stats": 1,
    "agent_assay.store": 1,
    "agent_assay.scoring": 1,
    "agent_assay.aggregates": 2,
    "agent_assay.adapters": 2,
    "agent_assay.importers": 2,
    "agent_assay.exporters": 2,
    "agent_assay.llm": 3,
    "agent_assay.run_context": 3,
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
PLUGIN_ONLY = ("inspect_ai", "inspect_evals")
"""Third-party harnesses only their plugins (in agent_assay_bundled) may import."""


def layer_of(module: str) -> int | None:
    matching = [p for p in LAYERS if module == p or module.startswith(p + ".")]
    return LAYERS[max(matching, key=len)] if matching else None


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports(
    root: Path, path: Path, tree: ast.AST | None = None, skipped: Set[int] = frozenset()
) -> Iterator[tuple[int, str]]:
    """(line, module) for every import; `from package import module` names the module.
    Import nodes whose id is in `skipped` are left out."""
    for node in ast.walk(tree or ast.parse(path.read_text(encoding="utf-8"))):
        if id(node) in skipped:
            continue
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
                elif target_top in PLUGIN_ONLY:
                    found.append(f"{where}: the core imports {target} (only a plugin may)")
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


def import_graph(src: Path, package: str = "agent_assay") -> dict[str, set[str]]:
    """Each module of `package` under `src` and the modules of `package` it imports, at
    module level or inside a function (a lazy import is a dependency too; hiding a cycle is
    what such imports were for). An import that runs only for the type checker (inside
    `if TYPE_CHECKING:`) is left out of this graph: it never runs, so it cannot take part in
    an import cycle. A name imported from a module stands for that module, and a package
    for its `__init__`."""
    paths = {module_name(src, path): path for path in sorted((src / package).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        checker_only = {id(inner) for node in ast.walk(tree) if _type_checking(node)
                        for inner in ast.walk(node)}
        targets = {_owner(target, paths) for _, target in imports(src, path, tree, checker_only)}
        graph[module] = targets - {"", module}
    return graph


def _owner(target: str, modules: Mapping[str, Path]) -> str:
    """The module `target` is, or the longest one it is a name in; '' outside them."""
    parts = target.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in modules:
            return ".".join(parts[:end])
    return ""


def _type_checking(node: ast.AST) -> bool:
    """`if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`)."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")

def cycles(src: Path, package: str = "agent_assay") -> list[list[str]]:
    """Every import cycle among the modules of `package` (Tarjan's strongly connected
    components of `import_graph`; a component of more than one module is a cycle), inside
    a layer as well as across layers, each sorted, largest first. A module importing its
    own package's `__init__` (which imports the module back) counts: that is the cycle a
    lazy import used to hide."""
    graph = import_graph(src, package)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(start: str) -> None:  # iterative, so a deep graph cannot exhaust the stack
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            connect(module)
    return sorted(found, key=lambda c: (-len(c), c))


CLI = "agent_assay.cli"
CLI_REACHES = ("agent_assay.api", CLI, "agent_assay.errors", "agent_assay.exitcodes",
               "agent_assay.views", "agent_assay.infiles", "agent_assay.outfiles",
               "agent_assay.collector")
"""What the command line and the pytest gate import: the API (and the options,
`ExecutorSpec` and `Selection`, and the result types and helpers it re-exports), the CLI,
the errors and exit codes, the renderers, the files read or written whole, and the
garbage collector's pause (a report pauses it before it imports the API). Everything
else they reach through the API."""


def cli_reaches_past_the_api(src: Path) -> list[str]:
    """One line per import in `agent_assay.cli` or `agent_assay.pytest_plugin` (at module
    level, in a function, or for the type checker) of a module of the package outside
    CLI_REACHES."""
    found = []
    package = src / "agent_assay"
    for path in [*sorted((package / "cli").rglob("*.py")), package / "pytest_plugin.py"]:
        for line, target in imports(src, path):
            if target.split(".")[0] == "agent_assay" and not any(
                    target == allowed or target.startswith(allowed + ".")
                    for allowed in CLI_REACHES):
                found.append(f"{path.relative_to(src)}:{line}: {module_name(src, path)} "
                             f"imports {target}")
    return found
