"""Real Inspect logs for the tests: a small task with one tool, run on Inspect's mock
model with scripted outputs (each carrying a ModelUsage, so nothing calls tiktoken), and
the plugins registered through a throwaway dist (entry points, nothing installed)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip("inspect_ai", reason="inspect_ai is not installed")

from inspect_ai import Task  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, includes, scorer  # noqa: E402
from inspect_ai.scorer import accuracy as accuracy_metric  # noqa: E402
from inspect_ai.solver import (  # noqa: E402
    TaskState,
    generate,
    use_tools,
)
from inspect_ai.tool import tool  # noqa: E402

USAGE = ModelUsage(input_tokens=3, output_tokens=2, total_tokens=5)
PACKAGE = "agent_assay_bundled.inspect_log"
GROUPS = {
    "agent_assay.adapters": f"inspect-log = {PACKAGE}.adapter:InspectLogAdapter",
    "agent_assay.importers": f"inspect = {PACKAGE}.importer:InspectLogImporter",
    "agent_assay.exporters": f"inspect = {PACKAGE}.export:InspectExporter",
}


@tool
def lookup() -> Any:
    async def execute(id: str) -> str:
        """Look an account up.

        Args:
            id: the account id
        """
        return f"balance of {id}: 7"

    return execute


@scorer(metrics=[accuracy_metric()])
def said_code() -> Any:
    """A task's own scorer (not one agent-assay re-runs): C when the answer names a code."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=CORRECT if "code-" in state.output.completion else INCORRECT)

    return score


def scripted(wrong: Iterable[str]) -> Callable[..., ModelOutput]:
    """One lookup call, then the answer: sample sN's target 'code-Nx', except 'no idea'
    for a sample named in `wrong`."""
    bad = set(wrong)

    def outputs(messages: Any, tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        first = messages[0].text if messages else ""
        sample = first[1:first.index("]")] if first.startswith("[") else ""
        if messages and messages[-1].role == "tool":
            answer = "no idea" if sample in bad else f"it is code-{sample[1:]}x"
            out = ModelOutput.from_content(model="mockllm", content=answer)
        else:
            out = ModelOutput.for_tool_call(model="mockllm", tool_name="lookup",
                                            tool_arguments={"id": "A0"})
        out.usage = USAGE
        return out

    return outputs


def make_log(log_dir: Path, *, task: str = "balances", samples: int = 12, epochs: int = 2,
             wrong: Iterable[str] = (), fmt: str = "eval", scorer: Any = None) -> Path:
    """Run the task on the mock model; the log's path."""
    dataset = [Sample(id=f"s{i}", input=f"[s{i}] what is the code of A0?", target=f"code-{i}x")
               for i in range(samples)]
    made = Task(name=task, dataset=dataset, scorer=scorer or includes(), epochs=epochs,
                solver=[use_tools(lookup()), generate(tool_calls="loop")])
    model = get_model("mockllm/model", custom_outputs=scripted(wrong))
    [log] = inspect_eval(made, model=model, log_dir=str(log_dir), log_format=fmt,
                         display="none")
    assert log.status == "success", log.error
    return Path(log.location)


def register(site: Path) -> None:
    """Entry points for the inspect-log adapter, importer and exporter, found in-process."""
    dist = site / "agent_assay_inspect_log_test-0.1.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: agent-assay-inspect-log-test\n"
                                   "Version: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "".join(f"[{group}]\n{line}\n" for group, line in GROUPS.items()))
    if str(site) not in sys.path:
        sys.path.insert(0, str(site))
