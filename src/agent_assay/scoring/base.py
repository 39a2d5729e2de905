"""The Scorer protocol and the context a scorer may read.

A scorer is a pure function of (gold, trajectory, context): the same inputs
always give the same value, which is what makes re-scoring a stored run and
the shuffled-gold control meaningful. The context carries the adapter's facts
about its system (which tools mutate, how arguments normalise, what the world
looked like before the agent acted) so scorers stay domain-free.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from agent_assay.hashing import canonical_json
from agent_assay.model import Gold, ToolCall, Trajectory

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

ScoreKind = Literal["binary", "fraction", "count", "measure"]
"""binary: 0 or 1. fraction: 0..1, 1 best. count: 0 best. measure: reported, never passed."""


@dataclass(frozen=True, slots=True)
class ScoreValue:
    """A scorer's verdict: a value, or None where the metric does not apply to this item."""

    value: float | None
    detail: Mapping[str, Any] | None = None
    imported: bool = False
    """True when the value was carried in from elsewhere (a published result), not computed."""


CallKey = tuple[str, tuple[tuple[str, str, Any], ...]]
"""A tool name and its normalised, typed arguments: equal keys mean equal calls."""

NORMALISERS: Mapping[str, Callable[[str], str]] = {
    "strip": str.strip,
    "lower": str.lower,
    "upper": str.upper,
    "casefold": str.casefold,
    "collapse_ws": lambda s: " ".join(s.split()),
    "digits_only": lambda s: "".join(ch for ch in s if ch.isdigit()),
}
"""Generic string normalisations an adapter may ask for, argument by argument."""


@dataclass(frozen=True, slots=True)
class ScoringContext:
    """Facts about the system under test that a generic scorer must not assume."""

    arg_normalisers: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    mutating_tools: frozenset[str] = frozenset()
    order_anchors: Mapping[str, str] = field(default_factory=dict)
    """mutating tool (or "*" for every mutating tool) -> the tool that must succeed first."""

    def anchor_of(self, tool: str) -> str | None:
        return self.order_anchors.get(tool, self.order_anchors.get("*"))
    baseline_state: Mapping[str, Any] | None = None
    _memo: dict[Any, tuple[Any, Any]] | None = field(
        default=None, init=False, repr=False, compare=False)
    """While `score_all` applies a scorer set (`memoised`): each call's key by the call's
    id, and the trajectory's `CallList` by `(id,)`, the object held beside what was found
    (so the id stays its). Several scorers normalise the same calls of one trajectory, and
    list them; both are done once."""
    _golds: dict[int, tuple[Gold, CallList]] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    """Each gold's `CallList`, kept from one trajectory to the next (a run scores every
    repetition of an item against one gold, which the scorers read and never change), the
    gold held beside it; at most `GOLDS_KEPT`, then begun afresh."""

    @contextmanager
    def memoised(self) -> Iterator[None]:
        """Normalise each call once inside the block (the calls of one trajectory and its
        gold, which the scorers read and never change); nothing of the trajectory's is kept
        after it."""
        if self._memo is not None:  # already inside one
            yield
            return
        object.__setattr__(self, "_memo", {})
        try:
            yield
        finally:
            object.__setattr__(self, "_memo", None)

    def normalise(self, call: ToolCall) -> CallKey:
        """A hashable, normalised form of a call for comparing calls.

        Scalars keep their type beside their value, so True never equals 1 and
        1 never equals 1.0 (as in their JSON forms); anything nested is compared
        by its canonical JSON.
        """
        memo = self._memo
        if memo is None:
            return self._normalised(call)
        hit = memo.get(id(call))
        if hit is not None and hit[0] is call:
            key: CallKey = hit[1]
            return key
        key = self._normalised(call)
        memo[id(call)] = (call, key)
        return key

    def calls_of(self, owner: Gold | Trajectory) -> tuple[ToolCall, ...]:
        """`owner.calls` (a gold's or a trajectory's proposed calls), listed once per
        scorer set while `memoised`."""
        return self.view(owner).calls

    def view(self, owner: Gold | Trajectory) -> CallList:
        """`owner`'s calls as the tool scorers read them (`CallList`): made once per scorer
        set for a trajectory while `memoised`, once for a gold."""
        if type(owner) is Gold:
            kept = self._golds.get(id(owner))
            if kept is not None and kept[0] is owner:
                return kept[1]
            if len(self._golds) >= GOLDS_KEPT:
                self._golds.clear()
            made = CallList(owner.calls, self.normalise)
            self._golds[id(owner)] = (owner, made)
            return made
        memo = self._memo
        if memo is None:
            return CallList(owner.calls, self.normalise)
        hit = memo.get((id(owner),))
        if hit is not None and hit[0] is owner:
            found: CallList = hit[1]
            return found
        made = CallList(owner.calls, self.normalise)
        memo[(id(owner),)] = (owner, made)
        return made

    def _normalised(self, call: ToolCall) -> CallKey:
        rules = self.arg_normalisers.get(call.tool, {})
        parts: list[tuple[str, str, Any]] = []
        for name in sorted(call.args):
            value = call.args[name]
            if isinstance(value, str):
                for op in rules.get(name, ()):
                    value = NORMALISERS[op](value)
            if value is None or isinstance(value, str | int | float):
                parts.append((name, type(value).__name__, value))
            else:
                parts.append((name, "json", canonical_json(value)))
        return call.tool, tuple(parts)


GOLDS_KEPT = 4096
"""The golds whose `CallList` a scoring context keeps at once."""


class CallList:
    """The calls of a gold or a trajectory, their tool names, and each call's normalised
    key (`ScoringContext.normalise`), made the first time a scorer asks for it: what
    several scorers would otherwise each make again."""

    __slots__ = ("_keys", "_normalise", "calls", "tools")

    def __init__(self, calls: tuple[ToolCall, ...],
                 normalise: Callable[[ToolCall], CallKey]) -> None:
        self.calls = calls
        self.tools = [call.tool for call in calls]
        self._keys: list[CallKey | None] = [None] * len(calls)
        self._normalise = normalise

    def key(self, index: int) -> CallKey:
        """The normalised key of call `index`."""
        key = self._keys[index]
        if key is None:
            key = self._keys[index] = self._normalise(self.calls[index])
        return key


@runtime_checkable
class Scorer(Protocol):
    """name, version and a one-line definition identify what a number means."""

    name: str
    version: str
    definition: str
    kind: ScoreKind

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue: ...


# ---- optional scorer members: every one the harness looks for is declared here -------------
@runtime_checkable
class PlantsDefects(Protocol):
    """A scorer that knows how to break a well-scored trajectory for itself: the self-test
    uses it instead of the generic planter for the scorer's name (None: cannot plant)."""

    def plant_defect(
        self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext
    ) -> Trajectory | None: ...


@runtime_checkable
class ProbesWhereNotApplicable(Protocol):
    """A trajectory-scoped scorer that the self-test may probe on items where the oracle's
    value is n/a (precision over what an agent allowed, say)."""

    selftest_probe_na: bool


@runtime_checkable
class BoundToGold(Protocol):
    """A scorer whose value exists only under the gold its trajectory was produced for (an
    environment's own reward, bound by a digest of its task): shuffled_gold reports it as
    bound where it is n/a under deranged gold, instead of failing it for not dropping."""

    bound_to_gold: bool


@runtime_checkable
class Judge(Protocol):
    """A model-based scorer: judge_calibration must calibrate it before it may score."""

    judge: bool


def is_judge(scorer: Scorer) -> bool:
    return isinstance(scorer, Judge) and bool(scorer.judge)


@runtime_checkable
class Refines(Protocol):
    """A system scorer that claims to be a sharper version of a generic metric (say a
    domain reward that refines outcome.match). shuffled_gold and null_agent report it
    when the two disagree on a run that is wrong by construction."""

    refines: str


def refined_metric(scorer: Scorer) -> str | None:
    return scorer.refines if isinstance(scorer, Refines) and scorer.refines else None


def probes_where_not_applicable(scorer: Scorer) -> bool:
    return isinstance(scorer, ProbesWhereNotApplicable) and bool(scorer.selftest_probe_na)


def is_bound_to_gold(scorer: Scorer) -> bool:
    return isinstance(scorer, BoundToGold) and bool(scorer.bound_to_gold)


def passes(kind: ScoreKind, value: float | None) -> bool | None:
    """Whether a value counts as a pass for pass^k / pass@k; None where that makes no sense."""
    if value is None or kind == "measure":
        return None
    if kind == "count":
        return value == 0
    return value >= 1.0


def passes_each(kind: ScoreKind, values: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """`passes`, beside it so the rule lives in one place, for an array of known values of a
    kind that has passes (not a measure)."""
    result: npt.NDArray[np.bool_] = values == 0 if kind == "count" else values >= 1.0
    return result
