"""The pytest gate (`-p agent_assay.pytest_plugin`): a pytest session certifies a config, and
its exit code and JUnit file show each control, the verdict and each gated metric."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_assay.controls.registry import control_kinds
from agent_assay.store import open_store
from tests.support.certify import certify
from tests.support.dists import write_dist
from tests.support.invoke import on_path
from tests.support.toy import RichToyAdapter

pytest_plugins = ["pytester"]

HEADLINE = RichToyAdapter.facts.headline_metrics
ALLOWED_NOT_RUN = {"headline_agreement", "judge_calibration"}  # the toy has neither
USER_TEST = """
def test_the_fixture_hands_over_the_certification(assay):
    assert assay.certification.verdict.word == "ADMISSIBLE"
    assert assay.run_id == assay.certification.run.run_id
"""


@pytest.fixture(autouse=True)
def only_this_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """The inner sessions load no installed plugin but the one asked for with -p (loading
    every installed one took most of their time)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A store holding a certified run of the rich toy's `good` (the baseline), with the
    rich toy registered as `richtoy` for the module."""
    home = tmp_path_factory.mktemp("pytest_plugin")
    db = home / "base.db"
    store = open_store(str(db))
    run = certify(store, RichToyAdapter(), "good")["run"]
    store.close()
    with on_path(write_dist(home / "site", "gatetoys",
                            {"richtoy": "tests.support.toy:RichToyAdapter"})):
        yield db, run.run_id


def gate(pytester: pytest.Pytester, db: Path, config: str, *extra: str
         ) -> tuple[pytest.RunResult, dict[tuple[str, str], ET.Element]]:
    """`pytest -p agent_assay.pytest_plugin ...` in this process; its result, and each
    JUnit testcase by (class name, name)."""
    junit = pytester.path / "assay.xml"
    # option=value: pytest would take a path given apart for a test path, and move rootdir
    result = pytester.runpytest_inprocess(
        "-p", "agent_assay.pytest_plugin", "-p", "no:cacheprovider", "--assay-adapter=richtoy",
        f"--assay-config={config}", f"--assay-db={db}", f"--junitxml={junit}", *extra)
    cases = {(c.get("classname", ""), c.get("name", "")): c
             for c in ET.parse(junit).getroot().iter("testcase")}
    return result, cases


def outcome(case: ET.Element) -> tuple[str, str]:
    for tag in ("failure", "error", "skipped"):
        found = case.find(tag)
        if found is not None:
            return tag, found.get("message", "")
    return "passed", ""


def test_an_admissible_run_passes_with_a_testcase_per_control_and_metric(
    pytester: pytest.Pytester, baseline: tuple[Path, str], tmp_path: Path
) -> None:
    base_db, base_run = baseline
    db = tmp_path / "assay.db"
    shutil.copyfile(base_db, db)
    pytester.makepyfile(test_mine=USER_TEST)
    result, cases = gate(pytester, db, "good", f"--assay-baseline={base_run}")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    expected = {("agent-assay.controls", kind) for kind in control_kinds()}
    expected |= {("agent-assay", "verdict"), ("test_mine", "test_the_fixture_hands_over_"
                                             "the_certification")}
    expected |= {("agent-assay.regression", metric) for metric in HEADLINE}
    assert set(cases) == expected
    outcomes = {key: outcome(case) for key, case in cases.items()}
    skipped = {name for (_, name), (status, _) in outcomes.items() if status == "skipped"}
    assert skipped == ALLOWED_NOT_RUN
    assert all(status == "passed" for (_, name), (status, _) in outcomes.items()
               if name not in skipped)
    assert "NOT_RUN: no judge in this scorer set (allowed)" in outcomes[
        ("agent-assay.controls", "judge_calibration")][1]
    store = open_store(str(db))
    made = [r.run_id for r in store.list_runs() if "control" not in r.env]
    store.close()
    assert len(made) == 2 and made[0] == base_run  # one certification, fixture and gate alike
    result.stdout.fnmatch_lines([f"run {made[1]} (richtoy/good, {db}): ADMISSIBLE",
                                 f"against baseline {base_run}: regression gate PASSED"])


def test_an_inadmissible_run_fails_the_session_naming_each_failed_control(
    pytester: pytest.Pytester, baseline: tuple[Path, str], tmp_path: Path
) -> None:
    base_db, base_run = baseline
    db = tmp_path / "assay.db"
    shutil.copyfile(base_db, db)
    result, cases = gate(pytester, db, "wrong_arg", f"--assay-baseline={base_run}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcomes = {key: outcome(case) for key, case in cases.items()}
    failed = {key for key, (status, _) in outcomes.items() if status == "failure"}
    controls = {("agent-assay.controls", k) for k in
                ("shuffled_gold", "null_agent", "random_agent", "mutation")}
    regression = {("agent-assay.regression", metric) for metric in HEADLINE}
    assert failed == controls | {("agent-assay", "verdict")} | regression
    for key in controls:
        assert outcomes[key][1].startswith("FAILED: ") and "-> next: " in outcomes[key][1]
    assert outcomes[("agent-assay", "verdict")][1].endswith(
        "(richtoy/wrong_arg) is INADMISSIBLE\nreason: failed control(s): shuffled_gold, "
        "null_agent, random_agent, mutation")
    for key in regression:  # a refused comparison is never a pass
        assert outcomes[key][1] == (
            f"regression gate REFUSED against baseline {base_run}: the runs are not "
            "comparable (RUN_INADMISSIBLE)")


def test_a_regression_fails_its_metric_only(
    pytester: pytest.Pytester, baseline: tuple[Path, str], tmp_path: Path
) -> None:
    base_db, base_run = baseline
    db = tmp_path / "assay.db"
    shutil.copyfile(base_db, db)
    result, cases = gate(pytester, db, "chatty", f"--assay-baseline={base_run}", "-k",
                         "verdict or regression")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcomes = {key: outcome(case) for key, case in cases.items()}
    assert set(outcomes) == {("agent-assay", "verdict")} | {
        ("agent-assay.regression", metric) for metric in HEADLINE}  # -k applies
    assert [k for k, (status, _) in outcomes.items() if status == "failure"] == [
        ("agent-assay.regression", "trajectory.exact")]
    message = outcomes[("agent-assay.regression", "trajectory.exact")][1]
    assert message.startswith("REGRESSED trajectory.exact (binary, higher is better): "
                              "B-A -0.3333  95% [")
    assert message.endswith(f"(paired t on item means, df 11, n=12) (baseline {base_run})")


def test_the_gate_needs_an_adapter_and_a_config_and_is_inert_without_both(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    plain = pytester.runpytest_inprocess("-p", "agent_assay.pytest_plugin")
    assert plain.ret == pytest.ExitCode.OK
    plain.assert_outcomes(passed=1)  # nothing added without an adapter and a config
    half = pytester.runpytest_inprocess("-p", "agent_assay.pytest_plugin",
                                        "--assay-config", "good")
    assert half.ret == pytest.ExitCode.USAGE_ERROR
    half.stderr.fnmatch_lines(["*agent-assay needs both --assay-adapter and --assay-config*"])
    pytester.makepyfile(test_uses="def test_uses(assay):\n    pass\n")
    unset = pytester.runpytest_inprocess("-p", "agent_assay.pytest_plugin", "test_uses.py")
    unset.assert_outcomes(errors=1)
    unset.stdout.fnmatch_lines(["*the assay fixture needs --assay-adapter and --assay-config*"])
