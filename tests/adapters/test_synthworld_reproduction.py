"""Harness aggregates equal synthworld's own evaluate_agentic_trace, exactly, for every config."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from synthworld.agentic import export_agentic_benchmark, generate_asteria_agentic_v1

from agent_assay.store import open_store
from tools.cases import compare_synthworld

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ("always_deny", "current_state", "reference", "auditor")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    db = tmp_path_factory.mktemp("cmp") / "assay.db"
    found = compare_synthworld.compare_all(None, str(db))
    return {r["config"]: {row["metric"]: row for row in r["rows"]} for r in found}


def test_every_package_metric_is_compared_for_every_config(
    results: dict[str, dict[str, Any]],
) -> None:
    assert set(results) == set(CONFIGS)
    for rows in results.values():
        assert len(rows) == 20  # every metric synthworld 0.18 reports for Asteria v1


@pytest.mark.parametrize("config", CONFIGS)
def test_harness_equals_package_exactly(
    results: dict[str, dict[str, Any]], config: str
) -> None:
    for metric, row in results[config].items():
        assert row["harness"] == row["package"], (config, metric, row)
        assert row["match"] is True


def test_published_baseline_figures(results: dict[str, dict[str, Any]]) -> None:
    def harness(config: str, metric: str) -> float | None:
        value: float | None = results[config][metric]["harness"]
        return value

    for baseline in ("always_deny", "current_state"):
        assert round(harness(baseline, "authorization_decision_accuracy") or 0, 4) == 0.6364
        assert harness(baseline, "authorization_decision_accuracy") == 7 / 11
    assert round(harness("current_state", "authorization_decision_f1") or 0, 4) == 0.3333
    assert harness("current_state", "provenance_completeness") == 6 / 11
    assert round(harness("current_state", "provenance_completeness") or 0, 4) == 0.5455
    for metric in (
        "principal_resolution_accuracy",
        "logical_agent_resolution_accuracy",
        "runtime_binding_accuracy",
        "credential_subject_accuracy",
    ):
        assert harness("always_deny", metric) == 1.0
    assert harness("always_deny", "provenance_completeness") == 8 / 11
    assert round(harness("always_deny", "provenance_completeness") or 0, 4) == 0.7273
    # the package's own null conventions survive: nothing allowed -> precision and F1 are null
    assert harness("always_deny", "authorization_decision_precision") is None
    assert harness("always_deny", "authorization_decision_f1") is None


@pytest.mark.parametrize("config", ("reference", "auditor"))
def test_auditor_and_oracle_are_perfect_everywhere(
    results: dict[str, dict[str, Any]], config: str
) -> None:
    for metric, row in results[config].items():
        best = 0.0 if metric == "excess_authority_rate" else 1.0
        assert row["harness"] == best, (config, metric)


def test_least_privilege_is_derived_because_the_mean_would_differ_in_the_last_bit(
    results: dict[str, dict[str, Any]],
) -> None:
    row = results["current_state"]["least_privilege_accuracy"]
    assert row["package"] == 1 - 1 / 7 and row["harness"] == 1 - 1 / 7
    assert 6 / 7 != 1 - 1 / 7  # why a per-item least-privilege mean cannot be compared


def test_tool_runs_from_an_exported_directory_and_writes_json(tmp_path: Path) -> None:
    source = tmp_path / "bench"
    export_agentic_benchmark(source, generate_asteria_agentic_v1())
    out = tmp_path / "cmp.json"
    code = compare_synthworld.main(["--source", str(source), "--db", str(tmp_path / "a.db"),
                      "--json-out", str(out)])
    assert code == 0
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["mismatches"] == []
    assert [r["config"] for r in written["results"]] == list(CONFIGS)
    assert len(open_store(str(tmp_path / "a.db")).list_runs()) == 4


def test_tool_reports_a_broken_source_and_exits_1(tmp_path: Path) -> None:
    source = tmp_path / "bench"
    export_agentic_benchmark(source, generate_asteria_agentic_v1())
    shutil.rmtree(source / "evaluator")
    assert compare_synthworld.main(["--source", str(source), "--db", str(tmp_path / "a.db")]) == 1
