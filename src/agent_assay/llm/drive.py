"""The harness's model agent on any system with episodes: no model code in the system.

The system offers its tools for the item and executes each call in a fresh
episode; the model sees the system's instructions and its request (the item's
public input formatted into the system's template). The config records the
prompt's hash, and a config made for another prompt is refused.

Here the harness sees the seam between agent and environment that a system's own
`run_item` hides: an environment that raises while it sets up the world, executes a
call or ends the episode is `EnvironmentFailed`, a crash of the harness's side that
measures nothing; whatever the model does is the agent's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from time import perf_counter
from typing import Any

from agent_assay.adapters.loaded import LoadedSystem
from agent_assay.adapters.system import TakesTurns, ToolOutcome, UserTurn
from agent_assay.errors import AssayError, EnvironmentFailed, described
from agent_assay.llm.configs import loop_settings, prompt_sha256
from agent_assay.llm.endpoint import resolve_endpoint
from agent_assay.llm.loop import AgentLoop, LoopResult
from agent_assay.model import Config, PublicItem, Trajectory


def trajectory_of(
    result: LoopResult,
    *,
    item_id: str,
    repetition: int,
    final_state: Mapping[str, Any] | None,
    outcome: str | None,
    latency_ms: float,
    meta: Mapping[str, Any] | None = None,
) -> Trajectory:
    """The episode as the harness stores it; request records and usage go to meta."""
    return Trajectory(
        item_id=item_id,
        repetition=repetition,
        steps=result.steps,
        final_state=final_state,
        outcome=outcome,
        latency_ms=latency_ms,
        cost=result.cost(),
        meta={**result.meta(), **(meta or {})},
    )


@contextmanager
def environment_step(what: str) -> Iterator[None]:
    """The system's environment doing `what` for the harness's model agent: if it raises,
    the environment failed (a tool reports a refused call as a failed outcome, it does not
    raise), so the slot is the harness's crash, not the model's."""
    try:
        yield
    except Exception as exc:
        raise EnvironmentFailed(f"the environment failed to {what}: {described(exc)}") from exc


def model_episode(
    system: LoadedSystem, item: PublicItem, config: Config, *, seed: int, repetition: int
) -> Trajectory:
    episodes, prompt = system.episodes, system.model_prompt
    if episodes is None or prompt is None:
        raise AssayError(
            f"config {config.name} runs the harness's model agent, which needs adapter "
            f"{system.name} to declare episodes and a model prompt"
        )
    if config.params.get("prompt_sha256") != prompt_sha256(prompt.instructions, prompt.request):
        raise AssayError(
            f"config {config.name} was made for another prompt than adapter {system.name}'s"
        )
    started = perf_counter()
    with environment_step("set up a fresh world"):
        episode = episodes.open_episode(item, config, seed=seed)

    def execute(tool: str, args: dict[str, Any]) -> ToolOutcome:
        with environment_step(f"execute {tool}"):
            return episode.call(tool, args)

    try:
        request = prompt.request.format(**item.input)
    except (KeyError, IndexError, ValueError) as exc:
        raise AssayError(
            f"adapter {system.name}: its model request template does not fit item "
            f"{item.item_id}'s input ({type(exc).__name__}: {exc})"
        ) from exc
    loop = AgentLoop(resolve_endpoint(config.params), loop_settings(config.params, seed))
    takes_turns = episode if isinstance(episode, TakesTurns) else None

    def next_turn() -> UserTurn | None:
        assert takes_turns is not None
        with environment_step("give the user's next turn"):
            return takes_turns.next_turn()

    result = loop.run(prompt.instructions, request, episodes.tools(item), execute,
                      next_turn if takes_turns is not None else None)
    with environment_step("end the episode"):
        ending = episode.finish()
    return trajectory_of(
        result,
        item_id=item.item_id,
        repetition=repetition,
        final_state=ending.final_state,
        outcome=ending.outcome,
        latency_ms=(perf_counter() - started) * 1000.0,
        meta=ending.meta,
    )
