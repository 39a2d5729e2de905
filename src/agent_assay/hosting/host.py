"""The agent process: `python -m agent_assay.hosting.host`, the one way agent code runs.

A run, a resume, every worker, identical_config's twins and every control that executes
the system start their agent processes here, through `hosting.pool`, in the same way: the
same command line, the caller's environment (less PYTHONHASHSEED, so each interpreter
draws its own hash seed), a temporary directory of its own, no multiprocessing parent,
the same process name and the same call stack above the system's code. The process
detaches at once (it forks and its first half exits), so its parent is whatever adopts
orphans on this machine, never `agent-assay run` or `agent-assay controls run`, whose
command lines would tell one from the other.

The protocol's pipes are moved off standard input and output first, so an agent that
prints writes to standard error and one that reads its input reads nothing. The process
ends when its jobs' pipe hangs up (`lifeline`): a run killed with -9 leaves no agent
behind, even one in the middle of an item, and one that finds the run gone while
answering ends without a word.
"""

from __future__ import annotations

import os
import pickle
import sys
from time import perf_counter

from agent_assay.adapters.loaded import LoadedSystem
from agent_assay.adapters.recipe import rebuild
from agent_assay.errors import AssayError
from agent_assay.hosting.jobs import Job, Task, crashed, perform
from agent_assay.hosting.lifeline import exit_on_hang_up
from agent_assay.hosting.protocol import FrameSource, encode, write_all
from agent_assay.hosting.sections import SentSections


def private_pipes() -> tuple[int, int]:
    """The protocol's two descriptors, moved aside; 0 becomes /dev/null, 1 standard error."""
    inbound, outbound = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return inbound, outbound


def detach() -> None:
    """Fork; the first half exits, so orphan adoption gives the second half its parent."""
    if os.fork():
        os._exit(0)


def serve(inbound: int, outbound: int) -> None:
    """Build the system from the recipe the first frame holds, then answer every job."""
    source = FrameSource(inbound)
    first = source.next()
    if first is None:
        return
    recipe, suite, path = pickle.loads(first)
    sys.path[:] = path  # where the caller finds the system's code, as multiprocessing would
    try:
        system = rebuild(recipe)
        system.prepare(suite)
    except Exception as exc:
        why = str(exc) if isinstance(exc, AssayError) else f"{type(exc).__name__}: {exc}"
        write_all(outbound, encode({"kind": "failed", "error": why}))
        return
    write_all(outbound, encode({"kind": "ready", "pid": os.getpid()}))
    sections = SentSections()
    while (data := source.next()) is not None:
        write_all(outbound, answer(system, pickle.loads(data), sections))


def answer(system: LoadedSystem, job: Job, sections: SentSections) -> bytes:
    """The message for one job: its trajectory as JSON (a replay's final state only in
    the sections not sent before, see `hosting.sections`), or what went wrong. An agent's
    trajectory that JSON cannot carry is a crash of its slot, as any broken contract is; so
    is an agent that raises KeyboardInterrupt or SystemExit (a user's Ctrl-C reaches the
    harness, never this process, which has a session of its own)."""
    started = perf_counter()
    try:
        trajectory = perform(system, job).to_json()
        if not isinstance(job, Task):
            return sections.answer(trajectory)
        return encode({"kind": "done", "trajectory": trajectory})
    except (Exception, KeyboardInterrupt, SystemExit) as exc:  # no Ctrl-C reaches this process
        why = f"{type(exc).__name__}: {exc}"
        if not isinstance(job, Task):
            return encode({"kind": "raised", "error": why})
        if not isinstance(exc, Exception):  # the agent raised it: run_task lets these through
            return encode({"kind": "done", "trajectory": crashed(job, started, why, {}).to_json()})
        broken = crashed(job, started, f"adapter contract: the trajectory cannot be sent ({why})",
                         {})
        return encode({"kind": "done", "trajectory": broken.to_json()})


def main() -> None:
    inbound, outbound = private_pipes()
    detach()
    exit_on_hang_up(inbound)
    try:
        serve(inbound, outbound)
    except BrokenPipeError:
        os._exit(0)  # the run went away while this process answered: nobody to tell
    sys.stderr.flush()


if __name__ == "__main__":
    main()
