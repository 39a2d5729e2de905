"""govsim: a corporate-governance environment with a dynamic-programming oracle.

A second system under test for agent-assay. An agent must read fictional corporate records,
work out which approvals a requested action needs, record them through tools and execute
the action with a valid signatory. Scoring is deterministic: reward is 0 unless a verified
execution satisfies the whole requirement graph, else min(1, oracle cost / attempts).

Promise: a self-contained public API (stdlib, PyYAML and numpy only).
Must not import agent_assay.
"""

from govsim.agents import AGENTS, AgentSpec
from govsim.defects import Code, Defect
from govsim.environment import Environment
from govsim.episode import EpisodeResult, run_episode
from govsim.generator import DIFFICULTIES, SPLITS, generate_worlds
from govsim.oracle import Solution, Unsolvable, minimum_cost, solve, step_sets
from govsim.task import PublicTask, Task
from govsim.toolspecs import TOOL_SPECS, ToolSpec, tools_for
from govsim.validator import Report, reward, validate

__all__ = [
    "AGENTS",
    "DIFFICULTIES",
    "SPLITS",
    "TOOL_SPECS",
    "AgentSpec",
    "Code",
    "Defect",
    "Environment",
    "EpisodeResult",
    "PublicTask",
    "Report",
    "Solution",
    "Task",
    "ToolSpec",
    "Unsolvable",
    "generate_worlds",
    "minimum_cost",
    "reward",
    "run_episode",
    "solve",
    "step_sets",
    "tools_for",
    "validate",
]
