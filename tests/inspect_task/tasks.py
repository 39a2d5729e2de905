"""The Inspect tasks the tests write to a temporary file: one tool that keeps a running
total in the sample's store, and planted copies whose defects the controls must find."""

from __future__ import annotations

from pathlib import Path

HEADER = '''
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState, generate, use_tools
from inspect_ai.tool import tool
from inspect_ai.util import store
'''

TOOL = '''
@tool
def record():
    async def execute(amount: int) -> str:
        """Add an amount to the ledger.

        Args:
            amount: how much to add
        """
        total = store().get("total", 0) + amount
        store().set("total", total)
        return f"total {total}"
    return execute
'''

IDLE_TOOL = '''
@tool
def record():
    async def execute(amount: int) -> str:
        """Add an amount to the ledger.

        Args:
            amount: how much to add
        """
        return "recorded"
    return execute
'''

SCORER = '''
@scorer(metrics=[accuracy()])
def ledger_total():
    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion.strip()
        right = answer == target.text and store().get("total", 0) == int(target.text)
        return Score(value=CORRECT if right else INCORRECT, answer=answer,
                     explanation=f"ledger total {store().get('total', 0)}")
    return score
'''

BLIND_SCORER = '''
@scorer(metrics=[accuracy()])
def ledger_total():
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=CORRECT, answer=state.output.completion, explanation="always")
    return score
'''

TASK = '''
@task
def ledger(samples: int = 10):
    dataset = [Sample(id=f"s{i}", input=f"Record {i + 3} in the ledger, then say the total.",
                      target=str(i + 3),
                      metadata={"gold_calls": [{"tool": "record", "args": {"amount": i + 3}}]})
               for i in range(samples)]
    return Task(dataset=dataset, solver=[use_tools(record()), generate()],
                scorer=ledger_total())
'''


def write_task(directory: Path, *, tool: str = TOOL, scorer: str = SCORER, task: str = TASK,
               name: str = "ledger", samples: int = 10) -> Path:
    """The task file, and beside it a YAML source naming it with `samples` samples (each
    sample is an Inspect evaluation wherever it is run, replayed or scored); the YAML's
    path."""
    directory.mkdir(parents=True, exist_ok=True)
    code = directory / f"{name}.py"
    code.write_text(HEADER + tool + scorer + task)
    spec = directory / f"{name}.yaml"
    spec.write_text(f"task: {name}.py@ledger\nargs: {{samples: {samples}}}\n")
    return spec
