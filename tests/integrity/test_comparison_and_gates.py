"""Comparison refusals, forced comparisons, paired statistics and report gating."""

from __future__ import annotations

from dataclasses import replace

import jsonschema
import pytest
from scipy import stats as scipy_stats

from agent_assay import api
from agent_assay.controls.execute import run_controls
from agent_assay.errors import AssayError
from agent_assay.integrity.comparability import compare_runs, paired
from agent_assay.model import Gold, Run, Trajectory
from agent_assay.schemas import schema
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from agent_assay.stats.paired import ALPHA
from agent_assay.store import Store
from agent_assay.views.gates import UNSOUND, comparison_json, comparison_text
from agent_assay.views.load import report_text
from tests.support.toy import RichToyAdapter, ToyAdapter


class CallCount:
    name = "extra.calls"
    version = "1"
    definition = "number of calls"
    kind: ScoreKind = "measure"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(float(len(trajectory.steps)))


class NewerToy(RichToyAdapter):
    """Version 1.1.0 records one more metric, as an upgraded adapter might."""

    facts = replace(RichToyAdapter.facts, scorers=(CallCount(),))

    def __init__(self) -> None:  # rebuilt with no arguments in an agent process
        super().__init__("1.1.0")


def make_run(store: Store, adapter: ToyAdapter, config: str = "good", repeats: int = 1,
             controls: bool = True) -> Run:
    run = api.evaluate(adapter, config, store=store, repeats=repeats, seed=0).run
    if controls:
        run_controls(store, adapter, run)
    return run


def test_different_adapter_versions_are_refused_with_env_mismatch(store: Store) -> None:
    a = make_run(store, RichToyAdapter("1.0.0"))
    b = make_run(store, NewerToy())
    comparison = compare_runs(store, a.run_id, b.run_id)
    codes = {m.code: m.detail for m in comparison.mismatches}
    assert "ENV_MISMATCH" in codes
    assert "adapter_version: '1.0.0' vs '1.1.0'" in codes["ENV_MISMATCH"]
    assert "SCORER_MISMATCH" in codes and "extra.calls: absent vs 1" in codes["SCORER_MISMATCH"]
    refused = comparison_text(comparison, forced=False)
    assert refused.startswith("COMPARISON REFUSED")
    assert "Nothing was compared" in refused and "B-A" not in refused


def test_forced_comparison_stamps_every_line_and_lists_missing_metrics(store: Store) -> None:
    a = make_run(store, RichToyAdapter("1.0.0"))
    b = make_run(store, NewerToy())
    text = comparison_text(compare_runs(store, a.run_id, b.run_id), forced=True)
    body = [line for line in text.splitlines() if not line.startswith("  ")]
    assert body and all(UNSOUND in line for line in body)
    assert "metric extra.calls present in B only" in text


def test_sound_comparison_reports_paired_tests(store: Store) -> None:
    a = make_run(store, RichToyAdapter(), "good")
    b = make_run(store, RichToyAdapter(), "wrong_arg")
    comparison = compare_runs(store, a.run_id, b.run_id)
    assert {m.code for m in comparison.mismatches} == {"RUN_INADMISSIBLE"}
    metric = {m.metric: m for m in comparison.metrics}["state.assertions"]
    assert metric.mean_a == 1.0 and metric.mean_b == 0.0
    # every switch item lost its state: no spread, so the sign test over the 8 items
    assert metric.test == "sign test over 8 items, every difference equal"
    assert metric.p_value == pytest.approx(2 * 0.5**8) and metric.ci == (-1.0, -1.0)


def test_comparing_a_run_with_itself_is_an_error(store: Store) -> None:
    a = make_run(store, RichToyAdapter(), controls=False)
    with pytest.raises(AssayError, match="with itself"):
        compare_runs(store, a.run_id, a.run_id)


def test_binary_pairs_get_the_paired_t_and_its_own_interval() -> None:
    a = {f"i{n}": [1.0] for n in range(10)}
    b = {f"i{n}": [0.0 if n < 6 else 1.0] for n in range(10)}
    result = paired("trajectory.exact", "binary", a, b)
    assert result is not None
    assert result.test == "paired t on item means, df 9"
    diffs = [-1.0] * 6 + [0.0] * 4
    expected = scipy_stats.ttest_1samp(diffs, 0.0)
    assert result.p_value == pytest.approx(expected.pvalue)
    ci = expected.confidence_interval(0.95)
    assert result.ci == pytest.approx((ci.low, ci.high))
    assert result.difference == pytest.approx(-0.6) and result.differing == 6


def test_a_metric_where_no_item_differs_says_so_instead_of_an_interval(store: Store) -> None:
    a = make_run(store, RichToyAdapter(), "good", controls=False)
    b = make_run(store, RichToyAdapter(), "good", controls=False)
    comparison = compare_runs(store, a.run_id, b.run_id)
    same = {m.metric: m for m in comparison.metrics}["trajectory.exact"]
    assert (same.ci, same.p_value, same.no_ci) == (None, None, "no item differs")
    text = comparison_text(comparison, forced=True)
    line = next(x for x in text.splitlines() if x.startswith("trajectory.exact *:"))
    assert line == (f"trajectory.exact *: A 1.0000  B 1.0000  B-A +0.0000  no item differs "
                    f"(n=12)  [{UNSOUND}]")
    data = comparison_json(comparison, forced=True)
    jsonschema.validate(data, schema("compare"))
    row = {m["metric"]: m for m in data["metrics"]}["trajectory.exact"]
    assert (row["ci"], row["p_value"], row["no_ci_reason"]) == (None, None, "no item differs")
    assert not row["differs"] and row["differing"] == 0


def test_headline_metrics_are_marked_and_one_line_says_which_differ(store: Store) -> None:
    a = make_run(store, RichToyAdapter(), "good", controls=False)
    b = make_run(store, RichToyAdapter(), "wrong_arg", controls=False)
    comparison = compare_runs(store, a.run_id, b.run_id)
    headline = {m.metric for m in comparison.metrics if m.headline}
    assert headline == {"trajectory.exact", "outcome.match", "state.assertions"}
    differing = [m for m in comparison.metrics if m.headline and m.p_value is not None
                 and m.p_value < ALPHA]
    assert differing and all(m.ci is not None and m.ci[1] < 0 for m in differing)
    text = comparison_text(comparison, forced=True).splitlines()
    assert {x.split(":")[0] for x in text if x.split(":")[0].endswith(" *")} == {
        f"{name} *" for name in headline}
    named = ", ".join(f"{m.metric} ({m.difference:+.4f})" for m in differing)
    summary = f"headline metrics that differ (p < 0.05): {named}  [{UNSOUND}]"
    assert summary in text
    data = comparison_json(comparison, forced=True)
    assert data["headline_differ"] == [m.metric for m in differing]
    assert data["headline_summary"] == summary.removesuffix(f"  [{UNSOUND}]")
    assert {m["metric"] for m in data["metrics"] if m["headline"]} == headline
    same = compare_runs(store, a.run_id, make_run(store, RichToyAdapter(), "good",
                                                  controls=False).run_id)
    assert "no headline metric differs (p < 0.05)" in comparison_text(same, forced=True)


def test_inadmissible_report_opens_with_the_banner_before_numbers(store: Store) -> None:
    run = make_run(store, RichToyAdapter(), "wrong_arg", repeats=2)
    text = report_text(store, run)
    banner = text.index("!!! INADMISSIBLE")
    assert banner < text.index("items:") < text.index("trajectory.exact")
    assert "reason: failed control(s):" in text


def test_single_pass_of_nondeterministic_config_is_refused_but_shown(store: Store) -> None:
    run = make_run(store, RichToyAdapter(), "noisy", repeats=1, controls=False)
    text = report_text(store, run)
    assert "!!! single run; not a measurement" in text
    assert "the adapter does not declare this config deterministic" in text
    assert "no identical_config has PASSED for this config on these items" in text
    # the numbers are still shown, after the refusal
    assert text.index("not a measurement") < text.index("trajectory.exact *")
    assert "k=1: one pass per item" in text


def test_single_pass_of_certified_deterministic_config_is_not_refused(store: Store) -> None:
    run = make_run(store, RichToyAdapter(), "good", repeats=1)
    text = report_text(store, run)
    assert "single run; not a measurement" not in text
    assert "ADMISSIBLE" in text and "INADMISSIBLE" not in text
