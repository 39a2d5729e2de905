"""Renderers render a loaded snapshot (`RunData`): no renderer touches the store or calls
`assess`. `views.load` is the one module of `views` that reads a store; every other one
may name the store's types for the type checker (under TYPE_CHECKING) and nothing more,
and imports no function that reads a store (assess, single_pass_refusal, run_status...).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_assay.integrity.admissibility import assess
from agent_assay.store import Store
from agent_assay.views.gates import report_json_of, report_text_of
from agent_assay.views.html.page import run_page_of
from agent_assay.views.load import load_run_data, page_data
from agent_assay.views.passk import passk_json, passk_of, render_passk
from agent_assay.views.summary import summary_of
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run

SRC = Path(__file__).resolve().parents[2] / "src"
VIEWS = SRC / "agent_assay" / "views"
LOADERS = {"agent_assay.views.load"}
STORE = "agent_assay.store"
CHECKS = ("agent_assay.integrity", "agent_assay.aggregates", "agent_assay.importers")
"""Where the functions that read a store live, that a renderer may not import."""


def _reads_store(fn: Callable[..., Any]) -> bool:
    try:
        hints = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(re.search(r"\bStore\b", str(p.annotation)) for p in hints)


def store_readers() -> dict[str, set[str]]:
    """module -> the names of its functions that take a Store (assess among them)."""
    found: dict[str, set[str]] = {}
    for root in CHECKS:
        package = importlib.import_module(root)
        names = [root]
        if hasattr(package, "__path__"):
            names += [m.name for m in pkgutil.walk_packages(package.__path__, root + ".")]
        for name in names:
            module = importlib.import_module(name)
            found[name] = {n for n, fn in vars(module).items()
                           if inspect.isfunction(fn) and _reads_store(fn)}
    return found


def _type_checking_only(tree: ast.Module) -> set[int]:
    """Line numbers of imports inside `if TYPE_CHECKING:` blocks."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                for sub in ast.walk(inner):
                    if isinstance(sub, ast.Import | ast.ImportFrom):
                        lines.add(sub.lineno)
    return lines


def impurities(module: str, source: str, readers: dict[str, set[str]]) -> Iterator[str]:
    """Why `source` (the module `module`) is not a pure renderer, one line per reason."""
    tree = ast.parse(source)
    typing_only = _type_checking_only(tree)
    for node in ast.walk(tree):
        runtime = node_line(node) not in typing_only
        if isinstance(node, ast.Import):
            yield from _plain_import(module, node, runtime)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield from _from_import(module, node, runtime, readers)


def node_line(node: ast.AST) -> int:
    return int(getattr(node, "lineno", 0))


def _plain_import(module: str, node: ast.Import, runtime: bool) -> Iterator[str]:
    for alias in node.names:
        if alias.name.startswith(STORE) and runtime:
            yield f"{module}:{node.lineno} imports {alias.name}"
        if alias.name.startswith(CHECKS):
            yield f"{module}:{node.lineno} imports the module {alias.name}"


def _from_import(
    module: str, node: ast.ImportFrom, runtime: bool, readers: dict[str, set[str]]
) -> Iterator[str]:
    source = str(node.module)
    if source.startswith(STORE) and runtime:
        yield f"{module}:{node.lineno} imports from {source}"
    for alias in node.names:
        if alias.name in readers.get(source, set()):
            yield f"{module}:{node.lineno} imports {source}.{alias.name}, which reads a store"
        if f"{source}.{alias.name}" in readers:
            yield f"{module}:{node.lineno} imports the module {source}.{alias.name}"


def renderer_modules() -> Iterator[tuple[str, str]]:
    for path in sorted(VIEWS.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        if name not in LOADERS:
            yield name, path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def readers() -> dict[str, set[str]]:
    return store_readers()


def test_the_store_readers_are_found(readers: dict[str, set[str]]) -> None:
    admissibility = readers["agent_assay.integrity.admissibility"]
    assert {"assess", "single_pass_refusal", "integrity"} <= admissibility
    assert {"run_status", "run_clusters"} <= readers["agent_assay.aggregates"]


def test_no_renderer_reads_the_store_or_calls_assess(readers: dict[str, set[str]]) -> None:
    modules = list(renderer_modules())
    assert len(modules) > 10
    assert [line for name, source in modules for line in impurities(name, source, readers)] == []


@pytest.mark.parametrize(("planted", "caught"), [
    ("from agent_assay.store import Store", "imports from agent_assay.store"),
    ("from agent_assay.integrity.admissibility import assess",
     "agent_assay.integrity.admissibility.assess, which reads a store"),
    ("from agent_assay.aggregates import run_status",
     "agent_assay.aggregates.run_status, which reads a store"),
    ("import agent_assay.store.encoding", "imports agent_assay.store.encoding"),
    ("from agent_assay.integrity import admissibility",
     "imports the module agent_assay.integrity.admissibility"),
])
def test_a_planted_impurity_is_caught(
    readers: dict[str, set[str]], planted: str, caught: str
) -> None:
    source = (VIEWS / "passk.py").read_text(encoding="utf-8") + f"\n{planted}\n"
    found = list(impurities("agent_assay.views.passk", source, readers))
    assert len(found) == 1 and caught in found[0]


def test_a_type_only_import_is_not_an_impurity(readers: dict[str, set[str]]) -> None:
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
              "    from agent_assay.store import ScoreRecord\n")
    assert list(impurities("agent_assay.views.x", source, readers)) == []


def test_a_loaded_snapshot_renders_with_the_store_shut(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every report form renders from the snapshot alone, the same as from a live store."""
    run = toy_run(store, ToyAdapter(), "good", repeats=3)
    verdict = assess(store, run)
    data = load_run_data(store, run, verdict, trajectories=True, outcomes=True)
    page = page_data(store, run, verdict)
    expected = (report_text_of(data), report_json_of(data), render_passk(passk_of(data)),
                passk_json(passk_of(data)), summary_of(data), run_page_of(page))

    def shut(*_: object, **__: object) -> None:
        raise AssertionError("a renderer read the store")

    for name, member in vars(Store).items():
        if inspect.isfunction(member) and not name.startswith("__"):
            monkeypatch.setattr(Store, name, shut)
    again = (report_text_of(data), report_json_of(data), render_passk(passk_of(data)),
             passk_json(passk_of(data)), summary_of(data), run_page_of(page))
    assert again == expected
