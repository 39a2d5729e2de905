"""One exit-code table for every command (docs/ci.md): what `run`, `controls run`, `report`
and `compare` exit with for an admissible, an inadmissible, a refused and a tampered run,
and `compare --fail-on-regression` failing on a planted regression and passing on equal
runs. A CI job gates on these numbers, so each says one thing."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import jsonschema
import pytest
from scipy import stats as scipy_stats

from agent_assay.errors import AssayError
from agent_assay.exitcodes import ExitCode
from agent_assay.integrity.comparability import compare_runs, paired
from agent_assay.integrity.regression import regression_gate
from agent_assay.schemas import schema
from agent_assay.stats.paired import interval_at, paired_difference
from agent_assay.store import open_store
from tests.support.dists import write_dist
from tests.support.invoke import Invocation, invoke, on_path
from tests.support.tamper import tampered_copy


@dataclass(frozen=True)
class Gated:
    """A store of rich-toy runs, each made by `run` and judged by `controls run`: `good`
    twice (equal runs), `chatty` (admissible, one more call on the look items: a planted
    regression on trajectory.exact, and a k=1 headline of a config it does not declare
    deterministic) and `wrong_arg` (inadmissible)."""

    db: Path
    runs: dict[str, str]
    made: dict[str, Invocation]
    certified: dict[str, Invocation]

    def __call__(self, *args: str, db: Path | None = None) -> Invocation:
        done = invoke(*args, "--db", str(db or self.db))
        assert done.traceback is None, done.traceback
        return done


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gated]:
    home = tmp_path_factory.mktemp("exit_codes")
    site = write_dist(home / "site", "gatetoys", {"richtoy": "tests.support.toy:RichToyAdapter"})
    db = home / "assay.db"
    runs, made, certified = {}, {}, {}
    with on_path(site):
        for name, config in (("good", "good"), ("again", "good"), ("chatty", "chatty"),
                             ("wrong", "wrong_arg")):
            made[name] = invoke("run", "--adapter", "richtoy", "--config", config,
                                "--db", str(db))
            runs[name] = made[name].out.strip()
            certified[name] = invoke("controls", "run", "--adapter", "richtoy", "--run",
                                     runs[name], "--db", str(db))
        con = sqlite3.connect(db)  # the whole store in the file, for copies of it
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()
        yield Gated(db, runs, made, certified)


def test_run_measures_and_controls_run_judges(gated: Gated) -> None:
    # run exits 0 once stored, however the agent did: a wrong agent is a measured failure
    assert {name: done.code for name, done in gated.made.items()} == dict.fromkeys(
        gated.runs, ExitCode.OK)
    codes = {name: done.code for name, done in gated.certified.items()}
    assert codes == {"good": 0, "again": 0, "chatty": 0, "wrong": 3}, gated.certified["wrong"]
    assert gated.certified["wrong"].out.splitlines()[-2].endswith("run INADMISSIBLE")


def test_report_exits_by_its_verdict(gated: Gated) -> None:
    assert gated("report", gated.runs["good"]).code == ExitCode.OK
    inadmissible = gated("report", gated.runs["wrong"], "--headline-only")
    assert inadmissible.code == ExitCode.INADMISSIBLE
    assert "!!! INADMISSIBLE" in inadmissible.out  # the report is printed all the same
    as_json = gated("report", gated.runs["wrong"], "--json")
    assert as_json.code == 3 and not json.loads(as_json.out)["admissible"]
    refused = gated("report", gated.runs["chatty"], "--headline-only")
    assert refused.code == ExitCode.REFUSED  # admissible, but a k=1 headline not shown
    assert "!!! single run; not a measurement" in refused.out  # to be deterministic
    for name in ("wrong", "chatty"):  # publishing the report need not fail the step
        assert gated("report", gated.runs[name], "--exit-zero").code == ExitCode.OK


def test_tampered_evidence_exits_2_from_every_command_and_exit_zero_does_not_hide_it(
    gated: Gated, tmp_path: Path
) -> None:
    good, again = gated.runs["good"], gated.runs["again"]
    copy = tampered_copy(gated.db, tmp_path / "tampered.db", set_value="0",
                         where="run_id = ? AND scorer = 'trajectory.exact'", params=(good,))
    for args in (("report", good), ("report", good, "--exit-zero"),
                 ("compare", good, again), ("compare", again, good, "--fail-on-regression"),
                 ("compare", good, again, "--force"),
                 ("controls", "run", "--adapter", "richtoy", "--run", good),
                 ("run", "--resume", good)):
        done = gated(*args, db=copy)
        assert done.code == ExitCode.TAMPERED, (args, done.out, done.err)


def test_compare_exits_0_compared_4_refused(gated: Gated) -> None:
    good, wrong = gated.runs["good"], gated.runs["wrong"]
    refused = gated("compare", good, wrong)
    assert refused.code == ExitCode.REFUSED and refused.out.startswith("COMPARISON REFUSED")
    assert gated("compare", good, wrong, "--force").code == ExitCode.OK  # the user asked
    gate = gated("compare", good, wrong, "--force", "--fail-on-regression")
    assert gate.code == ExitCode.REFUSED  # an unsound comparison never passes a gate
    assert gate.out.splitlines()[-1] == (
        "regression gate REFUSED: the runs are not comparable (RUN_INADMISSIBLE); a refused "
        "comparison is never a pass")
    assert gated("compare", good, gated.runs["again"]).code == ExitCode.OK


def test_a_usage_error_exits_1_not_the_2_of_tampered_evidence(gated: Gated) -> None:
    done = gated("report", gated.runs["good"], "--no-such-option")
    assert done.code == ExitCode.ERROR and done.err.startswith("error: No such option")


# ---- compare --fail-on-regression ----------------------------------------------------------
def test_a_planted_regression_fails_the_gate_and_says_how(gated: Gated) -> None:
    good, chatty = gated.runs["good"], gated.runs["chatty"]
    done = gated("compare", good, chatty, "--fail-on-regression")
    assert done.code == ExitCode.REGRESSED, done.out
    lines = done.out.splitlines()
    line = next(x for x in lines if x.startswith("  REGRESSED trajectory.exact"))
    assert line.startswith("  REGRESSED trajectory.exact (binary, higher is better): "
                           "B-A -0.3333  95% [")
    assert line.endswith("(paired t on item means, df 11, n=12)") and "p=0.03881" in line
    assert "  held      outcome.match (binary, higher is better): B-A +0.0000  no item " \
           "differs (n=12)" in lines
    assert lines[-1] == ("regression gate REGRESSED: B is worse than the baseline on "
                         "trajectory.exact (1 of 3 gated metrics)")
    data = json.loads(gated("compare", good, chatty, "--fail-on-regression", "--json").out)
    jsonschema.validate(data, schema("compare"))
    assert (data["gate"]["status"], data["gate"]["exit_code"]) == ("REGRESSED", 5)
    assert data["gate"]["regressed"] == ["trajectory.exact"]
    gated_rows = {m["metric"]: m for m in data["gate"]["metrics"]}
    paired_row = {m["metric"]: m for m in data["metrics"]}["trajectory.exact"]
    assert gated_rows["trajectory.exact"]["ci"] == paired_row["ci"]  # the same test at 0.05
    assert gated_rows["trajectory.exact"]["ci"][1] < 0


def test_equal_runs_pass_and_an_improvement_is_not_a_regression(gated: Gated) -> None:
    good, again, chatty = gated.runs["good"], gated.runs["again"], gated.runs["chatty"]
    same = gated("compare", good, again, "--fail-on-regression")
    assert same.code == ExitCode.OK, same.out
    assert same.out.splitlines()[-1] == (
        "regression gate PASSED: none of the 3 gated metrics is worse than the baseline")
    better = gated("compare", chatty, good, "--fail-on-regression")
    assert better.code == ExitCode.OK and "  improved  trajectory.exact" in better.out


def test_which_way_is_worse_comes_from_the_metric_kind(gated: Gated) -> None:
    good, chatty = gated.runs["good"], gated.runs["chatty"]
    # a count is better lower: one more redundant call on a third of the items regressed
    more = gated("compare", good, chatty, "--fail-on-regression", "--metric", "tools.redundant")
    assert more.code == ExitCode.REGRESSED
    assert "  REGRESSED tools.redundant (count, lower is better): B-A +0.3333" in more.out
    fewer = gated("compare", chatty, good, "--fail-on-regression", "--metric", "tools.redundant")
    assert fewer.code == ExitCode.OK and "  improved  tools.redundant" in fewer.out
    # a measure declares no better side: refused in one line, nothing judged
    measure = gated("compare", good, chatty, "--fail-on-regression", "--metric",
                    "latency.total_ms")
    assert measure.code == ExitCode.ERROR and measure.out == ""
    assert measure.err.startswith("error: metric latency.total_ms is a measure: its scorer "
                                  "declares no better direction")
    assert len(measure.err.splitlines()) == 1
    unknown = gated("compare", good, chatty, "--fail-on-regression", "--metric", "nope")
    assert unknown.code == 1 and "metric nope cannot be gated: it was not compared" in unknown.err
    loose = gated("compare", good, chatty, "--metric", "tools.redundant")
    assert loose.code == 1 and "need --fail-on-regression" in loose.err


def test_alpha_moves_the_gate_and_its_interval_together(gated: Gated) -> None:
    done = gated("compare", gated.runs["good"], gated.runs["chatty"], "--fail-on-regression",
                 "--alpha", "0.01")
    assert done.code == ExitCode.OK, done.out  # p=0.039 is not below 0.01
    line = next(x for x in done.out.splitlines() if "trajectory.exact (binary" in x)
    assert line.startswith("  held      ") and " 99% [" in line
    low, high = (float(x) for x in line.split(" 99% [")[1].split("]")[0].split(", "))
    assert low < 0 < high
    assert gated("compare", gated.runs["good"], gated.runs["chatty"], "--fail-on-regression",
                 "--alpha", "1.5").code == ExitCode.ERROR


def test_an_untestable_difference_or_a_measure_headline_never_passes(gated: Gated) -> None:
    store = open_store(str(gated.db))
    sound = compare_runs(store, gated.runs["good"], gated.runs["again"])
    one_item = paired("trajectory.exact", "binary", {"i": [1.0]}, {"i": [0.0]}, headline=True)
    assert one_item is not None and one_item.p_value is None and one_item.differing == 1
    gate = regression_gate(replace(sound, metrics=(one_item,)))
    assert gate.exit_code == ExitCode.REFUSED and gate.untested
    measure = replace(one_item, metric="cost.usd", kind="measure")
    with pytest.raises(AssayError, match=r"headline metric cost\.usd is a measure"):
        regression_gate(replace(sound, metrics=(measure,)))
    store.close()


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.2])
def test_the_gates_interval_is_the_t_interval_at_its_level(alpha: float) -> None:
    diffs = [-1.0, -1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.5, 0.0, -1.0]
    found = paired_difference(diffs)
    ci = interval_at(found.mean, found.se, found.df, found.p_value, alpha)
    expected = scipy_stats.ttest_1samp(diffs, 0.0).confidence_interval(1 - alpha)
    assert ci == pytest.approx((expected.low, expected.high))
    assert (ci[1] < 0) == (found.p_value < alpha)
    same = paired_difference([-0.5] * 6)  # no spread: the sign test, p = 2 x 0.5^6
    assert interval_at(same.mean, same.se, same.df, same.p_value, alpha) == (
        (-0.5, -0.5) if same.p_value < alpha else None)
