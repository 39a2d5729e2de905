"""Agents that try to tell a control from a run, written the way their authors would.

Each is unseeded noise in the run; when it believes a control is re-executing it, it
replays the answers it recorded during the run (in a directory named by RECORDS_ENV, the
way an agent would keep a cache on disk), so the re-execution agrees with the run and the
noise passes as determinism. Each class looks at one signal; `AnySignal` at all of them.
A harness that starts every agent process the same way gives none of them a signal, and
then each behaves in a twin as it did in the run: noisily, which identical_config sees.

Also here: agents whose answers depend on the repetition, or on having met the item
before in the same process, which a comparison of first repetitions alone cannot see.
"""

from __future__ import annotations

import inspect
import json
import multiprocessing
import os
import random
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from agent_assay.model import Config, PublicItem, Trajectory
from tests.support.cheats import CheatBase

RECORDS_ENV = "AA_TEST_RECORDS"
CONTROL_WORDS = ("controls", "identical", "certif")


def parent_command_line() -> list[str]:
    try:
        raw = Path(f"/proc/{os.getppid()}/cmdline").read_bytes()
    except OSError:
        return []
    return raw.decode("utf-8", "replace").split("\0")


def says_control(text: str) -> bool:
    return any(word in text for word in CONTROL_WORDS)


def command_says_control(words: list[str]) -> bool:
    """A command line's words, a path's folders left out: a checkout (and the interpreter
    inside it) may live under any folder name, the same for a run as for a control."""
    return says_control(" ".join(os.path.basename(w) if os.sep in w else w for w in words))


SIGNALS: dict[str, Callable[[], bool]] = {
    "argv": lambda: command_says_control(sys.argv),
    "orig_argv": lambda: command_says_control(getattr(sys, "orig_argv", [])),
    "parent_command_line": lambda: command_says_control(parent_command_line()),
    "parent_process": lambda: multiprocessing.parent_process() is not None,
    "process_name": lambda: multiprocessing.current_process().name != "MainProcess",
    "hash_seed_set": lambda: "PYTHONHASHSEED" in os.environ,
    # the modules on the stack, not their files: a checkout's own path may hold any word
    "call_stack": lambda: any(says_control(str(frame.frame.f_globals.get("__name__", "")))
                              for frame in inspect.stack()),
    "loaded_modules": lambda: any(says_control(name) for name in sys.modules),
    "thread_name": lambda: threading.current_thread().name != "MainThread",
}


class Watcher(CheatBase):
    """Noise in the run; the run's own answers replayed when `watched()` says control."""

    name = "watcher"
    signal: ClassVar[str] = "argv"

    def watched(self) -> bool:
        return SIGNALS[self.signal]()

    def coin(self, item: PublicItem) -> bool:
        records = Path(os.environ[RECORDS_ENV])
        record = records / f"{type(self).__name__}-{item.item_id}.json"
        if self.watched() and record.exists():
            return bool(json.loads(record.read_text()))
        flipped = random.random() < 0.5
        if not record.exists():
            record.write_text(json.dumps(flipped))
        return flipped


def watcher_of(signal: str) -> type[Watcher]:
    """A watcher class that looks at `signal` alone, importable by name (a fresh process
    rebuilds a system from its module and class)."""
    return type(f"Watches_{signal}", (Watcher,), {"signal": signal, "__module__": __name__})


for _signal in SIGNALS:
    globals()[f"Watches_{_signal}"] = watcher_of(_signal)


class AnySignal(Watcher):
    """Watched when any signal says so."""

    name = "anysignal"

    def watched(self) -> bool:
        return any(check() for check in SIGNALS.values())


class RepetitionKeyed(CheatBase):
    """Right on the first repetition, noisy on the others: a check of first repetitions
    alone certifies it."""

    name = "repkeyed"

    repetition = 1

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        self.repetition = repetition
        return super().run_item(item, config, seed=seed, repetition=repetition)

    def coin(self, item: PublicItem) -> bool:
        return self.repetition > 1 and random.random() < 0.5


class SeenBefore(CheatBase):
    """Repeats itself exactly, except that the second time it meets an item in one process
    it looks once more: in a k=3 run its repetitions disagree, in any fresh process its
    first answer is the run's."""

    name = "seenbefore"
    met: ClassVar[set[str]] = set()

    def coin(self, item: PublicItem) -> bool:
        seen = item.item_id in SeenBefore.met
        SeenBefore.met.add(item.item_id)
        return seen
