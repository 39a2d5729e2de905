"""The Scorer protocol and the context a scorer may read.

A scorer is a pure function of (gold, trajectory, context): the same inputs
always give the same value, which is what makes re-scoring a stored run and
the shuffled-gold control meaningful. The context carries the adapter's facts
about its system (which tools mutate, how arguments normalise, what the world
looked like before the agent acted) so scorers stay domain-free.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from agent_assay.hashing import canonical_json
from agent_assay.model import Gold, ToolCall, Trajectory

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

ScoreKind = Literal["binary", "fraction", "count", "measure"]
"""binary: 0 or 1. fraction: 0..1, 1 best. count: 0 best. measure: reported, never passed."""


@dataclass(frozen=True, slots=True, init=False)
class ScoreValue:
    """A scorer's verdict: a value, or None where the metric does not apply to this item."""

    value: float | None
    detail: Mapping[str, Any] | None = None
    imported: bool = False
    """True when the value was carried in from elsewhere (a published result), not computed."""

    def __init__(self, value: float | None, detail: Mapping[str, Any] | None = None,
                 imported: bool = False) -> None:
        """The generated one, through the slots' own setters instead of `object.__setattr__`
        (half the cost: every scorer makes one per trajectory)."""
        _set_value(self, value)
        _set_detail(self, detail)
        _set_imported(self, imported)


_set_value = ScoreValue.__dict__["value"].__set__
_set_detail = ScoreValue.__dict__["detail"].__set__
_set_imported = ScoreValue.__dict__["imported"].__set__


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
    _kept: _Kept = field(default_factory=lambda: _Kept(), init=False, repr=False,
                         compare=False)
    """What is kept between the scorers' calls: see `memoised` and `view`."""

    def memoised(self) -> AbstractContextManager[None]:
        """Normalise each call once inside the block (the calls of one trajectory and its
        gold, which the scorers read and never change); nothing of the trajectory's is kept
        after it. A plain context manager, not a generator: it runs for every trajectory."""
        return _Memoised(self._kept)

    def normalise(self, call: ToolCall) -> CallKey:
        """A hashable, normalised form of a call for comparing calls.

        Scalars keep their type beside their value, so True never equals 1 and
        1 never equals 1.0 (as in their JSON forms); anything nested is compared
        by its canonical JSON.
        """
        memo = self._kept.memo
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
        set for a trajectory while `memoised`, once for a gold. The last of each is found
        first (the scorers of a set ask for the same two, one after another)."""
        kept = self._kept
        if owner is kept.trajectory:
            return kept.trajectory_view  # type: ignore[return-value]  # set together
        if owner is kept.gold:
            return kept.gold_view  # type: ignore[return-value]
        if type(owner) is Gold:
            found = kept.golds.get(id(owner))
            if found is None or found[0] is not owner:
                if len(kept.golds) >= GOLDS_KEPT:
                    kept.golds.clear()
                found = kept.golds[id(owner)] = (owner, CallList(owner.calls, self.normalise))
            kept.gold, kept.gold_view = found
            return found[1]
        memo = kept.memo
        if memo is None:
            return CallList(owner.calls, self.normalise)
        hit = memo.get((id(owner),))
        if hit is None or hit[0] is not owner:
            hit = memo[(id(owner),)] = (owner, CallList(owner.calls, self.normalise))
        kept.trajectory, kept.trajectory_view = hit
        made: CallList = hit[1]
        return made

    def _normalised(self, call: ToolCall) -> CallKey:
        rules = self.arg_normalisers.get(call.tool)
        args = call.args
        parts: list[tuple[str, str, Any]] = []
        for name in sorted(args):
            value = args[name]
            if rules and isinstance(value, str):
                for op in rules.get(name, ()):
                    value = NORMALISERS[op](value)
            kind = _SCALAR_TYPES.get(type(value))  # the common types without isinstance
            if kind is not None:
                parts.append((name, kind, value))
            elif isinstance(value, str | int | float):
                parts.append((name, type(value).__name__, value))
            else:
                parts.append((name, "json", canonical_json(value)))
        return call.tool, tuple(parts)


_SCALAR_TYPES: Mapping[type, str] = {
    t: t.__name__ for t in (str, int, float, bool, type(None))}
"""The scalar types a call's key holds by value, by their names (as `type(v).__name__`)."""


GOLDS_KEPT = 4096
"""The golds whose `CallList` a scoring context keeps at once."""


class _Kept:
    """What a `ScoringContext` keeps between its scorers' calls: while `memoised`, each
    call's key by the call's id and each trajectory's `CallList` by `(id,)`, each held
    beside the object it was made from (so the id stays its), and the last trajectory's
    `CallList`; each gold's `CallList`, from one trajectory to the next (a run scores every
    repetition of an item against one gold, which the scorers read and never change), at
    most `GOLDS_KEPT` then begun afresh, and the last gold's."""

    __slots__ = ("gold", "gold_view", "golds", "memo", "trajectory", "trajectory_view")

    def __init__(self) -> None:
        self.memo: dict[Any, tuple[Any, Any]] | None = None
        self.trajectory: object = None
        self.trajectory_view: CallList | None = None
        self.gold: Gold | None = None
        self.gold_view: CallList | None = None
        self.golds: dict[int, tuple[Gold, CallList]] = {}


class _Memoised:
    """`ScoringContext.memoised`: the outermost block begins the memo and ends it."""

    __slots__ = ("kept", "outer")

    def __init__(self, kept: _Kept) -> None:
        self.kept, self.outer = kept, False

    def __enter__(self) -> None:
        kept = self.kept
        self.outer = kept.memo is not None
        if not self.outer:
            kept.memo = {}

    def __exit__(self, *exc: object) -> None:
        if not self.outer:
            kept = self.kept
            kept.memo = kept.trajectory = kept.trajectory_view = None


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

    def all_keys(self) -> list[CallKey]:
        """Every call's normalised key, in order (the list is the one kept: read it only)."""
        keys = self._keys
        for index, key in enumerate(keys):
            if key is None:
                keys[index] = self._normalise(self.calls[index])
        return keys  # type: ignore[return-value]  # every one made above



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
