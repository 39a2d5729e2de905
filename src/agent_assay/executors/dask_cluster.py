# distributed types its futures but not Client, LocalCluster or as_completed
# mypy: allow-untyped-calls
"""Agents on a Dask cluster: the scheduler at an address, or a local cluster started on
127.0.0.1 for the run and closed after it. Imported only for `--executor dask`.

The spawned process pool's rules hold here too:
* One writer. A worker turns tasks into trajectories and sends them back; only the
  submitting process scores and stores them, so a worker that dies mid-batch has
  stored nothing, and its batch runs again on another worker.
* No gold on a worker, and no agent in a worker. A worker is sent the system's recipe
  and the suite's public items; each worker thread starts one agent process
  (`hosting.pool`, the way every agent process on any host starts, the system rebuilt
  there and checked by name and version) per run and keeps it for the batches that
  follow, so an agent sees the same process on a cluster as on the writer's host.
* A bounded window: two batches per worker thread are in flight, so memory stays
  flat however many tasks a run has.

Retries. The scheduler runs a task again when the worker holding it dies, until the
task has seen ALLOWED_FAILURES + 1 workers die (the local cluster's setting; a remote
scheduler applies its own `distributed.scheduler.allowed-failures`). It counts a death
against every task the dead worker held, so a batch it gives up on may be innocent: its
items become suspects, each run again alone on the cluster. A suspect that succeeds is
stored like any trajectory; one the scheduler gives up on while alone killed its
worker every time, and is stored as a crashed trajectory of its slot that says so. An
item that kills its process never takes its neighbours with it. No slot is stored
twice: each batch's result is read once, from the one future that ran it.

Tasks are submitted impure: two runs that ask one cluster for the same slot under the
same seed each execute it, so a nondeterministic agent's repetition is never another
run's result.

A cluster whose workers are all gone (stopped, or every process of a local one killed)
runs nothing, and the scheduler waits for workers without a word: after WORKERLESS_SECONDS
without one the run stops, as it does when the scheduler is lost, with what was stored
kept and the resume command said.

Twins never run here: a twin runs in the submitting host's agent processes
(`Processes(workers)`) whichever executor made the certified run, so a certified Dask
run is also checked against a re-execution outside Dask.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import uuid
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import CancelledError
from contextlib import contextmanager, suppress
from itertools import islice
from time import monotonic, perf_counter
from types import TracebackType

import dask.config
from distributed import (
    Client,
    Future,
    KilledWorker,
    LocalCluster,
    Worker,
    WorkerPlugin,
    as_completed,
    get_worker,
)

from agent_assay.adapters.loaded import LoadedSystem
from agent_assay.adapters.recipe import Recipe, recipe_of
from agent_assay.errors import AssayError
from agent_assay.executors.batching import FIRST_BATCH, next_size
from agent_assay.executors.protocol import Arrival, Executor, ExecutorLost, ScoringJob
from agent_assay.executors.spec import ExecutorSpec, scheduler_address
from agent_assay.hosting.jobs import Task, crashed
from agent_assay.hosting.pool import AgentProcesses, ProcessesLost
from agent_assay.model import JSON, PublicSuite, Trajectory

CONNECT_TIMEOUT = 10.0
"""Seconds for a scheduler to answer, and then to have a worker."""
PROBE_SECONDS = 2.0
"""Seconds for a scheduler's port to take a connection before the Dask client is made: an
address where nothing listens is refused at once, not after the client's whole timeout
(and the traceback a half-made client prints when it is collected)."""
WORKERLESS_SECONDS = CONNECT_TIMEOUT
"""Seconds a running cluster may have no worker at all before the run stops: as long as a
scheduler is given to have its first (a local cluster's nanny restarts a killed worker
well within it)."""
WORKER_CHECK_SECONDS = 1.0
"""How often, while no batch finishes, the scheduler is asked whether any worker is left."""
ALLOWED_FAILURES = 2
"""Dead workers a task may see on the local cluster before the scheduler gives up on it."""
IN_FLIGHT_PER_THREAD = 2
"""Batches in flight per worker thread: one running, one waiting, so no worker idles."""
TARGET_BATCH_SECONDS = 0.2
"""About how long a batch should take: long beside what Dask spends on a task (some 10 ms
on 2 cores), short enough that the last batches balance across workers and a killed
worker loses little."""
MAX_BATCH = 64
"""The largest batch, whatever the agent's speed (see the measurement in `batch_size`)."""

LOCAL_CLUSTER = {
    "distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
    # workers get this process's environment, as the process pool's do; by default the
    # nanny first sets thread-count variables, in this process's own environment too
    "distributed.nanny.pre-spawn-environ": {},
    # an agent may start processes of its own, as it may in the process pool
    "distributed.worker.daemon": False,
}

Batch = tuple[list[Trajectory], float]
"""What a worker sends back for a batch: its trajectories, and the seconds it took."""

_built = threading.local()


def dask_setup(worker: Worker) -> None:
    """Run in each local worker process as it starts (this module is its preload): Ctrl-C
    reaches the whole process group, and it is the submitting process's to handle (it
    stops the run and closes the cluster), not a traceback from every worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _agent(recipe: Recipe, suite: PublicSuite, held: str) -> AgentProcesses:
    """This worker thread's agent process for the run `held` names, started on first use;
    the one an earlier run left is ended first."""
    if getattr(_built, "key", None) != held:
        if getattr(_built, "agent", None) is not None:
            _built.agent.close()
        _built.agent = AgentProcesses(recipe, suite, 1).__enter__()
        _built.key = held
    agent: AgentProcesses = _built.agent
    return agent


class HeldSuite(WorkerPlugin):
    """The suite's public items, held by every worker of the cluster (one that joins or
    restarts later is sent them too): a worker gets them once per run, not with every
    batch. A task that depended on data instead would be sent where that data is, every
    batch to one worker; and scattered data dies with the workers holding it."""

    def __init__(self, suite: PublicSuite) -> None:
        self.suite = suite


def _run_batch(recipe: Recipe, held: str, tasks: list[Task]) -> Batch:
    """On a worker: the batch's trajectories, and the seconds it took."""
    started = perf_counter()
    plugin = get_worker().plugins[held]
    assert isinstance(plugin, HeldSuite), f"worker plugin {held} is not a suite"
    try:
        return _agent(recipe, plugin.suite, held).run_all(tasks), perf_counter() - started
    except ProcessesLost:
        # the agent's process died (its agent killed it, or the out-of-memory killer did):
        # the worker goes with it, so the scheduler's retries and suspects apply exactly as
        # they do to a worker killed outright, and no neighbour is blamed for it
        os._exit(1)


def batch_size(size: int, seconds: float, tasks: int) -> int:
    """The next batch's size on the cluster (see `batching.next_size`).

    Measured on 2 cores, no-op trajectories through a 2-worker local cluster at fixed
    sizes: 92 a second one at a time, 430 in eights, 730 in 32s; from 64 on the single
    writer is the limit (100,000 trajectories: 975-1,017 a second at 64, 948-1,110 at
    256, 953 at 1,024, 1,070 sequentially). So 64: as fast as any larger size, with the
    least in flight and the least to run again when a worker dies."""
    return next_size(size, seconds, tasks, target_seconds=TARGET_BATCH_SECONDS, most=MAX_BATCH)


class _Window:
    """The batches in flight, refilled from `pending` up to `limit`; leaving the block
    cancels whatever is still in flight (a stopped run must not keep the cluster busy).

    A task whose batch the scheduler gave up on is a suspect: the window drains, and the
    suspects run one at a time with nothing else in flight. The scheduler counts a death
    against every task a dead worker held, queued ones too, so only a task that kills its
    worker while alone on the cluster is known to be the one that did."""

    def __init__(
        self, client: Client, recipe: Recipe, suite: PublicSuite, pending: Iterator[Task]
    ) -> None:
        self.client, self.recipe, self.pending = client, recipe, pending
        self.limit = IN_FLIGHT_PER_THREAD * max(1, sum(client.nthreads().values()))
        self.held = f"agent-assay-suite-{uuid.uuid4().hex}"
        client.register_plugin(HeldSuite(suite), name=self.held)
        self.in_flight: dict[Future[Batch], list[Task]] = {}
        self.finished = as_completed(loop=client.loop)
        self.size = FIRST_BATCH
        self.suspects: deque[Task] = deque()
        self.alone: Future[Batch] | None = None

    def __enter__(self) -> _Window:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        # a lost scheduler cannot cancel anything; the failure that stopped the run says more
        with suppress(Exception):
            self.client.cancel(list(self.in_flight), force=True)
            self.client.unregister_worker_plugin(self.held)

    def submit(self, batch: list[Task]) -> Future[Batch]:
        future = self.client.submit(_run_batch, self.recipe, self.held, batch, pure=False)
        self.in_flight[future] = batch
        self.finished.add(future)
        return future

    def take(self, future: Future[Batch]) -> tuple[list[Task], bool]:
        """A finished future's batch, and whether it ran alone."""
        alone = future is self.alone
        if alone:
            self.alone = None
        return self.in_flight.pop(future), alone

    def fill(self) -> None:
        if self.suspects or self.alone is not None:
            if not self.in_flight:
                self.alone = self.submit([self.suspects.popleft()])
            return
        while len(self.in_flight) < self.limit and (
            batch := list(islice(self.pending, self.size))
        ):
            self.submit(batch)


class DaskExecutor:
    """Runs tasks in batches on the cluster behind `client` (see the module docstring);
    `where` names its scheduler."""

    def __init__(self, client: Client, where: str, recipe: Recipe, suite: PublicSuite) -> None:
        self.client, self.where, self.recipe, self.suite = client, where, recipe, suite

    def run(self, tasks: Iterable[Task]) -> Iterator[Arrival]:
        with _Window(self.client, self.recipe, self.suite, iter(tasks)) as window:
            window.fill()
            for future in self._finished(window):
                batch, alone = window.take(future)
                try:
                    trajectories, seconds = future.result()
                except KilledWorker:
                    if alone:
                        yield [gave_up(batch[0])]
                    else:
                        window.suspects.extend(batch)
                except CancelledError as exc:
                    raise ExecutorLost(f"the Dask scheduler ({self.where}) was lost") from exc
                else:
                    window.size = batch_size(window.size, seconds, len(batch))
                    yield trajectories
                window.fill()


    def _finished(self, window: _Window) -> Iterator[Future[Batch]]:
        """Each batch's future as it finishes (the window refilled meanwhile); stops the run
        with `ExecutorLost` once the cluster has had no worker for WORKERLESS_SECONDS."""
        finished = window.finished
        checked = workerless = monotonic()
        while not finished.is_empty() or finished.has_ready():
            if finished.has_ready():
                yield next(finished)
                checked = workerless = monotonic()
                continue
            with finished.thread_condition:
                finished.thread_condition.wait(timeout=WORKER_CHECK_SECONDS)
            now = monotonic()
            if finished.has_ready() or now - checked < WORKER_CHECK_SECONDS:
                continue
            checked = now
            if self._workers():
                workerless = now
            elif now - workerless >= WORKERLESS_SECONDS:
                raise ExecutorLost(
                    f"the Dask cluster ({self.where}) has had no worker for "
                    f"{WORKERLESS_SECONDS:g} s (every worker stopped or was killed)")

    def _workers(self) -> int:
        """How many workers the scheduler has; a scheduler that cannot say is lost."""
        try:
            return len(self.client.nthreads())
        except Exception as exc:  # the connection itself, whatever distributed raises
            raise ExecutorLost(f"the Dask scheduler ({self.where}) was lost") from exc


def gave_up(task: Task) -> Trajectory:
    """The slot of a task every worker that ran it died on: a crash the item most likely
    caused (it kills the process it runs in, alone, every time), stored like any other
    crash and counted as the agent's. Were it the harness's, an agent could leave the
    denominator by ending its own process on the items it cannot do."""
    return crashed(
        task,
        perf_counter(),
        "every Dask worker that ran this item died (killed, or out of memory); the scheduler "
        "stopped retrying it",
        {"worker_died": True},
    )


class DaskBackend:
    """Executors on the cluster behind `client`; `where` is its scheduler's address, or
    'local' for a cluster started for the run."""

    def __init__(self, client: Client, where: str) -> None:
        self.client, self.where = client, where
        # counted now: a run stopped by a lost scheduler still records where it ran
        threads = sum(client.nthreads().values())
        self._recorded = {"executor": "dask", "scheduler": where, "worker_threads": threads}

    @property
    def recorded(self) -> Mapping[str, JSON]:
        return self._recorded

    def executor(
        self, adapter: LoadedSystem, suite: PublicSuite, scoring: ScoringJob | None = None
    ) -> Executor:
        """Agents on the cluster; their trajectories come back for the writer to score (a
        cluster's workers are trusted with items, never with gold: `scoring` is not sent)."""
        return DaskExecutor(self.client, self.where, recipe_of(adapter), suite)


@contextmanager
def dask_backend(spec: ExecutorSpec) -> Iterator[DaskBackend]:
    """Connected (or started) before a run is created, closed after it; distributed's own
    logging is silenced meanwhile, so the command line's output stays its own."""
    with _quiet(), _client(spec) as client:
        yield DaskBackend(client, spec.scheduler or "local")


@contextmanager
def _client(spec: ExecutorSpec) -> Iterator[Client]:
    if spec.scheduler is None:
        with dask.config.set(LOCAL_CLUSTER), _local_cluster(spec.workers) as cluster, Client(
            cluster, set_as_default=False
        ) as client:
            yield client
        return
    _probe(spec.scheduler)
    try:
        client = Client(spec.scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except Exception as exc:  # any failure to connect is the address's or the cluster's
        raise AssayError(f"cannot reach the Dask scheduler at {spec.scheduler}: {exc}") from exc
    with client:
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        except TimeoutError as exc:
            raise AssayError(
                f"the Dask scheduler at {spec.scheduler} has no worker (none joined within "
                f"{CONNECT_TIMEOUT:g} s)"
            ) from exc
        yield client


def _probe(address: str) -> None:
    """Refuse, within PROBE_SECONDS, a scheduler address whose port takes no connection."""
    host, port = scheduler_address(address)
    try:
        with socket.create_connection((host, port), timeout=PROBE_SECONDS):
            pass
    except OSError as exc:
        why = (f"no answer within {PROBE_SECONDS:g} s" if isinstance(exc, TimeoutError)
               else exc.strerror or str(exc))
        raise AssayError(f"cannot reach the Dask scheduler at {address}: {why}") from exc


def _local_cluster(workers: int) -> LocalCluster:
    """`workers` single-threaded worker processes on 127.0.0.1, no dashboard, no memory
    limit (the process pool has none either), logging silenced in the workers too."""
    try:
        return LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            # the scheduler's health endpoint still listens: on a free port, so two runs on
            # one machine never contend for the default one (and warn on stderr)
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            memory_limit=0,
            silence_logs=logging.CRITICAL,
            preload=[__name__],
        )
    except Exception as exc:  # whatever stops the cluster starting, the run cannot
        raise AssayError(f"could not start a local Dask cluster: {exc}") from exc


@contextmanager
def _quiet() -> Iterator[None]:
    logger = logging.getLogger("distributed")
    before = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(before)
