"""One Inspect sample run by Inspect itself, its model's turns handed to the harness.

Inspect's ``eval`` runs the task on one sample in a thread of its own, with Inspect's
``mockllm`` model whose outputs come from a function: each time the task's solver asks the
model to generate, the function hands the harness the messages and the tools offered and
waits for the harness's next output (a tool call, or a reply without one). So the task's
own setup, solver, tool execution, store and scorer run as in any Inspect evaluation, and
the harness decides only what its model would have said. The sample's log comes back when
the evaluation ends.

Outputs carry a token usage, since mockllm would otherwise count tokens with a tokenizer
that downloads its encoding.
"""

from __future__ import annotations

import queue
import tempfile
import threading
from dataclasses import dataclass
from typing import Any

from agent_assay.errors import EnvironmentFailed

WAIT_S = 600.0
"""How long one turn of the sample may take before the environment is declared failed."""
QUIET: dict[str, Any] = {"display": "none", "score_display": False, "ctl_server": False,
                         "log_realtime": False, "log_format": "json"}
"""What each evaluation leaves out that nobody reads here, none of which changes what the
sample does: no display, no control server (Inspect's HTTP endpoint for outside clients,
whose start imports a web framework and binds a socket), no realtime sample buffer (for a
live viewer), and the log as one JSON file (cheaper to write and to read back than the
zipped ``.eval``). Together about half of a sample's time once Inspect is loaded."""


@dataclass(frozen=True)
class Turn:
    """The solver asks the model again: the conversation so far and the tools offered."""

    messages: list[Any]
    tools: list[Any]


@dataclass(frozen=True)
class Ended:
    """The evaluation is over: the sample's log (None when eval raised) and the error."""

    sample: Any
    error: str | None


def usage() -> Any:
    from inspect_ai.model import ModelUsage

    return ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)


def tool_call_output(tool: str, args: dict[str, Any], call_id: str) -> Any:
    from inspect_ai.model import ModelOutput

    output = ModelOutput.for_tool_call(model="mockllm", tool_name=tool, tool_arguments=args,
                                       tool_call_id=call_id)
    output.usage = usage()
    return output


def reply_output(text: str) -> Any:
    from inspect_ai.model import ModelOutput

    output = ModelOutput.from_content(model="mockllm", content=text)
    output.usage = usage()
    return output


class SampleRun:
    """Inspect evaluating one sample of `task`; `turn` answers the model's current turn."""

    def __init__(self, task: Any, sample_id: Any) -> None:
        self._events: queue.Queue[Turn | Ended] = queue.Queue()
        self._outputs: queue.Queue[Any] = queue.Queue()
        self._logs = tempfile.TemporaryDirectory(prefix="assay-inspect-")
        self._thread = threading.Thread(target=self._evaluate, args=(task, sample_id),
                                        daemon=True)
        self._thread.start()
        self.current = self._next()

    def _generate(self, messages: list[Any], tools: list[Any], *_: Any) -> Any:
        """mockllm's output function: hand the turn over, wait for the harness's output."""
        self._events.put(Turn(list(messages), list(tools)))
        return self._outputs.get()

    def _evaluate(self, task: Any, sample_id: Any) -> None:
        from inspect_ai import eval as inspect_eval
        from inspect_ai.model import get_model

        try:
            model = get_model("mockllm/model", custom_outputs=self._generate)
            [log] = inspect_eval(task, model=model, sample_id=sample_id, max_samples=1,
                                 log_dir=self._logs.name, **QUIET)
            sample = log.samples[0] if log.samples else None
            error = None if log.error is None else log.error.message
            if sample is not None and sample.error is not None:
                error = sample.error.message
            self._events.put(Ended(sample, None if error is None else " ".join(error.split())))
        except BaseException as exc:  # Inspect itself failed: the environment did
            self._events.put(Ended(None, " ".join(f"{type(exc).__name__}: {exc}".split())))

    def _next(self) -> Turn | Ended:
        try:
            event = self._events.get(timeout=WAIT_S)
        except queue.Empty:
            raise EnvironmentFailed(f"Inspect did not answer within {WAIT_S:.0f} s") from None
        if isinstance(event, Ended):
            self._thread.join()
            self._logs.cleanup()
        return event

    def turn(self, output: Any) -> Turn | Ended:
        """Answer the current turn with `output`; the next turn, or the end."""
        if isinstance(self.current, Ended):
            return self.current
        self._outputs.put(output)
        self.current = self._next()
        return self.current
