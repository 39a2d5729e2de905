"""The environment, executed for the harness: replays and do-nothing agents.

Controls replay paths (gold, a random agent's, a mutant's) and run do-nothing agents.
They do it here, in an agent process started the one way (`hosting.pool`), not in the
certifying process: an environment that looked at its call stack, its command line or
its parent to find out that a do-nothing or random agent was being measured, and went
easy or hard on it, would see the same process whichever control asked, and the same
one gold's replay (which must reach the ceiling) goes through. One process serves a
whole certification, started when the first replay is asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType

from agent_assay.adapters.loaded import LoadedSystem
from agent_assay.adapters.recipe import recipe_of
from agent_assay.hosting.jobs import Job, NullRun, Replay
from agent_assay.hosting.pool import AgentProcesses, checked, decode
from agent_assay.hosting.sections import ReceivedSections
from agent_assay.model import Config, PublicItem, PublicSuite, ToolCall, Trajectory


class EnvironmentReplays:
    """Replays and do-nothing agents of one system over one suite, run in an agent process."""

    def __init__(self, system: LoadedSystem, suite: PublicSuite) -> None:
        self.system, self.suite = system, suite
        self.processes: AgentProcesses | None = None
        self.sections = ReceivedSections()
        """The final-state sections the process last sent (see `hosting.sections`)."""

    def __enter__(self) -> EnvironmentReplays:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def run_all(self, jobs: Sequence[Job]) -> list[Trajectory]:
        """Each job's trajectory, in the order asked. Every answer is read and its sections
        restored, in the order the process sent them, before any is judged; a batch that
        fails anyway (the process went away) ends the process, so the next batch starts
        one afresh, with nothing held on either side."""
        if not jobs:
            return []
        if self.processes is None:
            self.processes = AgentProcesses(recipe_of(self.system), self.suite).__enter__()
            self.sections = ReceivedSections()
        order = {id(job): n for n, job in enumerate(jobs)}
        messages: list[tuple[int, Job, dict[str, object]]] = []
        try:
            for arrival in self.processes.frames(jobs):
                messages += [(order[id(job)], job, self.sections.restored(decode(payload)))
                             for job, payload in arrival]
        except BaseException:
            self.close()
            raise
        return [checked(job, message)
                for _, job, message in sorted(messages, key=lambda answered: answered[0])]

    def replay(self, item: PublicItem, calls: Sequence[ToolCall], *, seed: int) -> Trajectory:
        """One path replayed from the baseline world (the replay capability's signature)."""
        return self.run_all([Replay(item, tuple(calls), seed)])[0]

    def null_runs(self, agent: str, items: Sequence[PublicItem], config: Config
                  ) -> list[Trajectory]:
        """One of the system's do-nothing agents on every item."""
        return self.run_all([NullRun(agent, item, config) for item in items])

    def close(self) -> None:
        if self.processes is not None:
            self.processes.close()
            self.processes = None
