"""Worlds beyond the fixture: the auditor is not tuned to Asteria's identifiers."""

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from auditor_worlds import WORLD_KITS, WorldKit, imperfect
from synthworld.agentic import (
    evaluate_agentic_trace,
    generate_asteria_agentic_v1,
    validate_trace_jsonl,
)
from synthworld.agentic.models import (
    ActionAttempted,
    DelegationGranted,
    DelegationRevoked,
    EvidenceDiscarded,
)

import authority_auditor
from authority_auditor import audit_public_bundle, trace_jsonl

SOURCE_DIR = Path(authority_auditor.__file__).parent


@pytest.mark.parametrize("make_kit", WORLD_KITS.values(), ids=WORLD_KITS.keys())
def test_every_metric_is_at_its_ideal_value(make_kit: Callable[[], WorldKit]) -> None:
    benchmark = make_kit().build()

    submission = audit_public_bundle(benchmark.public)

    assert imperfect(evaluate_agentic_trace(submission, benchmark=benchmark)) == {}
    validation = validate_trace_jsonl(
        trace_jsonl(submission), expected_event_ids=benchmark.public.scenario.action_event_ids
    )
    assert validation.valid
    assert validation.issues == ()


def test_the_worlds_cover_the_required_situations() -> None:
    """Revocation before a later grant, evidence loss and a cross-tenant attempt all occur."""

    benchmarks = {name: make().build() for name, make in WORLD_KITS.items()}
    world_ids = {item.public.snapshot.world_id for item in benchmarks.values()}
    assert len(world_ids) == 3
    assert "asteria-agentic" not in world_ids

    borealis = benchmarks["borealis"].public.events
    kinds = [type(event.payload) for event in borealis]
    revoked_at = kinds.index(DelegationRevoked)
    assert DelegationGranted in kinds[revoked_at + 1 :]
    assert EvidenceDiscarded in kinds
    cross_tenant = next(event for event in borealis if event.id == "b-kestrel-reads-shipments")
    assert isinstance(cross_tenant.payload, ActionAttempted)
    assert cross_tenant.payload.attempt.originating_principal_claim == "bp-kestrel"

    first_event_types = {type(item.public.events[0].payload) for item in benchmarks.values()}
    assert len(first_event_types) == 3, "each world opens its stream differently"


def _asteria_identifiers() -> set[str]:
    """Every identifier the fixture defines, except the action verbs the spec names."""

    public = generate_asteria_agentic_v1().public
    snapshot = public.snapshot
    found = {snapshot.world_id, public.scenario.id, public.scenario.audit_event_id}
    for group in (
        snapshot.organisations,
        snapshot.departments,
        snapshot.principals,
        snapshot.agents,
        snapshot.resources,
        snapshot.policies,
    ):
        found |= {item.id for item in group}
    found |= {item.version for item in snapshot.policies}
    for event in public.events:
        found.add(event.id)
        found |= set(event.evidence_refs)
        text = event.payload.model_dump_json()
        found |= set(re.findall(r'"(?:id|delegation_id|audit_id|purpose)":"([^"]+)"', text))
        found |= set(re.findall(r'"(\w+:\w+)"', text))
    return found


def test_no_asteria_identifier_appears_in_the_auditor_source() -> None:
    identifiers = _asteria_identifiers()
    assert len(identifiers) > 60
    sources = {path.name: path.read_text(encoding="utf-8") for path in SOURCE_DIR.glob("*.py")}

    leaks = {
        (name, identifier)
        for name, text in sources.items()
        for identifier in identifiers
        if identifier in text
    }

    assert leaks == set()
    mentions = {
        name
        for name, text in sources.items()
        if "asteria" in text.replace("Asteria Agentic v1", "").lower()
    }
    assert mentions == set(), "only the fixture's name may appear, in prose"
