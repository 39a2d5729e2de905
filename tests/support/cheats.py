"""Systems written the way a dishonest or careless adapter author might write them.

Each is a module-level class with a constructor that takes no arguments, so that a fresh
process (identical_config's twins) can rebuild it exactly as a real plugin would be.
"""

from __future__ import annotations

import inspect
import multiprocessing
import os
import random
from collections.abc import Mapping
from dataclasses import fields, is_dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from agent_assay.adapters.system import Facts
from agent_assay.model import Config, Gold, PublicItem, PublicSuite, Trajectory
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from tests.support.toy import RichToyAdapter


def gold_inside(value: Any, depth: int = 0) -> bool:
    """Whether a Gold object (or anything called gold) is reachable from VALUE."""
    if depth > 6:
        return False
    if isinstance(value, Gold):
        return True
    if is_dataclass(value) and not isinstance(value, type):
        return any(
            f.name == "gold" or gold_inside(getattr(value, f.name), depth + 1)
            for f in fields(value)
        )
    if isinstance(value, Mapping):
        return any(k == "gold" or gold_inside(v, depth + 1) for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return any(gold_inside(v, depth + 1) for v in value)
    return False


PEEK_ENV = "AA_TEST_PEEK"


def note(kind: str, what: str) -> None:
    """Append `what` to this process's `kind` file in the directory PEEK_ENV names: agent
    processes report what they saw to the test that way."""
    with open(Path(os.environ[PEEK_ENV]) / f"{kind}-{os.getpid()}", "a") as out:
        out.write(what + "\n")


def noted(kind: str) -> list[str]:
    """Every line any other process (an agent process) noted under `kind`."""
    mine = f"{kind}-{os.getpid()}"
    return [line for path in sorted(Path(os.environ[PEEK_ENV]).glob(f"{kind}-*"))
            if path.name != mine for line in path.read_text().splitlines()]


class GoldPeek(RichToyAdapter):
    """Searches everything the harness hands it for gold, and notes where it found any."""

    name = "goldpeek"

    def prepare(self, suite: PublicSuite) -> None:  # type: ignore[override]
        note("handed", "prepare")
        if gold_inside(suite):
            note("found", "prepare")

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        note("handed", item.item_id)
        for label, value in (("item", item), ("config", config)):
            if gold_inside(value):
                note("found", f"run_item {label}")
        return super().run_item(item, config, seed=seed, repetition=repetition)


class CheatBase(RichToyAdapter):
    """Claims its `cheat` config is deterministic; subclasses decide when it really is."""

    facts = replace(RichToyAdapter.facts, deterministic_configs=frozenset({"good", "cheat"}))

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {**super().configs(), "cheat": {"mode": "cheat"}}

    def coin(self, item: PublicItem) -> bool:
        raise NotImplementedError

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        if config.params["mode"] != "cheat":
            return super().run_item(item, config, seed=seed, repetition=repetition)
        right = replace(config, params={"mode": "good"})
        done = super().run_item(item, right, seed=seed, repetition=repetition)
        # the coin adds one more look before the rest: a different path
        return replace(done, steps=(done.steps[0], *done.steps)) if self.coin(item) else done


class CachedNoise(CheatBase):
    """Unseeded noise behind a per-process cache: the same process always repeats itself."""

    name = "cachednoise"
    cache: ClassVar[dict[str, bool]] = {}

    def coin(self, item: PublicItem) -> bool:
        return CachedNoise.cache.setdefault(item.item_id, random.random() < 0.5)


class NoisyUnlessWatched(CheatBase):
    """Deterministic whenever it suspects a test (identical_config on the stack, or a child
    process); noisy otherwise."""

    name = "unlesswatched"

    def coin(self, item: PublicItem) -> bool:
        watched = multiprocessing.parent_process() is not None or any(
            "identical_config" in frame.filename for frame in inspect.stack()
        )
        return False if watched else random.random() < 0.5


class HashSeeded(CheatBase):
    """Nondeterministic through hash(): same in one process, different under another seed."""

    name = "hashseeded"

    def coin(self, item: PublicItem) -> bool:
        return hash(item.item_id) % 2 == 0


class BroadNondeterminism(RichToyAdapter):
    """Declares the very fields a headline rests on nondeterministic."""

    name = "broadnondeterminism"
    facts = replace(
        RichToyAdapter.facts,
        nondeterministic_fields=("latency_ms", "steps", "final_state", "outcome",
                                 "trajectory.exact"),
    )


class DeterministicOnlyOnOne(CheatBase):
    """Repeats itself on one item and is noisy on every other: certify the one, report all."""

    name = "onlyonone"

    def coin(self, item: PublicItem) -> bool:
        return False if item.item_id == "look-L1" else random.random() < 0.5


class LooksAtSomething:
    """1 when the agent looked at a lamp, except on look items, where it is always 1."""

    name = "toy.looked"
    version = "1"
    definition = "1 when a look call succeeded (biased: always 1 on look items)"
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        if trajectory.item_id.startswith("look-"):
            return ScoreValue(1.0)
        return ScoreValue(float(any(s.ok and s.call.tool == "look" for s in trajectory.steps)))

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        return replace(t, steps=tuple(s for s in t.steps if s.call.tool != "look"))


class TagBiasedScorer(RichToyAdapter):
    """A headline scorer that is honest on the items that sort first, blind on one tag."""

    name = "tagbiased"
    facts = replace(
        RichToyAdapter.facts,
        headline_metrics=(*RichToyAdapter.facts.headline_metrics, "toy.looked"),
        scorers=(LooksAtSomething(),),
    )


class ShadowedOutcome(LooksAtSomething):
    name = "outcome.match"


class ShadowsAGenericScorer(RichToyAdapter):
    name = "shadows"
    facts = Facts(scorers=(ShadowedOutcome(),))


class AnyOutcomeWillDo:
    """Claims to refine outcome.match but accepts any outcome that did something."""

    name = "toy.outcome"
    version = "1"
    definition = "1 when the episode ended done or looked (whatever gold says)"
    kind: ScoreKind = "binary"
    refines = "outcome.match"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(float(trajectory.outcome in ("done", "looked")))


class LenientRefinement(RichToyAdapter):
    name = "lenient"
    facts = replace(
        RichToyAdapter.facts,
        headline_metrics=(*RichToyAdapter.facts.headline_metrics, "toy.outcome"),
        scorers=(AnyOutcomeWillDo(),),
    )


class ReadsMeta:
    """A headline scorer that reads the trajectory's meta."""

    name = "toy.meta_flag"
    version = "1"
    definition = "1 when meta carries ok"
    kind: ScoreKind = "binary"

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(float(trajectory.meta.get("ok", False)))


class MetaDecidesHeadline(RichToyAdapter):
    """Declares meta nondeterministic although a headline score is read from it."""

    name = "metadecides"
    facts = replace(
        RichToyAdapter.facts,
        headline_metrics=(*RichToyAdapter.facts.headline_metrics, "toy.meta_flag"),
        nondeterministic_fields=("latency_ms", "meta"),
        scorers=(ReadsMeta(),),
    )

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        done = super().run_item(item, config, seed=seed, repetition=repetition)
        return replace(done, meta={"ok": True})
