"""Comparison refusals, forced comparisons, paired statistics and report gating."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent_assay.controls.execute import run_controls
from agent_assay.errors import AssayError
from agent_assay.integrity.comparability import compare_runs, paired
from agent_assay.model import Gold, Run, Trajectory
from agent_assay.runner import (
    build_and_store_suite,
    execute_run,
    resolve_config,
    select_items,
    start_run,
)
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from agent_assay.store import Store
from agent_assay.views.gates import UNSOUND, comparison_text, report_text
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
    suite = build_and_store_suite(store, adapter, None)
    run = start_run(store, adapter, suite, resolve_config(adapter, config), repeats=repeats,
                    seed=0, items=select_items(suite))
    execute_run(store, adapter, run, progress=False)
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
    assert metric.test == "Wilcoxon signed-rank"  # fraction metric: not McNemar


def test_comparing_a_run_with_itself_is_an_error(store: Store) -> None:
    a = make_run(store, RichToyAdapter(), controls=False)
    with pytest.raises(AssayError, match="with itself"):
        compare_runs(store, a.run_id, a.run_id)


def test_mcnemar_is_exact_on_binary_pairs() -> None:
    a = {f"i{n}": [1.0] for n in range(10)}
    b = {f"i{n}": [0.0 if n < 6 else 1.0] for n in range(10)}
    result = paired("trajectory.exact", "binary", a, b)
    assert result is not None
    assert result.test == "exact McNemar (0 gained, 6 lost)"
    assert result.p_value == pytest.approx(2 * 0.5**6)  # two-sided binomial, 6 of 6 discordant
    assert result.difference == pytest.approx(-0.6)


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
