"""The synthworld-agentic suite: one public item per action event, gold from the evaluator.

Also the split the issue asks for: building a suite needs evaluator/, while the
auditor config reads nothing but public data.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from synthworld.agentic import export_agentic_benchmark, generate_asteria_agentic_v1

import authority_auditor
from agent_assay.adapters.loaded import load_system
from agent_assay.adapters.registry import load_adapter
from agent_assay.errors import AssayError
from agent_assay.model import Config
from agent_assay_bundled import synthworld as sw
from agent_assay_bundled.synthworld import SynthWorldAgenticAdapter

EVALUATOR_ONLY_KEYS = (
    "decision_at_action",
    "required_evidence_refs",
    "reconstructable_at_audit",
    "expected_side_effect",
    "expected_policy_version",
    "failure_reasons_at_action",
    "attributed_actor_id",
    "credential_subject_id",
    "case_kind",
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("asteria") / "asteria-agentic-v1"
    export_agentic_benchmark(root, generate_asteria_agentic_v1())
    return root


def config(adapter: SynthWorldAgenticAdapter, name: str) -> Config:
    return Config(adapter=adapter.name, name=name, params=dict(adapter.configs()[name]))


def test_registered_under_its_entry_point() -> None:
    adapter = load_adapter("synthworld-agentic")
    assert adapter.name == "synthworld-agentic"
    assert set(adapter.configs()) == {"always_deny", "current_state", "auditor", "reference"}


def test_one_item_per_public_action_event_in_scenario_order() -> None:
    suite = SynthWorldAgenticAdapter().build_suite(None)
    benchmark = generate_asteria_agentic_v1()
    assert [i.item_id for i in suite.items] == list(benchmark.public.scenario.action_event_ids)
    assert len(suite.items) == 11
    for item in suite.items:
        assert item.input["event"]["id"] == item.item_id
        assert item.input["event"]["payload"]["event_type"] == "action_attempted"
        (call,) = item.gold.path
        assert call.tool == "observe_action" and "event_id" not in call.args
        assert item.gold.outcome in ("allow", "deny")
        assert {"binding", "authority", "expected_row"} <= set(item.gold.truth)


def test_public_input_carries_no_evaluator_data() -> None:
    suite = SynthWorldAgenticAdapter().build_suite(None)
    public = generate_asteria_agentic_v1().public.model_dump(mode="json")
    for item in suite.items:
        assert item.input["public_bundle"] == public
        text = json.dumps(item.public().input)
        for key in EVALUATOR_ONLY_KEYS:
            assert f'"{key}"' not in text, (item.item_id, key)
        assert not any(tag.startswith(("case", "temporal")) for tag in item.tags)


def test_generated_and_exported_sources_build_the_same_suite(exported: Path) -> None:
    generated = SynthWorldAgenticAdapter().build_suite(None)
    again = SynthWorldAgenticAdapter().build_suite(None)
    from_disk = SynthWorldAgenticAdapter().build_suite(exported)
    assert generated.suite_hash == again.suite_hash == from_disk.suite_hash


def test_reference_is_marked_as_a_positive_control() -> None:
    adapter = load_system(SynthWorldAgenticAdapter())
    env = adapter.environment(config(adapter, "reference"))
    assert env["positive_control"] is True and "evaluator" in env["agent_reads"]
    assert "positive control" in adapter.configs()["reference"]["role"]
    auditor_env = adapter.environment(config(adapter, "auditor"))
    assert auditor_env["positive_control"] is False and auditor_env["agent_reads"] == "public"
    assert auditor_env["auditor_version"] == authority_auditor.__version__
    assert auditor_env["world_id"] == "asteria-agentic" and auditor_env["world_seed"] == 20260719
    assert {"synthworld_version", "public_digest", "world_version"} <= adapter.affects_results()


def test_suite_without_evaluator_tree_is_a_clear_error(exported: Path, tmp_path: Path) -> None:
    public_only = tmp_path / "public-only"
    shutil.copytree(exported, public_only)
    shutil.rmtree(public_only / "evaluator")
    with pytest.raises(AssayError, match=r"evaluator tree not found.*gold"):
        SynthWorldAgenticAdapter().build_suite(public_only)
    with pytest.raises(AssayError, match="benchmark directory not found"):
        SynthWorldAgenticAdapter().build_suite(tmp_path / "nowhere")


def test_auditor_reads_only_public_data(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "bench"
    shutil.copytree(exported, root)
    adapter = load_system(SynthWorldAgenticAdapter())
    suite = adapter.build_suite(root)
    shutil.rmtree(root / "evaluator")

    # forget everything this process learnt, and make any evaluator read fail loudly
    monkeypatch.setattr(sw, "_PUBLIC", {})
    monkeypatch.setattr(sw, "_BENCHMARKS", {})
    monkeypatch.setattr(sw, "_TRACES", {})

    def no_evaluator(*args: object, **kwargs: object) -> None:
        raise AssertionError("the evaluator was read")

    monkeypatch.setattr(sw, "load_benchmark", no_evaluator)
    monkeypatch.setattr(sw, "generated_benchmark", no_evaluator)
    monkeypatch.setattr(sw, "load_agentic_benchmark", no_evaluator)

    fresh = SynthWorldAgenticAdapter()
    rows = {
        item.item_id: fresh.run_item(
            item.public(), config(fresh, "auditor"), seed=0, repetition=1
        ).final_state
        for item in suite.items
    }
    direct = authority_auditor.audit_directory(root / "public")
    assert rows == {r.event_id: r.model_dump(mode="json") for r in direct.rows}

    # the guard bites: the oracle does need the evaluator
    with pytest.raises(AssertionError, match="the evaluator was read"):
        fresh.run_item(suite.items[0].public(), config(fresh, "reference"), seed=0, repetition=1)


def test_pools_and_catalogue_are_public_and_well_formed() -> None:
    adapter = load_system(SynthWorldAgenticAdapter())
    catalogue = adapter.replay_view().tool_catalogue()
    assert list(catalogue) == ["observe_action"]
    required = catalogue["observe_action"]["required"]
    pools = adapter.replay_view().argument_pools()
    assert set(required) == set(pools)
    assert pools["decision"] == ["allow", "deny"]
    public_text = json.dumps(generate_asteria_agentic_v1().public.model_dump(mode="json"))
    for name in ("originating_principal_id", "logical_agent_id", "resource_id", "policy_version"):
        assert pools[name] and all(v in public_text for v in pools[name])
    for chain in pools["delegation_chain_ids"]:
        assert all(d in public_text for d in chain)


def test_a_tampered_evaluator_is_refused(exported: Path, tmp_path: Path) -> None:
    root = tmp_path / "tampered"
    shutil.copytree(exported, root)
    cases = root / "evaluator" / "cases.jsonl"
    text = cases.read_text(encoding="utf-8")
    cases.write_text(text.replace("wrong_runtime", "authorised_action"), encoding="utf-8")
    with pytest.raises(AssayError, match="not a loadable synthworld agentic benchmark"):
        SynthWorldAgenticAdapter().build_suite(root)
