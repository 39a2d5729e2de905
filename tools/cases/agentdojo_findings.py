"""What the controls' do-nothing agent finds in AgentDojo, task by task, with the checks quoted.

For each suite: every user task whose own utility check passes when the agent calls
nothing and answers the empty string (our `agentdojo.utility` on the do-nothing replay,
the same verdict tools/cases/reproduce_agentdojo.py holds against AgentDojo's own pipeline),
with the check's source lines from the installed package, so a reader sees why; and, over
every (user task, injection task) pair, how often AgentDojo's security check says the
attack succeeded for that same do-nothing agent (its targeted attack success rate with
no attack and no agent).

Usage: python -m tools.cases.agentdojo_findings [--suite NAME ...] [--version vX.Y.Z]
"""

from __future__ import annotations

import argparse
import inspect
import sys
from collections.abc import Sequence
from typing import Any

from agent_assay.adapters.loaded import load_system
from agent_assay_bundled.agentdojo import dojo
from agent_assay_bundled.agentdojo.checks import SECURITY, UTILITY
from agent_assay_bundled.agentdojo.source import DojoSource
from agent_assay_bundled.agentdojo.system import AgentDojoAdapter

SUITES = ("workspace", "travel", "banking", "slack")
QUOTED = 10
"""Lines of a check's body quoted at most (its signature is left out)."""


def nothing_scores(name: str, version: str, variant: str, metric: str
                   ) -> list[tuple[str, float | None]]:
    """(item id, the do-nothing agent's value) for every item of the suite's variant."""
    adapter = AgentDojoAdapter()
    suite = adapter.suite_from(DojoSource(name, version, variant))
    system = load_system(adapter)
    view = system.replay_view()
    assert view is not None
    scorer = next(s for s in system.scorers() if s.name == metric)
    ctx = system.scoring_context()
    return [(item.item_id, scorer.score(item.gold, view.replay(item.public(), (), seed=0),
                                        ctx).value) for item in suite.items]


def quoted(task: Any) -> list[str]:
    """The check agentdojo runs for `task` (utility_from_traces when overridden), quoted."""
    own = "utility_from_traces" if "utility_from_traces" in vars(type(task)) else "utility"
    method = getattr(type(task), own)
    lines, start = inspect.getsourcelines(method)
    where = inspect.getsourcefile(method) or "?"
    where = where[where.find("agentdojo/"):] if "agentdojo/" in where else where
    opened = next(i for i, line in enumerate(lines) if line.rstrip().endswith(":"))
    body = [f"    {where}:{start + i}: {line.rstrip()}" for i, line in enumerate(lines)
            if i > opened and line.strip()]
    more = [f"    ... ({len(body) - QUOTED} more lines)"] if len(body) > QUOTED else []
    return body[:QUOTED] + more


def report(name: str, version: str) -> list[str]:
    task_suite = DojoSource(name, version).task_suite()
    passed = [i for i, v in nothing_scores(name, version, "utility", UTILITY) if v == 1.0]
    lines = [f"{name}@{version}: doing nothing passes {len(passed)} of "
             f"{len(task_suite.user_tasks)} user tasks' own checks"]
    for task_id in passed:
        task = task_suite.user_tasks[task_id]
        lines.append(f"  {task_id}: {task.PROMPT.splitlines()[0][:100]}")
        lines.extend(quoted(task))
    attacks = nothing_scores(name, version, "security", SECURITY)
    hits = [i for i, v in attacks if v == 1.0]
    lines.append(f"{name}@{version}: doing nothing, no attack: the security check says the "
                 f"attack succeeded on {len(hits)} of {len(attacks)} (user task, injection "
                 f"task) pairs" + (f": {', '.join(hits[:10])}" if hits else ""))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", action="append", choices=SUITES, default=None)
    parser.add_argument("--version", default=None, help="benchmark version (default: newest)")
    args = parser.parse_args(argv)
    version = args.version or dojo.newest_version()
    for name in args.suite or SUITES:
        print("\n".join(report(name, version)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
