"""The plugin surface: five required members, facts with defaults, declared capabilities."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import agent_assay as aa
from agent_assay.adapters.loaded import load_system
from agent_assay.controls.execute import run_controls
from agent_assay.errors import AssayError
from agent_assay.integrity.adapter_check import check_adapter, items_needed
from agent_assay.model import Config, PublicItem, Suite, Trajectory
from agent_assay.runner import execute_run
from agent_assay.store import Store, open_store
from tests.support.toy import RichToyAdapter, ToyAdapter, toy_items
from tests.support.toyrun import new_toy_run, toy_run


class Bare:
    """The five required members and nothing else."""

    name = "bare"
    version = "0.1.0"

    def build_suite(self, source: Path | None = None) -> Suite:
        return Suite(adapter=self.name, items=toy_items())

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {"good": {"mode": "good"}}

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        return ToyAdapter().run_item(item, config, seed=seed, repetition=repetition)


class NoRunItem:
    name = "lamps"
    version = "0.1.0"

    def build_suite(self, source: Path | None = None) -> Suite:
        return Suite(adapter=self.name, items=toy_items())

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {}


def test_a_missing_member_is_named_in_one_line() -> None:
    with pytest.raises(AssayError) as refused:
        load_system(NoRunItem())
    assert str(refused.value) == "adapter lamps is missing run_item"


def test_every_missing_or_mistyped_member_is_listed_by_check_adapter() -> None:
    class Worse:
        name = 3
        facts = ("headline_metrics",)

        def configs(self) -> dict[str, Any]:
            return {}

    checked = check_adapter(Worse(), "worse")
    assert [line.detail for line in checked.lines] == [
        "adapter worse: name must be a non-empty string",
        "adapter worse is missing version",
        "adapter worse is missing build_suite",
        "adapter worse is missing run_item",
        "adapter worse: facts must be an agent_assay.Facts, not tuple",
    ]
    assert not checked.ok
    with pytest.raises(AssayError, match=r"and 4 more: `agent-assay check-adapter` lists them"):
        load_system(Worse())


def test_the_bare_minimum_gets_every_default() -> None:
    system = load_system(Bare())
    assert system.facts == aa.Facts()
    assert system.replay_view() is None and system.null_agents() == {}
    assert system.environment(Config("bare", "good", {})) == {
        "adapter": "bare", "adapter_version": "0.1.0"}
    assert not system.deterministic(Config("bare", "good", {}))


def test_without_replay_the_controls_that_need_it_are_not_run(store: Store) -> None:
    system = Bare()
    run = new_toy_run(store, system, "good")  # type: ignore[arg-type]
    execute_run(store, system, run, progress=False)  # any object implementing the surface
    result = run_controls(store, system, run)
    by_kind = {o.kind: o for o in result.outcomes}
    for kind in ("positive_control", "random_agent", "mutation", "state_check_bites"):
        assert by_kind[kind].status == "NOT_RUN"
        assert by_kind[kind].reason == "adapter declares no replay capability"
    assert by_kind["null_agent"].status == "NOT_RUN"


def test_check_adapter_on_a_sound_adapter_is_ready() -> None:
    checked = check_adapter(RichToyAdapter(), "richtoy")
    assert checked.ok, [line.line() for line in checked.lines]
    said = {line.what: line for line in checked.lines}
    assert said["suite"].detail.endswith("the same when built twice")
    assert said["oracle"].detail.startswith("gold replayed on 12 items reaches the ceiling")
    assert said["run_item"].level == "ok"


def test_check_adapter_says_a_suite_is_too_small_for_the_mutation_detector() -> None:
    checked = check_adapter(ToyAdapter(), "toy")
    mutation = next(line for line in checked.lines if line.what == "mutation")
    assert mutation.level == "FAIL"
    assert f"at least {items_needed(11, 0.05)} items" in mutation.detail
    assert "this suite has 4" in mutation.detail
    assert items_needed(11, 0.05) == 8  # 0.5**8 <= 0.05 / 11 < 0.5**7


def test_check_adapter_sees_an_oracle_below_the_ceiling_and_a_hash_that_moves() -> None:
    class Drifting(RichToyAdapter):
        calls = 0

        def build_suite(self, source: Path | None = None) -> Suite:
            Drifting.calls += 1
            suite = super().build_suite(source)
            return replace(suite, items=suite.items[: 10 + Drifting.calls])

        def replay(self, item: PublicItem, calls: Any, *, seed: int) -> Trajectory:
            return super().replay(item, calls[:-1], seed=seed)

    checked = check_adapter(Drifting(), "drifting")
    said = {line.what: line for line in checked.lines if line.level == "FAIL"}
    assert "it hashes differently" in said["suite"].detail
    assert "misses the ceiling" in said["oracle"].detail


def test_the_public_api_exports_what_it_lists() -> None:
    for name in aa.__all__:
        assert getattr(aa, name) is not None
    with pytest.raises(AttributeError):
        aa.not_exported  # noqa: B018


def test_the_api_takes_a_path_as_text_or_as_a_path(tmp_path: Path) -> None:
    db = tmp_path / "assay.db"
    run = toy_run(open_store(str(db)), ToyAdapter())
    as_text = aa.export(run.run_id, str(tmp_path / "a.bundle"), store=str(db),
                        witness=str(tmp_path / "witness.log"))
    as_path = aa.export(run.run_id, tmp_path / "b.bundle", store=db)
    assert as_text == as_path > 0
    assert aa.report(str(tmp_path / "a.bundle"), store=db).verdict_word == "INADMISSIBLE"
    assert (tmp_path / "witness.log").stat().st_size > 0
    bands = tmp_path / "bands.yaml"
    bands.write_text("null_agent:\n  min_margin: 0.2\n  derivation: stricter than the default\n")
    certified = aa.certify(ToyAdapter(), store=str(db), run=run.run_id, bands=str(bands),
                           witness=str(tmp_path / "witness.log"))
    assert certified.run.run_id == run.run_id
    checked = aa.verify(run.run_id, store=str(db), rescore=False,
                        witness=str(tmp_path / "witness.log"))
    assert checked.ok and checked.witness is not None and checked.witness.lines == 2
