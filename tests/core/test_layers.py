"""The import graph keeps the layer order and the plugin boundary (ARCHITECTURE.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.layers import violations

SRC = Path(__file__).resolve().parents[2] / "src"


def test_src_keeps_the_layer_order_and_the_boundaries() -> None:
    assert violations(SRC) == []


def planted(tmp_path: Path, relative: str, line: str) -> list[str]:
    tree = tmp_path / f"src{len(list(tmp_path.iterdir()))}"
    shutil.copytree(SRC / "agent_assay", tree / "agent_assay")
    target = tree / relative
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    return violations(tree)


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
