"""A system as the harness uses it: checked once, facts filled in, capabilities found.

`load_system` checks the five required members and the facts object, and names what is
missing or mistyped in one line. A `LoadedSystem` then answers every question the core
asks, with the system's answer where it has one and the harness's default where it does
not. A capability that only follows from another is derived: a system with episodes can
replay a path, has a do-nothing agent, and can be driven by a model. A system that learns
facts from its source is asked for them again whenever it loads one, and what it returns is
checked as declared facts are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Any

from agent_assay.adapters.judged import judged_scorer, judging, with_judge
from agent_assay.adapters.settings import type_problem
from agent_assay.adapters.system import (
    DEFAULT_FACTS,
    NONDETERMINISTIC_TRAJECTORY_FIELDS,
    REQUIRED,
    DescribesEnvironment,
    Episodes,
    Facts,
    LearnsFacts,
    ModelAgentFacts,
    ModelPrompt,
    NullAgent,
    NullAgents,
    Preparing,
    RecordsWithoutExecuting,
    Replaying,
    System,
    TakesTurns,
    ToolSpec,
    UserTurn,
)
from agent_assay.errors import AssayError, described
from agent_assay.hashing import canonical_json
from agent_assay.model import (
    USER_TURN,
    Config,
    Cost,
    Item,
    PublicItem,
    PublicSuite,
    Step,
    Suite,
    ToolCall,
    Trajectory,
)
from agent_assay.scoring.base import Scorer, ScoringContext
from agent_assay.scoring.judging import JUDGED_PREFIX
from agent_assay.scoring.registry import PATH_SCORERS, default_scorers

NO_REPLAY = "adapter declares no replay capability"
REPLAYED = Cost(0.0, "replayed by the harness: no agent, nothing billed")


def member_problems(raw: object, label: str) -> list[str]:
    """Every required member that is missing or of the wrong kind, and a facts object that
    is not a `Facts`, one line each."""
    problems: list[str] = []
    for member in REQUIRED:
        if not hasattr(raw, member):
            problems.append(f"adapter {label} is missing {member}")
        elif member in ("name", "version"):
            value = getattr(raw, member)
            if not isinstance(value, str) or not value:
                problems.append(f"adapter {label}: {member} must be a non-empty string")
        elif not callable(getattr(raw, member)):
            problems.append(f"adapter {label}: {member} must be a method")
    return problems + facts_problems(getattr(raw, "facts", DEFAULT_FACTS), label)


def facts_problems(facts: object, label: str) -> list[str]:
    """What is wrong with a facts object, declared or learned, one line each."""
    if not isinstance(facts, Facts):
        return [f"adapter {label}: facts must be an agent_assay.Facts, not {type(facts).__name__}"]
    problems = scorer_problems(facts, label) + nondeterminism_problems(facts, label)
    problems += path_headline_problems(facts, label)
    return problems + [f"adapter {label}: {why}" for key, kind in facts.settings.items()
                       if (why := type_problem(key, kind)) is not None]


def path_headline_problems(facts: Facts, label: str) -> list[str]:
    """A system whose gold holds no calls has no path scorers, so none may head its claims."""
    if facts.gold_paths:
        return []
    named = [m for m in facts.headline_metrics if m in PATH_SCORERS]
    if not named:
        return []
    return [f"adapter {label}: headline metric {', '.join(named)} holds calls against gold's, "
            "and this system's gold holds none (gold_paths=False); name other metrics"]


FIXED_BEFORE_LOADING = ("settings", "nondeterministic_fields", "gold_paths")
"""Facts read before any source is loaded (resolving a config, checking nondeterminism),
which a system may therefore not change by learning."""


def learned_problems(learned: object, declared: Facts, label: str) -> list[str]:
    """`facts_problems`, and a learned fact that may only be declared."""
    problems = facts_problems(learned, f"{label} (learned facts)")
    if isinstance(learned, Facts):
        problems += [
            f"adapter {label}: learned facts change {name}, which is fixed before a source "
            "is loaded; declare it on the class instead"
            for name in FIXED_BEFORE_LOADING if getattr(learned, name) != getattr(declared, name)
        ]
    return problems


def scorer_problems(facts: Facts, label: str) -> list[str]:
    """A system's scorer may not take a name the harness or another of its scorers uses:
    it would silently replace that metric while the self-test counted both."""
    generic = {s.name for s in default_scorers()}
    taken = set(generic)
    problems = []
    for scorer in facts.scorers:
        if scorer.name.startswith(JUDGED_PREFIX):
            problems.append(
                f"adapter {label}: scorer {scorer.name!r} takes the prefix {JUDGED_PREFIX!r}, "
                "which names the harness's judged scorers; declare JudgesAnswers instead"
            )
        if scorer.name in taken:
            whose = "a generic scorer" if scorer.name in generic else "another of its scorers"
            problems.append(
                f"adapter {label}: scorer {scorer.name!r} ({type(scorer).__name__}) has the name "
                f"of {whose}; give it a name of its own"
            )
        taken.add(scorer.name)
    return problems


def nondeterminism_problems(facts: Facts, label: str) -> list[str]:
    """identical_config skips the fields named nondeterministic, so only fields that can
    decide no headline number may be named: wall-clock and billing trajectory fields, and
    scorers that are measures outside the headline."""
    kinds = {s.name: s.kind for s in (*default_scorers(), *facts.scorers)}
    problems = []
    for name in facts.nondeterministic_fields:
        if name in NONDETERMINISTIC_TRAJECTORY_FIELDS:
            continue
        if kinds.get(name) == "measure" and name not in facts.headline_metrics:
            continue
        why = (
            "is a headline metric" if name in facts.headline_metrics
            else f"is a {kinds[name]} scorer" if name in kinds
            else "is neither latency_ms, cost, meta nor a measure scorer"
        )
        problems.append(
            f"adapter {label}: nondeterministic_fields names {name!r}, which {why}; "
            "identical_config would stop comparing something a headline depends on"
        )
    return problems


def load_system(
    raw: object, name: str | None = None, *, entry_point: str | None = None
) -> LoadedSystem:
    """Check `raw` against the plugin surface and wrap it; one line names what is wrong.
    `entry_point` is the registered name it was made from, when it was."""
    if isinstance(raw, LoadedSystem):
        return raw
    label = name or str(getattr(raw, "name", type(raw).__name__))
    problems = member_problems(raw, label)
    if problems:
        raise AssayError(problems[0] + (f" (and {len(problems) - 1} more: `agent-assay "
                         "check-adapter` lists them)" if len(problems) > 1 else ""))
    assert isinstance(raw, System)
    return LoadedSystem(raw, getattr(raw, "facts", DEFAULT_FACTS), entry_point=entry_point)


@dataclass(frozen=True)
class ReplayView:
    """What replaying needs, whichever capability provides it."""

    replay: Any
    baseline_snapshot: Any
    tool_catalogue: Any
    argument_pools: Any


@dataclass
class LoadedSystem:
    raw: System
    facts: Facts = field(default=DEFAULT_FACTS)
    """The facts in force: declared, then as learned from the source last loaded."""
    entry_point: str | None = None
    _prepared: str | None = field(default=None, repr=False, compare=False)
    declared: Facts = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.declared = self.facts

    def _learn(self) -> None:
        """Ask a system that learns its facts for them, now that it holds a source."""
        if not isinstance(self.raw, LearnsFacts):
            return
        learned = self.raw.learned_facts(self.declared)
        problems = learned_problems(learned, self.declared, self.name)
        if problems:
            raise AssayError(problems[0])
        self.facts = learned

    # ---- identity and the required members ------------------------------------------
    @property
    def name(self) -> str:
        return self.raw.name

    @property
    def version(self) -> str:
        return self.raw.version

    def build_suite(self, source: Path | None = None) -> Suite:
        self._prepared = None  # building may change what the system holds; prepare again
        try:
            suite = self.raw.build_suite(source)
        except AssayError:
            raise
        except Exception as exc:  # a source the adapter cannot read is the user's, not a bug
            raise AssayError(
                f"adapter {self.name} could not build its suite from "
                f"{source if source is not None else 'its bundled set'}: {described(exc)}"
            ) from exc
        if not isinstance(suite, Suite):
            raise AssayError(
                f"adapter {self.name}: build_suite returned {type(suite).__name__}, not a Suite"
            )
        for item in suite.items:
            self._check_storable(item)
        self._learn()
        return suite

    def _check_storable(self, item: Item) -> None:
        """Refuse an item the store could not hold (NaN, a lone surrogate, a value JSON
        has no form for) here, naming it, instead of failing half way through storing."""
        try:
            canonical_json(item.to_json()).encode("utf-8")
        except (ValueError, TypeError, RecursionError) as exc:
            raise AssayError(
                f"adapter {self.name}: item {item.item_id!r} holds a value the store cannot "
                f"keep ({' '.join(str(exc).split())[:160]})"
            ) from exc

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        judged = judging(self.raw)
        return self.raw.configs() if judged is None else with_judge(self.raw.configs(), judged)

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        """The system's own agent (a model config is run by the harness instead: see
        executors.act)."""
        return self.raw.run_item(item, config, seed=seed, repetition=repetition)

    # ---- optional members, with the harness's defaults ------------------------------
    def prepare(self, suite: Suite | PublicSuite) -> None:
        """Hand the system the stored suite's public items, once per suite per process."""
        public = suite.public() if isinstance(suite, Suite) else suite
        if self._prepared != public.suite_hash:
            if isinstance(self.raw, Preparing):
                self.raw.prepare(public)
            self._prepared = public.suite_hash
            self._learn()

    def environment(self, config: Config) -> dict[str, Any]:
        facts: dict[str, Any] = {"adapter": self.name, "adapter_version": self.version}
        if isinstance(self.raw, DescribesEnvironment):
            facts |= dict(self.raw.environment(config))
        return facts

    def affects_results(self) -> frozenset[str]:
        return self.facts.affects_results | {"adapter_version"}

    def deterministic(self, config: Config) -> bool:
        return config.name in self.facts.deterministic_configs and (
            config.params.get("agent") != "model"
        )

    def scorers(self) -> tuple[Scorer, ...]:
        """The generic set, the system's own, and the harness's judged scorer when the
        system has its answers judged."""
        found = (*default_scorers(self.facts.gold_paths), *self.facts.scorers)
        judged = judging(self.raw)
        return found if judged is None else (*found, judged_scorer(judged, found))

    def scoring_context(self) -> ScoringContext:
        view = self.replay_view()
        return ScoringContext(
            arg_normalisers=self.facts.arg_normalisers,
            mutating_tools=frozenset(self.facts.mutating_tools),
            order_anchors=self.facts.order_anchors,
            baseline_state=view.baseline_snapshot() if view else None,
        )

    @property
    def headline(self) -> tuple[str, ...]:
        return self.facts.headline_metrics

    @property
    def model_prompt(self) -> ModelPrompt | None:
        return self.raw.model_prompt if isinstance(self.raw, ModelAgentFacts) else None

    # ---- capabilities ----------------------------------------------------------------
    @property
    def episodes(self) -> Episodes | None:
        return self.raw if isinstance(self.raw, Episodes) else None

    def replay_view(self) -> ReplayView | None:
        """Replay, the baseline, the tool catalogue and argument pools; None without the
        replay capability (declared directly, or through episodes)."""
        if isinstance(self.raw, Replaying):
            raw = self.raw
            return ReplayView(
                raw.replay, raw.baseline_snapshot, raw.tool_catalogue, raw.argument_pools
            )
        episodes = self.episodes
        if episodes is None:
            return None

        def catalogue() -> dict[str, Mapping[str, Any]]:
            return {spec.name: spec.parameters for spec in episodes.tools(None)}

        return ReplayView(
            self._replay_through_episodes, episodes.baseline_snapshot, catalogue,
            episodes.argument_pools,
        )

    def _replay_through_episodes(
        self, item: PublicItem, calls: Sequence[ToolCall], *, seed: int
    ) -> Trajectory:
        assert self.episodes is not None
        return run_calls(self.episodes, item, None, calls, seed=seed, repetition=1)

    def null_agents(self) -> Mapping[str, NullAgent]:
        """The system's own null agents, else doing nothing through the replay path."""
        if isinstance(self.raw, NullAgents):
            return self.raw.null_agents()
        view = self.replay_view()
        if view is None:
            return {}
        replay = view.replay

        def do_nothing(item: PublicItem, config: Config) -> Trajectory:
            trajectory: Trajectory = replay(item, (), seed=0)
            return trajectory

        return {"do_nothing": do_nothing}

    @property
    def recorder(self) -> RecordsWithoutExecuting | None:
        return self.raw if isinstance(self.raw, RecordsWithoutExecuting) else None

    def tool_specs(self, item: PublicItem) -> Sequence[ToolSpec]:
        episodes = self.episodes
        return episodes.tools(item) if episodes is not None else ()


def run_calls(
    episodes: Episodes,
    item: PublicItem,
    config: Config | None,
    calls: Sequence[ToolCall],
    *,
    seed: int,
    repetition: int,
) -> Trajectory:
    """Execute `calls` in a fresh episode, in order: the replay every control relies on.

    On an episode that takes turns, a turn boundary in `calls` asks for the user's next
    turn, and once the calls are spent every turn left is asked for: what the model agent
    does when a model stops calling tools (an agent that says nothing more still hears the
    user out)."""
    started = perf_counter()
    episode = episodes.open_episode(item, config, seed=seed)
    steps = []
    for call in calls:
        if call.tool == USER_TURN and isinstance(episode, TakesTurns):
            steps.append(turn_step(episode.next_turn()))
            continue
        outcome = episode.call(call.tool, dict(call.args))
        steps.append(Step(ToolCall(call.tool, dict(call.args)), outcome.ok, outcome.result,
                          outcome.error))
    while isinstance(episode, TakesTurns) and (turn := episode.next_turn()) is not None:
        steps.append(turn_step(turn))
    ending = episode.finish()
    return Trajectory(
        item_id=item.item_id,
        repetition=repetition,
        steps=tuple(steps),
        final_state=None if ending.final_state is None else dict(ending.final_state),
        outcome=ending.outcome,
        latency_ms=(perf_counter() - started) * 1000.0,
        cost=REPLAYED,
        meta=dict(ending.meta),
    )


def turn_step(turn: UserTurn | None) -> Step:
    """A turn boundary as a trajectory records it: granted with the user's message, or
    failed when the user had nothing more to say."""
    if turn is None:
        return Step(ToolCall(USER_TURN, {}), False, None, "the user has no further turn")
    return Step(ToolCall(USER_TURN, {}), True, turn.message)
