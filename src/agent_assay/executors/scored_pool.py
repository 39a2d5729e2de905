"""Agents in one pool of processes, scoring in another: the writer mostly only appends.

With agents in worker processes and scoring in the writer, the writer did about
half of each trajectory's work, so a second worker could not come close to
doubling the rate. Here the agent processes (`hosting.pool`: public items only, and
started the one way every agent process is) answer, and the writer hands each answer
to a scoring worker as it came, undecoded: the worker decodes and checks it as the
writer would (`hosting.pool.answer_of`: an answer that is not a trajectory of the slot
asked is a crash of that slot), encodes the trajectory for the store (the final state
as edits from a base, see `state_blobs`), rebuilds it from exactly the row that will be
stored and scores it. A scoring worker holds the gold suite and the scorers, never
runs an agent and parses an agent's answer as JSON only; the writer reads the agents'
frames and appends rows and their scores, the only work that must be serial. When the
scoring processes fall behind, the writer scores what arrives meanwhile itself, as it
does with one worker (see `_Batches`), rather than keep the agents waiting.

Every batch of rows travels with the bases it names, and the first row naming a
base carries it to the writer, so no order between workers is needed for a base
to reach the store before a trajectory naming it; the writer stores a base it
has not seen yet after checking that it hashes to its name. A scoring
worker decodes each base once and rebuilds states by copying only what the
edits touch, so its scorers must not change the states they are given (none of
the bundled ones does; a scorer that did would be named by `verify`, which
re-derives every score from the stored rows).
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from agent_assay.adapters.recipe import Recipe, rebuild
from agent_assay.errors import AssayError
from agent_assay.executors.protocol import Arrival, ExecutorLost, ScoringJob
from agent_assay.hashing import canonical_json
from agent_assay.hosting.jobs import Job, Task
from agent_assay.hosting.lifeline import die_with_parent
from agent_assay.hosting.pool import AgentProcesses, ProcessesLost, answer_of
from agent_assay.model import PublicSuite, Trajectory
from agent_assay.run_context import suite_context
from agent_assay.store.encoding import PreparedTrajectory, StateEncoder, expanded, prepared_row


@dataclass(frozen=True, slots=True)
class Acted:
    """One trajectory's row, encoded for the store, and the base state it names, if any."""

    payload: str
    state: str | None


@dataclass(frozen=True, slots=True)
class ActedBatch:
    """A batch of rows and the canonical JSON of every base they name (each sent once)."""

    rows: list[Acted]
    bases: dict[str, str]


class _Scorer:
    """A scoring worker: the system prepared for the gold suite, its scorers, its encoder,
    and the bases it has decoded."""

    def __init__(self, recipe: Recipe, job: ScoringJob) -> None:
        self.context = suite_context(rebuild(recipe), job.suite)
        self.run_id = job.run_id
        self.encoder = StateEncoder()
        self.bases: OrderedDict[str, Any] = OrderedDict()

    def encoded(self, trajectories: list[Trajectory]) -> ActedBatch:
        """Each trajectory as the row the store will hold, and the bases those rows name."""
        rows: list[Acted] = []
        bases: dict[str, str] = {}
        for trajectory in trajectories:
            encoded = self.encoder.encode(self.run_id, trajectory.to_json())
            self.encoder.stored(self.run_id, encoded)  # every batch carries its bases
            base = encoded.used
            if base is not None:
                bases[base.digest] = base.text
            rows.append(Acted(canonical_json(encoded.payload),
                              None if base is None else base.digest))
        return ActedBatch(rows, bases)

    def prepared(self, batch: ActedBatch) -> list[PreparedTrajectory]:
        for digest, text in batch.bases.items():
            if digest not in self.bases:
                self.bases[digest] = json.loads(text)
            self.bases.move_to_end(digest)
        while len(self.bases) > max(DECODED_BASES, len(batch.bases)):
            self.bases.popitem(last=False)  # every batch carries its bases: a miss re-decodes
        carried = dict(batch.bases)  # the first row naming a base carries it to the writer
        return [self._one(acted, carried) for acted in batch.rows]

    def _one(self, acted: Acted, carried: dict[str, str]) -> PreparedTrajectory:
        """Scored from exactly the row that will be stored, rebuilt."""
        data = json.loads(acted.payload)
        trajectory = Trajectory.from_json(expanded(data, self.bases.__getitem__))
        text = carried.pop(acted.state, None) if acted.state is not None else None
        blob = None if text is None or acted.state is None else (acted.state, text)
        return prepared_row(trajectory, acted.payload, acted.state, blob,
                            self.context.score(trajectory))


_scorer: _Scorer | None = None
_scorer_failure: str | None = None


def _init_scorer(recipe: Recipe, job: ScoringJob, writer: int) -> None:
    """Build the scoring side (ended with the writer, however it ends: `lifeline`); a
    failure is kept and raised by the first task, so the parent gets one line instead of a
    broken pool."""
    global _scorer, _scorer_failure
    die_with_parent(writer)
    try:
        _scorer = _Scorer(recipe, job)
    except Exception as exc:
        why = str(exc) if isinstance(exc, AssayError) else f"{type(exc).__name__}: {exc}"
        _scorer_failure = f"a scoring process could not start the system: {why}"


def _score(answers: list[tuple[Job, bytes]]) -> list[PreparedTrajectory]:
    """A batch of agents' answers, each beside the task it answers, as rows to append."""
    if _scorer is None:
        raise AssayError(str(_scorer_failure))
    trajectories = [answer_of(task, payload) for task, payload in answers]
    return _scorer.prepared(_scorer.encoded(trajectories))


DECODED_BASES = 32
"""Decoded bases a scoring process keeps, least recently used dropped: with a world per
item, every trajectory may bring its own, and memory must not grow with the run."""


def scoring_workers(workers: int, cores: int) -> int:
    """Scoring processes beside `workers` agent processes on `cores` cores: half as many
    (scoring costs a fraction of acting, and every process started costs an interpreter),
    and fewer than the cores, which the agents and the writer need too. The writer scores
    what they cannot take in time (`_Batches`), so one more would only contend for cores."""
    return max(1, min(workers // 2, cores - 1))


def usable_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class ScoredPool:
    """`workers` agent processes (`hosting.pool`, as every run has) and `scoring_workers`
    scoring processes, spawned, that never run an agent."""

    def __init__(self, recipe: Recipe, workers: int, public: PublicSuite, job: ScoringJob) -> None:
        self.recipe, self.workers, self.public, self.job = recipe, workers, public, job

    def run(self, tasks: Iterable[Task]) -> Iterator[Arrival]:
        try:
            yield from self._run(tasks)
        except BrokenProcessPool as exc:
            raise ExecutorLost("a scoring process died (killed, or out of memory)") from exc
        except ProcessesLost as exc:
            raise ExecutorLost(str(exc)) from exc

    def _run(self, tasks: Iterable[Task]) -> Iterator[Arrival]:
        """What the agent processes hand back waits, undecoded, until a scoring process is
        free and goes to it as one batch; scored batches go to the writer as they finish."""
        size = scoring_workers(self.workers, usable_cores())
        with AgentProcesses(self.recipe, self.public, self.workers) as agents, \
                ProcessPoolExecutor(
                    max_workers=size, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_init_scorer, initargs=(self.recipe, self.job, os.getpid()),
                ) as scorers:
            batches = _Batches(scorers, size)
            for arrival in agents.frames(tasks):
                yield from batches.add(arrival)
            yield from batches.drain()


MOST_WAITING = 64
"""Answers waiting for a scoring process, at most: past it, while every scoring process is
busy, the writer scores what arrives itself (memory stays flat, and no agent waits)."""


class _Batches:
    """Answers handed to scoring processes a batch per free process: while every scoring
    process is busy, answers wait here, so a batch holds what arrived while the last one
    was scored. Its size follows the scoring processes' pace, and each hand-over (a
    pickle each way, a transaction in the writer) serves many trajectories once the
    agents outpace the scorers, and one only while they do not.

    When the scoring processes fall behind (every one busy and a full batch waiting), the
    writer decodes and checks what arrives itself and hands it on as plain trajectories,
    which the runner scores as it does with one worker: the writer then works instead of
    waiting, and no agent waits for a scoring process."""

    def __init__(self, scorers: Executor, size: int) -> None:
        self.scorers, self.size = scorers, size
        self.waiting: list[tuple[Job, bytes]] = []
        self.scoring: set[Future[list[PreparedTrajectory]]] = set()

    def add(self, arrival: list[tuple[Job, bytes]]) -> Iterator[Arrival]:
        yield from self._finished(wait_for_one=False)
        if len(self.scoring) == self.size and len(self.waiting) >= MOST_WAITING:
            yield _decoded(arrival)
            return
        self.waiting += arrival
        self._hand_over()

    def drain(self) -> Iterator[Arrival]:
        """The rest: what waits goes to each scoring process as it is free, and while none
        is, the writer takes the oldest answer itself."""
        while self.waiting or self.scoring:
            yield from self._finished(wait_for_one=not self.waiting)
            if self.waiting and len(self.scoring) == self.size:
                yield _decoded(self.waiting[:1])
                del self.waiting[:1]
            self._hand_over()

    def _finished(self, *, wait_for_one: bool) -> Iterator[list[PreparedTrajectory]]:
        if self.scoring:
            done, self.scoring = wait(self.scoring, timeout=None if wait_for_one else 0,
                                      return_when=FIRST_COMPLETED)
            for scored in done:
                yield scored.result()

    def _hand_over(self) -> None:
        """What waits, spread evenly over the scoring processes that are free."""
        free = self.size - len(self.scoring)
        if free and self.waiting:
            share = -(-len(self.waiting) // free)
            for start in range(0, len(self.waiting), share):
                self.scoring.add(self.scorers.submit(_score, self.waiting[start:start + share]))
            self.waiting = []


def _decoded(answers: list[tuple[Job, bytes]]) -> list[Trajectory]:
    """Answers as plain trajectories for the writer to score, checked as anywhere else."""
    return [answer_of(job, payload) for job, payload in answers]
