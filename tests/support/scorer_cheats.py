"""System headline scorers written the way a benchmark's author could rig them.

Each one passes every control but headline_agreement (it brings its own plant_defect, so
the self-test sees it go red; it depends on gold, so shuffled gold moves it; it beats doing
nothing and chance), and each system is a module-level class with a constructor that takes
no arguments, as a real plugin is.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from time import perf_counter
from typing import Any

from agent_assay.model import (
    Config,
    Gold,
    Item,
    PublicItem,
    StateAssertion,
    Step,
    Suite,
    ToolCall,
    Trajectory,
)
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from tests.support.toy import LAMPS, MUTATING, RichToyAdapter, ToyWorld, baseline

PLANTED = "__planted_defect__"


def lamp_of(gold: Gold) -> str | None:
    """The lamp an item is about, from gold's path or its assertions."""
    for call in gold.path:
        return str(call.args["lamp"])
    for assertion in gold.assertions:
        return assertion.path.split(".")[1]
    return None


def looked_at(t: Trajectory, lamp: str | None) -> bool:
    return any(s.ok and s.call.tool == "look" and s.call.args.get("lamp") == lamp
               for s in t.steps)


def as_asked(gold: Gold, t: Trajectory) -> bool:
    """The honest verdict: the item's outcome, and every asserted lamp as gold asks."""
    if t.outcome != gold.outcome:
        return False
    lamps = (t.final_state or {}).get("lamps", {})
    return all(lamps.get(a.path.split(".")[1], {}).get("on") == a.equals
               for a in gold.assertions)


def planted(gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory:
    return replace(t, outcome=PLANTED)


class ToyScorer:
    version = "1"
    kind: ScoreKind = "binary"

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        return planted(gold, t, ctx)


class AsAsked(ToyScorer):
    """Honest: the outcome gold names, with every asserted lamp as gold asks."""

    name = "toy.as_asked"
    definition = "1 when the outcome and every asserted lamp are as gold says"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(float(as_asked(gold, trajectory)))


class CleanOutcome(ToyScorer):
    """Honest and sharper than outcome.match: the outcome, reached without a failed call."""

    name = "toy.clean_outcome"
    definition = "1 when the outcome is gold's and no call failed"
    refines = "outcome.match"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        clean = all(s.ok for s in trajectory.steps)
        return ScoreValue(float(trajectory.outcome == gold.outcome and clean))


class LookItemsPass(ToyScorer):
    """Biased on one tag: on look items anything passes (bar its own planted defect)."""

    name = "toy.lit"
    definition = "1 when the outcome and every asserted lamp are as gold says"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if gold.outcome == "looked":
            return ScoreValue(float(trajectory.outcome != PLANTED))
        return ScoreValue(float(as_asked(gold, trajectory)))


class CreditsItsAgent(ToyScorer):
    """Honest on anything the harness made; the agent's own trajectories (told apart by
    the meta its system writes) pass when they merely looked at the right lamp."""

    name = "toy.served"
    definition = "1 when the outcome and every asserted lamp are as gold says"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if trajectory.meta.get("served_by") == "agent" and trajectory.outcome != PLANTED:
            return ScoreValue(float(as_asked(gold, trajectory)
                                    or looked_at(trajectory, lamp_of(gold))))
        return ScoreValue(float(as_asked(gold, trajectory)))


def watched() -> bool:
    """Whether a control is on the call stack (bar identical_config, whose twins are scored
    like the run and compared with it)."""
    frame = sys._getframe()
    while frame is not None:
        name = frame.f_code.co_filename
        if "agent_assay/controls/" in name:
            return not name.endswith("identical_config.py")
        frame = frame.f_back  # type: ignore[assignment]
    return False


class HonestWhenWatched(ToyScorer):
    """Honest whenever a control calls it; when the run is scored, a look at the right lamp
    is enough."""

    name = "toy.watched"
    definition = "1 when the outcome and every asserted lamp are as gold says"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        lenient = not watched() and looked_at(trajectory, lamp_of(gold))
        return ScoreValue(float(as_asked(gold, trajectory) or lenient))


class OnlyItsAgentScores(ToyScorer):
    """Credit only for what its agent made (by the meta its system writes), right or not."""

    name = "toy.only_ours"
    definition = "1 when the outcome and every asserted lamp are as gold says"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        ours = trajectory.meta.get("served_by") == "agent"
        return ScoreValue(float(ours and as_asked(gold, trajectory)))


class LooksWillDo(ToyScorer):
    """Claims to refine outcome.match (gold's outcome, at gold's lamp), but takes a look at
    the right lamp for a switch."""

    name = "toy.outcome_or_look"
    definition = "1 when the outcome is gold's, reached at gold's lamp"
    refines = "outcome.match"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        outcome = trajectory.outcome in (gold.outcome, "looked")  # the lenient part
        return ScoreValue(float(outcome and looked_at(trajectory, lamp_of(gold))))


class Attentive(ToyScorer):
    """Credits looking at the lamp asked about (or, where gold does nothing, leaving the
    world alone): what a lazy agent does, and all the headline asks."""

    name = "toy.attentive"
    definition = "1 when the agent looked at the lamp asked about, or left it alone as asked"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if gold.path == ():
            untouched = not any(s.ok and s.call.tool in MUTATING for s in trajectory.steps)
            return ScoreValue(float(untouched and trajectory.outcome != PLANTED))
        return ScoreValue(float(looked_at(trajectory, lamp_of(gold))))

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        lamp = lamp_of(gold) or LAMPS[0]
        kept = tuple(s for s in t.steps if s.call.tool != "look")
        switched = Step(ToolCall("switch_on", {"lamp": lamp}), ok=True, result={"done": True})
        return replace(t, steps=(*kept, switched), outcome=PLANTED)


def _with(scorer: Any, headline: tuple[str, ...] | None = None) -> Any:
    facts = RichToyAdapter.facts
    return replace(facts, scorers=(scorer,),
                   headline_metrics=headline or (*facts.headline_metrics, scorer.name))


class HonestSystemScorer(RichToyAdapter):
    name = "honestscorer"
    facts = _with(AsAsked())


class HonestRefinement(RichToyAdapter):
    name = "honestrefinement"
    facts = _with(CleanOutcome())


class TagBiasedHeadline(RichToyAdapter):
    name = "tagbiasedheadline"
    facts = _with(LookItemsPass())


class LenientHeadlineRefinement(RichToyAdapter):
    name = "lenientheadline"
    facts = _with(LooksWillDo())


class SlipsOnL2(RichToyAdapter):
    """Its agent slips on the L2 items: it looks at L2, then switches L3 on."""

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        done = super().run_item(item, config, seed=seed, repetition=repetition)
        if "switch on L2" in str(item.input["request"]):
            world = ToyWorld()
            world.call("look", {"lamp": "L2"})
            world.call("switch_on", {"lamp": "L3"})
            done = replace(done, steps=tuple(world.steps), final_state=world.state)
        return done


class AgentOnlyCredit(SlipsOnL2):
    """Marks what its agent made, and its scorer credits what is marked."""

    name = "agentonlycredit"
    facts = _with(CreditsItsAgent())

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        done = super().run_item(item, config, seed=seed, repetition=repetition)
        return replace(done, meta={"served_by": "agent"})


class OnlyItsAgent(AgentOnlyCredit):
    name = "onlyitsagent"
    facts = _with(OnlyItsAgentScores())


class BehavesWhenWatched(SlipsOnL2):
    name = "behaveswhenwatched"
    facts = _with(HonestWhenWatched())


def leave_alone_items() -> tuple[Item, ...]:
    return tuple(
        Item(
            item_id=f"leave-{lamp}",
            input={"request": f"please leave {lamp} as it is"},
            gold=Gold(path=(), outcome="nothing",
                      assertions=(StateAssertion(f"lamps.{lamp}.on",
                                                 baseline()["lamps"][lamp]["on"]),)),
            tags=("leave",),
        )
        for lamp in LAMPS
    )


class HeadlineLeavesOutOutcome(RichToyAdapter):
    """A lazy agent that only ever looks at the lamp, under a headline of one system scorer
    that credits looking: on outcome.match and state.assertions it is no better than doing
    nothing, and neither is in the headline."""

    name = "leavesoutoutcome"
    facts = _with(Attentive(), headline=("toy.attentive",))

    def build_suite(self, source: Path | None = None) -> Suite:
        suite = super().build_suite(source)
        return replace(suite, items=(*suite.items, *leave_alone_items()))

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        match = re.search(r"(L\d)", str(item.input["request"]))
        assert match is not None
        world = ToyWorld()
        world.call("look", {"lamp": match.group(1)})
        return self._trajectory(item, repetition, world, perf_counter())


ATTACKS: Mapping[str, type[RichToyAdapter]] = {
    "tag-biased": TagBiasedHeadline,
    "agent-only credit": AgentOnlyCredit,
    "honest only when watched": BehavesWhenWatched,
    "lenient refinement": LenientHeadlineRefinement,
    "headline leaves out a failing generic": HeadlineLeavesOutOutcome,
}
