"""The plugin surface: what a system under test implements, and everything it may declare.

Five members are required: ``name``, ``version``, ``build_suite``, ``configs`` and
``run_item``. Everything else has a default. Facts about the system live in one
frozen `Facts` object (``facts = Facts(...)`` on the class). Optional
capabilities are small protocols below. The harness finds them with
``isinstance`` and nowhere else: if a hook is not declared here, the core does
not look for it. A control that needs a capability the system lacks reports
NOT_RUN with that capability's name.

- `Preparing`: ``prepare(suite)``. A fresh process (a resumed run, a worker, a
  control's twin) receives the stored suite's public items before it runs
  anything; gold never crosses to the run side.
- `Episodes`: ``open_episode``, ``tools``, ``baseline_snapshot`` and
  ``argument_pools``. The system is an environment the harness can drive. The
  harness then replays paths through it, runs a do-nothing agent in it, and
  drives a model through it (the generic tool-calling loop), with no agent code
  in the system.
- `TakesTurns` (on an episode): ``next_turn()``, for a multi-turn item whose user speaks
  again once the agent stops calling tools. Replays and the model agent ask it at the same
  points (see `model.USER_TURN`), so an episode cannot tell which drives it.
- `Replaying`: ``replay``, ``baseline_snapshot``, ``tool_catalogue`` and
  ``argument_pools``, for a system that replays a path without exposing episodes.
- `NullAgents`: named do-nothing agents (`Episodes` and `Replaying` imply one).
- `RecordsWithoutExecuting`: ``record_without_executing``, for a system that
  cannot execute (imported results): gold's path recorded as if it had run.
- `DescribesEnvironment`: ``environment(config)``, facts recorded with a run
  beside the adapter name and version.
- `ModelAgentFacts`: the prompt the harness's model agent uses on this system.
- `JudgesAnswers`: yes/no questions a model judge asks of each item's final answer, the
  labelled answers it is calibrated on, the judge model and the deterministic metric it
  may only lower (see `scoring.judging`).
- `LearnsFacts`: ``learned_facts(declared)``, for a system whose facts depend on the
  source it loaded (a benchmark's suite decides which tools change its world): asked
  again after every ``build_suite`` and ``prepare``.

Scorer-side hooks (planting defects, judges) are declared in `scoring.base`.
This module imports no system under test.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agent_assay.model import Config, Gold, PublicItem, PublicSuite, Suite, ToolCall, Trajectory
from agent_assay.scoring.base import Scorer
from agent_assay.scoring.judging import JudgeAsk, JudgedQuestion, JudgeModel, LabelledAnswer

REQUIRED = ("name", "version", "build_suite", "configs", "run_item")
# the trajectory fields a system may declare nondeterministic (identical_config checks
# on the certified run that blanking them changes no headline score)
NONDETERMINISTIC_TRAJECTORY_FIELDS = ("latency_ms", "cost", "meta")
"""The members every system must have; `check-adapter` and loading name the missing ones."""

GENERIC_HEADLINE = ("trajectory.exact", "tools.recall", "state.assertions", "outcome.match")


@dataclass(frozen=True)
class Facts:
    """What a system states about itself, so no scorer or control has to guess it.

    Every field has a default, and a system declares only what differs.
    """

    headline_metrics: tuple[str, ...] = GENERIC_HEADLINE
    """The metrics this system's claims rest on; the controls judge these."""
    mutating_tools: tuple[str, ...] = ()
    """Tools that change the world (state scorers and mutation operators use them)."""
    order_anchors: Mapping[str, str] = field(default_factory=dict)
    """Which tool must succeed before a mutating call: mutating tool (or ``"*"`` for every
    mutating tool) -> its anchor, so each tool family can have its own."""
    arg_normalisers: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    """tool -> argument -> names of generic normalisers (see scoring.base.NORMALISERS)."""
    nondeterministic_fields: tuple[str, ...] = ("latency_ms", "latency.total_ms")
    """What may differ between identical runs: latency_ms, cost, meta, and measure scorers
    outside the headline; anything else is refused when the system is loaded."""
    affects_results: frozenset[str] = frozenset({"adapter_version"})
    """Environment keys that make two runs incomparable when they differ."""
    deterministic_configs: frozenset[str] = frozenset()
    """Configs whose repeats are claimed identical (a claim identical_config tests)."""
    scorers: tuple[Scorer, ...] = ()
    """Scorers specific to this system, appended to the generic set."""
    gold_paths: bool = True
    """Whether gold holds the calls an answer should make. A system whose gold is only a
    target answer (a question-and-answer sample) says False: the generic scorers that hold
    calls against gold's (`scoring.registry.PATH_SCORERS`) are then left out of its scorer
    set, so none scores every call wrong, and its headline must name other metrics."""
    bands: Path | None = None
    """A YAML file of band overrides (each with its derivation) and of controls this system
    declares not applicable; the harness's expected.yaml holds the defaults."""
    settings: Mapping[str, type] = field(default_factory=dict)
    """Config parameters a person may set for one run (`run -M key=value`), each with its
    type (bool, int, float or str): a config holding one has it settable, its own value the
    default, and a set value is part of the config hash (see `adapters.settings`)."""


DEFAULT_FACTS = Facts()


@runtime_checkable
class System(Protocol):
    """The five required members."""

    name: str
    version: str

    def build_suite(self, source: Path | None = None) -> Suite:
        """A pure function of what is on disk: same source, same suite hash."""
        ...

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        """Named configurations; each becomes a content-hashed Config."""
        ...

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        """Run the agent on one public item. Gold is not reachable from `item`."""
        ...


@dataclass(frozen=True)
class ToolSpec:
    """A tool as an agent sees it: a name, a description and JSON-schema parameters."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True)
class ToolOutcome:
    """What the environment did with one call."""

    ok: bool
    result: Any = None
    error: str | None = None


@dataclass(frozen=True)
class Ending:
    """Where an episode left the world: its final state, its outcome, and anything the
    system wants kept with the trajectory (a validator's verdict, say)."""

    final_state: Mapping[str, Any] | None
    outcome: str | None
    meta: Mapping[str, Any] = field(default_factory=dict)


class Episode(Protocol):
    """One fresh world for one item: calls go in, an ending comes out."""

    def call(self, tool: str, args: Mapping[str, Any]) -> ToolOutcome: ...

    def finish(self) -> Ending: ...


@dataclass(frozen=True)
class UserTurn:
    """The user's next message in a multi-turn episode, and the tools offered from then
    on (None: the same as before)."""

    message: str
    tools: tuple[ToolSpec, ...] | None = None


@runtime_checkable
class TakesTurns(Protocol):
    """An episode whose user speaks more than once."""

    def next_turn(self) -> UserTurn | None:
        """The next user turn, or None when the user has nothing more to say."""
        ...


@runtime_checkable
class Preparing(Protocol):
    def prepare(self, suite: PublicSuite) -> None:
        """Receive the stored suite's public items before any of them is run or replayed."""
        ...


@runtime_checkable
class Episodes(Protocol):
    def open_episode(self, item: PublicItem, config: Config | None, *, seed: int) -> Episode:
        """A fresh world for `item` (config None: the default world, for replays)."""
        ...

    def tools(self, item: PublicItem | None) -> Sequence[ToolSpec]:
        """The tools offered on `item` (None: every tool the system has)."""
        ...

    def baseline_snapshot(self) -> dict[str, Any]:
        """The world before any agent acts, in the shape trajectories' final_state uses."""
        ...

    def argument_pools(self) -> Mapping[str, Sequence[Any]]:
        """argument name -> valid values, for random and mutated calls."""
        ...


@runtime_checkable
class Replaying(Protocol):
    def replay(self, item: PublicItem, calls: Sequence[ToolCall], *, seed: int) -> Trajectory:
        """Execute `calls` in order from the baseline world: the path a real agent takes."""
        ...

    def baseline_snapshot(self) -> dict[str, Any]: ...

    def tool_catalogue(self) -> Mapping[str, Mapping[str, Any]]:
        """tool name -> JSON-schema parameters."""
        ...

    def argument_pools(self) -> Mapping[str, Sequence[Any]]: ...


NullAgent = Callable[[PublicItem, Config], Trajectory]
"""A do-nothing agent: it must make no tool calls."""


@runtime_checkable
class NullAgents(Protocol):
    def null_agents(self) -> Mapping[str, NullAgent]: ...


@runtime_checkable
class RecordsWithoutExecuting(Protocol):
    def record_without_executing(self, item: PublicItem, calls: Sequence[ToolCall]) -> Trajectory:
        """Gold's calls recorded as if they had succeeded, for a system that cannot run."""
        ...


@runtime_checkable
class DescribesEnvironment(Protocol):
    def environment(self, config: Config) -> Mapping[str, Any]:
        """Facts recorded with a run (system versions, seeds), beside adapter and version."""
        ...


@dataclass(frozen=True)
class ModelPrompt:
    """What the harness's model agent tells the model on this system. ``request`` is
    formatted with the item's public input; its hash is part of every model config."""

    instructions: str
    request: str = "{request}"


@runtime_checkable
class LearnsFacts(Protocol):
    def learned_facts(self, declared: Facts) -> Facts:
        """The facts that hold for the source now loaded: `declared` (the class's own
        ``facts``) with what the source adds, such as its mutating tools, order anchors,
        argument normalisers, scorers, headline metrics or bands. ``settings`` and
        ``nondeterministic_fields`` are fixed before a source is loaded, so they must be
        returned as declared."""
        ...


@runtime_checkable
class NamesSources(Protocol):
    def names_source(self, text: str) -> bool:
        """Whether `text`, which names no file, is a source this system resolves itself (a
        benchmark's registry name): `--source` then reaches `build_suite` as given, where
        any other missing file is refused before a store is opened."""
        ...


@runtime_checkable
class ModelAgentFacts(Protocol):
    model_prompt: ModelPrompt


@runtime_checkable
class JudgesAnswers(Protocol):
    """A system whose final answers a model judge checks, as a brake only.

    The harness adds the scorer ``judged.<judge_brakes>`` (the deterministic verdict,
    lowered where the judge does not confirm the answer), folds ``judge_model`` into every
    config's parameters (so the judge is part of the config hash), and judge_calibration
    measures the judge on ``labelled_answers`` before any run it scored is admissible."""

    judge_model: JudgeModel
    judge_brakes: str
    """The deterministic binary metric the judge may lower, never raise."""

    def judged_questions(self, item_id: str, gold: Gold) -> Sequence[JudgedQuestion]:
        """The questions asked of this item's final answer (empty: the judge is not asked)."""
        ...

    def labelled_answers(self) -> Sequence[LabelledAnswer]:
        """Answers a person labelled question by question: what the judge is measured on."""
        ...

    def judge_backend(self) -> JudgeAsk:
        """The function that puts a prompt to the judge model (tests: a scripted one)."""
        ...
