"""The control protocol, its outcome, and the context every control receives.

A control never decides by itself what counts as good enough: its band comes
from expected.yaml, with the derivation written beside it, and the outcome
stores the band it was judged against so a reader can re-judge it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agent_assay.adapters.loaded import NO_REPLAY, LoadedSystem
from agent_assay.hosting.replays import EnvironmentReplays
from agent_assay.model import Config, Item, Run, Suite, Trajectory
from agent_assay.scoring.base import ScoreKind, Scorer, ScoringContext, refined_metric
from agent_assay.store import RunTrajectories, Store

Status = Literal["PASSED", "FAILED", "NOT_RUN", "ERROR"]


@dataclass(frozen=True)
class ControlOutcome:
    """What a control measured, the band it was judged against, and the verdict."""

    kind: str
    version: str
    status: Status
    summary: str
    measured: Mapping[str, Any] = field(default_factory=dict)
    band: Mapping[str, Any] = field(default_factory=dict)
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "version": self.version,
            "status": self.status,
            "summary": self.summary,
            "measured": dict(self.measured),
            "band": dict(self.band),
            "reason": self.reason,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ControlOutcome:
        return ControlOutcome(
            kind=data["kind"],
            version=data["version"],
            status=data["status"],
            summary=data["summary"],
            measured=data.get("measured", {}),
            band=data.get("band", {}),
            reason=data.get("reason", ""),
        )


@dataclass
class ControlContext:
    """Everything a control may use: the certified run, its items, scorers and bands."""

    store: Store
    adapter: LoadedSystem
    run: Run
    suite: Suite
    config: Config
    items: Sequence[Item]
    trajectories: RunTrajectories
    """The certified run's trajectories, read from the store as they are walked."""
    scorers: Sequence[Scorer]
    scoring: ScoringContext
    headline: Sequence[str]
    real_means: Mapping[str, float | None]
    seed: int
    random_seeds: int = 10
    workers: int = 1
    """Processes a control that executes the agent again (identical_config) may use."""
    replays: EnvironmentReplays | None = None
    """Where the environment is executed for the controls (gold, random and mutated paths,
    do-nothing agents): an agent process, never this one. Made on first use."""
    oracles: dict[str, Trajectory] = field(default_factory=dict)
    """Gold's replay of each item, by item id, once replayed (`oracle.oracle_trajectories`):
    the self-test, the state checks and the positive control read the same replays."""

    def environment(self) -> EnvironmentReplays:
        if self.replays is None:
            self.replays = EnvironmentReplays(self.adapter, self.suite.public())
        return self.replays

    def kind_of(self, metric: str) -> ScoreKind:
        for scorer in self.scorers:
            if scorer.name == metric:
                return scorer.kind
        raise KeyError(metric)

    def gold_of(self) -> dict[str, Item]:
        return {item.item_id: item for item in self.items}

    def headline_scorers(self) -> list[Scorer]:
        """The scorers whose metrics a control judged on the headline reads: each headline
        metric's, and the generic one each headline refinement refines (see
        `refinements`). Scorers are pure and independent of each other, so a control that
        reports no other metric scores only these (the rest would be thrown away)."""
        wanted = set(self.headline)
        wanted |= {g for s in self.scorers if s.name in wanted and (g := refined_metric(s))}
        return [s for s in self.scorers if s.name in wanted]


Requirement = Literal["replay", "replay or recording", "null agents"]
"""The capability a control cannot run without (see adapters.system)."""


class Control(Protocol):
    kind: str
    version: str
    requires: Requirement | None

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome: ...


def missing_capability(system: LoadedSystem, requires: Requirement | None) -> str | None:
    """Why `system` cannot give a control what it `requires`; None when it can."""
    if requires is None:
        return None
    replay = system.replay_view() is not None
    if requires == "replay" and not replay:
        return NO_REPLAY
    if requires == "replay or recording" and not replay and system.recorder is None:
        return "adapter declares neither a replay nor a recording-without-executing capability"
    if requires == "null agents" and not system.null_agents():
        return "adapter declares no null agents and no replay capability to derive one"
    return None


def outcome(
    control: Control,
    passed: bool,
    summary: str,
    measured: Mapping[str, Any],
    band: Mapping[str, Any],
    reason: str = "",
) -> ControlOutcome:
    """Build a PASSED/FAILED outcome from a boolean verdict."""
    return ControlOutcome(
        kind=control.kind,
        version=control.version,
        status="PASSED" if passed else "FAILED",
        summary=summary,
        measured=measured,
        band={k: v for k, v in band.items() if k != "derivation"},
        reason=reason,
    )
