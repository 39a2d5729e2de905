"""Fake installed distributions: entry points registered for a test, nothing installed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def write_dist(directory: Path, name: str, adapters: Mapping[str, str]) -> Path:
    """A dist-info in `directory` registering each adapter name -> `module:Class`; put
    `directory` on sys.path (or PYTHONPATH) and the harness finds them by name."""
    dist = directory / f"{name}-0.1.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    lines = "".join(f"{adapter} = {target}\n" for adapter, target in adapters.items())
    (dist / "entry_points.txt").write_text(f"[agent_assay.adapters]\n{lines}")
    return directory
