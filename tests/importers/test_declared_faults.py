"""The pass^k view lists the trajectory faults importers declare, and nothing it was not
told about: tau-bench's two are its importer's declaration, and any other importer's
declaration is rendered the same way."""

from __future__ import annotations

from dataclasses import replace

from agent_assay.importers import TrajectoryFault, declared_faults
from agent_assay.integrity.admissibility import assess
from agent_assay.store import Store
from agent_assay.views.load import load_run_data
from agent_assay.views.passk import passk_json, passk_of, render_passk
from agent_assay_bundled.tau_bench.importer import TauBenchImporter
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run

GARBLED = TrajectoryFault("garbled", "garbled", "present", "garbled trajectories: {n}")
UNSCORED = TrajectoryFault("unscored", "scored", "false", "unscored results: {n}")


def test_tau_bench_declares_its_faults_and_the_view_reads_them() -> None:
    declared = TauBenchImporter.trajectory_faults
    assert [f.key for f in declared] == ["malformed", "no_reward_info"]
    assert all(f in declared_faults() for f in declared)


def test_a_declared_fault_is_listed_and_an_undeclared_one_is_not(store: Store) -> None:
    run = toy_run(store, ToyAdapter(), "good", repeats=2)
    data = load_run_data(store, run, assess(store, run), trajectories=True, outcomes=True)
    first, second, *rest = data.trajectories
    marked = (replace(first, meta={**first.meta, "garbled": ["turn 2: no role"]}),
              replace(second, meta={**second.meta, "scored": False, "malformed": ["x"]}),
              *rest)
    report = passk_of(replace(data, trajectories_=marked, faults_=(GARBLED, UNSCORED)))
    assert passk_json(report)["faults"] == {
        "garbled": [{"item_id": first.item_id, "repetition": first.repetition,
                     "faults": ["turn 2: no role"]}],
        "unscored": [{"item_id": second.item_id, "repetition": second.repetition}],
    }
    text = render_passk(report)
    assert (f"garbled trajectories: 1\n  {first.item_id}/{first.repetition}: turn 2: no role\n"
            f"unscored results: 1: {second.item_id}/{second.repetition}\n") in text
    assert "malformed" not in text  # not declared here, so not the view's to name
