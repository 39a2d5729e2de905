"""Agent processes: group commit, Ctrl-C, and what an agent can and cannot reach.

Every agent runs in an agent process (`hosting.pool`); the writer appends what arrives
together in one transaction, each trajectory still its own block.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agent_assay.errors import AssayError, RunStopped
from agent_assay.model import Config, PublicItem, Trajectory
from agent_assay.runner import execute_run
from agent_assay.store import Store
from agent_assay.store.evidence import RawReader, check_run_chain
from tests.support.misbehaving import SLOW_SECONDS_ENV, InterruptingToy, SlowToy, press_ctrl_c_on
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run


def _group_sizes(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every group the runner writes to `store`, as it writes them."""
    sizes: list[int] = []
    write = store.write_trajectories

    def spy(run_id: str, scored: Sequence[Any], *rest: Any) -> list[int]:
        sizes.append(len(scored))
        return write(run_id, scored, *rest)

    monkeypatch.setattr(store, "write_trajectories", spy)
    return sizes


def test_a_fast_agent_shares_commits_and_each_trajectory_keeps_its_block(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    toy = ToyAdapter()
    run = new_toy_run(store, toy, "good", repeats=25)
    sizes = _group_sizes(store, monkeypatch)
    assert execute_run(store, toy, run, progress=False).written == 100
    assert sum(sizes) == 100 and max(sizes) > 1
    assert check_run_chain(store, run.run_id).intact
    assert len([e for e in RawReader(store).ledger(run.run_id) if e.kind == "trajectory"]) == 100


def test_a_slow_agents_trajectories_are_written_as_they_finish(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SLOW_SECONDS_ENV, "0.3")
    slow = SlowToy()
    run = new_toy_run(store, slow, "good")
    sizes = _group_sizes(store, monkeypatch)
    assert execute_run(store, slow, run, progress=False).written == 4
    assert sizes == [1] * 4


def test_ctrl_c_stores_what_arrived_before_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    stopping = InterruptingToy()
    run = new_toy_run(store, stopping, "good", repeats=4)
    press_ctrl_c_on(monkeypatch, 10)
    with pytest.raises(KeyboardInterrupt):
        execute_run(store, stopping, run, progress=False)
    written = store.events(run.run_id)[-1].detail["written"]
    assert written == 9 == len(store.stored_slots(run.run_id))


class Chatty(ToyAdapter):
    """Prints to standard output and reads standard input, as a careless agent might."""

    def run_item(self, item: PublicItem, config: Config, *, seed: int, repetition: int
                 ) -> Trajectory:
        print("\x00" * 64 + "thinking out loud " * 200)
        sys.stdout.flush()
        assert sys.stdin.read() == ""
        return super().run_item(item, config, seed=seed, repetition=repetition)


def test_an_agent_that_prints_and_reads_cannot_touch_the_protocol(store: Store) -> None:
    chatty = Chatty()
    run = new_toy_run(store, chatty, "good", repeats=2)
    result = execute_run(store, chatty, run, progress=False)
    assert (result.written, result.crashed) == (8, 0)


class Vanishes(ToyAdapter):
    """Ends its own process on one item, as an agent killed by the OOM killer would."""

    def run_item(self, item: PublicItem, config: Config, *, seed: int, repetition: int
                 ) -> Trajectory:
        if item.item_id == "on-L2":
            os._exit(9)
        return super().run_item(item, config, seed=seed, repetition=repetition)


def test_an_agent_process_that_dies_stops_the_run_resumably(store: Store) -> None:
    gone = Vanishes()
    run = new_toy_run(store, gone, "good")
    with pytest.raises(RunStopped, match="a worker process died"):
        execute_run(store, gone, run, progress=False)
    assert ("on-L2", 1) not in store.stored_slots(run.run_id)
    assert store.events(run.run_id)[-1].event == "interrupted"


def test_what_an_agent_process_sees_is_the_same_for_every_caller(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every signal a watcher could read, recorded from inside the agent processes of a
    run and of a second run: identical, and none of them the harness's."""
    monkeypatch.setenv("AA_TEST_HARNESS", str(os.getpid()))
    monkeypatch.setenv("PYTHONHASHSEED", "0")  # a user's setting: not passed on
    seen = tmp_path / "seen"
    seen.mkdir()
    monkeypatch.setenv("AA_TEST_SEEN", str(seen))
    for _ in range(2):
        run = new_toy_run(store, Recorder(), "good")
        execute_run(store, Recorder(), run, progress=False)
    views = {p.read_text() for p in seen.iterdir()}
    assert len(views) == 1, views
    assert "True" not in views.pop()


class Recorder(ToyAdapter):
    """Writes what every watcher signal says, from inside its agent process."""

    def run_item(self, item: PublicItem, config: Config, *, seed: int, repetition: int
                 ) -> Trajectory:
        from tests.support.watchers import SIGNALS

        view = {name: check() for name, check in sorted(SIGNALS.items())}
        view["ppid_is_harness"] = os.getppid() == int(os.environ.get("AA_TEST_HARNESS", "0"))
        Path(os.environ["AA_TEST_SEEN"], f"{os.getpid()}-{item.item_id}").write_text(str(view))
        return super().run_item(item, config, seed=seed, repetition=repetition)


def test_a_system_that_cannot_be_rebuilt_is_one_line(store: Store) -> None:
    class Local(ToyAdapter):  # not importable by name: no fresh process can build it
        pass

    run = new_toy_run(store, Local(), "good")
    with pytest.raises(AssayError, match="a fresh process cannot build system toy"):
        execute_run(store, Local(), run, progress=False)


SCRIPT = """
import sys
from tests.support.toy import ToyAdapter


class ScriptToy(ToyAdapter):
    name = "scripttoy"


if __name__ == "__main__":
    import agent_assay as aa

    done = aa.evaluate(ScriptToy(), "good", store=sys.argv[1], repeats=2)
    print(done.result.written, done.result.crashed)
"""


def test_a_system_defined_in_a_script_runs_in_agent_processes(tmp_path: Path) -> None:
    """A script's own class is rebuilt from the script, loaded under another name, so the
    script's main part runs once (in the script) and the agent processes build the class."""
    import subprocess

    from tests.support.toyrun import ROOT, cli_env

    script = tmp_path / "evaluate_mine.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "a.db")],
                          env=cli_env(), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["8", "0"]
