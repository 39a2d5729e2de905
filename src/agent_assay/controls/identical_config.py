"""identical_config: separate executions of one config must store what the certified run did.

Each twin is a real run, stored like any other (its environment names the run it
certifies), executed in its own freshly spawned process with its own PYTHONHASHSEED,
one after the other: nothing an agent cached during the certified run, nothing on the
harness's call stack and no hash order is shared with it. That holds whichever executor
made the certified run: a twin always runs in spawned processes of this host (as many
as `--workers`), never on a long-lived Dask worker (executors.dask_cluster says why).
Each twin is compared with the certified run itself (its first repetition, which ran
under the same seeds) and with the other twin, on every stored value (each trajectory's
fields and each score) except the fields the system declares nondeterministic. Those
may only be fields that decide no headline metric, and that is checked on the certified
run's own trajectories.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent_assay.adapters.system import NONDETERMINISTIC_TRAJECTORY_FIELDS
from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.executors import Processes
from agent_assay.hashing import stable_seed
from agent_assay.model import Cost, Trajectory
from agent_assay.runner import execute_run, start_run
from agent_assay.statepaths import flatten

MAX_LISTED = 20
TWINS = 2
# what blanking a declared-nondeterministic trajectory field leaves in its place
BLANK: Mapping[str, Any] = {"latency_ms": 0.0, "cost": Cost(0.0, "blanked"), "meta": {}}


@dataclass
class StoredValues:
    """Every stored value of a run: per item, its trajectory's compared fields as stored
    (the last repetition read, when several are), and each score under its path
    (`item/score.name`). A trajectory's values are its leaves, each under its path
    (`item/trajectory.field`); they are flattened only when asked, so two runs whose
    trajectories are equal, as twins' should be, are compared a trajectory at a time."""

    trajectories: dict[str, dict[str, Any]]
    scores: dict[str, Any]
    _leaves: dict[str, dict[str, Any]] = field(default_factory=dict, init=False, repr=False)

    def leaves(self, item: str) -> dict[str, Any]:
        """The leaves of `item`'s trajectory by path (none when the run has no such item)."""
        if item not in self._leaves:
            self._leaves[item] = flatten(self.trajectories.get(item, {}), f"{item}/trajectory.")
        return self._leaves[item]


def stored_values(
    ctx: ControlContext, run_id: str, skip: set[str], repetition: int | None = None
) -> StoredValues:
    """Every stored value of a run but the fields in `skip`, of one repetition when asked."""
    trajectories = {
        t.item_id: {name: value for name, value in t.to_json().items() if name not in skip}
        for t in ctx.store.trajectories(run_id, repetition=repetition)
    }
    scores = {
        f"{row.item_id}/score.{row.scorer}": row.value
        for row in ctx.store.current_scores(run_id)
        if row.scorer not in skip and (repetition is None or row.repetition == repetition)
    }
    return StoredValues(trajectories, scores)


def differences(first: StoredValues, second: StoredValues) -> tuple[list[str], float, int]:
    """The paths whose values differ, the largest numeric difference among them, and how
    many values were compared. Equal trajectories (one C-level comparison) differ nowhere,
    and their values are counted, not compared again leaf by leaf."""
    differing, deltas = _differing(first.scores, second.scores)
    compared = len(first.scores.keys() | second.scores.keys())
    for item in first.trajectories.keys() | second.trajectories.keys():
        mine, theirs = first.trajectories.get(item), second.trajectories.get(item)
        if mine is not None and mine == theirs:
            compared += len(first.leaves(item))
            continue
        a, b = first.leaves(item), second.leaves(item)
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


def twin_hash_seed(run_id: str, execution: int) -> int:
    """A PYTHONHASHSEED per twin, different from each other and from 'random' (0 disables
    randomisation, so it is never used)."""
    return 1 + stable_seed("identical_config", run_id, execution) % (2**32 - 2)


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
        certified = stored_values(ctx, ctx.run.run_id, skip, repetition=1)
        twins = [stored_values(ctx, r, skip) for r in run_ids]
        pairs: Sequence[tuple[str, StoredValues, StoredValues]] = [
            *((f"twin {n} vs certified", certified, t) for n, t in enumerate(twins, 1)),
            ("twin 1 vs twin 2", twins[0], twins[1]),
        ]
        differing: list[str] = []
        max_delta = 0.0
        compared = 0
        by_pair: dict[str, int] = {}
        for label, first, second in pairs:
            paths, delta, values = differences(first, second)
            by_pair[label] = len(paths)
            differing += [f"{label}: {p}" for p in paths]
            max_delta = max(max_delta, delta)
            compared += values
        measured = {
            "runs": run_ids,
            "hash_seeds": [twin_hash_seed(ctx.run.run_id, n) for n in range(1, TWINS + 1)],
            "values_compared": compared,
            "max_abs_delta": max_delta,
            "differing_paths": len(differing),
            "differing_by_comparison": by_pair,
            "differing_sample": differing[:MAX_LISTED],
            "excluded_fields": sorted(skip),
        }
        summary = (
            f"{TWINS} fresh processes against the certified run and each other: "
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
            repeats=1,
            seed=ctx.run.seed,
            items=ctx.items,
            extra_env={"control": self.kind, "certifies": ctx.run.run_id, "execution": execution},
        )
        execute_run(
            ctx.store,
            ctx.adapter,
            twin,
            backend=Processes(ctx.workers, hash_seed=twin_hash_seed(ctx.run.run_id, execution)),
            progress=False,
        )
        return twin.run_id
