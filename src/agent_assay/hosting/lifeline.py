"""Processes a run starts end when the run's process does, however it ends.

A run killed with -9 runs no cleanup: whatever it started must notice by itself, or it
outlives the run (an agent in the middle of a slow item, a scoring process waiting for
work, identical_config's twins), holding memory and, for an agent, maybe a model
server's quota. Two ways, for the two kinds of process:

* An agent process (`hosting.host`) detaches on purpose, so that no agent sees which
  command started it; its parent is then whatever adopts orphans, and a parent-death
  signal would fire as the detaching half exits, not when the run dies. What it keeps
  is the pipe its jobs come on, whose only writer is the run: when every writer is gone
  the pipe hangs up. `exit_on_hang_up` watches for that in a thread (polling the pipe
  reads nothing from it) and ends the process, busy with an item or not.
* A process the run spawns directly (a scoring process) is the run's child, so on Linux
  `die_with_parent` asks the kernel for SIGKILL when the parent dies
  (`prctl(PR_SET_PDEATHSIG)`); elsewhere a thread polls the parent's pid.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
POLL_SECONDS = 1.0
"""How often the portable fallback looks for its parent."""


def exit_on_hang_up(fd: int) -> None:
    """End this process as soon as nothing can write to the pipe `fd` any more (its
    writer, the run, is gone). Where `poll` is missing, nothing is watched."""
    if not hasattr(select, "poll"):
        return

    def watch() -> None:
        watcher = select.poll()
        watcher.register(fd, 0)  # hang-up and error are reported whatever is asked for
        while True:
            for _, events in watcher.poll():
                if events & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
                    os._exit(0)

    threading.Thread(target=watch, name="agent-assay-lifeline", daemon=True).start()


def die_with_parent(parent: int) -> None:
    """End this process (SIGKILL) when `parent`, the process that started it, ends: by the
    kernel on Linux, else by a thread that polls the parent's pid. `parent` is passed in,
    not read here: a parent that died while this process was starting has been replaced
    by whatever adopts orphans already, and that one must not be mistaken for it."""
    if os.getppid() != parent:
        os._exit(0)
    if sys.platform.startswith("linux") and _parent_death_signal(signal.SIGKILL):
        if os.getppid() != parent:  # the parent died before the request was made
            os._exit(0)
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(POLL_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="agent-assay-lifeline", daemon=True).start()


def _parent_death_signal(signum: int) -> bool:
    """Ask the kernel to send `signum` when the parent ends; False if it cannot be asked."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
