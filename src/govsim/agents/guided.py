"""Oracle-guided agents: the positive control and a realistic imperfect agent.

Promise: both read the hidden oracle path through ``env.task`` (and are labelled so);
``oracle_replay`` replays it exactly, ``mock`` replays it with at most one seeded lapse
chosen by a stable hash of (task id, seed, repetition). Must not import agent_assay.
"""

from __future__ import annotations

from govsim.agents.driver import Driver
from govsim.attempts import Attempt
from govsim.environment import Environment
from govsim.ids import unit_interval
from govsim.oracle import solve
from govsim.task import PublicTask

LAPSE_ODDS = (("skip_consent", 0.2), ("redundant_approval", 0.2), ("wrong_signatory", 0.15))


def oracle_replay(public: PublicTask, env: Environment, *, seed: int, repetition: int) -> None:
    """POSITIVE CONTROL: replays the oracle's optimal path; must score 1.0 everywhere."""
    solution = solve(env.task)
    replay(Driver(env, public), list(solution.steps), solution.signatory_id)


def choose_lapse(task_id: str, seed: int, repetition: int) -> str | None:
    """At most one lapse per episode, fixed by a stable hash so reruns reproduce it."""
    u = unit_interval("mock-lapse", task_id, seed, repetition)
    edge = 0.0
    for lapse, odds in LAPSE_ODDS:
        edge += odds
        if u < edge:
            return lapse
    return None


def mock_agent(public: PublicTask, env: Environment, *, seed: int, repetition: int) -> None:
    """An oracle-guided agent that sometimes skips a consent, repeats an approval, or
    hands the pen to a director who holds no office."""
    solution = solve(env.task)
    steps = list(solution.steps)
    signatory = solution.signatory_id
    d = Driver(env, public)
    lapse = choose_lapse(public.task_id, seed, repetition)
    if lapse == "skip_consent":
        steps = [s for s in steps if s.method != "holder_consent"]
    elif lapse == "redundant_approval":
        steps.append(steps[-1])
    elif lapse == "wrong_signatory":
        officers = {r["person_id"] for r in d.rows("officers")}
        outsiders = [r["person_id"] for r in d.rows("directors") if r["person_id"] not in officers]
        signatory = outsiders[0] if outsiders else "prs_nobody"
    replay(d, steps, signatory)


def replay(d: Driver, steps: list[Attempt], signatory: str) -> None:
    """Create the requested action, record ``steps`` in order, then execute."""
    action = d.create()
    if action is None:
        return
    for step in steps:
        d.call("record_authorization", action_id=action, **step.as_dict())
    d.execute(action, signatory)
