"""valid-action's oracle plan, its offline path and its own baselines, for the verifiers
adapter.

Everything here reads the environment's installed package; nothing of it is copied. The
oracle plan is what its DP oracle says, written as the calls a model would make through the
framework: the create tool of the task's action family with the request's terms, one
`tool_record_authorization` per oracle step, and `tool_execute_action` with the oracle's
signatory (the names are the tool functions' own, which is what verifiers offers). The
action id the later calls need is the one the environment's create function returns for
the world.

The offline path calls the same tool functions directly on a fresh state of the world and
scores with the environment's `compute_reward`, which is how its own scripts measure a
policy. `published_baselines` runs those scripts as shipped.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError
from agent_assay_bundled.verifiers_env.bridge import OfflineCall, OfflineResult
from agent_assay_bundled.verifiers_env.rollout import Task
from agent_assay_bundled.verifiers_env.scripted import Call

AUTHORIZE = "tool_record_authorization"
EXECUTE = "tool_execute_action"
BASELINES_SCRIPT = Path("scripts") / "baselines.py"


def _core() -> Any:
    from valid_action.core import models, scoring, tools

    return models, scoring, tools


def _plain(value: Any) -> Any:
    """A request attribute as the JSON a model would send."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def world_of(task: Task) -> Any:
    """The task's hidden world, typed, as the environment's generator makes it.

    The task carries the world as JSON, and the world's model does not rebuild its
    requirement graph from JSON (the field is untyped), so the world is generated again
    from the split, seed and index the task names, and its fingerprint checked against
    the task's."""
    from valid_action.core.generator import generate_world
    from valid_action.core.serialization import compute_fingerprint

    models, _, _ = _core()
    info = task.task["info"]
    world = generate_world(split=str(info["split"]), index=int(info["index"]),
                           difficulty=models.Difficulty(info["world"]["difficulty"]),
                           seed=int(info["world_seed"]))
    if compute_fingerprint(world) != info.get("fingerprint"):
        raise AssayError(f"valid-action task {task.example_id}: the world generated from its "
                         "split, seed and index does not match its fingerprint")
    return world


def fresh_state(world: Any, task: Task | None = None) -> dict[str, Any]:
    """The per-rollout state the environment's setup builds, holding the typed world."""
    info = (task.task.get("info") if task is not None else None) or {}
    max_turns = int(task.task.get("max_turns", 14)) if task is not None else 14
    return {
        "world": world, "created_action": None, "authorization_attempts": [],
        "execution_attempt": None, "event_log": [],
        "preflight_remaining": int(info.get("preflight_budget", 1)), "preflight_used": 0,
        "documents_read": [], "search_queries": [], "register_inspections": [],
        "tool_errors": [], "score_breakdown": {}, "validation_result": None,
        "turn_count": 0, "max_search_results": int(info.get("max_search_results", 5)),
        "runtime": {"max_turns": max_turns},
    }


def tool_functions() -> dict[str, Callable[..., str]]:
    """Every tool function of the environment, by the name verifiers offers it under."""
    _, _, tools = _core()
    found: dict[str, Callable[..., str]] = dict(tools.ALL_CREATE_TOOL_FUNCTIONS)
    for function in (*tools.search_read_toolset(), *tools.auth_toolset()):
        found[function.__name__] = function
    return found


def create_call(world: Any) -> Call:
    """The create call for the world's request: each of the create function's parameters
    filled from the request attribute of the same name (the effective date is the action
    date)."""
    request = world.action_request
    name = f"create_{request.action_type.value}"
    function = tool_functions()[name]
    arguments: dict[str, Any] = {}
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            continue
        attribute = "action_date" if parameter.name == "effective_date" else parameter.name
        value = getattr(request, attribute, None)
        if value is None and parameter.default is not inspect.Parameter.empty:
            continue
        arguments[parameter.name] = _plain(value)
    return Call(name, arguments)


def run_offline(world: Any, plan: Sequence[Call], task: Task | None = None, *,
                as_stored: bool = False) -> tuple[dict[str, Any], list[OfflineCall]]:
    """`plan` through the tool functions on a fresh state: the state, and each call's
    outcome in order (an unknown tool or a raised exception is a failed call).

    `as_stored`: the state holds the world as the environment's rollout setup stores it
    (its JSON dump), not as the typed object the baselines script hands the tools; the
    same tool code then takes another branch."""
    functions = tool_functions()
    state = fresh_state(world, task)
    if as_stored:
        state["world"] = world.model_dump(mode="json")
    outcomes: list[OfflineCall] = []
    for call in plan:
        function = functions.get(call.tool)
        if function is None:
            outcomes.append(OfflineCall(False, error=f"no tool named {call.tool}"))
            continue
        try:
            result = function(**dict(call.arguments), state=state, task={})
        except Exception as exc:  # the environment's code, observed as a failed call
            outcomes.append(OfflineCall(False, error=f"raised {type(exc).__name__}: {exc}"))
        else:
            outcomes.append(OfflineCall(True, result=str(result)))
    return state, outcomes


class ValidActionBridge:
    """The bridge the verifiers adapter finds for the environment id `valid-action`."""

    ceiling = 1.0

    def oracle_plan(self, task: Task) -> list[Call]:
        world = world_of(task)
        create = create_call(world)
        state, _ = run_offline(world, [create], task)
        created = state.get("created_action")
        plan = [create]
        if created is None:
            return plan
        oracle = world.oracle_solution
        for step in oracle.authorization_steps:
            plan.append(Call(AUTHORIZE, {
                "action_id": created.action_id, "authorizer_id": step.authorizer_id,
                "method": _plain(step.method), "participant_ids": list(step.participant_ids),
                "recused_ids": list(step.recused_ids),
                "disclosure_record_ids": list(step.disclosure_record_ids),
            }))
        if oracle.signatory_person_ids:
            plan.append(Call(EXECUTE, {"action_id": created.action_id,
                                       "signatory_person_id": oracle.signatory_person_ids[0]}))
        return plan

    def tags(self, task: Task) -> tuple[str, ...]:
        world = world_of(task)
        return (world.action_request.action_type.value, f"template:{world.world_template_id}")

    def argument_pools(self, tasks: Sequence[Task]) -> dict[str, list[str]]:
        """The ids the worlds' records and registers name, by the argument that takes
        them (any id of its kind, from any world: a wrong one is still well-formed)."""
        pools: dict[str, set[str]] = {"entity_id": set(), "authorizer_id": set(),
                                      "signatory_person_id": set(), "record_id": set()}
        for task in tasks:
            world = task.task["info"]["world"]
            pools["entity_id"] |= {e["entity_id"] for e in world["entities"]}
            people = {p["person_id"] for p in world["people"]}
            pools["signatory_person_id"] |= people
            pools["authorizer_id"] |= people | {b["body_id"] for b in world["bodies"]}
            pools["record_id"] |= {r["record_id"] for r in world["records"]}
        return {name: sorted(values) for name, values in pools.items()}

    def offline_reward(self, task: Task, plan: Sequence[Call], *,
                       as_stored: bool = False) -> OfflineResult:
        """The reward the environment's `compute_reward` gives `plan` on the typed world
        (see `run_offline` for `as_stored`)."""
        models, scoring, _ = _core()
        world = world_of(task)
        state, outcomes = run_offline(world, plan, task, as_stored=as_stored)
        execution = state.get("execution_attempt") or models.ExecutionAttempt(
            execution_id="none", action_id="none", signatory_person_id="unknown",
            timestamp_step=0, valid=False, defect_codes=[])
        breakdown, _ = scoring.compute_reward(world, state.get("created_action"),
                                              state.get("authorization_attempts", []),
                                              execution)
        return OfflineResult(float(breakdown.reward), tuple(outcomes), {
            "execution_valid": float(bool(breakdown.valid)),
            "validation_defects": float(len(breakdown.defect_codes))})


def _script(folder: Path) -> Any:
    """The environment's baselines script, imported from its folder (once per process)."""
    script = folder / BASELINES_SCRIPT
    if not script.is_file():
        raise AssayError(f"{folder}: no {BASELINES_SCRIPT} (the environment's offline "
                         "baselines)")
    name = f"_assay_valid_action_baselines_{abs(hash(str(script.resolve())))}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, script)
        if spec is None or spec.loader is None:
            raise AssayError(f"{script}: cannot be imported")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


@contextmanager
def _recording(module: Any) -> Iterator[list[Call]]:
    """While open, every tool function the script's namespace holds (directly, or in a
    dispatch table) records the call it is given, named as the framework offers it, and
    then runs as before."""
    names = {id(function): name for name, function in tool_functions().items()}
    made: list[Call] = []

    def recorded(function: Callable[..., str]) -> Callable[..., str]:
        signature = inspect.signature(function)

        def call(*args: Any, **kwargs: Any) -> str:
            bound = signature.bind_partial(*args, **kwargs).arguments
            made.append(Call(names[id(function)], {
                key: _plain(value) for key, value in bound.items()
                if key not in ("state", "task")}))
            return function(*args, **kwargs)

        return call

    namespace = vars(module)
    saved = dict(namespace)
    for key, value in saved.items():
        if id(value) in names:
            namespace[key] = recorded(value)
        elif isinstance(value, dict) and any(id(v) in names for v in value.values()):
            namespace[key] = {k: recorded(v) if id(v) in names else v for k, v in value.items()}
    try:
        yield made
    finally:
        namespace.update(saved)


def baseline_plans(folder: Path, task: Task, seed: int) -> dict[str, list[Call]]:
    """Each baseline of the environment's own script, run on `task`'s world as the script
    runs it (a fresh state, the script's seed), as the calls it made: the same policies,
    ready to drive through the rollout path or the offline path."""
    module = _script(folder)
    plans: dict[str, list[Call]] = {}
    for name, policy in module.BASELINES.items():
        world = world_of(task)
        with _recording(module) as made:
            policy(world, fresh_state(world, task), seed=seed)
        plans[str(name)] = list(made)
    return plans


def script_tasks(num_examples: int, seed: int, difficulty: str) -> list[Task]:
    """The worlds the baselines script evaluates (its `generate_dataset` call, which does
    not apply the environment's split seeds), as tasks the offline path can take: each
    names the coordinates `world_of` regenerates it from, and its fingerprint."""
    from valid_action.core.generator import generate_dataset
    from valid_action.core.serialization import compute_fingerprint

    models, _, _ = _core()
    worlds = generate_dataset(split="eval", difficulty=models.Difficulty(difficulty),
                              seed=seed, num_examples=num_examples)
    return [Task(str(index), {}, {"info": {
        "split": "eval", "index": index, "world_seed": world.seed,
        "fingerprint": compute_fingerprint(world), "world": {"difficulty": difficulty}}})
        for index, world in enumerate(worlds)]


def published_baselines(folder: Path, args: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The environment's own baselines script, run as shipped, on the sizes `args` give
    (its defaults otherwise); its JSON as printed."""
    script = folder / BASELINES_SCRIPT
    if not script.is_file():
        raise AssayError(f"{folder}: no {BASELINES_SCRIPT} (the environment's offline "
                         "baselines)")
    command = [sys.executable, str(script)]
    for flag, key in (("--examples", "num_eval"), ("--seed", "seed"),
                      ("--difficulty", "difficulty")):
        if key in args:
            command += [flag, str(args[key])]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise AssayError(f"{script}: exited {done.returncode}: {last}")
    try:
        rows: list[dict[str, Any]] = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise AssayError(f"{script}: did not print JSON ({exc})") from exc
    return rows
