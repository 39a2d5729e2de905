"""Planted copies of the task where the controls must go red: a scorer that ignores the
answer (each control it must fail, run on one oracle run), a tool that does nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay.controls.bands import load_bands
from agent_assay.controls.base import ControlContext
from agent_assay.controls.execute import control_context
from agent_assay.controls.null_agent import NullAgentControl
from agent_assay.controls.random_agent import RandomAgentControl
from agent_assay.controls.scorer_selftest import ScorerSelfTest
from agent_assay.controls.shuffled_gold import ShuffledGold
from agent_assay.store import open_store
from agent_assay_bundled.inspect_task.checks import TaskScorer
from agent_assay_bundled.inspect_task.system import InspectTaskSystem
from tests.inspect_task.tasks import BLIND_SCORER, IDLE_TOOL, write_task


@pytest.mark.parametrize("control", [NullAgentControl(), RandomAgentControl(),
                                     ShuffledGold(), ScorerSelfTest()],
                         ids=lambda c: c.kind)
def test_a_scorer_that_ignores_the_answer_turns_the_controls_red(
        control: Any, blind_context: ControlContext) -> None:
    """Each control a blind scorer must fail, run on one oracle run (the whole
    certification through the command line is the sound task's test above: every agent
    process pays Inspect's start-up, so the controls here share one context, and with it
    the one agent process that executes the environment for them, as a certification's
    controls do)."""
    bands = load_bands(blind_context.adapter.facts.bands)
    got = control.run(blind_context, bands.get(control.kind))
    assert got.status == "FAILED", got.summary


@pytest.fixture(scope="module")
def blind_context(tmp_path_factory: pytest.TempPathFactory, registered: Path
              ) -> Iterator[ControlContext]:
    """The controls' context of one oracle run of the task with the blind scorer."""
    directory = tmp_path_factory.mktemp("blind")
    spec = write_task(directory / "blind", scorer=BLIND_SCORER, samples=3)
    store = open_store(str(directory / "b.db"))
    system = load_system(InspectTaskSystem())
    run = api.evaluate(system, "oracle", store=store, source=spec).run
    context = control_context(store, system, run, 3)
    try:
        yield context
    finally:
        context.environment().close()


def test_a_tool_that_does_nothing_leaves_gold_nothing_to_assert(tmp_path: Path) -> None:
    """The ledger never changes, so gold asserts no state and its scorer fails the oracle."""
    system = InspectTaskSystem()
    suite = system.build_suite(write_task(tmp_path / "idle", tool=IDLE_TOOL, samples=2))
    assert all(item.gold.assertions == () for item in suite.items)
    assert system.learned_facts(system.facts).mutating_tools == ()
    loaded = load_system(system)
    view = loaded.replay_view()
    assert view is not None
    item = suite.items[0]
    gold = view.replay(item.public(), item.gold.path, seed=0)
    got = TaskScorer("ledger_total").score(item.gold, gold, loaded.scoring_context())
    assert got.value == 0.0, got.detail
    assert got.detail is not None and got.detail["explanation"] == "ledger total 0", got.detail
