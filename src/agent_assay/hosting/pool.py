"""Agent processes, started and fed the one way there is.

`AgentProcesses` starts `size` agent processes (`hosting.host`), each with the same command
line and the caller's environment (see `agent_environment`), hands each the recipe
and the public suite, then keeps every process fed with jobs and yields what comes back as
soon as it comes. Who asks (a run, a resume, a twin, a control's replays) changes nothing an
agent process can see: that is the point of having one way.

What comes back is checked here, not trusted (`answer_of`, in this process, or in a
scoring process that is handed the frames as they came: `frames`): a frame that is not
JSON, a trajectory that does not decode, or an answer for another slot than the one asked
becomes a crashed trajectory of the asked slot, the agent's crash; a crash the answer
itself reports keeps the cause it records only if that is one the harness knows
(`jobs.attributed`); a process that goes away raises `ProcessesLost`.
"""

from __future__ import annotations

import fcntl
import json
import os
import pickle
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from time import perf_counter
from types import TracebackType

from agent_assay.adapters.recipe import Recipe
from agent_assay.errors import AssayError
from agent_assay.hosting.jobs import Job, Task, attributed, contract_breach, crashed
from agent_assay.hosting.protocol import BrokenStream, FrameReader, frame, write_all
from agent_assay.model import PublicSuite, Trajectory

COMMAND = (sys.executable, "-m", "agent_assay.hosting.host")
WINDOW_SECONDS = 0.1
"""How much of an agent process's work is queued ahead for it, as foreseen from its recent
jobs: enough that a fast agent never waits for the harness, little enough that a slow
agent's jobs spread evenly over the processes."""
MOST_QUEUED = 64
POLL_SECONDS = 0.05
"""How often a process whose pipe was full is offered the rest of its jobs again."""
ANSWERS_PIPE_BYTES = 1 << 20
"""What the pipe an agent process answers on holds, where the system lets it be set
(Linux's default, and its most for an unprivileged process, is 64 KiB and 1 MiB): a
banking answer is about 80 KiB, so with 64 KiB an agent waits at every answer until the
writer has read it, and with this it goes on with its next jobs while the writer is busy.
Every agent process gets the same, so this tells no run from a control either."""


class ProcessesLost(Exception):
    """An agent process went away (killed, out of memory, or it ended itself): nothing it
    had not answered was kept, so a resumed run asks for those slots again."""


@dataclass
class AgentProcess:
    """One agent process: its pipes, what it has been sent and not yet answered."""

    popen: subprocess.Popen[bytes]
    scratch: str
    """Its own empty temporary directory (TMPDIR), removed when it ends."""
    pid: int = 0
    reader: FrameReader = field(default_factory=FrameReader)
    asked: deque[tuple[Job, float]] = field(default_factory=deque)
    outbox: bytearray = field(default_factory=bytearray)
    """Jobs written for it that its pipe has not taken yet."""
    took: float = 0.0
    """Seconds its last job took, as seen from here (0 until one is answered)."""
    answered: float = 0.0
    """When its last answer arrived."""

    @property
    def inbound(self) -> int:
        assert self.popen.stdin is not None
        return self.popen.stdin.fileno()

    @property
    def outbound(self) -> int:
        assert self.popen.stdout is not None
        return self.popen.stdout.fileno()

    def window(self) -> int:
        if self.took <= 0:
            return 1
        return max(1, min(MOST_QUEUED, int(WINDOW_SECONDS / self.took) + 1))

    def flush(self) -> None:
        """Hand the pipe what it takes now, never waiting: a process that is writing its
        answers is not reading its jobs, and waiting on it would wait forever."""
        try:
            while self.outbox:
                del self.outbox[:os.write(self.inbound, self.outbox)]
        except BlockingIOError:
            return
        except BrokenPipeError as exc:
            raise ProcessesLost("a worker process died (killed, or out of memory)") from exc

    def answer(self) -> Job:
        """The job its next answer is for, timing how long the process spent on it."""
        if not self.asked:
            raise ProcessesLost("an agent process answered a job it was not given")
        job, sent = self.asked.popleft()
        now = perf_counter()
        self.took = now - max(sent, self.answered)
        self.answered = now
        return job


def agent_environment(scratch: str) -> dict[str, str]:
    """The caller's environment, less PYTHONHASHSEED (every interpreter then draws its own
    hash seed, so no two agent processes share a hash order, and none can tell a chosen
    seed from a drawn one), with a temporary directory of its own (a cache an agent keeps
    there does not outlive the process)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    return env | {"TMPDIR": scratch}


def start(recipe: Recipe, suite: PublicSuite) -> AgentProcess:
    scratch = tempfile.mkdtemp(prefix="agent-")
    popen = subprocess.Popen(
        COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=agent_environment(scratch),
        close_fds=True, start_new_session=True,
    )
    process = AgentProcess(popen, scratch)
    with suppress(AttributeError, OSError):  # not Linux, or a lower limit: the default stays
        fcntl.fcntl(process.outbound, fcntl.F_SETPIPE_SZ, ANSWERS_PIPE_BYTES)
    write_all(process.inbound, frame(pickle.dumps((recipe, suite, list(sys.path)))))
    return process


class AgentProcesses:
    """`size` agent processes for one suite; a context manager that ends them on exit."""

    def __init__(self, recipe: Recipe, suite: PublicSuite, size: int = 1) -> None:
        self.recipe, self.suite, self.size = recipe, suite, max(1, size)
        self.processes: list[AgentProcess] = []
        self.selector = selectors.DefaultSelector()

    def __enter__(self) -> AgentProcesses:
        try:
            self.processes = [start(self.recipe, self.suite) for _ in range(self.size)]
            for process in self.processes:
                self._await_ready(process)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _await_ready(self, process: AgentProcess) -> None:
        message = self._next_message(process)
        if message.get("kind") == "failed":
            raise AssayError(f"a worker process could not start the system: {message.get('error')}")
        pid = message.get("pid")
        if message.get("kind") != "ready" or not isinstance(pid, int):
            raise ProcessesLost("an agent process did not start as asked")
        process.pid = pid
        process.popen.wait()  # the half that forked has exited: reap it now
        os.set_blocking(process.inbound, False)
        self.selector.register(process.outbound, selectors.EVENT_READ, process)

    def _next_message(self, process: AgentProcess) -> dict[str, object]:
        """Blocking: the next message of one process (only used while it starts)."""
        while True:
            data = os.read(process.outbound, 1 << 16)
            if not data:
                raise ProcessesLost("an agent process ended before it was ready")
            frames = list(process.reader.feed(data))
            if frames:
                return decode(frames[0])

    def run(self, jobs: Iterable[Job]) -> Iterator[list[Trajectory]]:
        """Every job's trajectory, in the order they finish, grouped by what arrived together
        (the writer appends a group in one transaction)."""
        for arrival in self.answers(jobs):
            yield [trajectory for _, trajectory in arrival]

    def run_all(self, jobs: Sequence[Job]) -> list[Trajectory]:
        """Every job's trajectory, in the order of `jobs` (what a control asks for); an
        environment that raised on a replay raises `ReplayRaised`."""
        order = {id(job): n for n, job in enumerate(jobs)}
        done: list[tuple[int, Trajectory]] = []
        for arrival in self.answers(jobs):
            done += [(order[id(job)], trajectory) for job, trajectory in arrival]
        return [trajectory for _, trajectory in sorted(done, key=lambda pair: pair[0])]

    def answers(self, jobs: Iterable[Job]) -> Iterator[list[tuple[Job, Trajectory]]]:
        """Each job beside its trajectory, grouped by what arrived together."""
        for arrival in self.frames(jobs):
            yield [(job, answer_of(job, payload)) for job, payload in arrival]

    def frames(self, jobs: Iterable[Job]) -> Iterator[list[tuple[Job, bytes]]]:
        """Each job beside its answer as it came, neither decoded nor checked (whoever takes
        it must: `answer_of`), grouped by what arrived together. A scoring process decodes
        its batch's answers itself, so the writer never handles an agent's JSON."""
        pending = iter(jobs)
        exhausted = False
        while True:
            if not exhausted:
                exhausted = self._feed(pending)
            if not any(p.asked for p in self.processes):
                return
            yield self._collect()

    def _feed(self, pending: Iterator[Job]) -> bool:
        """Queue jobs on each process up to its window; True once `pending` is used up."""
        exhausted = False
        for process in self.processes:
            while not exhausted and len(process.asked) < process.window():
                job = next(pending, None)
                if job is None:
                    exhausted = True
                    break
                process.asked.append((job, perf_counter()))
                process.outbox += frame(pickle.dumps(job))
            process.flush()
        return exhausted

    def _collect(self) -> list[tuple[Job, bytes]]:
        """Wait until some process answers, offering any job a full pipe refused again every
        POLL_SECONDS meanwhile; everything already answered comes back together."""
        arrived: list[tuple[Job, bytes]] = []
        while not arrived:
            for process in self.processes:
                process.flush()
            waiting = any(process.outbox for process in self.processes)
            for key, _ in self.selector.select(timeout=POLL_SECONDS if waiting else None):
                arrived += self._read(key.data)
        return arrived

    def _read(self, process: AgentProcess) -> list[tuple[Job, bytes]]:
        data = os.read(process.outbound, 1 << 16)
        if not data:
            raise ProcessesLost("a worker process died (killed, or out of memory)")
        try:
            frames = list(process.reader.feed(data))
        except BrokenStream as exc:
            raise ProcessesLost(f"an agent process broke its stream ({exc})") from exc
        return [(process.answer(), payload) for payload in frames]

    def close(self) -> None:
        """End every process: close its input (it stops after the job in hand), then signal
        it, since it is not this process's child and may be stuck in an agent's code."""
        for process in self.processes:
            for stream in (process.popen.stdin, process.popen.stdout):
                if stream is not None:
                    stream.close()
            if process.pid:
                with suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGTERM)
            process.popen.wait()  # at once unless it never got as far as forking
            shutil.rmtree(process.scratch, ignore_errors=True)
        self.selector.close()
        self.processes = []


class ReplayRaised(AssayError):
    """The environment raised while a control's replay ran (the control fails with it)."""


def answer_of(job: Job, payload: bytes) -> Trajectory:
    """The trajectory an agent process's answer `payload` carries for `job`, decoded and
    checked (see `checked`), in whichever process takes it."""
    return checked(job, decode(payload))


def decode(payload: bytes) -> dict[str, object]:
    try:
        message = json.loads(payload)
    except ValueError:
        return {"kind": "garbled"}
    return message if isinstance(message, dict) else {"kind": "garbled"}


def checked(job: Job, message: dict[str, object]) -> Trajectory:
    """The trajectory a message carries for `job`, as far as the harness can tell it is one.
    An agent's broken answer is a crash of its slot; a replay's raises."""
    started = perf_counter()
    problem = "the agent process answered something that is not a trajectory"
    if message.get("kind") == "raised":
        problem = str(message.get("error"))
    elif message.get("kind") == "done" and isinstance(message.get("trajectory"), dict):
        try:
            trajectory = Trajectory.from_json(message["trajectory"])  # type: ignore[arg-type]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            problem = f"the agent process sent a trajectory that does not decode ({exc})"
        else:
            if not isinstance(job, Task):
                return trajectory
            breach = contract_breach(job, trajectory)
            if breach is None:
                return attributed(trajectory)
            problem = breach
    if isinstance(job, Task):
        return crashed(job, started, problem, {})
    raise ReplayRaised(f"a replay through the environment raised: {problem}")
