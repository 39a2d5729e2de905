"""Run one agent on one task and score it.

Promise: a convenience wrapper that builds a fresh Environment, runs the agent, and
returns the JSON-safe snapshot with its validation report. Must not import agent_assay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from govsim.agents import AGENTS
from govsim.environment import Environment
from govsim.task import Task
from govsim.validator import Report, validate


@dataclass(frozen=True)
class EpisodeResult:
    task_id: str
    agent: str
    snapshot: dict[str, Any]
    report: Report
    log: list[dict[str, Any]]


def run_episode(task: Task, agent: str, *, seed: int = 0, repetition: int = 0) -> EpisodeResult:
    env = Environment(task)
    AGENTS[agent](task.public(), env, seed=seed, repetition=repetition)
    snapshot = env.snapshot()
    return EpisodeResult(task.task_id, agent, snapshot, validate(task, snapshot), env.log)
