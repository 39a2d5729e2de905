"""The auditor against the frozen Asteria Agentic v1 fixture."""

import pytest
from auditor_worlds import imperfect
from synthworld.agentic import (
    AgenticBenchmark,
    AgenticTraceSubmission,
    always_deny_agentic_trace,
    current_state_agentic_trace,
    evaluate_agentic_trace,
    generate_asteria_agentic_v1,
    load_golden_agentic_benchmark,
    trace_submission_from_jsonl,
    validate_trace_jsonl,
)
from synthworld.agentic.models import ActionAttempted

from authority_auditor import __version__, audit_public_bundle, trace_jsonl


@pytest.fixture(scope="module")
def asteria() -> AgenticBenchmark:
    return generate_asteria_agentic_v1()


def test_every_metric_is_at_its_ideal_value(asteria: AgenticBenchmark) -> None:
    report = evaluate_agentic_trace(audit_public_bundle(asteria.public), benchmark=asteria)

    assert imperfect(report) == {}
    assert {metric.name: metric.value for metric in report.metrics}["excess_authority_rate"] == 0.0
    assert len(report.metrics) == 20


def test_the_packaged_golden_copy_scores_the_same() -> None:
    golden = load_golden_agentic_benchmark()

    report = evaluate_agentic_trace(audit_public_bundle(golden.public))

    assert imperfect(report) == {}


def test_trace_passes_validation_without_any_issue(asteria: AgenticBenchmark) -> None:
    text = trace_jsonl(audit_public_bundle(asteria.public))

    validation = validate_trace_jsonl(
        text, expected_event_ids=asteria.public.scenario.action_event_ids
    )

    assert validation.valid
    assert validation.issues == ()
    assert validation.row_count == validation.expected_action_count == 11


def test_one_row_per_action_event_in_stream_order(asteria: AgenticBenchmark) -> None:
    submission = audit_public_bundle(asteria.public)

    action_ids = tuple(
        event.id for event in asteria.public.events if isinstance(event.payload, ActionAttempted)
    )
    assert tuple(row.event_id for row in submission.rows) == action_ids


def test_jsonl_round_trips_through_the_package_parser(asteria: AgenticBenchmark) -> None:
    submission = audit_public_bundle(asteria.public)
    text = trace_jsonl(submission)

    assert text.endswith("\n")
    assert len(text.splitlines()) == len(submission.rows)
    assert trace_submission_from_jsonl(text) == submission


def test_the_evaluator_can_go_red_on_the_published_baselines(asteria: AgenticBenchmark) -> None:
    """Negative control: the scorer that gives the auditor 1.0 marks the baselines down."""

    def scores(submission: AgenticTraceSubmission) -> dict[str, float | None]:
        report = evaluate_agentic_trace(submission, benchmark=asteria)
        return {
            metric.name: None if metric.value is None else round(metric.value, 4)
            for metric in report.metrics
        }

    deny = scores(always_deny_agentic_trace(asteria.public))
    current = scores(current_state_agentic_trace(asteria.public))

    assert deny["authorization_decision_accuracy"] == 0.6364
    assert current["authorization_decision_accuracy"] == 0.6364
    assert current["authorization_decision_f1"] == 0.3333
    assert current["provenance_completeness"] == 0.5455
    assert current["excess_authority_rate"] == 0.1429


def test_version_is_pinned() -> None:
    assert __version__ == "1.0.0"
