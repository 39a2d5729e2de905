"""The harness's domain-free vocabulary: items, gold, trajectories, suites, configs, runs.

Everything here is a frozen dataclass with a JSON round trip, because the
store, the hashes and the controls all work on the JSON form. Nothing in this
module knows what a bank, a tool or a world is; adapters fill these shapes.

Gold never reaches an agent *by type*: `PublicItem` has no gold attribute and
uses ``__slots__``, so an adapter handed one cannot find gold on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_assay import hashing

JSON = Any

USER_TURN = "__user_turn__"
"""The reserved tool name of a turn boundary in a multi-turn path: the user speaks again.
In a gold path it marks where one turn ends and the next begins (mutants move it like any
call); in a trajectory it is a step whose result is the user's next message. `calls` and
`Gold.calls` leave it out, so scorers that know nothing of turns see only tool calls;
`turns_of` splits on it."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool the agent proposed, with its arguments."""

    tool: str
    args: Mapping[str, JSON] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSON]:
        return {"tool": self.tool, "args": dict(self.args)}

    @staticmethod
    def from_json(data: Mapping[str, JSON]) -> ToolCall:
        return ToolCall(tool=str(data["tool"]), args=dict(data.get("args") or {}))


@dataclass(frozen=True, slots=True)
class Step:
    """One proposal and what the environment did with it."""

    call: ToolCall
    ok: bool
    result: JSON = None
    error: str | None = None

    def to_json(self) -> dict[str, JSON]:
        return {
            "call": self.call.to_json(),
            "ok": self.ok,
            "result": self.result,
            "error": self.error,
        }

    @staticmethod
    def from_json(data: Mapping[str, JSON]) -> Step:
        return Step(
            call=ToolCall.from_json(data["call"]),
            ok=bool(data["ok"]),
            result=data.get("result"),
            error=data.get("error"),
        )


@dataclass(frozen=True, slots=True)
class StateAssertion:
    """A claim about the final world: the value at a dot path must equal `equals`."""

    path: str
    equals: JSON

    def to_json(self) -> dict[str, JSON]:
        return {"path": self.path, "equals": self.equals}


@dataclass(frozen=True, slots=True)
class Gold:
    """What a correct agent does: its tool path, the outcome, and the world it leaves.

    `truth` carries adapter-specific evaluator facts (for example a fixture's
    expected decision) that the generic scorers ignore and adapter scorers read.
    """

    path: tuple[ToolCall, ...] = ()
    outcome: str | None = None
    assertions: tuple[StateAssertion, ...] = ()
    truth: Mapping[str, JSON] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSON]:
        return {
            "path": [c.to_json() for c in self.path],
            "outcome": self.outcome,
            "assertions": [a.to_json() for a in self.assertions],
            "truth": dict(self.truth),
        }

    @staticmethod
    def from_json(data: Mapping[str, JSON]) -> Gold:
        return Gold(
            path=tuple(ToolCall.from_json(c) for c in data.get("path", [])),
            outcome=data.get("outcome"),
            assertions=tuple(
                StateAssertion(path=str(a["path"]), equals=a["equals"])
                for a in data.get("assertions", [])
            ),
            truth=dict(data.get("truth") or {}),
        )

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The path's tool calls, turn boundaries left out."""
        return tuple(c for c in self.path if c.tool != USER_TURN)


def is_turn_boundary(step: Step) -> bool:
    """A boundary the environment granted (an agent's own call of that name fails)."""
    return step.call.tool == USER_TURN and step.ok


def turns_of(steps: Sequence[Step]) -> list[list[Step]]:
    """`steps` split at each granted turn boundary: one list per user turn reached."""
    turns: list[list[Step]] = [[]]
    for step in steps:
        if is_turn_boundary(step):
            turns.append([])
        else:
            turns[-1].append(step)
    return turns


@dataclass(frozen=True, slots=True)
class PublicItem:
    """What an agent may see of an item. There is deliberately no gold here."""

    item_id: str
    input: Mapping[str, JSON]
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Item:
    """One golden case: public input, gold, tags."""

    item_id: str
    input: Mapping[str, JSON]
    gold: Gold
    tags: tuple[str, ...] = ()

    def public(self) -> PublicItem:
        return PublicItem(item_id=self.item_id, input=self.input, tags=self.tags)

    def to_json(self) -> dict[str, JSON]:
        return {
            "item_id": self.item_id,
            "input": dict(self.input),
            "gold": self.gold.to_json(),
            "tags": list(self.tags),
        }

    @staticmethod
    def from_json(data: Mapping[str, JSON]) -> Item:
        return Item(
            item_id=str(data["item_id"]),
            input=dict(data["input"]),
            gold=Gold.from_json(data["gold"]),
            tags=tuple(data.get("tags", [])),
        )

    @property
    def content_hash(self) -> str:
        return hashing.content_hash(hashing.ITEM, self.to_json())


@dataclass(frozen=True, slots=True)
class Suite:
    """The hashed, ordered set of items one adapter built from one source."""

    adapter: str
    items: tuple[Item, ...]
    source: str = ""

    @property
    def suite_hash(self) -> str:
        """Hash over the adapter name and every item's hash in id order.

        The source path is not hashed: the same golden set read from two
        checkouts is the same suite.
        """
        ordered = sorted(self.items, key=lambda i: i.item_id)
        return hashing.content_hash(
            hashing.SUITE,
            {"adapter": self.adapter, "items": [i.content_hash for i in ordered]},
        )

    def by_id(self) -> dict[str, Item]:
        return {i.item_id: i for i in self.items}

    def public(self) -> PublicSuite:
        """The suite as the agent side may see it: every item without its gold."""
        return PublicSuite(
            adapter=self.adapter,
            suite_hash=self.suite_hash,
            items=tuple(i.public() for i in self.items),
            source=self.source,
        )


@dataclass(frozen=True, slots=True)
class PublicSuite:
    """What a system's run side receives of a suite (`prepare`, workers, twins): its hash
    and its public items. There is no gold anywhere in it, by type."""

    adapter: str
    suite_hash: str
    items: tuple[PublicItem, ...]
    source: str = ""


@dataclass(frozen=True, slots=True)
class Config:
    """A named, hashed agent configuration; the hash covers every parameter."""

    adapter: str
    name: str
    params: Mapping[str, JSON]

    def to_json(self) -> dict[str, JSON]:
        return {"adapter": self.adapter, "name": self.name, "params": dict(self.params)}

    @property
    def config_hash(self) -> str:
        return hashing.content_hash(hashing.CONFIG, self.to_json())


@dataclass(frozen=True, slots=True)
class Cost:
    """Money spent on one trajectory. A free agent records 0.0 with its reason."""

    usd: float
    reason: str


CrashCause = Literal["agent", "harness"]
"""Whose failure a crash is: the agent's (it raised, broke the adapter contract, answered
something that is not a trajectory), which is a measured failure; or the harness's (the
agent could not be reached, the environment failed to reset or to execute), which is no
measurement at all."""
AGENT_CRASH: CrashCause = "agent"
HARNESS_CRASH: CrashCause = "harness"
CRASH_CAUSE = "crash_cause"
"""The meta key a crashed trajectory records its cause under. Meta is part of the stored
payload, so the row's digest and the evidence chain cover the cause like any other field."""


UNREACHABLE = "agent_unreachable"
"""The meta key that marks a crash whose agent could not be reached (recorded before
causes were, and still beside the cause)."""


def crash_cause_in(meta: Mapping[str, JSON]) -> CrashCause:
    """The cause a crashed trajectory's meta records. One written before causes were
    recorded is the harness's only if it was marked as unreachable (a failed measurement
    then too); any other, and one recording something unknown, is the agent's: only a
    crash known to be the harness's may leave the denominator."""
    if CRASH_CAUSE in meta:
        return HARNESS_CRASH if meta[CRASH_CAUSE] == HARNESS_CRASH else AGENT_CRASH
    return HARNESS_CRASH if meta.get(UNREACHABLE) is True else AGENT_CRASH


@dataclass(frozen=True, slots=True)
class Trajectory:
    """What the agent proposed, what the environment did, and where the world ended."""

    item_id: str
    repetition: int
    steps: tuple[Step, ...] = ()
    final_state: Mapping[str, JSON] | None = None
    outcome: str | None = None
    latency_ms: float = 0.0
    cost: Cost = field(default_factory=lambda: Cost(0.0, "not reported by the adapter"))
    crashed: bool = False
    error: str | None = None
    meta: Mapping[str, JSON] = field(default_factory=dict)

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The proposed tool calls, granted turn boundaries left out."""
        return tuple(s.call for s in self.steps if not is_turn_boundary(s))

    @property
    def path(self) -> tuple[ToolCall, ...]:
        """The proposals with the turn boundaries granted: what a replay of this trajectory
        takes, so a replayed or mutated path splits into the same turns."""
        return tuple(s.call for s in self.steps if s.call.tool != USER_TURN or s.ok)

    @property
    def crash_cause(self) -> CrashCause | None:
        """Whose failure the crash is (see `crash_cause_in`); None when it did not crash."""
        return crash_cause_in(self.meta) if self.crashed else None

    def path_key(self) -> str:
        """Canonical JSON of the proposals: equal strings mean byte-identical paths."""
        return hashing.canonical_json([s.call.to_json() for s in self.steps])

    def path_digest(self) -> str:
        """The digest of `path_key`: what a trajectory's ledger block records of its path."""
        return hashing.content_hash(hashing.PATH, [s.call.to_json() for s in self.steps])

    def to_json(self) -> dict[str, JSON]:
        return {
            "item_id": self.item_id,
            "repetition": self.repetition,
            "steps": [s.to_json() for s in self.steps],
            "final_state": None if self.final_state is None else dict(self.final_state),
            "outcome": self.outcome,
            "latency_ms": self.latency_ms,
            "cost": {"usd": self.cost.usd, "reason": self.cost.reason},
            "crashed": self.crashed,
            "error": self.error,
            "meta": dict(self.meta),
        }

    @staticmethod
    def from_json(data: Mapping[str, JSON]) -> Trajectory:
        if "final_state_delta" in data:  # the store rebuilds it first (store.encoding.state_blobs)
            raise ValueError("a stored final-state delta must be expanded before decoding")
        cost = data.get("cost") or {"usd": 0.0, "reason": "not reported by the adapter"}
        return Trajectory(
            item_id=str(data["item_id"]),
            repetition=int(data["repetition"]),
            steps=tuple(Step.from_json(s) for s in data.get("steps", [])),
            final_state=data.get("final_state"),
            outcome=data.get("outcome"),
            latency_ms=float(data.get("latency_ms", 0.0)),
            cost=Cost(float(cost["usd"]), str(cost["reason"])),
            crashed=bool(data.get("crashed", False)),
            error=data.get("error"),
            meta=dict(data.get("meta") or {}),
        )


@dataclass(frozen=True, slots=True)
class Run:
    """A stored run: which suite, which config, how many repetitions, which items."""

    run_id: str
    adapter: str
    suite_hash: str
    config_hash: str
    config_name: str
    repeats: int
    seed: int
    item_ids: tuple[str, ...]
    created_at: str
    env: Mapping[str, JSON] = field(default_factory=dict)
    affects_results: frozenset[str] = frozenset()


def calls_from(pairs: Sequence[tuple[str, Mapping[str, JSON]]]) -> tuple[ToolCall, ...]:
    """Build ToolCalls from (tool, args) pairs."""
    return tuple(ToolCall(tool=t, args=dict(a)) for t, a in pairs)
