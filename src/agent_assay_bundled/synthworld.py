"""Adapter for SynthWorld's agentic-authority benchmark (Asteria Agentic v1 by default).

With synthworld_scoring, this is the only part of agent-assay that imports
synthworld or authority_auditor. One item per public action event: the item's
input is public data only (that event, and the whole public bundle the event
belongs to, because replaying authority needs every earlier event), and its gold
is the evaluator's truth for that event. An agent answers an item with one
``observe_action`` call whose arguments are the fields of synthworld's
ObservedActionTrace row; the row it leaves is the trajectory's final state.

Configs: ``always_deny`` and ``current_state`` are the package's public-only
baselines, ``auditor`` is the authority_auditor package (public data only), and
``reference`` is the package's oracle. The oracle reads the evaluator tree, so it
is a positive control and never a system under test: its config and run
environment say so.

Each config's trace is computed once per process for the whole bundle and must
pass synthworld's ``validate_trace_jsonl`` before any of its rows is scored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib.metadata import version as distribution_version
from pathlib import Path
from time import perf_counter
from typing import Any

from synthworld.agentic import (
    AgenticBenchmark,
    AgenticPublicBundle,
    AgenticTraceSubmission,
    ObservedActionTrace,
    TraceValidationIssue,
    always_deny_agentic_trace,
    current_state_agentic_trace,
    evaluate_agentic_trace,
    generate_asteria_agentic_v1,
    load_agentic_benchmark,
    reference_agentic_trace,
    trace_submission_from_jsonl,
    trace_submission_to_jsonl,
    validate_trace_jsonl,
)
from synthworld.agentic.evaluation import _TEMPORAL_CASES
from synthworld.agentic.models import ActionAttempted, DelegationGranted
from synthworld.agentic.serialization import agentic_public_artifacts

import authority_auditor
from agent_assay.adapters.system import Facts, NullAgent
from agent_assay.errors import AssayError
from agent_assay.model import (
    Config,
    Cost,
    Gold,
    Item,
    PublicItem,
    PublicSuite,
    StateAssertion,
    Step,
    Suite,
    ToolCall,
    Trajectory,
)
from agent_assay_bundled.bands import BANDS
from agent_assay_bundled.synthworld_scoring import HEADLINE, TOOL, synthworld_scorers

FREE = Cost(0.0, "local replay of public events: no model calls, nothing billed")
ROW_FIELDS: tuple[str, ...] = tuple(ObservedActionTrace.model_fields)
CALL_FIELDS: tuple[str, ...] = tuple(
    f for f in ROW_FIELDS if f not in ("synthetic", "schema_version", "event_id")
)
"""observe_action's arguments: every row field except the marker, the schema and the event."""
ASSERTED_FIELDS: tuple[str, ...] = ("event_id", *CALL_FIELDS)
SIDE_EFFECT_NAMES = (
    "none",
    "read_recorded",
    "quotation_requested",
    "comparison_recorded",
    "draft_created",
    "delegation_created",
    "action_recorded",
)
"""The side-effect names synthworld's public documentation fixes for v1 actions."""

Json = dict[str, Any]
TraceAgent = Callable[[AgenticPublicBundle, str], AgenticTraceSubmission]

# ---- per-process caches ---------------------------------------------------------------
# Keyed by the public artifact-set digest, so every item of a suite shares one entry.
_PUBLIC: dict[str, AgenticPublicBundle] = {}
_BENCHMARKS: dict[str, AgenticBenchmark] = {}
_TRACES: dict[tuple[str, str], dict[str, Json]] = {}
_NULL_VERDICTS: dict[str, Json] = {}


@cache
def generated_benchmark() -> AgenticBenchmark:
    """Asteria Agentic v1, generated in memory (deterministic: a frozen fixture)."""
    return generate_asteria_agentic_v1()


def public_digest(public: AgenticPublicBundle) -> str:
    """The public manifest's artifact-set digest: binds every public path and its bytes."""
    manifest = json.loads(agentic_public_artifacts(public)["manifest.json"])
    return str(manifest["artifact_set_digest"])


def load_benchmark(source: Path | None) -> AgenticBenchmark:
    """The benchmark under `source` (public/ and evaluator/), or Asteria v1 when None."""
    if source is None:
        return generated_benchmark()
    root = Path(source)
    public_root, evaluator_root = root / "public", root / "evaluator"
    if not root.is_dir():
        raise AssayError(f"{root}: benchmark directory not found")
    if not (public_root / "manifest.json").is_file():
        raise AssayError(
            f"{public_root}: no public tree (manifest.json missing); expected the layout "
            "`synthworld generate-agentic --output DIR` writes"
        )
    if not evaluator_root.is_dir():
        raise AssayError(
            f"{evaluator_root}: evaluator tree not found; a suite's gold (canonical bindings, "
            "authority truth, case labels) comes from it, so a public-only directory can be "
            "audited but cannot be built into a suite"
        )
    try:
        return load_agentic_benchmark(public_root=public_root, evaluator_root=evaluator_root)
    except (ValueError, OSError, KeyError) as exc:
        raise AssayError(
            f"{root}: not a loadable synthworld agentic benchmark: {type(exc).__name__}: {exc}"
        ) from exc


def _issue(issue: TraceValidationIssue) -> str:
    if issue.line is not None:
        where = f"line {issue.line}"
    elif issue.event_id is not None:
        where = f"event {issue.event_id}"
    else:
        where = "whole trace"
    return f"{where}: {issue.code}: {issue.message}"


def require_valid_trace(jsonl: str, expected_event_ids: Sequence[str], what: str) -> None:
    """Run synthworld's validator; any error is an AssayError naming line and code."""
    report = validate_trace_jsonl(jsonl, expected_event_ids=expected_event_ids)
    if not report.valid:
        errors = [_issue(i) for i in report.issues if i.severity == "error"]
        raise AssayError(f"{what} fails validate_trace_jsonl: {'; '.join(errors)}")


def _jsonl(rows: Sequence[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(dict(r), sort_keys=True) + "\n" for r in rows)


def null_row(event_id: str) -> Json:
    """A row that observed nothing: every field null but the event."""
    return ObservedActionTrace(event_id=event_id).model_dump(mode="json")


def call_args(row: Mapping[str, Any]) -> Json:
    return {f: row.get(f) for f in CALL_FIELDS}


# ---- the suite ---------------------------------------------------------------------------


def _without_marker(data: Mapping[str, Any]) -> Json:
    return {k: v for k, v in data.items() if k != "synthetic"}


def world_facts(public: AgenticPublicBundle) -> Json:
    snapshot = public.snapshot
    return {
        "world_id": snapshot.world_id,
        "world_version": snapshot.world_version,
        "world_seed": snapshot.seed,
        "public_digest": public_digest(public),
    }


def suite_items(benchmark: AgenticBenchmark) -> tuple[Item, ...]:
    public, evaluator = benchmark.public, benchmark.evaluator
    world = world_facts(public)
    bundle = public.model_dump(mode="json")
    events = {e.id: e for e in public.events}
    bindings = {b.action_event_id: b for b in evaluator.bindings}
    truths = {t.action_event_id: t for t in evaluator.authority_truth}
    cases = {c.action_event_id: c.kind for c in evaluator.cases}
    expected_rows = {
        r.event_id: r.model_dump(mode="json") for r in reference_agentic_trace(benchmark).rows
    }
    items = []
    for event_id in public.scenario.action_event_ids:
        event = events.get(event_id)
        if event is None or not isinstance(event.payload, ActionAttempted):
            raise AssayError(f"scenario action {event_id} is not an action event in public/")
        if event_id not in bindings or event_id not in truths or event_id not in cases:
            raise AssayError(f"evaluator/ has no binding, truth or case for action {event_id}")
        expected = expected_rows[event_id]
        truth = truths[event_id]
        items.append(
            Item(
                item_id=event_id,
                input={
                    "event_id": event_id,
                    "event": event.model_dump(mode="json"),
                    "world": world,
                    "public_digest": world["public_digest"],
                    "public_bundle": bundle,
                },
                gold=Gold(
                    path=(ToolCall(TOOL, call_args(expected)),),
                    outcome=truth.decision_at_action.value,
                    assertions=tuple(StateAssertion(f, expected[f]) for f in ASSERTED_FIELDS),
                    truth={
                        "case_kind": cases[event_id].value,
                        "temporal": cases[event_id] in _TEMPORAL_CASES,
                        "binding": _without_marker(bindings[event_id].model_dump(mode="json")),
                        "authority": _without_marker(truth.model_dump(mode="json")),
                        "expected_row": expected,
                    },
                ),
                tags=(f"action:{event.payload.attempt.action}",),
            )
        )
    return tuple(items)


# ---- public data and traces, cached per process ------------------------------------------


def _public_of(item: PublicItem) -> tuple[str, AgenticPublicBundle]:
    digest = str(item.input.get("public_digest", ""))
    if digest not in _PUBLIC:
        try:
            public = AgenticPublicBundle.model_validate(item.input["public_bundle"])
        except (ValueError, KeyError) as exc:
            raise AssayError(f"item {item.item_id}: public bundle does not load: {exc}") from exc
        if public_digest(public) != digest:
            raise AssayError(f"item {item.item_id}: public bundle does not match its digest")
        _PUBLIC[digest] = public
    return digest, _PUBLIC[digest]


def _evaluated(digest: str) -> AgenticBenchmark:
    """The oracle's evaluator for this public bundle: only the reference config calls this."""
    if digest in _BENCHMARKS:
        return _BENCHMARKS[digest]
    generated = generated_benchmark()
    if public_digest(generated.public) == digest:
        return generated
    raise AssayError(
        f"the reference config reads the evaluator, and none is known in this process for "
        f"public bundle {digest[:12]}: build the suite from its directory in this process"
    )


TRACE_AGENTS: Mapping[str, TraceAgent] = {
    "always_deny": lambda public, digest: always_deny_agentic_trace(public),
    "current_state": lambda public, digest: current_state_agentic_trace(public),
    "auditor": lambda public, digest: authority_auditor.audit_public_bundle(public),
    "reference": lambda public, digest: reference_agentic_trace(_evaluated(digest)),
}


def trace_rows(agent: str, item: PublicItem) -> dict[str, Json]:
    """The agent's whole-bundle trace, validated, as rows by event id (computed once)."""
    digest, public = _public_of(item)
    key = (agent, digest)
    if key not in _TRACES:
        if agent not in TRACE_AGENTS:
            raise AssayError(f"unknown synthworld agent {agent!r}")
        submission = TRACE_AGENTS[agent](public, digest)
        require_valid_trace(
            trace_submission_to_jsonl(submission),
            public.scenario.action_event_ids,
            f"the {agent} trace",
        )
        _TRACES[key] = {r.event_id: r.model_dump(mode="json") for r in submission.rows}
    return _TRACES[key]


def null_trace_verdict(item: PublicItem) -> Json:
    """What synthworld's validator says about an all-null trace for this bundle."""
    digest, public = _public_of(item)
    if digest not in _NULL_VERDICTS:
        ids = public.scenario.action_event_ids
        report = validate_trace_jsonl(_jsonl([null_row(i) for i in ids]), expected_event_ids=ids)
        _NULL_VERDICTS[digest] = {
            "valid": report.valid,
            "issues": [{"severity": i.severity, "code": i.code} for i in report.issues],
        }
    return _NULL_VERDICTS[digest]


# ---- the package's own report over stored rows -------------------------------------------


@dataclass(frozen=True)
class PackageMetric:
    name: str
    value: float | None
    support: int
    family: str | None


def evaluate_rows(
    source: Path | None, rows_by_event: Mapping[str, Mapping[str, Any] | None]
) -> dict[str, PackageMetric]:
    """Assemble a submission from stored rows, validate it, and run evaluate_agentic_trace."""
    benchmark = load_benchmark(source)
    ids = benchmark.public.scenario.action_event_ids
    rows = [dict(r) for i in ids if (r := rows_by_event.get(i)) is not None]
    jsonl = _jsonl(rows)
    require_valid_trace(jsonl, ids, "the trace assembled from stored trajectories")
    report = evaluate_agentic_trace(trace_submission_from_jsonl(jsonl), benchmark=benchmark)
    return {m.name: PackageMetric(m.name, m.value, m.support, m.family) for m in report.metrics}


# ---- the adapter -----------------------------------------------------------------------------


class SynthWorldAgenticAdapter:
    """Configs: always_deny, current_state (baselines), auditor, reference (positive control)."""

    name = "synthworld-agentic"
    facts = Facts(
        bands=BANDS / "synthworld.yaml",
        headline_metrics=HEADLINE,
        mutating_tools=(TOOL,),
        # the package compares identifiers exactly, and so must the harness: no normalisers
        affects_results=frozenset(
            {
                "adapter_version",
                "synthworld_version",
                "auditor_version",
                "world_id",
                "world_version",
                "world_seed",
                "public_digest",
            }
        ),
        # every config replays a frozen event stream; the oracle copies the answer key
        deterministic_configs=frozenset({"always_deny", "current_state", "auditor", "reference"}),
        scorers=tuple(synthworld_scorers()),
    )

    def __init__(self, version: str = "1.0.0") -> None:
        self.version = version
        self._public: AgenticPublicBundle | None = None

    # ---- suite and configs -------------------------------------------------------------
    def build_suite(self, source: Path | None = None) -> Suite:
        benchmark = load_benchmark(source)
        digest = public_digest(benchmark.public)
        _BENCHMARKS[digest] = benchmark
        _PUBLIC.setdefault(digest, benchmark.public)
        self._public = benchmark.public
        where = str(source) if source else "synthworld Asteria Agentic v1 (generated)"
        return Suite(adapter=self.name, items=suite_items(benchmark), source=where)

    def prepare(self, suite: PublicSuite) -> None:
        """Take the public bundle (pools, world facts) from the stored suite's items."""
        if suite.items:
            _, self._public = _public_of(suite.items[0])

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        public = {"reads": "public", "role": "system under test"}
        return {
            "always_deny": {"agent": "always_deny", **public, "role": "baseline"},
            "current_state": {"agent": "current_state", **public, "role": "baseline"},
            "auditor": {"agent": "auditor", **public},
            "reference": {
                "agent": "reference",
                "reads": "public and evaluator",
                "role": "positive control (the package's oracle reads the answer key)",
            },
        }

    # ---- running -------------------------------------------------------------------------
    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        started = perf_counter()
        agent = str(config.params["agent"])
        row = trace_rows(agent, item).get(item.item_id)
        if row is None:
            raise AssayError(f"the {agent} trace has no row for {item.item_id}")
        trajectory = self._replay(item, [ToolCall(TOOL, call_args(row))], repetition, started)
        return replace(trajectory, meta={"agent": agent})

    def replay(self, item: PublicItem, calls: Sequence[ToolCall], *, seed: int) -> Trajectory:
        """Each valid observe_action call records the event's row; the last one stands."""
        return self._replay(item, calls, 1, perf_counter())

    def _replay(
        self, item: PublicItem, calls: Sequence[ToolCall], repetition: int, started: float
    ) -> Trajectory:
        steps = [observe(item, call) for call in calls]
        recorded = [s.result for s in steps if s.ok]
        final: Json = recorded[-1] if recorded else null_row(item.item_id)
        return Trajectory(
            item_id=item.item_id,
            repetition=repetition,
            steps=tuple(steps),
            final_state=final,
            outcome=final.get("decision"),
            latency_ms=(perf_counter() - started) * 1000.0,
            cost=FREE,
        )

    def null_agents(self) -> Mapping[str, NullAgent]:
        def all_null(item: PublicItem, config: Config) -> Trajectory:
            return self._null(item, "all_null", null_row(item.item_id))

        def always_deny(item: PublicItem, config: Config) -> Trajectory:
            return self._null(item, "always_deny", trace_rows("always_deny", item)[item.item_id])

        return {"all_null": all_null, "always_deny": always_deny}

    def _null(self, item: PublicItem, name: str, row: Json) -> Trajectory:
        meta: Json = {"null_agent": name}
        if name == "all_null":
            meta["validator_on_whole_trace"] = null_trace_verdict(item)
        return Trajectory(
            item_id=item.item_id,
            repetition=1,
            final_state=row,
            outcome=row.get("decision"),
            cost=FREE,
            meta=meta,
        )

    # ---- replay and the facts it needs ---------------------------------------------------
    def baseline_snapshot(self) -> dict[str, Any]:
        """Nothing observed yet: the row shape with every field, and the event, null."""
        return {**null_row("-"), "event_id": None}

    def environment(self, config: Config) -> Mapping[str, Any]:
        agent = str(config.params["agent"])
        env: Json = {
            "system": "idcognito-synthworld agentic",
            "synthworld_version": distribution_version("idcognito-synthworld"),
            "agent": agent,
            "agent_reads": config.params["reads"],
            "role": config.params["role"],
            "positive_control": agent == "reference",
            **world_facts(self._bundle()),
        }
        if agent == "auditor":
            env["auditor_version"] = authority_auditor.__version__
        return env

    def tool_catalogue(self) -> Mapping[str, Mapping[str, Any]]:
        schema = ObservedActionTrace.model_json_schema()
        return {
            TOOL: {
                "type": "object",
                "properties": {f: schema["properties"][f] for f in CALL_FIELDS},
                "required": list(CALL_FIELDS),
                "additionalProperties": False,
                "$defs": schema.get("$defs", {}),
            }
        }

    def argument_pools(self) -> Mapping[str, Sequence[Any]]:
        """Every argument draws from public values only: public ids, public claims, both
        decisions; never from the evaluator."""
        return public_pools(self._bundle())

    def _bundle(self) -> AgenticPublicBundle:
        return self._public if self._public is not None else generated_benchmark().public


def observe(item: PublicItem, call: ToolCall) -> Step:
    """One observe_action call: valid (by synthworld's validator) or a failed step."""
    if call.tool != TOOL:
        return Step(call, ok=False, error=f"unknown tool {call.tool!r}; the only tool is {TOOL}")
    claimed = call.args.get("event_id", item.item_id)
    if claimed != item.item_id:
        return Step(call, ok=False, error=f"event_id {claimed!r} is not this item's event")
    try:
        line = json.dumps({**call.args, "event_id": item.item_id}, sort_keys=True)
    except (TypeError, ValueError) as exc:
        return Step(call, ok=False, error=f"arguments are not JSON: {exc}")
    report = validate_trace_jsonl(line, expected_event_ids=(item.item_id,))
    errors = [f"{i.code}: {i.message}" for i in report.issues if i.severity == "error"]
    if errors:
        return Step(call, ok=False, error="; ".join(errors))
    row = ObservedActionTrace.model_validate_json(line).model_dump(mode="json")
    return Step(call, ok=True, result=row)


def public_pools(public: AgenticPublicBundle) -> dict[str, list[Any]]:
    snapshot = public.snapshot
    principals = sorted(p.id for p in snapshot.principals)
    owners = {p.id: p.owner_principal_id for p in snapshot.principals}
    attempts = [
        (e, e.payload.attempt) for e in public.events if isinstance(e.payload, ActionAttempted)
    ]
    delegations = {
        e.payload.delegation.id: e.payload.delegation
        for e in public.events
        if isinstance(e.payload, DelegationGranted)
    }

    def chain(delegation_id: str) -> list[str]:
        parent = delegations[delegation_id].parent_delegation_id
        return [*(chain(parent) if parent in delegations else []), delegation_id]

    def owned_by(principal: str | None) -> list[str]:
        return [principal, *owned_by(owners.get(principal))] if principal else []

    def distinct(values: Sequence[list[str]]) -> list[list[str]]:
        return [list(v) for v in sorted({tuple(v) for v in values})]

    return {
        "timestamp": [e.model_dump(mode="json")["occurred_at"] for e, _ in attempts],
        "originating_principal_id": principals,
        "logical_agent_id": sorted(a.id for a in snapshot.agents),
        "runtime_principal_id": principals,
        "credential_subject_id": principals,
        "attributed_actor_id": principals,
        "resource_id": sorted(r.id for r in snapshot.resources),
        "action": sorted({a.action for _, a in attempts}),
        "requested_scope": distinct([list(a.requested_scope) for _, a in attempts]),
        "decision": ["allow", "deny"],
        "decision_at_audit": ["allow", "deny"],
        "side_effect": list(SIDE_EFFECT_NAMES),
        "policy_version": sorted({p.version for p in snapshot.policies}),
        "delegation_chain_ids": [[], *distinct([chain(d) for d in delegations])],
        "accountable_owner_chain": distinct([owned_by(p) for p in principals]),
        "evidence_refs": distinct([list(a.evidence_refs) for _, a in attempts]),
        "reconstructable_from_retained_evidence": [True, False],
    }
