"""Adapter for govsim, the bundled corporate-governance environment.

With governance_scoring, this is the only part of agent-assay that imports govsim.
The suite is N generated worlds (default: 64 eval worlds, medium difficulty, seed 0);
``--source FILE`` names a small YAML file ``{seed, split, n, difficulty}`` instead.

An item's public input is exactly ``Task.public()`` (the request, the entity, the date,
the tool names and budgets: no rule, threshold or requirement graph). Its gold is the
oracle's path as the tool calls ``oracle_replay`` makes (create, one
``record_authorization`` per optimal step, ``execute_action``), the outcome
``executed_valid``, assertions on the world the oracle leaves, and in ``truth`` the
world's generation coordinates (so a scorer regenerates the hidden task and runs
govsim's validator), the oracle's solution and the requirement graph.

Gold's assertions describe the oracle's own final world: the parts any valid path must
share (task, status, the created action) and the parts that are the oracle's choice
(its approvals, its execution with signatory and receipt, its turn count). Like the path
metrics, the state metrics therefore compare an agent with one valid path among many;
they are reported, never headline. The two counters a clean path leaves at zero,
``tool_errors`` and ``preflight_used``, are not asserted, so ``state.collateral``
counts them when an episode touched them.

Each govsim agent is a config; an agent's seed is the config's ``agent_seed`` and its
repetition is the harness repetition minus one, so a k=1 run reproduces govsim's own
``run_episode(task, agent)``. Every agent is a pure function of (task, seed,
repetition), so every config is declared deterministic (``mock`` and ``random`` still
differ between repetitions, by design). ``oracle_replay`` reads the hidden solution:
it is the positive control, never a system under test, and its config says so.

No order anchor is declared. What must come first is the world's own create tool
(create_material_contract, create_equity_grant, ...), and govsim itself refuses approvals
or execution before it: such a call is a tool error, which ``state.collateral`` counts.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass
from datetime import date
from functools import cache
from pathlib import Path
from time import perf_counter
from typing import Any

import govsim
from agent_assay.adapters.system import Ending, Facts, ModelPrompt, ToolOutcome, ToolSpec
from agent_assay.errors import AssayError
from agent_assay.llm.configs import model_params
from agent_assay.model import (
    Config,
    Cost,
    Gold,
    Item,
    PublicItem,
    PublicSuite,
    StateAssertion,
    Step,
    Suite,
    ToolCall,
    Trajectory,
)
from agent_assay.yamlfile import Located, read_located
from agent_assay_bundled.bands import BANDS
from agent_assay_bundled.governance_scoring import (
    EXECUTE,
    HEADLINE,
    RECORD,
    WorldKey,
    governance_scorers,
    remember,
)
from govsim import (
    AGENTS,
    DIFFICULTIES,
    SPLITS,
    TOOL_SPECS,
    Environment,
    Report,
    Solution,
    Task,
    Unsolvable,
    generate_worlds,
    solve,
    validate,
)
from govsim.state import EpisodeState
from govsim.toolspecs import tools_for

FREE = Cost(0.0, "scripted govsim agent: no model calls, nothing billed")
AGENT_SEED = 0
OUTCOME_VALID = "executed_valid"
SPEC_FIELDS = ("seed", "split", "n", "difficulty")
MAX_WORLDS = 10_000
MODEL_INSTRUCTIONS = """\
You are the corporate secretary of a fictional company. Get the requested action validly \
authorised and executed. Find the governing records with search_records and read_record, \
check registers with inspect_register, create the action with the create tool named in \
the request, record each authorisation the records require with record_authorization, \
and finish with execute_action. Use only ids that tool results give you."""
"""The system prompt of every governance model config; its hash is a config parameter."""
MODEL_REQUEST = "{prompt}\nentity: {entity_id}; as of {as_of_date}; create tool: {create_tool}"
PROMPT = ModelPrompt(MODEL_INSTRUCTIONS, MODEL_REQUEST)
MODEL_CONFIGS: dict[str, dict[str, Any]] = {
    name: model_params(
        "SmolLM2-135M-Instruct.Q4_1",
        temperature,
        prompt=PROMPT,
        terminal_tools=("execute_action",),
    )
    for name, temperature in (("smollm2-t0", 0.0), ("smollm2-t07", 0.7))
}
"""Model configs: the same knobs as the banking adapter's (see agent_assay.llm.configs)."""

DETERMINISTIC = frozenset(
    {"random", "search_only", "naive_max_approval", "keyword_heuristic", "oracle_replay", "mock"}
)
"""Agents whose behaviour is a pure function of (task, seed, repetition): random draws from
seeded_rng(task id, seed, repetition), mock's lapse from a stable hash of the same, and
the rest use no randomness at all."""

# Assertions in this order; the first is what a planted flip changes. `execution` is one
# assertion because a None-to-record change is a change of the record's own path too.
ASSERTED = (
    "task_id",
    "action_status",
    "action",
    "execution",
    "authorizations",
    "turns_used",
)

@dataclass(frozen=True)
class WorldSpec:
    """Which worlds make the suite: govsim's generation coordinates."""

    seed: int
    split: str
    n: int
    difficulty: str

    def describe(self) -> str:
        return f"seed {self.seed}, {self.split}, {self.n} worlds, {self.difficulty}"

    @classmethod
    def described_in(cls, text: str) -> WorldSpec | None:
        """The spec a suite's source line names (what `describe` wrote), if it names one."""
        found = re.search(r"seed (\d+), (\w+), (\d+) worlds, (\w+)", text)
        if found is None:
            return None
        seed, split, n, difficulty = found.groups()
        return cls(seed=int(seed), split=split, n=int(n), difficulty=difficulty)


DEFAULT_SPEC = WorldSpec(seed=0, split="eval", n=64, difficulty="medium")

# Worlds generated in this process, by task id (the item id). A worker process forked from
# the runner inherits them; a fresh process regenerates the default suite on demand.
_WORLDS: dict[str, tuple[WorldKey, Task]] = {}
_SUITES: dict[WorldSpec, tuple[Item, ...]] = {}


# ---- the suite file --------------------------------------------------------------------------


def load_spec(path: Path) -> WorldSpec:
    """Read ``{seed, split, n, difficulty}``; any fault names the file and the line."""
    doc = read_located(path, "suite file")
    data = _spec_fields(path, doc)

    def bad(field: str, why: str) -> AssayError:
        return AssayError(f"{doc.at(field)}: field {field!r} {why}, got {data[field]!r}")

    def whole(field: str) -> bool:
        value = data[field]
        return isinstance(value, int) and not isinstance(value, bool)

    if not whole("seed") or data["seed"] < 0:
        raise bad("seed", "must be a non-negative integer")
    if not isinstance(data["split"], str) or data["split"] not in SPLITS:
        raise bad("split", f"must be one of {', '.join(SPLITS)}")
    if not whole("n") or not 1 <= data["n"] <= MAX_WORLDS:
        raise bad("n", f"must be an integer from 1 to {MAX_WORLDS}")
    if not isinstance(data["difficulty"], str) or data["difficulty"] not in DIFFICULTIES:
        raise bad("difficulty", f"must be one of {', '.join(DIFFICULTIES)}")
    return WorldSpec(int(data["seed"]), str(data["split"]), int(data["n"]), data["difficulty"])


def _spec_fields(path: Path, doc: Located) -> dict[Any, Any]:
    """The suite file's mapping, refused unless it holds exactly the spec's fields."""
    data = doc.data
    if not isinstance(data, dict):
        raise AssayError(f"{path}:1: expected a mapping with {_fields()}")
    for key in data:
        if key not in SPEC_FIELDS:
            raise AssayError(f"{doc.at(key)}: unknown field {key!r}; expected {_fields()}")
    missing = [f for f in SPEC_FIELDS if f not in data]
    if missing:
        raise AssayError(f"{path}:1: missing field(s): {', '.join(missing)}")
    return data


def _fields() -> str:
    return "fields " + ", ".join(SPEC_FIELDS)


# ---- worlds and items --------------------------------------------------------------------------


def generate(spec: WorldSpec) -> list[tuple[WorldKey, Task]]:
    """The spec's worlds with their coordinates, registered for running and scoring."""
    worlds = []
    for index, task in enumerate(generate_worlds(spec.seed, spec.split, spec.n, spec.difficulty)):
        key: WorldKey = (spec.seed, spec.split, spec.difficulty, index, task.template_id)
        remember(key, task)
        _WORLDS[task.task_id] = (key, task)
        worlds.append((key, task))
    return worlds


def oracle_calls(task: Task, solution: Solution) -> tuple[ToolCall, ...]:
    """The calls oracle_replay makes: create, each optimal step in order, execute."""
    action = task.action_id
    return (
        ToolCall(task.public().create_tool, dict(solution.create_args)),
        *(ToolCall(RECORD, {"action_id": action, **s.as_dict()}) for s in solution.steps),
        ToolCall(EXECUTE, {"action_id": action, "signatory_person_id": solution.signatory_id}),
    )


def as_json(value: Any) -> Any:
    """A requirement graph (frozen dataclasses, tuples, dates) as plain JSON."""
    if is_dataclass(value) and not isinstance(value, type):
        body = {f.name: as_json(getattr(value, f.name)) for f in fields(value)}
        return {"type": type(value).__name__, **body}
    if isinstance(value, tuple | list):
        return [as_json(v) for v in value]
    if isinstance(value, date):
        return value.isoformat()
    return value


def item_for(key: WorldKey, task: Task) -> Item:
    """One world as an item; the oracle's path is replayed here and must score 1.0."""
    try:
        solution = solve(task)
    except Unsolvable as exc:
        raise AssayError(f"govsim world {task.task_id} {key} has no valid path: {exc}") from exc
    path = oracle_calls(task, solution)
    env = Environment(task)
    for call in path:
        env.call(call.tool, dict(call.args))
    final = env.snapshot()
    report = validate(task, final)
    if report.reward != 1.0:
        codes = ", ".join(d.code.value for d in report.defects)
        raise AssayError(f"the oracle path for {task.task_id} scores {report.reward} ({codes})")
    assertions = tuple(StateAssertion(p, _at(final, p)) for p in ASSERTED)
    seed, split, difficulty, index, template_id = key
    truth = {
        "task_id": task.task_id,
        "action_id": task.action_id,
        "family": task.family,
        "world": {
            "seed": seed,
            "split": split,
            "difficulty": difficulty,
            "index": index,
            "template_id": template_id,
        },
        "oracle": solution.as_dict(),
        "requirements": as_json(task.graph),
        "max_turns": task.max_turns,
    }
    public = task.public()
    return Item(
        item_id=task.task_id,
        input=public.as_dict(),
        gold=Gold(path=path, outcome=OUTCOME_VALID, assertions=assertions, truth=truth),
        tags=(f"family:{public.family}", f"difficulty:{public.difficulty}"),
    )


def _at(state: Mapping[str, Any], path: str) -> Any:
    node: Any = state
    for part in path.split("."):
        node = node[part]
    return node


def build_items(spec: WorldSpec) -> tuple[Item, ...]:
    """Generate the spec's worlds, solve each and replay its oracle path: no cache."""
    return tuple(item_for(key, task) for key, task in generate(spec))


def suite_items(spec: WorldSpec) -> tuple[Item, ...]:
    """build_items, once per spec per process (items are immutable)."""
    if spec not in _SUITES:
        _SUITES[spec] = build_items(spec)
    else:
        generate(spec)  # re-register the worlds (cheap), in case a caller cleared them
    return _SUITES[spec]


def outcome_of(report: Report) -> str:
    if report.valid:
        return OUTCOME_VALID
    return "executed_invalid" if report.executed else "not_executed"


def steps_from(log: Iterable[Mapping[str, Any]]) -> tuple[Step, ...]:
    """env.log as Steps: the proposal, and the envelope's ok, result and error."""
    steps = []
    for entry in log:
        args = entry.get("args")
        if args is None:
            args = {}
        elif not isinstance(args, dict):
            args = {"__not_an_object__": args}
        reply = entry["response"]
        steps.append(
            Step(
                ToolCall(str(entry["tool"]), args),
                ok=bool(reply["ok"]),
                result=reply.get("result"),
                error=reply.get("error"),
            )
        )
    return tuple(steps)


@cache
def govsim_digest() -> str:
    """A digest of govsim's source and data files: any change can change results."""
    root = Path(govsim.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".yaml") and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def public_pools(tasks: Iterable[Task]) -> dict[str, list[Any]]:
    """Ids an agent can see through the tools (registers, records, create replies)."""
    kinds = "entities people bodies parties classes records disclosures days actions groups"
    ids: dict[str, set[Any]] = {kind: set() for kind in kinds.split()}
    for task in tasks:
        world, day = task.world, task.request.day
        ids["entities"] |= {e.entity_id for e in world.entities}
        ids["people"] |= {p.person_id for p in world.people}
        ids["bodies"] |= {b.body_id for b in world.bodies}
        ids["parties"] |= {q.party_id for q in world.parties}
        ids["classes"] |= {c.class_id for c in world.classes}
        ids["records"] |= {r.record_id for r in world.records}
        ids["disclosures"] |= {
            r.record_id for r in world.records if r.record_type == "conflict_disclosure"
        }
        ids["days"].add(day.isoformat())
        ids["actions"].add(task.action_id)
        for body in world.bodies:
            voters = (
                tuple(world.holdings(body.class_id or ""))
                if body.kind == "holders"
                else world.members(body.body_id, day)
            )
            ids["groups"].add(voters)
    people, parties = sorted(ids["people"]), sorted(ids["parties"])
    singles = [[p] for p in people]
    return {
        "entity_id": sorted(ids["entities"]),
        "record_id": sorted(ids["records"]),
        "as_of_date": sorted(ids["days"]),
        "action_id": sorted(ids["actions"]),
        "authorizer_id": sorted(ids["bodies"] | ids["parties"] | ids["people"]),
        "participant_ids": [list(g) for g in sorted(ids["groups"])] + [[q] for q in parties],
        "recused_ids": [[], *singles],
        "disclosure_record_ids": [[], *([r] for r in sorted(ids["disclosures"]))],
        "signatory_person_id": people,
        "recipient_person_id": people,
        "related_person_id": people,
        "investor_id": sorted(ids["parties"] | ids["people"]),
        "lender_id": parties,
        "security_class_id": sorted(ids["classes"]),
    }


# ---- the adapter -------------------------------------------------------------------------------


def _verdict(report: Report) -> dict[str, Any]:
    return {
        "reward": report.reward,
        "valid": report.valid,
        "defects": [d.code.value for d in report.defects],
    }


class GovernanceEpisode:
    """One world for one item; the ending carries govsim's validator verdict."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.env = Environment(task)

    def call(self, tool: str, args: Mapping[str, Any]) -> ToolOutcome:
        envelope = self.env.call(tool, dict(args))
        return ToolOutcome(bool(envelope.get("ok")), envelope.get("result"), envelope.get("error"))

    def finish(self) -> Ending:
        final = self.env.snapshot()
        report = validate(self.task, final)
        return Ending(final, outcome_of(report), {"validator": _verdict(report)})


class GovernanceAdapter:
    """Configs: random, search_only (negative controls), naive_max_approval,
    keyword_heuristic (public baselines), mock (oracle-guided, seeded lapses) and
    oracle_replay (the positive control); model configs run the harness's model agent."""

    name = "governance"
    facts = Facts(
        bands=BANDS / "governance.yaml",
        headline_metrics=HEADLINE,
        mutating_tools=tuple(sorted(spec.name for spec in TOOL_SPECS if spec.mutating)),
        # govsim compares ids and the request's economics exactly, and so must we: no
        # normalisers. Latency, and meta: a model run's meta holds each request's timing
        # (the validator's verdict there is compared anyway, as the reward score).
        nondeterministic_fields=("latency_ms", "latency.total_ms", "meta"),
        affects_results=frozenset({"adapter_version", "govsim_digest", "agent_seed"}),
        deterministic_configs=DETERMINISTIC,
        scorers=tuple(governance_scorers()),
    )
    model_prompt = PROMPT

    def __init__(self, version: str = "1.0.0") -> None:
        self.version = version
        self._tasks: tuple[Task, ...] | None = None

    # ---- suite and configs -----------------------------------------------------------------
    def build_suite(self, source: Path | None = None) -> Suite:
        spec = DEFAULT_SPEC if source is None else load_spec(Path(source))
        items = suite_items(spec)
        self._tasks = tuple(_WORLDS[item.item_id][1] for item in items)
        where = f"{source} ({spec.describe()})" if source else f"govsim: {spec.describe()}"
        return Suite(adapter=self.name, items=items, source=where)

    def prepare(self, suite: PublicSuite) -> None:
        """Regenerate the hidden worlds behind a stored suite from the spec its source names.

        Generation is a pure function of (seed, split, n, difficulty), so a fresh process
        rebuilds exactly the worlds the suite was built from, from public facts alone (the
        harness hands the run side no gold); task_of still checks that each world's public
        view equals the item's, so a source line that names other worlds is caught.
        """
        spec = WorldSpec.described_in(suite.source)
        if spec is None:
            raise AssayError(
                f"governance suite {suite.suite_hash[:12]}: its source {suite.source!r} names "
                "no govsim spec; build the suite again with this version"
            )
        generate(spec)
        missing = [item.item_id for item in suite.items if item.item_id not in _WORLDS]
        if missing:
            raise AssayError(
                f"governance suite {suite.suite_hash[:12]}: world {missing[0]} is not among "
                f"the worlds of {spec.describe()} (its source line was edited?)"
            )
        self._tasks = tuple(_WORLDS[item.item_id][1] for item in suite.items)

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        scripted = {
            name: {
                "agent": name,
                "role": spec.role,
                "reads_hidden_state": spec.reads_hidden_state,
                "positive_control": spec.role == "positive_control",
                "agent_seed": AGENT_SEED,
            }
            for name, spec in AGENTS.items()
        }
        return {**scripted, **MODEL_CONFIGS}

    # ---- the scripted agents -----------------------------------------------------------------
    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        name = str(config.params["agent"])
        if name not in AGENTS:
            raise AssayError(f"unknown govsim agent {name!r} (known: {', '.join(AGENTS)})")
        agent, agent_seed = AGENTS[name], int(config.params["agent_seed"])
        started = perf_counter()
        episode = self.open_episode(item, config, seed=seed)
        agent(episode.task.public(), episode.env, seed=agent_seed, repetition=repetition - 1)
        ending = episode.finish()
        meta = {"agent": name, "agent_seed": agent_seed, "govsim_repetition": repetition - 1}
        return Trajectory(
            item_id=item.item_id,
            repetition=repetition,
            steps=steps_from(episode.env.log),
            final_state=ending.final_state,
            outcome=ending.outcome,
            latency_ms=(perf_counter() - started) * 1000.0,
            cost=FREE,
            meta={**meta, **ending.meta},
        )

    # ---- the worlds as environments the harness drives ---------------------------------------
    def open_episode(
        self, item: PublicItem, config: Config | None, *, seed: int
    ) -> GovernanceEpisode:
        return GovernanceEpisode(self.task_of(item))

    def tools(self, item: PublicItem | None) -> Sequence[ToolSpec]:
        """Every govsim tool, or the ones a world accepts (the base tools and its create tool)."""
        specs = TOOL_SPECS if item is None else tools_for(str(item.input["family"]))
        return [ToolSpec(s.name, s.description, s.parameters) for s in specs]

    def baseline_snapshot(self) -> dict[str, Any]:
        """A fresh episode's snapshot before any world is chosen (task_id None)."""
        return {**EpisodeState().snapshot(""), "task_id": None}

    def argument_pools(self) -> Mapping[str, Sequence[Any]]:
        return public_pools(self._worlds())

    def task_of(self, item: PublicItem) -> Task:
        """The hidden world behind a public item: generated in this process, never sent."""
        task_id = str(item.input.get("task_id", item.item_id))
        if task_id not in _WORLDS:
            generate(DEFAULT_SPEC)
        if task_id not in _WORLDS:
            raise AssayError(
                f"govsim world {task_id} is not known in this process and is not in the default "
                "suite: build its suite (--source FILE) in the same process before running it"
            )
        task = _WORLDS[task_id][1]
        if task.public().as_dict() != dict(item.input):
            raise AssayError(f"item {item.item_id}: public input does not match world {task_id}")
        return task

    def environment(self, config: Config) -> Mapping[str, Any]:
        return {
            "system": "govsim",
            "govsim_digest": govsim_digest(),
            "agent": config.params.get("agent"),
            "role": config.params.get("role"),
            "reads_hidden_state": config.params.get("reads_hidden_state"),
            "positive_control": bool(config.params.get("positive_control")),
            "agent_seed": config.params.get("agent_seed"),
            "govsim_repetition": "harness repetition - 1",
        }

    def _worlds(self) -> tuple[Task, ...]:
        if self._tasks is None:
            self._tasks = tuple(task for _, task in generate(DEFAULT_SPEC))
        return self._tasks
