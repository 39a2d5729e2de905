"""The banking adapter end to end: suite identity, bad scripts, reproduction, refusals."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from agent_assay import api
from agent_assay.controls.execute import run_controls
from agent_assay.errors import AssayError
from agent_assay.integrity.comparability import compare_runs
from agent_assay.model import Gold, Run, Trajectory
from agent_assay.runner import (
    resolve_config,
)
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from agent_assay.store import Store, open_store
from agent_assay.views.gates import UNSOUND, comparison_text
from agent_assay.views.load import report_text
from agent_assay_bundled.banking import BankingAdapter
from synthbank.scripts import default_scripts_dir
from tests.support.invoke import invoke

ROOT = Path(__file__).resolve().parents[2]


def scripts_copy(tmp_path: Path) -> Path:
    target = tmp_path / "scripts"
    shutil.copytree(default_scripts_dir(), target)
    return target


def test_suite_hash_is_stable_and_moves_with_any_script_edit(tmp_path: Path) -> None:
    adapter = BankingAdapter()
    source = scripts_copy(tmp_path)
    first = adapter.build_suite(source).suite_hash
    assert adapter.build_suite(source).suite_hash == first
    assert adapter.build_suite(None).suite_hash == first  # the source path is not hashed
    script = sorted(source.glob("dispute/*.yaml"))[0]
    script.write_text(script.read_text().replace("request: ", "request: Hello. ", 1))
    assert adapter.build_suite(source).suite_hash != first


def test_malformed_script_is_one_line_naming_file_and_line(tmp_path: Path) -> None:
    source = scripts_copy(tmp_path)
    broken = sorted(source.glob("transfer/*.yaml"))[0]
    broken.write_text(broken.read_text() + "\n  bad: [unclosed\n")
    done = invoke("suite", "build", "--adapter", "banking", "--source", str(source),
                  "--db", str(tmp_path / "a.db"))
    assert done.code == 1 and done.traceback is None
    lines = done.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert broken.name in lines[0] and ":" in lines[0]
    # nothing was stored: the database holds no suite
    store = open_store(str(tmp_path / "a.db"))
    assert store.count_rows("suites") == 0


def banking_run(store: Store, adapter: BankingAdapter, config: str, *, repeats: int = 1,
                limit: int | None = 12) -> Run:
    return api.evaluate(adapter, config, store=store, repeats=repeats, seed=0,
                        selection=api.Selection(limit=limit)).run


def test_reproduction_against_synthbank_own_scorer(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    store = open_store(str(db))
    run = banking_run(store, BankingAdapter(), "mock", limit=None)
    store.close()
    done = subprocess.run(
        [sys.executable, "-m", "tools.cases.compare_to_sut", run.run_id, "--db", str(db)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 mismatches" in done.stdout
    assert done.stdout.strip().endswith("RESULT: reproduced to the digit")


class CountsCalls:
    name = "calls.count"
    version = "1"
    definition = "number of proposed calls"
    kind: ScoreKind = "measure"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(float(len(trajectory.steps)))


class UpgradedBanking(BankingAdapter):
    """Version 1.1.0 measures one more thing, as an upgraded adapter might."""

    facts = replace(BankingAdapter.facts, scorers=(CountsCalls(),))

    def __init__(self) -> None:  # rebuilt with no arguments in an agent process
        super().__init__("1.1.0")


def test_runs_at_different_adapter_versions_are_refused(store: Store) -> None:
    old = banking_run(store, BankingAdapter("1.0.0"), "mock")
    new = banking_run(store, UpgradedBanking(), "mock")
    comparison = compare_runs(store, old.run_id, new.run_id)
    env = {m.code: m.detail for m in comparison.mismatches}["ENV_MISMATCH"]
    assert env == "adapter_version: '1.0.0' vs '1.1.0'"
    forced = comparison_text(comparison, forced=True)
    assert "metric calls.count present in B only" in forced
    assert all(UNSOUND in line for line in forced.splitlines() if not line.startswith("  "))


def test_single_noisy_pass_refuses_the_headline_and_shows_the_sample(store: Store) -> None:
    run = banking_run(store, BankingAdapter(), "mock-noisy")
    text = report_text(store, run, headline_only=True)
    assert "!!! single run; not a measurement" in text
    assert text.index("not a measurement") < text.index("trajectory.exact *")


def test_controls_pass_on_the_mock_subset(store: Store) -> None:
    run = banking_run(store, BankingAdapter(), "mock", limit=40)
    outcomes = {o.kind: o.status for o in run_controls(store, BankingAdapter(), run).outcomes}
    assert outcomes.pop("judge_calibration") == "NOT_RUN"
    assert outcomes.pop("headline_agreement") == "NOT_RUN"  # a generic headline
    assert set(outcomes.values()) == {"PASSED"}, outcomes


def test_unknown_config_names_the_available_ones() -> None:
    with pytest.raises(AssayError, match=r"unknown config 'gpt' for adapter banking \(available: "
                                         r"mock, mock-noisy, smollm2-t0, smollm2-t07\)"):
        resolve_config(BankingAdapter(), "gpt")
