"""Facts a system learns from the source it loaded: asked for after build_suite and after
prepare (a fresh process), checked like declared facts, and used by scoring and controls."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from agent_assay.adapters.loaded import load_system
from agent_assay.adapters.system import Facts
from agent_assay.controls.execute import run_controls
from agent_assay.errors import AssayError
from agent_assay.integrity.adapter_check import check_adapter
from agent_assay.model import PublicSuite
from agent_assay.runner import execute_run
from agent_assay.scoring.registry import default_scorers
from agent_assay.store import Store
from tests.support.toy import MUTATING, RichToyAdapter
from tests.support.toyrun import new_toy_run

EXCUSES = Path(__file__).parents[1] / "support" / "bands" / "some_excuses.yaml"


class Learner(RichToyAdapter):
    """Declares no mutating tools and no bands; learns both once it holds a suite."""

    name = "learner"
    facts = replace(RichToyAdapter.facts, mutating_tools=())

    def __init__(self) -> None:
        super().__init__()
        self.holds: str | None = None

    def build_suite(self, source: Path | None = None) -> object:  # type: ignore[override]
        self.holds = "built"
        return super().build_suite(source)

    def prepare(self, suite: PublicSuite) -> None:  # type: ignore[override]
        self.holds = suite.suite_hash

    def learned_facts(self, declared: Facts) -> Facts:
        if self.holds is None:
            return declared
        return replace(declared, mutating_tools=MUTATING, bands=EXCUSES)


def test_facts_are_learned_when_a_suite_is_built_and_when_one_is_prepared() -> None:
    builder = load_system(Learner())
    assert builder.facts.mutating_tools == ()
    suite = builder.build_suite()
    assert builder.facts.mutating_tools == MUTATING
    assert builder.declared.mutating_tools == ()

    fresh = load_system(Learner())  # another process: it sees only the stored suite
    fresh.prepare(suite)
    assert fresh.scoring_context().mutating_tools == frozenset(MUTATING)


def test_the_controls_judge_with_the_bands_the_system_learned(store: Store) -> None:
    system = Learner()
    run = new_toy_run(store, system, "good")  # type: ignore[arg-type]
    execute_run(store, system, run, progress=False)
    result = run_controls(store, Learner(), run)
    by_kind = {o.kind: o for o in result.outcomes}
    assert by_kind["mutation"].status == "NOT_RUN"
    assert by_kind["mutation"].reason == "mutants are not meaningful for this environment"
    assert by_kind["null_agent"].status != "NOT_RUN"


def test_learned_facts_may_not_change_what_is_fixed_before_loading() -> None:
    class Knob(Learner):
        def learned_facts(self, declared: Facts) -> Facts:
            return replace(declared, settings={"mode": str})

    with pytest.raises(AssayError, match=r"^adapter learner: learned facts change settings, "):
        load_system(Knob()).build_suite()


def test_learned_facts_are_checked_as_declared_ones_are() -> None:
    class Shadow(Learner):
        def learned_facts(self, declared: Facts) -> Facts:
            return replace(declared, scorers=(default_scorers()[0],))

    with pytest.raises(AssayError, match=r"^adapter learner \(learned facts\): scorer "):
        load_system(Shadow()).build_suite()


def test_check_adapter_reports_the_learned_facts() -> None:
    checked = check_adapter(Learner(), "learner")
    said = {line.what: line for line in checked.lines}
    assert "0 mutating tool(s)" in said["facts"].detail
    assert f"{len(MUTATING)} mutating tool(s)" in said["learned facts"].detail
    assert said["learned bands"].detail.startswith("tests/support/bands/some_excuses.yaml")
