"""Controls on governance runs: the mock run is admissible, a random run is not.

Through the API `controls run` uses: run_controls, assess, and the verdict's exit code.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_assay.controls.bands import load_bands
from agent_assay.store import Store, open_store
from agent_assay_bundled.governance import GovernanceAdapter
from tests.support.certify import certify as certify_run

Verdict = dict[str, Any]


def certify(store: Store, config: str) -> Verdict:
    got = certify_run(store, GovernanceAdapter(), config)
    return {**got, "outcomes": got["by_kind"]}


@pytest.fixture(scope="module")
def mock(tmp_path_factory: pytest.TempPathFactory) -> Verdict:
    return certify(open_store(str(tmp_path_factory.mktemp("mock") / "a.db")), "mock")


@pytest.fixture(scope="module")
def random_run(tmp_path_factory: pytest.TempPathFactory) -> Verdict:
    return certify(open_store(str(tmp_path_factory.mktemp("random") / "a.db")), "random")


def test_bands_have_derivations_and_nothing_is_declared_not_applicable() -> None:
    bands = load_bands(GovernanceAdapter.facts.bands)
    assert bands.get("scorer_selftest")["probe_items"] == 64
    assert bands.get("state_check_bites")["probe_items"] == 64
    assert all(band["derivation"].strip() for band in bands.per_kind.values())
    assert (bands.not_applicable, bands.allow_not_applicable) == ({}, False)


def test_mock_run_is_admissible_and_exits_zero(mock: Verdict) -> None:
    statuses = {kind: o.status for kind, o in mock["outcomes"].items()}
    assert statuses == {
        "scorer_selftest": "PASSED",
        "shuffled_gold": "PASSED",
        "state_check_bites": "PASSED",
        "null_agent": "PASSED",
        "random_agent": "PASSED",
        "identical_config": "PASSED",
        "positive_control": "PASSED",
        "mutation": "PASSED",
        "headline_agreement": "PASSED",
        "judge_calibration": "NOT_RUN",
    }
    assert mock["payloads"]["judge_calibration"]["allowed_not_run"] is True
    assert mock["admissible"], mock["reasons"]
    assert mock["exit"] == 0


def test_every_scorer_goes_red_on_every_world_but_the_idle_order_check(mock: Verdict) -> None:
    scorers = mock["outcomes"]["scorer_selftest"].measured["scorers"]
    idle = sorted(name for name, r in scorers.items() if r["red"] is None)
    assert idle == ["tools.order_violations"]
    for name in (
        "governance.reward",
        "governance.execution_valid",
        "governance.excess_attempts",
        "governance.defects",
        "state.assertions",
        "state.collateral",
    ):
        got = scorers[name]
        assert (got["red"], got["probed"], got["went_red"]) == (True, 64, 64), name
        assert sum(t["probed"] for t in got["by_tag"].values()) == 128  # two tags per world


def test_what_the_mock_run_was_certified_against(mock: Verdict) -> None:
    out = mock["outcomes"]
    nulls = out["null_agent"].measured["agents"]
    assert set(nulls) == {"do_nothing"} and nulls["do_nothing"]["tool_calls"] == 0
    assert set(nulls["do_nothing"]["scores"].values()) == {0.0}
    chance = out["random_agent"].measured["metrics"]
    assert {m: (r["chance_mean"], r["chance_sd"]) for m, r in chance.items()} == {
        "governance.reward": (0.0, 0.0),
        "governance.execution_valid": (0.0, 0.0),
    }
    shuffled = out["shuffled_gold"].measured["metrics"]
    assert {m: r["after"] for m, r in shuffled.items()} == {
        "governance.reward": 0.0,
        "governance.execution_valid": 0.0,
    }
    assert out["positive_control"].measured["scores"] == {
        "governance.reward": 1.0,
        "governance.execution_valid": 1.0,
    }
    assert out["positive_control"].measured["failed_tool_calls"] == 0
    assert out["identical_config"].measured["differing_paths"] == 0
    assert out["state_check_bites"].measured["items"] == 64


def test_a_random_run_is_refused(random_run: Verdict) -> None:
    statuses = {kind: o.status for kind, o in random_run["outcomes"].items()}
    for kind in ("null_agent", "shuffled_gold", "random_agent"):
        assert statuses[kind] == "FAILED", kind
    for kind in ("scorer_selftest", "state_check_bites", "positive_control", "identical_config"):
        assert statuses[kind] == "PASSED", kind
    assert not random_run["admissible"]
    assert random_run["exit"] == 3
