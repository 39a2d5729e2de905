"""Agreement beyond the scored fields, and across perturbed variants of each world."""

import random
from collections.abc import Callable

import pytest
from auditor_worlds import WORLD_KITS, WorldKit, imperfect
from synthworld.agentic import (
    AgenticBenchmark,
    AgenticBenchmarkIntegrityError,
    AgenticReplayError,
    evaluate_agentic_trace,
    generate_asteria_agentic_v1,
)
from synthworld.agentic.models import ActionAttempted, AuditPerformed

from authority_auditor import AuditRejected, audit_public_bundle
from authority_auditor.authority import judge
from authority_auditor.binding import resolve_identity
from authority_auditor.identities import IdentityGraph
from authority_auditor.timeline import replay


def _built(make_kit: Callable[[], WorldKit]) -> Callable[[], AgenticBenchmark]:
    return lambda: make_kit().build()


BENCHMARKS: dict[str, Callable[[], AgenticBenchmark]] = {
    "asteria": generate_asteria_agentic_v1,
    **{name: _built(make_kit) for name, make_kit in WORLD_KITS.items()},
}


@pytest.mark.parametrize("make", BENCHMARKS.values(), ids=BENCHMARKS.keys())
def test_failure_reasons_match_truth_at_action_and_at_audit(
    make: Callable[[], AgenticBenchmark],
) -> None:
    """Reasons are not scored, so agreement here is a stricter, unscored check."""

    benchmark = make()
    public = benchmark.public
    graph = IdentityGraph(public.snapshot)
    timeline = replay(public, graph)
    audit = next(event for event in public.events if isinstance(event.payload, AuditPerformed))
    truth = {item.action_event_id: item for item in benchmark.evaluator.authority_truth}

    for event in public.events:
        if not isinstance(event.payload, ActionAttempted):
            continue
        attempt = event.payload.attempt
        identity = resolve_identity(graph, timeline.before(event), attempt)
        at_action = judge(graph, timeline.before(event), identity, attempt, event.occurred_at)
        at_audit = judge(graph, timeline.before(audit), identity, attempt, audit.occurred_at)
        assert at_action.reasons == set(truth[event.id].failure_reasons_at_action), event.id
        assert at_audit.reasons == set(truth[event.id].failure_reasons_at_audit), event.id


def _perturbed(rng: random.Random, kit: WorldKit) -> WorldKit:
    """Drop a few setup events, swap a neighbour pair, and bend a few attempts."""

    events = [
        event
        for event in kit.events
        if isinstance(event.payload, ActionAttempted | AuditPerformed) or rng.random() > 0.1
    ]
    if rng.random() < 0.5:
        index = rng.randrange(len(events) - 1)
        events[index], events[index + 1] = events[index + 1], events[index]
    kit.events = [
        event.model_copy(
            update={"event_index": index, "occurred_at": kit.events[index - 1].occurred_at}
        )
        for index, event in enumerate(events, start=1)
    ]
    versions = [policy.version for policy in kit.snapshot.policies]
    for event in list(kit.events):
        if isinstance(event.payload, ActionAttempted) and rng.random() < 0.3:
            bends: list[dict[str, object]] = [
                {"policy_version": rng.choice(versions)},
                {"purpose": "some-other-purpose"},
                {"evidence_refs": ()},
            ]
            kit.edit_attempt(event.id, **rng.choice(bends))
    kept = {event.id for event in kit.events}
    kit.bindings = [item for item in kit.bindings if item.action_event_id in kept]
    kit.cases = [item for item in kit.cases if item.action_event_id in kept]
    return kit


def test_perturbed_worlds_agree_or_are_refused_by_both() -> None:
    """A seeded differential check over many small variations of each world."""

    rng = random.Random(20270301)
    scored = 0
    for _ in range(120):
        kit = _perturbed(rng, rng.choice(list(WORLD_KITS.values()))())
        try:
            benchmark = kit.build()
        except AgenticBenchmarkIntegrityError:
            continue  # the hand-written binding no longer fits the stream; no truth exists
        except AgenticReplayError:
            with pytest.raises(AuditRejected):
                audit_public_bundle(kit.public())
            continue
        report = evaluate_agentic_trace(audit_public_bundle(benchmark.public), benchmark=benchmark)
        # A perturbed world may lose every case a metric needs; undefined is fine there.
        assert all(value is None for value in imperfect(report).values())
        scored += 1
    assert scored > 40
