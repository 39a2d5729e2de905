"""Does agent-assay score AgentDojo exactly as AgentDojo scores itself?

For every user task of each suite, two agents are scored twice. Ours: the task's gold
path replayed through the `agentdojo` system's episodes and scored by its
`agentdojo.utility` scorer, and the do-nothing agent (no calls, empty answer) the same
way. AgentDojo's: ``TaskSuite.run_task_with_pipeline`` with its own GroundTruthPipeline,
and with a pipeline that answers the empty string and calls nothing. The utility values
are compared with ``==`` (ours 1.0/0.0 against its True/False); a suite is "reproduced to
the digit" only when every task agrees on both agents, and every disagreement is printed.

Usage: python -m tools.cases.reproduce_agentdojo [--suite NAME ...] [--version vX.Y.Z]
Exit 0 on full agreement, 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_assay.adapters.loaded import LoadedSystem, load_system
from agent_assay.model import Item
from agent_assay_bundled.agentdojo import dojo
from agent_assay_bundled.agentdojo.checks import UTILITY
from agent_assay_bundled.agentdojo.source import DojoSource
from agent_assay_bundled.agentdojo.system import AgentDojoAdapter

SUITES = ("workspace", "travel", "banking", "slack")


@dataclass(frozen=True)
class Row:
    task: str
    ours_gold: float | None
    theirs_gold: bool
    ours_nothing: float | None
    theirs_nothing: bool

    def agrees(self) -> bool:
        return (self.ours_gold == float(self.theirs_gold)
                and self.ours_nothing == float(self.theirs_nothing))


def silent_pipeline() -> Any:
    """An agentdojo pipeline that calls nothing and answers the empty string."""
    from agentdojo.agent_pipeline.base_pipeline_element import BasePipelineElement
    from agentdojo.types import ChatAssistantMessage, text_content_block_from_string

    class Silent(BasePipelineElement):  # type: ignore[misc]
        def query(self, query: str, runtime: Any, env: Any = None, messages: Sequence[Any] = (),
                  extra_args: dict[str, Any] | None = None) -> Any:
            answer = ChatAssistantMessage(role="assistant", tool_calls=None,
                                          content=[text_content_block_from_string("")])
            return query, runtime, env, [*messages, answer], extra_args or {}

    return Silent()


def theirs(suite: Any, task_id: str) -> tuple[bool, bool]:
    """AgentDojo's utility for its ground-truth pipeline and for the silent one."""
    from agentdojo.agent_pipeline.ground_truth_pipeline import GroundTruthPipeline

    task = suite.user_tasks[task_id]
    gold, _ = suite.run_task_with_pipeline(GroundTruthPipeline(task), task, None, {})
    nothing, _ = suite.run_task_with_pipeline(silent_pipeline(), task, None, {})
    return bool(gold), bool(nothing)


def ours(system: LoadedSystem, item: Item) -> tuple[float | None, float | None]:
    """Our scorer on gold's replay and on the do-nothing agent's, through the harness."""
    view = system.replay_view()
    assert view is not None
    scorer = next(s for s in system.scorers() if s.name == UTILITY)
    ctx = system.scoring_context()
    values = []
    for calls in (item.gold.path, ()):
        trajectory = view.replay(item.public(), calls, seed=0)
        values.append(scorer.score(item.gold, trajectory, ctx).value)
    return values[0], values[1]


def compare(name: str, version: str, tasks: Sequence[str] = ()) -> list[Row]:
    source = DojoSource(name, version, tasks=tuple(tasks))
    adapter = AgentDojoAdapter()
    built = adapter.suite_from(source)
    system = load_system(adapter)
    task_suite = source.task_suite()
    rows = []
    for item in built.items:
        mine, nothing = ours(system, item)
        gold, silent = theirs(task_suite, item.item_id)
        rows.append(Row(item.item_id, mine, gold, nothing, silent))
    return rows


def show(value: float | bool | None) -> str:
    return "n/a" if value is None else str(value)


def render(name: str, version: str, rows: Sequence[Row]) -> tuple[str, bool]:
    lines = [f"{name}@{version}: {len(rows)} user tasks",
             f"  {'task':<14} {'gold ours':>9} {'agentdojo':>9} {'nothing ours':>12} "
             f"{'agentdojo':>9}  agree"]
    for row in rows:
        lines.append(f"  {row.task:<14} {show(row.ours_gold):>9} {show(row.theirs_gold):>9} "
                     f"{show(row.ours_nothing):>12} {show(row.theirs_nothing):>9}  "
                     f"{'yes' if row.agrees() else 'MISMATCH'}")
    wrong = [row.task for row in rows if not row.agrees()]
    gold = sum(row.theirs_gold for row in rows)
    nothing = sum(row.theirs_nothing for row in rows)
    if wrong:
        lines.append(f"{name}: MISMATCH on {len(wrong)} task(s): {', '.join(wrong)}")
    else:
        lines.append(f"{name}: reproduced to the digit ({len(rows)} tasks; AgentDojo's ground "
                     f"truth passes {gold}, doing nothing passes {nothing})")
    return "\n".join(lines), not wrong


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", action="append", choices=SUITES, default=None)
    parser.add_argument("--version", default=None, help="benchmark version (default: newest)")
    args = parser.parse_args(argv)
    version = args.version or dojo.newest_version()
    ok = True
    for name in args.suite or SUITES:
        text, agreed = render(name, version, compare(name, version))
        print(text, flush=True)
        ok = ok and agreed
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
