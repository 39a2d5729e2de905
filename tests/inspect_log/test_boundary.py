"""Only a plugin imports Inspect: the core importing it is caught by the layer check."""

from __future__ import annotations

from pathlib import Path

from tests.core.test_layers import planted


def test_the_core_importing_inspect_is_caught(tmp_path: Path) -> None:
    found = planted(tmp_path, "agent_assay/api.py", "import inspect_ai.log")
    assert len(found) == 1 and "the core imports inspect_ai.log" in found[0]


def test_the_exporter_surface_imports_no_exporter() -> None:
    source = (Path(__file__).resolve().parents[2] / "src/agent_assay/exporters/__init__.py")
    assert "inspect" not in source.read_text().replace("inspect view", "")
