"""The import graph keeps the layer order and the plugin boundary (ARCHITECTURE.md), and
holds no cycle, inside a layer or across layers."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.layers import cli_reaches_past_the_api, cycles, violations

SRC = Path(__file__).resolve().parents[2] / "src"


def test_src_keeps_the_layer_order_and_the_boundaries() -> None:
    assert violations(SRC) == []


def test_src_has_no_import_cycle() -> None:
    assert cycles(SRC) == []


def test_the_command_line_reaches_the_layers_below_only_through_the_api() -> None:
    assert cli_reaches_past_the_api(SRC) == []


def planted_tree(tmp_path: Path, *lines: tuple[str, str]) -> Path:
    """A copy of src/ with each (file, line) appended to that file."""
    tree = tmp_path / f"src{len(list(tmp_path.iterdir()))}"
    shutil.copytree(SRC / "agent_assay", tree / "agent_assay")
    for relative, line in lines:
        target = tree / relative
        target.write_text(target.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    return tree


def planted(tmp_path: Path, relative: str, line: str) -> list[str]:
    return violations(planted_tree(tmp_path, (relative, line)))


def test_an_upward_import_is_caught(tmp_path: Path) -> None:
    found = planted(tmp_path, "agent_assay/store/records.py", "from agent_assay.views import gates")
    assert len(found) == 1
    expected = "agent_assay.store.records (layer 1) imports agent_assay.views.gates (layer 8)"
    assert expected in found[0]


def test_a_lazy_upward_import_is_caught_too(tmp_path: Path) -> None:
    found = planted(
        tmp_path, "agent_assay/controls/oracle.py", "def f():\n    import agent_assay.cli"
    )
    assert len(found) == 1 and "imports agent_assay.cli (layer 10)" in found[0]


def test_the_core_importing_a_bundled_system_is_caught(tmp_path: Path) -> None:
    found = planted(tmp_path, "agent_assay/runner.py", "import synthbank")
    assert found == [found[0]] and "the core imports synthbank" in found[0]
    found = planted(tmp_path, "agent_assay/model.py", "import openai")
    assert found == [found[0]] and "only agent_assay.llm.loop may import openai" in found[0]


def test_a_cycle_inside_a_layer_is_caught(tmp_path: Path) -> None:
    """hashing and yamlfile share layer 0, so the layer order cannot see this cycle."""
    tree = planted_tree(tmp_path, ("agent_assay/hashing.py", "from agent_assay import yamlfile"),
                        ("agent_assay/yamlfile.py", "import agent_assay.hashing"))
    assert violations(tree) == []
    assert cycles(tree) == [["agent_assay.hashing", "agent_assay.yamlfile"]]


def test_a_cycle_a_lazy_import_closes_is_caught(tmp_path: Path) -> None:
    """Three modules of one layer, the cycle closed by an import inside a function: what a
    lazy import used to hide."""
    tree = planted_tree(
        tmp_path,
        ("agent_assay/findings.py", "from agent_assay.statepaths import Mapping"),
        ("agent_assay/statepaths.py", "from agent_assay.version import harness_version"),
        ("agent_assay/version.py", "def f():\n    from agent_assay.findings import Finding"),
    )
    assert cycles(tree) == [["agent_assay.findings", "agent_assay.statepaths",
                             "agent_assay.version"]]


def test_an_import_for_the_type_checker_only_closes_no_cycle(tmp_path: Path) -> None:
    """It never runs, so it cannot be a cycle (the layer order still counts it)."""
    tree = planted_tree(
        tmp_path, ("agent_assay/hashing.py", "from agent_assay import yamlfile"),
        ("agent_assay/yamlfile.py",
         "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import agent_assay.hashing"),
    )
    assert cycles(tree) == []


def test_a_command_reaching_past_the_api_is_caught(tmp_path: Path) -> None:
    tree = planted_tree(tmp_path, ("agent_assay/cli/running.py",
                                   "def f():\n    from agent_assay.runner import RunResult"))
    found = cli_reaches_past_the_api(tree)
    assert len(found) == 1 and "agent_assay.cli.running imports agent_assay.runner" in found[0]


def test_the_pytest_gate_reaching_past_the_api_is_caught(tmp_path: Path) -> None:
    tree = planted_tree(tmp_path, ("agent_assay/pytest_plugin.py",
                                   "def f():\n    from agent_assay.controls import registry"))
    found = cli_reaches_past_the_api(tree)
    assert len(found) == 1
    assert "agent_assay.pytest_plugin imports agent_assay.controls" in found[0]
