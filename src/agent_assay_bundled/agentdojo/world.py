"""One AgentDojo task environment: built fresh, called through agentdojo's FunctionsRuntime,
dumped as JSON state.

A world is what agentdojo's own ``run_task_with_pipeline`` builds for a utility run: the
suite's default environment with its default injection vectors
(``load_and_inject_default_environment({})``), then the user task's ``init_environment``.
Calls go through ``FunctionsRuntime.run_function`` without raising (a refused call is a
failed step carrying agentdojo's error text) and results are formatted with
``tool_result_to_str``, the text agentdojo's ToolsExecutor hands its models.

AgentDojo reads the agent's final text answer (``model_output``); the harness's episodes
have no such channel, so every world offers one more tool, `ANSWER`: its argument is the
answer. A replayed gold path ends with it (carrying the task's GROUND_TRUTH_OUTPUT, as
agentdojo's GroundTruthPipeline answers); the model agent may call it, and a model that
ends with a plain text reply has that text as its answer (the loop records it as
``final_answer`` in the trajectory's meta, which is where an answer call puts it too).
An agent that never answers, the do-nothing agent included, answers the empty string.

The state is ``{"environment": ...}``, the environment's ``model_dump(mode="json")`` with
three changes, so a dot path names one leaf and two runs of one path dump one world:
a ``.`` in a mapping key is written ``%2E`` (URLs key the web); every list under a
``participants`` or ``recipients`` key is sorted, because agentdojo's calendar builds
participants from a Python set (``list(set(participants))`` in ``create_event``, and the
invitation email's recipients from them), whose order follows each interpreter's hash
seed; and a ``timestamp`` or ``last_modified`` no earlier than the episode's start is
written `WALL_CLOCK`, because agentdojo stamps a sent email and a created or appended file
with ``datetime.datetime.now()`` (email_client.py, cloud_drive_client.py, types.py), and
the suites' own data are dated years before any run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from agent_assay.adapters.system import Ending, ToolOutcome, ToolSpec

ANSWER = "submit_answer"
ANSWER_ARG = "answer"
ANSWER_SPEC = ToolSpec(
    ANSWER,
    "Give the user your final answer. Call it once, when you are done.",
    {
        "type": "object",
        "properties": {ANSWER_ARG: {"type": "string", "description": "the final answer"}},
        "required": [ANSWER_ARG],
    },
)
SET_VALUED = frozenset({"participants", "recipients"})
"""Keys whose lists agentdojo can build from a set: their order is not the world's."""
STAMPED = frozenset({"timestamp", "last_modified"})
"""Keys agentdojo fills with the wall clock when a tool creates or changes a record."""
WALL_CLOCK = "(the wall clock during the episode)"


_BUILT: dict[tuple[int, str], tuple[Any, Any]] = {}
"""(id of a suite, task id) -> (the suite, its task's world as built): agentdojo parses
the suite's YAML for every world it builds, so each is built once and deep-copied, as
agentdojo's own suite check copies one environment for every task."""


def fresh_environment(suite: Any, user_task: Any) -> Any:
    """The world agentdojo's utility run starts from for `user_task`."""
    key = (id(suite), str(user_task.ID))
    if key not in _BUILT or _BUILT[key][0] is not suite:
        built = user_task.init_environment(suite.load_and_inject_default_environment({}))
        _BUILT[key] = (suite, built)
    return _BUILT[key][1].model_copy(deep=True)


def state_of(environment: Any, since: str = "9999") -> dict[str, Any]:
    """The environment as the JSON state trajectories store; `since` is the episode's
    start (ISO), from which on a stamp is the wall clock's."""
    return {"environment": _canonical(environment.model_dump(mode="json"), "", since)}


def _canonical(value: Any, key: str, since: str) -> Any:
    """The state's JSON dump steadied; keys escaped where the store's paths would split."""
    return _steady(value, key, lambda v: isinstance(v, str) and v >= since,
                   lambda k: k.replace("%", "%25").replace(".", "%2E"))


def _steadied(value: Any, key: str, since: datetime) -> Any:
    """A result's python dump steadied as `_canonical` steadies the state."""
    return _steady(value, key, lambda v: isinstance(v, datetime) and v >= since, lambda k: k)


def _steady(value: Any, key: str, stamped: Callable[[Any], bool],
            rename: Callable[[Any], Any]) -> Any:
    """`value` with set-built lists sorted and each wall-clock stamp made after the episode
    began (`stamped`) replaced by a marker, keys passed through `rename`."""
    if isinstance(value, dict):
        return {rename(k): _steady(v, k, stamped, rename) for k, v in value.items()}
    if isinstance(value, list):
        items = [_steady(v, "", stamped, rename) for v in value]
        if key in SET_VALUED and all(isinstance(v, str) for v in items):
            return sorted(items)
        return items
    if key in STAMPED and stamped(value):
        return WALL_CLOCK
    return value


def now() -> str:
    return datetime.now().isoformat()


def tool_specs(suite: Any) -> list[ToolSpec]:
    """The suite's functions as the harness's model agent sees them (the JSON schema of
    each function's pydantic parameters, as agentdojo's OpenAI pipeline sends it), and
    the answer tool."""
    specs = [ToolSpec(f.name, f.description, f.parameters.model_json_schema())
             for f in suite.tools]
    return [*specs, ANSWER_SPEC]


def answer_of(meta: Mapping[str, Any]) -> str:
    """The model output agentdojo's checks read: the recorded answer, else empty."""
    answer = meta.get("final_answer")
    return answer if isinstance(answer, str) else ""


class DojoEpisode:
    """One fresh world for one user task."""

    def __init__(self, suite: Any, user_task: Any) -> None:
        from agentdojo.functions_runtime import FunctionsRuntime

        self.started = now()
        self.environment = fresh_environment(suite, user_task)
        self.runtime = FunctionsRuntime(suite.tools)
        self.answer: str | None = None

    def call(self, tool: str, args: Mapping[str, Any]) -> ToolOutcome:
        from agentdojo.agent_pipeline.tool_execution import tool_result_to_str

        if tool == ANSWER:
            text = args.get(ANSWER_ARG)
            if not isinstance(text, str):
                return ToolOutcome(False, None, f"ValidationError: {ANSWER_ARG} must be a string")
            self.answer = text
            return ToolOutcome(True, "answer recorded")
        result, error = self.runtime.run_function(self.environment, tool, dict(args))
        if error is not None:
            return ToolOutcome(False, None, error)
        return ToolOutcome(True, tool_result_to_str(result, dump_fn=self._yaml))

    def _yaml(self, dumped: Any) -> str:
        """agentdojo's YAML of a result, steadied as the state is."""
        import yaml

        text: str = yaml.safe_dump(_steadied(dumped, "", datetime.fromisoformat(self.started)))
        return text

    def finish(self) -> Ending:
        meta = {} if self.answer is None else {"final_answer": self.answer}
        return Ending(state_of(self.environment, self.started), None, meta)


def run_path(suite: Any, user_task: Any, calls: Sequence[tuple[str, Mapping[str, Any]]]
             ) -> tuple[Any, DojoEpisode]:
    """(the environment before, the episode) after `calls` in a fresh world."""
    episode = DojoEpisode(suite, user_task)
    pre = episode.environment.model_copy(deep=True)
    for tool, args in calls:
        episode.call(tool, args)
    return pre, episode
