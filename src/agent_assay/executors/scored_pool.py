"""Agents in one pool of processes, scoring in another: the writer only appends.

With agents in worker processes and scoring in the writer, the writer did about
half of each trajectory's work, so a second worker could not come close to
doubling the rate. Here an agent worker (public items only, as in every pool)
runs a task and encodes its trajectory for the store (the final state as edits
from a base, see `state_blobs`), and hands the encoded row, with the canonical
JSON of the base it names, to a scoring worker. A scoring worker holds the gold
suite and the scorers and never runs an agent: it rebuilds the trajectory from
exactly the row that will be stored and scores it; the writer appends the row
and its scores.

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
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from itertools import islice
from time import perf_counter
from typing import Any

from agent_assay.adapters.recipe import Recipe, rebuild
from agent_assay.errors import AssayError
from agent_assay.executors import (
    Arrival,
    ExecutorLost,
    ScoringJob,
    Task,
    hash_seed,
    init_worker,
    run_in_worker,
)
from agent_assay.executors.batching import FIRST_BATCH, next_size
from agent_assay.hashing import canonical_json
from agent_assay.model import PublicSuite, Trajectory
from agent_assay.store.prepared import PreparedTrajectory, prepared_row
from agent_assay.store.state_blobs import StateEncoder, expanded


@dataclass(frozen=True, slots=True)
class Acted:
    """What an agent worker hands on for one task: the trajectory's row, encoded, and the
    base state it names, if any."""

    payload: str
    state: str | None


@dataclass(frozen=True, slots=True)
class ActedBatch:
    """A batch of rows, the canonical JSON of every base they name (each sent once), and the
    seconds the agent process took over it."""

    rows: list[Acted]
    bases: dict[str, str]
    seconds: float


class _Agent:
    """An agent worker's encoder (the system is the pool's own, see `init_worker`)."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.encoder = StateEncoder()

    def acted(self, tasks: list[Task]) -> ActedBatch:
        started = perf_counter()
        rows: list[Acted] = []
        bases: dict[str, str] = {}
        for task in tasks:
            trajectory = run_in_worker(task)
            encoded = self.encoder.encode(self.run_id, trajectory.to_json())
            self.encoder.stored(self.run_id, encoded)  # every batch carries its bases
            base = encoded.used
            if base is not None:
                bases[base.digest] = base.text
            rows.append(Acted(canonical_json(encoded.payload),
                              None if base is None else base.digest))
        return ActedBatch(rows, bases, perf_counter() - started)


class _Scorer:
    """A scoring worker: the system prepared for the gold suite, its scorers, and the
    bases it has decoded."""

    def __init__(self, recipe: Recipe, job: ScoringJob) -> None:
        from agent_assay.runner import suite_context  # the runner imports the executors

        self.context = suite_context(rebuild(recipe), job.suite)
        self.bases: OrderedDict[str, Any] = OrderedDict()

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
        data = json.loads(acted.payload)
        trajectory = Trajectory.from_json(expanded(data, self.bases.__getitem__))
        text = carried.pop(acted.state, None) if acted.state is not None else None
        blob = None if text is None or acted.state is None else (acted.state, text)
        return prepared_row(trajectory, acted.payload, acted.state, blob,
                            self.context.score(trajectory))


_agent: _Agent | None = None
_scorer: _Scorer | None = None
_scorer_failure: str | None = None


def _init_agent(recipe: Recipe, public: PublicSuite, run_id: str) -> None:
    global _agent
    init_worker(recipe, public)
    _agent = _Agent(run_id)


def _act(tasks: list[Task]) -> ActedBatch:
    if _agent is None:
        raise AssayError("an agent process was not initialised")
    return _agent.acted(tasks)


def _init_scorer(recipe: Recipe, job: ScoringJob) -> None:
    """Build the scoring side; a failure is kept and raised by the first task, so the
    parent gets one line instead of a broken pool."""
    global _scorer, _scorer_failure
    try:
        _scorer = _Scorer(recipe, job)
    except Exception as exc:
        why = str(exc) if isinstance(exc, AssayError) else f"{type(exc).__name__}: {exc}"
        _scorer_failure = f"a scoring process could not start the system: {why}"


def _score(batch: ActedBatch) -> list[PreparedTrajectory]:
    if _scorer is None:
        raise AssayError(str(_scorer_failure))
    return _scorer.prepared(batch)


TARGET_BATCH_SECONDS = 0.1
"""About how long an agent process should spend on a batch (see `batching`): each
hand-over costs the writer's process a round of pickling, queueing and waking threads."""
MAX_BATCH = 64
"""The largest batch. Measured with the banking mock agent (about 1.5 ms an item) at
fixed sizes over 10,400 trajectories on 2 workers: 922-948 a second in eights,
1,041 in 16s, 1,019-1,088 in 32s, 1,109 in 64s."""


DECODED_BASES = 32
"""Decoded bases a scoring process keeps, least recently used dropped: with a world per
item, every trajectory may bring its own, and memory must not grow with the run."""


def scoring_workers(workers: int) -> int:
    """Scoring processes beside `workers` agent processes: scoring costs a fraction of
    acting and encoding, and every process started costs an interpreter."""
    return max(1, workers // 2)


class ScoredPool:
    """`workers` agent processes and `scoring_workers(workers)` scoring ones, spawned."""

    def __init__(self, recipe: Recipe, workers: int, public: PublicSuite, job: ScoringJob,
                 seed: int | None = None) -> None:
        self.recipe, self.workers, self.public, self.job = recipe, workers, public, job
        self.hash_seed = seed

    def run(self, tasks: Iterable[Task]) -> Iterator[Arrival]:
        try:
            yield from self._run(iter(tasks))
        except BrokenProcessPool as exc:
            raise ExecutorLost("a worker process died (killed, or out of memory)") from exc

    def _run(self, tasks: Iterator[Task]) -> Iterator[list[PreparedTrajectory]]:
        spawn = multiprocessing.get_context("spawn")
        with hash_seed(self.hash_seed), ProcessPoolExecutor(
            max_workers=self.workers, mp_context=spawn, initializer=_init_agent,
            initargs=(self.recipe, self.public, self.job.run_id),
        ) as agents, ProcessPoolExecutor(
            max_workers=scoring_workers(self.workers), mp_context=spawn,
            initializer=_init_scorer, initargs=(self.recipe, self.job),
        ) as scorers:
            acting: set[Future[ActedBatch]] = set()
            scoring: set[Future[list[PreparedTrajectory]]] = set()
            window = self.workers * 3  # batches per pool: memory stays flat
            size = FIRST_BATCH

            def step() -> Iterator[list[PreparedTrajectory]]:
                """Wait for anything to finish: finished trajectories go to the scorers (and
                size the next batch), finished rows to the writer, a scored batch at a time."""
                nonlocal size
                pending: list[Future[Any]] = [*acting, *scoring]
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for acted in [f for f in acting if f in done]:
                    acting.discard(acted)
                    rows = acted.result()
                    size = next_size(size, rows.seconds, len(rows.rows),
                                     target_seconds=TARGET_BATCH_SECONDS, most=MAX_BATCH)
                    scoring.add(scorers.submit(_score, rows))
                for scored in [f for f in scoring if f in done]:
                    scoring.discard(scored)
                    yield scored.result()

            while batch := list(islice(tasks, size)):
                acting.add(agents.submit(_act, batch))
                while len(acting) >= window or len(scoring) >= window:
                    yield from step()
            while acting or scoring:
                yield from step()
