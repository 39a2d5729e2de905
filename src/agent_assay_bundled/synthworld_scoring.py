"""Per-action scorers for the synthworld-agentic adapter, and how they map onto the package.

Each scorer reads one observed-action row (a trajectory's ``final_state``) and the
evaluator truth the adapter stored in ``Gold.truth`` under ``binding`` (the
canonical binding) and ``authority`` (the authority truth). Each check is the
per-event form of one of synthworld's own metric definitions in
``synthworld.agentic.evaluation``, with the same equality on the same JSON values,
so the harness mean over the items where a scorer applies is the package's figure.

Metrics whose package denominator is not "every action event" return n/a (None)
outside that denominator: precision over actions the trace allowed, recall over
actions truth allows, temporal validity over the three temporal case labels, and
excess authority over actions truth denies. Least-privilege accuracy is the
package's ``1 - excess`` rather than a mean of its own, because ``(n - k) / n`` and
``1 - k / n`` can differ in the last bit (6/7 against 1 - 1/7), and the
comparison is exact.

Every scorer brings a ``plant_defect`` for the scorer self-test: it writes one wrong
value into the row (and into the ``observe_action`` call that carries it).

This module imports nothing from synthworld: it only reads JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent_assay.model import Gold, ToolCall, Trajectory
from agent_assay.scoring.base import ScoreKind, Scorer, ScoreValue, ScoringContext

TOOL = "observe_action"
PLANTED = "__planted_defect__"
ALLOW, DENY = "allow", "deny"

Row = Mapping[str, Any]


def row_of(trajectory: Trajectory) -> Row:
    """The observed-action row a trajectory reports; a crash reports nothing (all missing)."""
    return trajectory.final_state or {}


def _truth(gold: Gold, part: str) -> Mapping[str, Any] | None:
    value = gold.truth.get(part)
    return value if isinstance(value, Mapping) else None


def with_row(trajectory: Trajectory, updates: Mapping[str, Any]) -> Trajectory:
    """A copy whose row, and every observe_action call carrying it, has `updates` applied."""
    state = {**row_of(trajectory), **updates}
    steps = tuple(
        replace(
            s,
            call=ToolCall(TOOL, {**s.call.args, **updates}),
            result={**s.result, **updates} if isinstance(s.result, Mapping) else s.result,
        )
        if s.call.tool == TOOL and s.ok
        else s
        for s in trajectory.steps
    )
    outcome = state.get("decision")
    return replace(trajectory, final_state=state, steps=steps, outcome=outcome)


def _flip(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    return DENY if value == ALLOW else ALLOW


def _wrong(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, list):
        return [*value, PLANTED]
    if value in (ALLOW, DENY):
        return _flip(value)
    return PLANTED


# ---------------------------------------------------------------------------------------
# field agreement: the thirteen per-action checks of the package


class FieldMatch:
    """1 when the row's `field` equals the truth value `part.key`, else 0 (None is a miss)."""

    version = "1"
    kind: ScoreKind = "binary"

    def __init__(self, name: str, field: str, part: str, key: str, definition: str) -> None:
        self.name = name
        self.field = field
        self.part = part
        self.key = key
        self.definition = definition

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        truth = _truth(gold, self.part)
        if truth is None or self.key not in truth:
            return ScoreValue(None, {"reason": f"gold carries no {self.part}.{self.key}"})
        got, expected = row_of(trajectory).get(self.field), truth[self.key]
        if got == expected:
            return ScoreValue(1.0)
        return ScoreValue(0.0, {"got": got, "expected": expected})

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        return with_row(t, {self.field: _wrong(row_of(t).get(self.field))})


def _required(gold: Gold) -> set[str] | None:
    authority = _truth(gold, "authority")
    if authority is None or "required_evidence_refs" not in authority:
        return None
    return set(authority["required_evidence_refs"])


class ProvenanceComplete:
    name = "synthworld.provenance_complete"
    version = "1"
    definition = (
        "1 when evidence_refs is reported (not null) and contains every evaluator-required "
        "reference (package: provenance_completeness), else 0"
    )
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        required = _required(gold)
        if required is None:
            return ScoreValue(None, {"reason": "gold carries no required evidence"})
        refs = row_of(trajectory).get("evidence_refs")
        if refs is not None and required <= set(refs):
            return ScoreValue(1.0)
        missing = sorted(required - set(refs or ()))
        return ScoreValue(0.0, {"missing": missing, "reported": refs is not None})

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        required = sorted(_required(gold) or ())
        refs = row_of(t).get("evidence_refs")
        if not required or refs is None:
            return None
        return with_row(t, {"evidence_refs": [r for r in refs if r != required[0]]})


class ProvenanceExact:
    name = "synthworld.provenance_exact"
    version = "1"
    definition = (
        "1 when evidence_refs is reported and its distinct set equals the required set "
        "(package: provenance_exact_match), else 0; detail counts refs for micro precision"
    )
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        required = _required(gold)
        if required is None:
            return ScoreValue(None, {"reason": "gold carries no required evidence"})
        refs = row_of(trajectory).get("evidence_refs")
        reported = set(refs or ())
        counts = {"reported": len(reported), "reported_required": len(reported & required)}
        value = 1.0 if refs is not None and reported == required else 0.0
        return ScoreValue(value, counts)

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        refs = row_of(t).get("evidence_refs")
        return with_row(t, {"evidence_refs": [*(refs or ()), f"evidence:{PLANTED}"]})


# ---------------------------------------------------------------------------------------
# checks whose package denominator is not every action event


class DecisionAtAudit:
    name = "synthworld.decision_at_audit"
    version = "1"
    definition = (
        "on events labelled valid_then_revoked, post_revocation_action or "
        "invalid_then_later_granted: 1 when decision_at_audit matches truth, else 0; "
        "n/a elsewhere (package: temporal_validity_accuracy)"
    )
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        authority = _truth(gold, "authority")
        if authority is None or not gold.truth.get("temporal"):
            return ScoreValue(None, {"reason": "not a temporal case"})
        got = row_of(trajectory).get("decision_at_audit")
        return ScoreValue(1.0 if got == authority["decision_at_audit"] else 0.0)

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        return with_row(t, {"decision_at_audit": _flip(row_of(t).get("decision_at_audit"))})


class DecisionPrecision:
    """Precision's support is set by the trajectory: it only counts rows that allow.

    The defect it exists to catch is an allow on an action truth denies. There the
    oracle denies, so precision is n/a; `selftest_probe_na` asks the self-test to probe
    exactly those items, and the planted allow must bring precision into scope at 0.
    """

    name = "synthworld.decision_precision"
    selftest_probe_na = True
    version = "1"
    definition = (
        "on actions the row allows: 1 when truth also allows, else 0; n/a where the row "
        "does not allow (package: authorization_decision_precision)"
    )
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        authority = _truth(gold, "authority")
        if authority is None or row_of(trajectory).get("decision") != ALLOW:
            return ScoreValue(None, {"reason": "the row does not allow this action"})
        return ScoreValue(1.0 if authority["decision_at_action"] == ALLOW else 0.0)

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        authority = _truth(gold, "authority")
        if authority is None or authority["decision_at_action"] == ALLOW:
            return None
        return with_row(t, {"decision": ALLOW})


def _row_allows_where_truth(truth: str, gold: Gold, trajectory: Trajectory) -> ScoreValue:
    """1 when the row allows, on the actions truth decides as `truth` at action time (recall
    reads it where truth allows, excess authority where truth denies); n/a elsewhere."""
    authority = _truth(gold, "authority")
    if authority is None or authority["decision_at_action"] != truth:
        verb = "allow" if truth == ALLOW else "deny"
        return ScoreValue(None, {"reason": f"truth does not {verb} this action"})
    return ScoreValue(1.0 if row_of(trajectory).get("decision") == ALLOW else 0.0)


class DecisionRecall:
    name = "synthworld.decision_recall"
    version = "1"
    definition = (
        "on actions truth allows at action time: 1 when the row reports allow, else 0; "
        "n/a where truth denies (package: authorization_decision_recall)"
    )
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return _row_allows_where_truth(ALLOW, gold, trajectory)

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        return with_row(t, {"decision": DENY})


class ExcessAuthority:
    name = "synthworld.excess_authority"
    version = "1"
    definition = (
        "on actions truth denies at action time: 1 when the row explicitly allows (a null "
        "decision is no false allow), else 0; n/a where truth allows "
        "(package: excess_authority_rate; least_privilege_accuracy is 1 minus its mean)"
    )
    kind: ScoreKind = "count"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return _row_allows_where_truth(DENY, gold, trajectory)

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        return with_row(t, {"decision": ALLOW})


# ---------------------------------------------------------------------------------------
# the scorer set and its correspondence with the package's report


def _field(short: str, field: str, part: str, key: str, what: str, metric: str) -> FieldMatch:
    return FieldMatch(
        name=f"synthworld.{short}",
        field=field,
        part=part,
        key=key,
        definition=f"1 when the row's {field} equals the evaluator's {what} "
        f"(package: {metric}), else 0",
    )


def synthworld_scorers() -> tuple[Scorer, ...]:
    """Every per-action scorer, in the order the package lists its metrics."""
    b, a = "binding", "authority"
    return (
        _field(
            "principal",
            "originating_principal_id",
            b,
            "originating_principal_id",
            "canonical originating principal",
            "principal_resolution_accuracy",
        ),
        _field(
            "logical_agent",
            "logical_agent_id",
            b,
            "logical_agent_id",
            "canonical logical agent",
            "logical_agent_resolution_accuracy",
        ),
        _field(
            "runtime",
            "runtime_principal_id",
            b,
            "runtime_principal_id",
            "canonical runtime principal",
            "runtime_binding_accuracy",
        ),
        _field(
            "credential_subject",
            "credential_subject_id",
            b,
            "credential_subject_id",
            "canonical credential subject",
            "credential_subject_accuracy",
        ),
        _field(
            "decision",
            "decision",
            a,
            "decision_at_action",
            "action-time decision",
            "authorization_decision_accuracy",
        ),
        _field(
            "chain",
            "delegation_chain_ids",
            a,
            "delegation_chain_ids",
            "root-first delegation chain",
            "delegation_chain_integrity",
        ),
        _field(
            "attribution",
            "attributed_actor_id",
            b,
            "attributed_actor_id",
            "canonical attributed actor",
            "attribution_integrity",
        ),
        _field(
            "owner_chain",
            "accountable_owner_chain",
            b,
            "accountable_owner_chain",
            "accountable owner chain",
            "accountable_owner_chain_integrity",
        ),
        ProvenanceComplete(),
        ProvenanceExact(),
        _field(
            "reconstructable",
            "reconstructable_from_retained_evidence",
            a,
            "reconstructable_at_audit",
            "reconstructability at audit",
            "audit_reconstructability_accuracy",
        ),
        _field(
            "side_effect",
            "side_effect",
            a,
            "expected_side_effect",
            "expected side effect",
            "expected_side_effect_accuracy",
        ),
        _field(
            "policy_version",
            "policy_version",
            a,
            "expected_policy_version",
            "expected policy version",
            "policy_version_accuracy",
        ),
        DecisionAtAudit(),
        DecisionPrecision(),
        DecisionRecall(),
        ExcessAuthority(),
    )


HEADLINE: tuple[str, ...] = (
    "synthworld.decision",
    "synthworld.provenance_complete",
    "synthworld.chain",
    "synthworld.attribution",
    "synthworld.reconstructable",
)

DIRECT: Mapping[str, str] = {
    "principal_resolution_accuracy": "synthworld.principal",
    "logical_agent_resolution_accuracy": "synthworld.logical_agent",
    "runtime_binding_accuracy": "synthworld.runtime",
    "credential_subject_accuracy": "synthworld.credential_subject",
    "authorization_decision_accuracy": "synthworld.decision",
    "delegation_chain_integrity": "synthworld.chain",
    "attribution_integrity": "synthworld.attribution",
    "accountable_owner_chain_integrity": "synthworld.owner_chain",
    "provenance_completeness": "synthworld.provenance_complete",
    "provenance_exact_match": "synthworld.provenance_exact",
    "audit_reconstructability_accuracy": "synthworld.reconstructable",
    "expected_side_effect_accuracy": "synthworld.side_effect",
    "policy_version_accuracy": "synthworld.policy_version",
    "temporal_validity_accuracy": "synthworld.decision_at_audit",
    "authorization_decision_precision": "synthworld.decision_precision",
    "authorization_decision_recall": "synthworld.decision_recall",
    "excess_authority_rate": "synthworld.excess_authority",
}
"""Package metric -> the harness scorer whose mean over applicable items is that metric."""


@dataclass(frozen=True)
class HarnessFigure:
    metric: str
    value: float | None
    source: str


def _f1(precision: float | None, recall: float | None) -> float | None:
    # the package's convention: null unless both are defined and not both zero
    if precision is None or recall is None or not precision + recall:
        return None
    return 2 * precision * recall / (precision + recall)


def harness_figures(
    means: Mapping[str, float | None],
    provenance_details: Sequence[Mapping[str, Any] | None],
) -> list[HarnessFigure]:
    """The package's metrics as the harness computes them from its own stored scores.

    `means` is the harness aggregate per scorer (mean over items with a value);
    `provenance_details` the stored details of synthworld.provenance_exact, whose
    reference counts give the package's micro precision over (event, reference) pairs.
    """
    figures = [HarnessFigure(m, means.get(s), s) for m, s in DIRECT.items()]
    excess = means.get(DIRECT["excess_authority_rate"])
    figures.append(
        HarnessFigure(
            "least_privilege_accuracy",
            None if excess is None else 1 - excess,
            "1 - mean(synthworld.excess_authority)",
        )
    )
    figures.append(
        HarnessFigure(
            "authorization_decision_f1",
            _f1(
                means.get(DIRECT["authorization_decision_precision"]),
                means.get(DIRECT["authorization_decision_recall"]),
            ),
            "2PR/(P+R) of the decision_precision and decision_recall means",
        )
    )
    reported = sum(int((d or {}).get("reported", 0)) for d in provenance_details)
    matched = sum(int((d or {}).get("reported_required", 0)) for d in provenance_details)
    figures.append(
        HarnessFigure(
            "provenance_precision",
            matched / reported if reported else None,
            "sum of reported_required / sum of reported in synthworld.provenance_exact details",
        )
    )
    return figures
