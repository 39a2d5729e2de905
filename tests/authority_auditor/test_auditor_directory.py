"""Auditing the on-disk `public/` tree with the evaluator tree physically gone."""

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from auditor_worlds import WORLD_KITS, WorldKit, imperfect
from synthworld.agentic import (
    AgenticBenchmark,
    evaluate_agentic_trace,
    export_agentic_benchmark,
    generate_asteria_agentic_v1,
)
from synthworld.agentic.serialization import AgenticArtifactError

from authority_auditor import AuditRejected, audit_directory, audit_public_bundle


def _export_public_only(root: Path, benchmark: AgenticBenchmark) -> Path:
    export_agentic_benchmark(root, benchmark)
    shutil.rmtree(root / "evaluator")
    assert sorted(path.name for path in root.iterdir()) == ["public"]
    return root / "public"


def test_asteria_from_disk_without_the_evaluator_tree(tmp_path: Path) -> None:
    benchmark = generate_asteria_agentic_v1()
    public_dir = _export_public_only(tmp_path, benchmark)

    submission = audit_directory(public_dir)

    assert imperfect(evaluate_agentic_trace(submission, benchmark=benchmark)) == {}
    assert submission == audit_public_bundle(benchmark.public)


def test_tree_written_by_the_synthworld_cli(tmp_path: Path) -> None:
    output = tmp_path / "asteria-agentic-v1"
    subprocess.run(
        [sys.executable, "-m", "synthworld", "generate-agentic", "--output", str(output)],
        check=True,
        capture_output=True,
    )
    shutil.rmtree(output / "evaluator")

    submission = audit_directory(output / "public")

    report = evaluate_agentic_trace(submission, benchmark=generate_asteria_agentic_v1())
    assert imperfect(report) == {}


@pytest.mark.parametrize("make_kit", WORLD_KITS.values(), ids=WORLD_KITS.keys())
def test_custom_world_from_disk(tmp_path: Path, make_kit: Callable[[], WorldKit]) -> None:
    benchmark = make_kit().build()
    public_dir = _export_public_only(tmp_path, benchmark)

    report = evaluate_agentic_trace(audit_directory(public_dir), benchmark=benchmark)

    assert imperfect(report) == {}


def test_a_directory_without_a_manifest_is_not_a_public_tree(tmp_path: Path) -> None:
    with pytest.raises(AuditRejected, match=r"manifest\.json"):
        audit_directory(tmp_path)


def test_a_tampered_public_tree_fails_checksum_verification(tmp_path: Path) -> None:
    public_dir = _export_public_only(tmp_path, generate_asteria_agentic_v1())
    events = public_dir / "public_events.jsonl"
    events.write_text(events.read_text(encoding="utf-8").replace("09:1", "09:2"), "utf-8")

    with pytest.raises(AgenticArtifactError):
        audit_directory(public_dir)
