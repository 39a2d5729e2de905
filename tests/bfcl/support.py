"""Registering the bfcl system (and its planted copies) for in-process CLI tests, and the
skip when bfcl-eval is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

ENTRY_POINTS = {
    "bfcl": "agent_assay_bundled.bfcl.system:BfclSystem",
    "bfcl-blind": "tests.bfcl.planted:StateBlindBfcl",
    "bfcl-wrong": "tests.bfcl.planted:WrongTruthBfcl",
}


def need_bfcl() -> None:
    pytest.importorskip("bfcl_eval", reason="bfcl-eval is not installed (make install adds "
                                            "it with --no-deps; see docs/bfcl.md)")


def write_dist(directory: Path) -> Path:
    """A fake installed distribution registering the bfcl systems, installing nothing."""
    dist = directory / "assay_bfcl_tests-0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: assay-bfcl-tests\n"
                                   "Version: 0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in ENTRY_POINTS.items())
    (dist / "entry_points.txt").write_text("[agent_assay.adapters]\n" + lines)
    return directory


def source(directory: Path, benchmark: str, sample: tuple[int, int] | None = None) -> Path:
    path = directory / "bfcl.yaml"
    text = f"benchmark: {benchmark}\n"
    if sample:
        text += f"sample: {{size: {sample[0]}, seed: {sample[1]}}}\n"
    path.write_text(text)
    return path
