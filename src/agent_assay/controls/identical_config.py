"""identical_config: separate executions of one config must store what the certified run did.

Each twin is the certified run made again, stored like any other run (its environment
names the run it certifies): the same items, every repetition, the same seeds, in agent
processes started the one way every agent process is (`hosting.pool`), each drawing its
own hash seed, and the slots in an order of its own. Nothing an agent can see
tells a twin from the run, nothing it cached during the run is there, and no hash order
or item order is shared with it. That holds whichever executor made the certified run: a
twin always runs in agent processes of this host (as many as `--workers`), never on a
long-lived Dask worker. Each twin is compared with the certified run and with the other
twin on every stored value of every repetition (each trajectory's fields and each score)
except the fields the system declares nondeterministic. Those may only be fields that
decide no headline metric, and that is checked on the certified run's own trajectories.

A config the system claims deterministic claims more: its repetitions are identical. So
for it the certified run's own repetitions are compared with each other as well, and an
agent that answers differently the second time it meets an item (or by repetition
number) fails here even when its twins reproduce it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent_assay.adapters.system import NONDETERMINISTIC_TRAJECTORY_FIELDS
from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.controls.shared_states import SharedStates
from agent_assay.executors.processes import Processes
from agent_assay.model import Cost, Trajectory
from agent_assay.runner import execute_run, start_run
from agent_assay.statepaths import flatten

MAX_LISTED = 20
TWINS = 2
# what blanking a declared-nondeterministic trajectory field leaves in its place
BLANK: Mapping[str, Any] = {"latency_ms": 0.0, "cost": Cost(0.0, "blanked"), "meta": {}}


@dataclass
class StoredValues:
    """The stored values of a run (the control holds one item's at a time): per slot
    (`item/repetition`), its trajectory's compared fields as stored, and each score under
    its path (`item/repetition/score.name`). A trajectory's values are its leaves, each
    under its path
    (`item/repetition/trajectory.field`); they are flattened only where two runs differ,
    so two runs whose trajectories are equal, as twins' should be, are compared a
    trajectory (or a field) at a time, and their values are counted, not flattened."""

    trajectories: dict[str, dict[str, Any]]
    scores: dict[str, Any]
    counted: dict[int, tuple[Any, int]] = field(default_factory=dict, repr=False)
    """Leaf counts by the id of the value counted (held beside it, so the id stays its),
    shared by the values made from these (`as_first_repetition`) and by the other runs'
    values of the same item (`by_item`): a value found equal to one counted is not
    counted again (`learn_counts`)."""
    _leaves: dict[str, dict[str, Any]] = field(default_factory=dict, init=False, repr=False)

    def leaves(self, item: str) -> dict[str, Any]:
        """The leaves of slot `item`'s trajectory by path (none when the run lacks it)."""
        if item not in self._leaves:
            self._leaves[item] = flatten(self.trajectories.get(item, {}), f"{item}/trajectory.")
        return self._leaves[item]

    def field_leaves(self, item: str, name: str) -> dict[str, Any]:
        """The leaves of one field of slot `item`'s trajectory, by the paths `leaves` gives
        them."""
        return flatten({name: self.trajectories[item][name]}, f"{item}/trajectory.")

    def count(self, item: str) -> int:
        """How many leaves `leaves(item)` has."""
        fields = self.trajectories.get(item, {})
        if not all(_plain(name) for name in fields):
            return len(self.leaves(item))
        return sum(self.field_count(item, name) for name in fields)

    def field_count(self, item: str, name: str) -> int:
        """How many leaves `field_leaves(item, name)` has (the field's name is plain)."""
        value = self.trajectories[item][name]
        known = self.counted.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        n = _plain_count(value, self.counted)
        if n is None:
            n = len(self.field_leaves(item, name))
        self.counted[id(value)] = (value, n)
        return n

    def learn_counts(self, item: str, other: StoredValues) -> None:
        """Slot `item`'s trajectory here equals `other`'s: each of its fields has as many
        leaves as the same field there, so whatever `other` counted is known here too."""
        mine, theirs = self.trajectories[item], other.trajectories[item]
        for name, value in mine.items():
            known = other.counted.get(id(theirs[name]))
            if known is not None and known[0] is theirs[name]:
                self.counted[id(value)] = (value, known[1])


def _plain(key: object) -> bool:
    """A key no other key's path can equal: a string without a dot."""
    return type(key) is str and "." not in key


_LEAF_TYPES = frozenset({str, int, float, bool, type(None), list})
"""Types a stored value's leaves have (decoded JSON): never a mapping, no check needed."""


def _plain_count(value: Any, counted: dict[int, tuple[Any, int]] | None = None) -> int | None:
    """The number of leaves `flatten` finds in `value` (1 for a leaf), counted without
    making their paths; None when a key is not plain (two paths might coincide). A mapping
    inside it that `counted` holds (by id, beside the mapping itself) is not walked again,
    and each one walked is added to it: final states rebuilt on one shared base share
    every container no edit touched (`shared_states`)."""
    if type(value) is not dict and not isinstance(value, Mapping):
        return 1
    try:
        keys = "".join(value)
    except TypeError:  # a key that is not a string
        return None
    if "." in keys:
        return None
    n = 0
    for inner in value.values():
        kind = type(inner)
        if kind is dict or (kind not in _LEAF_TYPES and isinstance(inner, Mapping)):
            known = None if counted is None else counted.get(id(inner))
            if known is not None and known[0] is inner:
                n += known[1]
                continue
            inside = _plain_count(inner, counted)
            if inside is None:
                return None
            if counted is not None:
                counted[id(inner)] = (inner, inside)
            n += inside
        else:
            n += 1
    return n


def slot_scores(ctx: ControlContext, run_id: str, skip: set[str]) -> dict[str, dict[str, Any]]:
    """Every stored score of a run but the scorers in `skip`, under its path
    (`item/repetition/score.name`), grouped by item."""
    by_item: dict[str, dict[str, Any]] = {}
    for row in ctx.store.current_scores(run_id):
        if row.scorer not in skip:
            path = f"{row.item_id}/{row.repetition}/score.{row.scorer}"
            by_item.setdefault(row.item_id, {})[path] = row.value
    return by_item


def by_item(
    walks: Sequence[Iterator[tuple[str, list[Trajectory]]]],
    scores: Sequence[Mapping[str, Mapping[str, Any]]],
    skip: set[str],
) -> Iterator[tuple[str, list[StoredValues]]]:
    """Each item's stored values in every run (one `walks` and one `scores` per run, each
    walk in item id order, as the store gives them): every run's trajectories of one item
    are held at a time, not a whole run's. An item a run lacks is empty there; the values
    of one item share their leaf counts."""
    heads = [next(walk, None) for walk in walks]
    seen: set[str] = set()
    while any(head is not None for head in heads):
        item = min(head[0] for head in heads if head is not None)
        groups: list[list[Trajectory]] = []
        for n, head in enumerate(heads):
            if head is not None and head[0] == item:
                groups.append(head[1])
                heads[n] = next(walks[n], None)
            else:
                groups.append([])
        seen.add(item)
        yield item, _item_values(groups, [s.get(item, {}) for s in scores], skip)
    for item in sorted(set().union(*scores) - seen):  # scores of a slot no run stored
        yield item, _item_values([[] for _ in walks], [s.get(item, {}) for s in scores], skip)


def _item_values(groups: Sequence[list[Trajectory]], scores: Sequence[Mapping[str, Any]],
                 skip: set[str]) -> list[StoredValues]:
    counted: dict[int, tuple[Any, int]] = {}
    return [
        StoredValues(
            {f"{t.item_id}/{t.repetition}": {
                name: value for name, value in t.to_json().items() if name not in skip}
             for t in group},
            dict(run_scores),
            counted,
        )
        for group, run_scores in zip(groups, scores, strict=True)
    ]


def as_first_repetition(values: StoredValues, repetitions: Sequence[int]
                        ) -> dict[int, StoredValues]:
    """The values of each of `repetitions`, keyed as if they were the first's (read in one
    pass over `values`): what a config claimed deterministic must make equal to the first
    repetition itself."""
    wanted = {str(r): r for r in repetitions}
    trajectories: dict[int, dict[str, dict[str, Any]]] = {r: {} for r in repetitions}
    scores: dict[int, dict[str, Any]] = {r: {} for r in repetitions}

    def rekeyed(key: str) -> tuple[int, str] | None:
        slot, _, rest = key.partition("/score.")
        item, _, repetition = slot.rpartition("/")
        if not _ or repetition not in wanted:
            return None
        return wanted[repetition], f"{item}/1" + (f"/score.{rest}" if rest else "")

    for key, fields in values.trajectories.items():
        if (found := rekeyed(key)) is not None:
            trajectories[found[0]][found[1]] = {**fields, "repetition": 1}
    for key, value in values.scores.items():
        if (found := rekeyed(key)) is not None:
            scores[found[0]][found[1]] = value
    return {r: StoredValues(trajectories[r], scores[r], values.counted) for r in repetitions}


def differences(first: StoredValues, second: StoredValues) -> tuple[list[str], float, int]:
    """The paths whose values differ, the largest numeric difference among them, and how
    many values were compared. Equal trajectories (one C-level comparison) differ nowhere,
    and their values are counted, not compared again leaf by leaf; of two trajectories
    with the same fields, only the fields that differ are compared leaf by leaf."""
    differing, deltas = _differing(first.scores, second.scores)
    compared = len(first.scores.keys() | second.scores.keys())
    for item in first.trajectories.keys() | second.trajectories.keys():
        mine, theirs = first.trajectories.get(item), second.trajectories.get(item)
        if mine is not None and mine == theirs:
            compared += first.count(item)
            second.learn_counts(item, first)
            continue
        if (mine is not None and theirs is not None and mine.keys() == theirs.keys()
                and all(_plain(name) for name in mine)):
            pieces = [(first.field_leaves(item, name), second.field_leaves(item, name))
                      for name in mine if mine[name] != theirs[name]]
            compared += sum(first.field_count(item, name) for name in mine
                            if mine[name] == theirs[name])
        else:
            pieces = [(first.leaves(item), second.leaves(item))]
        for a, b in pieces:
            paths, sizes = _differing(a, b)
            differing += paths
            deltas += sizes
            compared += len(a.keys() | b.keys())
    return sorted(differing), max(deltas, default=0.0), compared


def _differing(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[list[str], list[float]]:
    """The paths of `a` and `b` whose values differ, and the numeric differences among them."""
    paths = [p for p in a.keys() | b.keys() if a.get(p) != b.get(p)]
    deltas = [abs(a[p] - b[p]) for p in paths
              if isinstance(a.get(p), int | float) and isinstance(b.get(p), int | float)]
    return paths, deltas


def deciding_fields(ctx: ControlContext, skip: set[str]) -> list[str]:
    """Declared-nondeterministic trajectory fields that change a headline score when blanked
    on one of the certified run's trajectories: they would hide a real difference."""
    fields = [f for f in NONDETERMINISTIC_TRAJECTORY_FIELDS if f in skip]
    if not fields:
        return []
    headline = [s for s in ctx.scorers if s.name in ctx.headline]
    gold = ctx.gold_of()
    found: dict[str, str] = {}  # field -> the first trajectory it decides a headline on
    for t in ctx.trajectories:
        item = gold[t.item_id]
        as_stored = {s.name: s.score(item.gold, t, ctx.scoring).value for s in headline}
        for name in (f for f in fields if f not in found):
            blanked: Trajectory = replace(t, **{name: BLANK[name]})
            changed = [
                s.name for s in headline
                if s.score(item.gold, blanked, ctx.scoring).value != as_stored[s.name]
            ]
            if changed:
                found[name] = f"{name} (decides {changed[0]} on {t.item_id})"
    return [found[f] for f in fields if f in found]


class IdenticalConfig:
    kind = "identical_config"
    version = "2"
    requires: Requirement | None = None

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        skip = set(ctx.adapter.facts.nondeterministic_fields)
        hiding = deciding_fields(ctx, skip)
        if hiding:
            summary = (
                "declared nondeterministic but deciding a headline metric: "
                + "; ".join(hiding)
                + "; remove them from Facts.nondeterministic_fields"
            )
            return outcome(self, False, summary, {"hiding_fields": hiding}, band)
        run_ids = [self._twin(ctx, execution) for execution in range(1, TWINS + 1)]
        claimed = ctx.adapter.deterministic(ctx.config)
        repetitions = range(2, ctx.run.repeats + 1) if claimed else range(0)
        labels = [
            *(f"twin {n} vs certified" for n in range(1, TWINS + 1)),
            "twin 1 vs twin 2",
            *(f"certified repetition {r} vs 1" for r in repetitions),
        ]
        found: dict[str, list[str]] = {label: [] for label in labels}
        max_delta = 0.0
        compared = 0
        reader = SharedStates(ctx.store)  # the same rows, equal states sharing containers
        walks = [reader.by_item(r) for r in (ctx.run.run_id, *run_ids)]
        scores = [slot_scores(ctx, r, skip) for r in (ctx.run.run_id, *run_ids)]
        for _, (certified, *twins) in by_item(walks, scores, skip):
            pairs: list[tuple[str, StoredValues, StoredValues]] = []
            if claimed:  # first: the repetitions' equal values are then counted once
                each = as_first_repetition(certified, [1, *repetitions])
                pairs += [(f"certified repetition {r} vs 1", each[1], each[r])
                          for r in repetitions]
            pairs += [(f"twin {n} vs certified", certified, t) for n, t in enumerate(twins, 1)]
            pairs.append(("twin 1 vs twin 2", twins[0], twins[1]))
            for label, first_values, second in pairs:
                paths, delta, values = differences(first_values, second)
                found[label] += paths
                max_delta = max(max_delta, delta)
                compared += values
        by_pair = {label: len(paths) for label, paths in found.items()}
        differing = [f"{label}: {p}" for label, paths in found.items() for p in sorted(paths)]
        measured = {
            "runs": run_ids,
            "repetitions": ctx.run.repeats,
            "claimed_deterministic": claimed,
            "values_compared": compared,
            "max_abs_delta": max_delta,
            "differing_paths": len(differing),
            "differing_by_comparison": by_pair,
            "differing_sample": differing[:MAX_LISTED],
            "excluded_fields": sorted(skip),
        }
        within = (f", and its {ctx.run.repeats} repetitions against each other (claimed "
                  "deterministic)" if claimed and ctx.run.repeats > 1 else "")
        summary = (
            f"{TWINS} fresh executions of every repetition against the certified run and each "
            f"other{within}: "
            f"{measured['values_compared']} values compared, max_abs_delta {max_delta!r}, "
            f"{len(differing)} differing paths; not compared: {', '.join(sorted(skip)) or 'none'}"
        )
        allowed = int(band["max_differing_paths"])
        return outcome(self, len(differing) <= allowed, summary, measured, band)

    def _twin(self, ctx: ControlContext, execution: int) -> str:
        twin = start_run(
            ctx.store,
            ctx.adapter,
            ctx.suite,
            ctx.config,
            repeats=ctx.run.repeats,
            seed=ctx.run.seed,
            items=ctx.items,
            extra_env={"control": self.kind, "certifies": ctx.run.run_id, "execution": execution},
        )
        execute_run(
            ctx.store,
            ctx.adapter,
            twin,
            backend=Processes(ctx.workers),
            progress=False,
        )
        return twin.run_id
