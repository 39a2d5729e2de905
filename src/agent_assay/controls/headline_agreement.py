"""headline_agreement: a system's own headline scorer, held against the generic metrics
trajectory by trajectory, where the right answer is known and on the agent's own runs.

Each headline metric that is a system scorer is compared with its reference
(`headline_reference`) on every trajectory of six sources (`headline_sources`): gold
replayed, each null agent, random calls, gold with each mutation operator planted, the
agent's own trajectories, and the agent's own calls replayed by the harness. Disagreements
are counted by class and source, with the first items of each:

* credited: the scorer passes what its reference rejects. Judged on every source, the
  agent's own included: a tag it waves through, a refinement more lenient than what it
  refines, credit given to whoever made the trajectory;
* withheld: the scorer fails what its reference credits. Judged on gold, doing nothing,
  random calls and mutants; reported on the agent's own trajectories, where a scorer may be
  sharper than its reference;
* replay_differs: the agent's own calls, replayed by the harness with the same steps,
  final state and outcome, score otherwise: the scorer reads who made a trajectory (meta,
  latency, cost), not what was done;
* rescored_differs: the value stored when the run was scored (what the headline reports)
  is not what the scorer gives the same stored trajectory now: a scorer that is not a
  function of (gold, trajectory), one that behaves when it is watched, say. The agent's own
  trajectories are judged by their stored values.

And what the headline leaves out: a headline of system scorers must not hide generic
metrics on which the agent is no better than doing nothing or chance. The generic result
metrics (outcome.match, state.assertions) and each metric a headline scorer refines are
judged by pass rate, the agent's own against each null agent's and the random calls': a
refined metric whose margin is under `min_reference_margin`, or result metrics that all
are, fail the control.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.controls.headline_reference import (
    RESULT_LENSES,
    Reference,
    Values,
    floors,
    references,
)
from agent_assay.controls.headline_sources import REPLAYED, ItemSources, item_sources
from agent_assay.controls.registry import NO_SYSTEM_HEADLINE
from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import Scorer, ScoringContext, passes
from agent_assay.scoring.registry import score_all

SHOWN = 5
"""Item ids kept per class and source."""
JUDGED: Mapping[str, frozenset[str]] = {
    "credited": frozenset({"gold", "do_nothing", "random", "mutated", "own"}),
    "withheld": frozenset({"gold", "do_nothing", "random", "mutated"}),
    "replay_differs": frozenset({"own_replayed"}),
    "rescored_differs": frozenset({"own"}),
}
"""Per class, the sources where a disagreement counts against the band (the rest are
reported)."""
BAND_KEY = {"credited": "max_credited", "withheld": "max_withheld",
            "replay_differs": "max_replay_differs", "rescored_differs": "max_rescored_differs"}
WHAT = {"credited": "passes what its reference rejects",
        "withheld": "fails what its reference credits",
        "replay_differs": "scores the agent's calls otherwise when the harness replays them",
        "rescored_differs": "stored another value than it gives the same trajectory now"}


class Tally:
    """Disagreements by scorer, class and source, with the first item ids of each; and each
    reference metric's passes by source, for the margins."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
        self.passed: dict[str, dict[str, list[int]]] = {}

    def add(self, metric: str, kind: str, source: str, item_id: str) -> None:
        cell = self.rows.setdefault(metric, {}).setdefault(kind, {}).setdefault(
            source, {"count": 0, "items": []})
        cell["count"] += 1
        if item_id not in cell["items"] and len(cell["items"]) < SHOWN:
            cell["items"].append(item_id)

    def judged(self, metric: str, kind: str) -> int:
        return sum(c["count"] for source, c in self.rows.get(metric, {}).get(kind, {}).items()
                   if source in JUDGED[kind])

    def count_pass(self, metric: str, source: str, verdict: bool | None) -> None:
        if verdict is not None:
            cell = self.passed.setdefault(metric, {}).setdefault(source, [0, 0])
            cell[0] += verdict
            cell[1] += 1

    def margins(self, metric: str) -> dict[str, float]:
        """The agent's pass rate minus each comparator's (each null agent, random calls)."""
        rates = {s: p / n for s, (p, n) in self.passed.get(metric, {}).items() if n}
        own = rates.pop("own", None)
        return {} if own is None else {s: own - r for s, r in rates.items()}


def scored(scorers: Sequence[Scorer], gold: Gold, t: Trajectory, ctx: ScoringContext) -> Values:
    return {s.name: v.value for s, v in score_all(scorers, gold, t, ctx)}


class HeadlineAgreement:
    kind = "headline_agreement"
    version = "1"
    requires: Requirement | None = None

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        refs = references(ctx.scorers, ctx.headline)
        if not refs:
            return ControlOutcome(self.kind, self.version, "NOT_RUN", NO_SYSTEM_HEADLINE,
                                  reason=NO_SYSTEM_HEADLINE)
        scorers = list({s.name: s for r in refs for s in (r.scorer, *r.lenses)}.values())
        gold_of = ctx.gold_of()
        tally, counts, not_reproduced = Tally(), dict[str, int](), 0
        for item_id, group in ctx.trajectories.by_item():
            got = item_sources(ctx, gold_of[item_id], group)
            not_reproduced += got.not_reproduced
            judge_item(ctx, refs, scorers, gold_of[item_id].gold, got, tally, counts)
        sources: dict[str, Any] = {source: {"trajectories": n} for source, n in counts.items()}
        if ctx.adapter.replay_view() is None:
            sources |= {s: {"skipped": "the system has no replay capability"} for s in REPLAYED}
        else:
            sources.setdefault("own_replayed", {"trajectories": 0})
            sources["own_replayed"]["not_reproduced"] = not_reproduced
        per_scorer: dict[str, Any] = {}
        problems: list[str] = []
        for ref in refs:
            name = ref.scorer.name
            failing = [kind for kind, key in BAND_KEY.items()
                       if tally.judged(name, kind) > int(band[key])]
            per_scorer[name] = {"reference": ref.describe(), "refines": ref.refines,
                                "disagreements": tally.rows.get(name, {}), "failing": failing}
            problems += [f"{name} {WHAT[kind]} {tally.judged(name, kind)} time(s)"
                         for kind in failing]
        left_out, hidden = judge_left_out(refs, tally, float(band["min_reference_margin"]))
        problems += hidden
        summary = headline_lines(per_scorer)
        summary += "; " + ("; ".join(hidden) if hidden else "generic result metrics clear "
                           "doing nothing and chance" if left_out else "no generic result "
                           "metric applies to compare the headline with")
        summary += "; judged on " + ", ".join(f"{s} {n}" for s, n in counts.items())
        measured = {"sources": sources, "scorers": per_scorer, "reference_margins": left_out}
        return outcome(self, not problems, summary, measured, band, "; ".join(problems))


def with_stored(refs: Sequence[Reference], values: Values,
                stored: Mapping[tuple[int, str], float | None], t: Trajectory,
                tally: Tally) -> Values:
    """The agent's own values as the run stored them (what the headline reports), each
    checked against the value the scorer gives the same trajectory now."""
    kept = dict(values)
    for ref in refs:
        name = ref.scorer.name
        if (t.repetition, name) in stored:
            kept[name] = stored[(t.repetition, name)]
            if kept[name] != values.get(name):
                tally.add(name, "rescored_differs", "own", t.item_id)
    return kept


def judge_item(ctx: ControlContext, refs: Sequence[Reference], scorers: Sequence[Scorer],
               gold: Gold, got: ItemSources, tally: Tally, counts: dict[str, int]) -> None:
    """Score one item's trajectories from every source and tally each disagreement."""
    item_id = next((t.item_id for t in got.by_source["own"]), None)
    nulls = {name: scored(scorers, gold, t, ctx.scoring) for name, t in got.nulls.items()}
    floor = floors(refs[0], list(nulls.values()))  # every reference reads the same lenses
    watched = {s.name: s for s in scorers
               if s.name in RESULT_LENSES or any(r.refines == s.name for r in refs)}
    stored = {(r.repetition, r.scorer): r.value
              for r in ctx.store.current_scores(ctx.run.run_id, item_id)} if item_id else {}
    for source, trajectories in got.by_source.items():
        counts[source] = counts.get(source, 0) + len(trajectories)
        for t in trajectories:
            values = scored(scorers, gold, t, ctx.scoring)
            if source == "own":
                values = with_stored(refs, values, stored, t, tally)
            if source in ("own", "random"):
                for name, s in watched.items():
                    tally.count_pass(name, source, passes(s.kind, values.get(name)))
            _judge_values(refs, values, floor, source, t.item_id, tally)
    for name, values in nulls.items():
        for metric, s in watched.items():
            tally.count_pass(metric, f"do_nothing:{name}", passes(s.kind, values.get(metric)))
    _judge_replays(ctx, refs, gold, got, tally, counts)


def _judge_values(refs: Sequence[Reference], values: Values, floor: Values, source: str,
                  item_id: str, tally: Tally) -> None:
    """Each reference's verdict on one trajectory's values: credited where the generic
    lenses reject it, withheld where they credit it."""
    for ref in refs:
        mine = passes(ref.scorer.kind, values.get(ref.scorer.name))
        if mine is True and ref.rejects(values, floor):
            tally.add(ref.scorer.name, "credited", source, item_id)
        if mine is False and ref.credits(values, source):
            tally.add(ref.scorer.name, "withheld", source, item_id)


def _judge_replays(ctx: ControlContext, refs: Sequence[Reference], gold: Gold,
                   got: ItemSources, tally: Tally, counts: dict[str, int]) -> None:
    """The headline scorers on each own trajectory against its replay: the same path
    must score the same."""
    if got.own_replayed or "gold" in got.by_source:
        counts["own_replayed"] = counts.get("own_replayed", 0) + len(got.own_replayed)
    headline = [r.scorer for r in refs]
    for own, twin in got.own_replayed:
        made = scored(headline, gold, own, ctx.scoring)
        replayed = scored(headline, gold, twin, ctx.scoring)
        for scorer in headline:
            if made[scorer.name] != replayed[scorer.name]:
                tally.add(scorer.name, "replay_differs", "own_replayed", own.item_id)


def judge_left_out(
    refs: Sequence[Reference], tally: Tally, need: float
) -> tuple[dict[str, Any], list[str]]:
    """Each watched generic metric's margins, and what they hide: a refined metric under
    `need`, or result metrics that are all under it (one that clears it is enough: a system
    may judge a result one way the other misses)."""
    margins = {m: tally.margins(m) for m in tally.passed}
    smallest = {m: min(v.values(), default=None) for m, v in margins.items()}
    hidden = [f"{r.refines}, which {r.scorer.name} refines, clears doing nothing and chance "
              f"by only {smallest.get(r.refines)!r} (needs {need})"
              for r in refs if r.refines and _under(smallest.get(r.refines), need)]
    results = [m for m in RESULT_LENSES if margins.get(m)]  # applies, with a comparator
    if results and all(_under(smallest[m], need) for m in results):
        hidden.append("the headline leaves out " + ", ".join(
            f"{m} (margin {smallest[m]:.4f})" for m in results)
            + f": the agent clears doing nothing or chance by under {need} on every "
            "generic result metric")
    judged = {m: {"margins": v, "smallest": smallest[m]} for m, v in margins.items() if v}
    return judged, hidden


def _under(margin: float | None, need: float) -> bool:
    """Short of the margin; None (nothing to compare with) is not judged."""
    return margin is not None and margin < need


def headline_lines(per_scorer: Mapping[str, Mapping[str, Any]]) -> str:
    """One clause per disagreeing scorer, with counts and items; one for all that agree."""
    agree: dict[str, list[str]] = {}
    lines = []
    for name, row in per_scorer.items():
        if row["disagreements"]:
            lines.append(_line(name, row))
        else:
            agree.setdefault(row["reference"], []).append(name)
    lines += [f"{', '.join(names)} agree{'s' if len(names) == 1 else ''} with {ref} on "
              "every trajectory" for ref, names in agree.items()]
    return "; ".join(lines)


def _line(name: str, row: Mapping[str, Any]) -> str:
    found = row["disagreements"]
    parts = []
    for kind, by_source in found.items():
        cells = ", ".join(
            f"{source} {c['count']} ({', '.join(c['items'])})"
            + ("" if source in JUDGED[kind] else " [reported: may be sharper]")
            for source, c in by_source.items())
        parts.append(f"{WHAT[kind]}: {cells}")
    return f"{name} against {row['reference']}: " + "; ".join(parts)
