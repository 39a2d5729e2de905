"""A run that is stopped, killed, contended for or fed a bad adapter: one line, a stored
state that says what happened, and a resume that finishes it.

The killed-writer cases use real processes (`kill -9` cannot be simulated in-process);
everything else runs the CLI in this process.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.invoke import Invocation, invoke, on_path
from tests.support.misbehaving import (
    CTRL_C_PID_ENV,
    SLOW_SECONDS_ENV,
    press_ctrl_c_on,
    write_misbehaving_dist,
)
from tests.support.toyrun import AGENT_ASSAY, cli_env

TOY_SLOTS = 4  # the toy suite has four items


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    site = write_misbehaving_dist(tmp_path_factory.mktemp("misbehaving"))
    with on_path(site):
        yield site


def one_error_line(done: Invocation, *, after_progress: bool = False) -> str:
    """The failure's one `error:` line; with `after_progress`, progress lines (run id,
    counts) may come before it, since the run got under way."""
    assert done.traceback is None, done.traceback
    assert done.code != 0
    lines = done.err.strip().splitlines()
    if after_progress:
        assert [line for line in lines if line.startswith("error: ")] == lines[-1:], done.err
        return lines[-1]
    assert len(lines) == 1, done.err
    assert lines[0].startswith("error: ")
    return lines[0]


def count(db: Path, sql: str) -> int:
    with sqlite3.connect(db) as con:
        return int(con.execute(sql).fetchone()[0])


def events(db: Path, run_id: str) -> list[str]:
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT event FROM run_events WHERE run_id = ? ORDER BY id", (run_id,))
        return [r[0] for r in rows]


def status_of(db: Path, run_id: str) -> str:
    listed = invoke("runs", "list", "--db", str(db))
    assert listed.code == 0, listed.err
    line = next(line for line in listed.out.splitlines() if line.startswith(run_id))
    return line.split()[4]


# ---- --run-id-file -------------------------------------------------------------------

@pytest.mark.parametrize(
    "target, expected",
    [
        ("missing/dir/id", "error: --run-id-file {t}: directory {t_parent} does not exist"),
        (".", "error: --run-id-file {t} is a directory, not a file"),
    ],
)
def test_an_unwritable_run_id_file_is_refused_before_the_run(
    site: Path, tmp_path: Path, target: str, expected: str
) -> None:
    db, file = tmp_path / "a.db", tmp_path / target
    done = invoke("run", "--adapter", "toy", "--config", "good", "--db", str(db),
                  "--run-id-file", str(file))
    line = one_error_line(done)
    assert line == expected.format(t=file, t_parent=file.parent)
    assert not db.exists() or count(db, "SELECT count(*) FROM runs") == 0


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_a_run_id_file_that_is_a_device_is_refused_before_the_run(
    site: Path, tmp_path: Path
) -> None:
    """Outputs are replaced whole, never written into a device: /dev/full is refused before
    anything is stored (a full disk during the write itself: tests/core/test_full_disk.py)."""
    db = tmp_path / "a.db"
    done = invoke("run", "--adapter", "toy", "--config", "good", "--db", str(db),
                  "--run-id-file", "/dev/full")
    assert one_error_line(done) == (
        "error: --run-id-file /dev/full is not a regular file (a device, FIFO, symlink or "
        "directory): it is not replaced")
    assert not db.exists()


# ---- suite sources -------------------------------------------------------------------

@pytest.mark.parametrize("missing", ["nonexistent.yaml", "nonexistent_dir"])
def test_a_missing_source_is_one_line(site: Path, tmp_path: Path, missing: str) -> None:
    source = tmp_path / missing
    done = invoke("suite", "build", "--adapter", "toy", "--source", str(source),
                  "--db", str(tmp_path / "a.db"))
    assert one_error_line(done) == f"error: --source {source}: no such file or directory"
    assert not (tmp_path / "a.db").exists()


def test_an_adapter_that_cannot_read_its_source_is_one_line(site: Path, tmp_path: Path) -> None:
    source = tmp_path / "gold.txt"
    source.write_text("not a number")
    done = invoke("suite", "build", "--adapter", "unreadable", "--source", str(source),
                  "--db", str(tmp_path / "a.db"))
    line = one_error_line(done)
    assert line.startswith(
        f"error: adapter unreadable could not build its suite from {source}: ValueError: "
        "invalid literal for int()"
    )
    assert "misbehaving.py:" in line  # where the adapter raised


# ---- an adapter that breaks the contract -----------------------------------------------

def test_a_trajectory_for_the_wrong_repetition_is_a_crash_of_the_asked_slot(
    site: Path, tmp_path: Path
) -> None:
    db = tmp_path / "a.db"
    done = invoke("run", "--adapter", "misnumbering", "--config", "good", "--repeats", "2",
                  "--db", str(db))
    assert done.traceback is None, done.traceback
    assert done.code == 0, done.err
    run_id = done.out.strip()
    assert f"wrote {2 * TOY_SLOTS} trajectories ({2 * TOY_SLOTS} crashed)" in done.err
    shown = [line for line in done.err.splitlines() if line.startswith("  crashed: ")]
    assert len(shown) == 3
    for line in shown:  # the first three to arrive, in the run's own order
        item, rep = line.split("item ", 1)[1].split(":")[0].split(" rep ")
        assert line.endswith(f"adapter contract: asked for item {item} repetition {rep}, "
                             f"run_item returned item {item} repetition {int(rep) + 1}")
    assert f"  ... and {2 * TOY_SLOTS - 3} more" in done.err
    assert f"  -> all of them: agent-assay runs show {run_id} --db {db}" in done.err
    assert count(db, "SELECT count(*) FROM trajectories WHERE crashed = 1") == 2 * TOY_SLOTS
    report = invoke("report", run_id, "--db", str(db))
    assert "INADMISSIBLE" in report.out


# ---- Ctrl-C -----------------------------------------------------------------------------

def test_ctrl_c_stores_what_ran_and_prints_the_resume_command(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "a.db"
    press_ctrl_c_on(monkeypatch, 3)
    done = invoke("run", "--adapter", "interrupted", "--config", "good", "--db", str(db))
    monkeypatch.delenv(CTRL_C_PID_ENV)
    assert done.code == 130
    line = one_error_line(done, after_progress=True)
    run_id = line.split("run ", 1)[1].split()[0]
    assert line == (
        f"error: interrupted: run {run_id} stopped after 2 new trajectories; "
        f"resume it with `agent-assay run --resume {run_id} --db {db}`"
    )
    assert events(db, run_id)[-1] == "interrupted"
    assert status_of(db, run_id) == "interrupted"
    resumed = invoke("run", "--resume", run_id, "--db", str(db))
    assert resumed.code == 0, resumed.err
    assert "wrote 2 trajectories (0 crashed), skipped 2 already stored" in resumed.err
    assert status_of(db, run_id) == "complete"


# ---- a writer killed with -9 -------------------------------------------------------------

def start_slow_run(
    site: Path, tmp_path: Path, db: Path, *extra: str, seconds: float = 0.5, tag: str = ""
) -> subprocess.Popen[str]:
    """`run` of the slow toy (each item takes `seconds`) in its own process."""
    env = cli_env(site) | {SLOW_SECONDS_ENV: str(seconds), "AA_TEST_TAG": tag}
    return subprocess.Popen(
        [str(AGENT_ASSAY), "run", "--adapter", "slowtoy", "--config", "good", "--repeats", "3",
         "--db", str(db), *extra],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def wait_for_trajectories(db: Path, at_least: int, timeout: float = 60) -> str:
    """The run id once `at_least` trajectories are stored."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists():
            try:
                with sqlite3.connect(db) as con:
                    row = con.execute(
                        "SELECT run_id, count(*) FROM trajectories GROUP BY run_id"
                    ).fetchone()
            except sqlite3.OperationalError:
                row = None  # tables not created yet
            if row is not None and row[1] >= at_least:
                return str(row[0])
        time.sleep(0.05)
    raise AssertionError(f"no {at_least} trajectories in {db} after {timeout} s")


def test_a_killed_writer_shows_interrupted_and_its_run_resumes(site: Path, tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    writer = start_slow_run(site, tmp_path, db)
    run_id = wait_for_trajectories(db, 2)
    assert status_of(db, run_id) == "running"
    busy = invoke("run", "--resume", run_id, "--db", str(db))
    assert one_error_line(busy).startswith(
        f"error: run {run_id} is being written by another process (pid {writer.pid} on "
    )
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    assert status_of(db, run_id) == "interrupted"
    report = invoke("report", run_id, "--db", str(db))
    assert f"!!! resume it with `agent-assay run --resume {run_id}`" in report.out
    assert "is gone without closing it" in report.out
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SLOW_SECONDS_ENV, "0")
        resumed = invoke("run", "--resume", run_id, "--db", str(db))
    assert resumed.code == 0, resumed.err
    assert status_of(db, run_id) == "complete"
    assert count(db, f"SELECT count(*) FROM trajectories WHERE run_id = '{run_id}'") == \
        3 * TOY_SLOTS


def test_two_resumers_at_once_one_wins_the_other_gets_one_line(
    site: Path, tmp_path: Path
) -> None:
    db = tmp_path / "a.db"
    first = start_slow_run(site, tmp_path, db)
    run_id = wait_for_trajectories(db, 1)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    env = cli_env(site) | {SLOW_SECONDS_ENV: "0.3"}
    resumers = [
        subprocess.Popen([str(AGENT_ASSAY), "run", "--resume", run_id, "--db", str(db)],
                         env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
        for _ in range(2)
    ]
    results = [(p.wait(timeout=120), *p.communicate()) for p in resumers]
    codes = sorted(code for code, _, _ in results)
    assert codes == [0, 1], results
    loser = next(err for code, _, err in results if code == 1).strip().splitlines()
    assert len(loser) == 1, loser
    assert loser[0].startswith(f"error: run {run_id} is being written by another process (pid ")
    assert count(db, f"SELECT count(*) FROM trajectories WHERE run_id = '{run_id}'") == \
        3 * TOY_SLOTS
    assert status_of(db, run_id) == "complete"


def agent_processes(tag: str) -> list[int]:
    """The agent processes whose environment carries AA_TEST_TAG=`tag` (they are detached:
    no process's children)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            environ = (proc / "environ").read_bytes()
        except OSError:
            continue
        if b"agent_assay.hosting.host" in cmdline and f"AA_TEST_TAG={tag}".encode() in environ:
            found.append(int(proc.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_killed_worker_process_ends_the_run_with_one_line_and_an_interrupted_event(
    site: Path, tmp_path: Path
) -> None:
    db = tmp_path / "a.db"
    # items slow enough that the workers are still busy when the first trajectory is stored,
    # however loaded the machine (at 0.5 s they could all finish before the writer stored one)
    writer = start_slow_run(site, tmp_path, db, "--workers", "2", seconds=2.0,
                            tag=str(tmp_path))
    run_id = wait_for_trajectories(db, 1)
    workers = agent_processes(str(tmp_path))
    assert workers, "no worker process found"
    os.kill(workers[0], signal.SIGKILL)
    _, err = writer.communicate(timeout=120)
    assert writer.returncode == 1, err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, err
    assert errors[0].startswith("error: a worker process died (killed, or out of memory) after ")
    assert errors[0].endswith(f"resume it with `agent-assay run --resume {run_id} --db {db}`")
    assert "Traceback" not in err
    assert events(db, run_id)[-1] == "interrupted"
    assert status_of(db, run_id) == "interrupted"


def test_sigterm_leaves_what_ctrl_c_leaves_and_says_how_to_resume(
    site: Path, tmp_path: Path
) -> None:
    db = tmp_path / "a.db"
    writer = start_slow_run(site, tmp_path, db, seconds=0.5)
    run_id = wait_for_trajectories(db, 1)
    writer.send_signal(signal.SIGTERM)
    _, err = writer.communicate(timeout=60)
    assert writer.returncode == 143, err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "Traceback" not in err, err
    assert errors[0].startswith(f"error: terminated: run {run_id} stopped after ")
    assert errors[0].endswith(f"resume it with `agent-assay run --resume {run_id} --db {db}`")
    assert events(db, run_id)[-1] == "interrupted"
    assert status_of(db, run_id) == "interrupted"


# ---- what a run starts ends with it ------------------------------------------------------

def alive(pid: int) -> bool:
    """Whether `pid` is a process that has not exited (a zombie has)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def descendants(pid: int) -> list[int]:
    """The processes `pid` started that are its children (the scoring processes and the
    resource tracker multiprocessing starts beside them)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and f"\nPPid:\t{pid}\n" in (proc / "status").read_text():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def command_line(pid: int) -> bytes:
    """`pid`'s command line, or nothing once it has exited (a child seen a moment ago
    may be gone by the time its command line is read)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def scoring_started(writer: int, tag: str, timeout: float = 60) -> list[int]:
    """The agent processes and the writer's children once both agent processes and a
    scoring process (spawned when the first answers arrive) are there."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        agents, children = agent_processes(tag), descendants(writer)
        spawned = [pid for pid in children if b"spawn_main" in command_line(pid)]
        if len(agents) == 2 and spawned:
            return agents + children
        time.sleep(0.1)
    raise AssertionError(f"no scoring process beside two agent processes after {timeout} s")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_parent_killed_with_minus_9_leaves_no_worker_behind(site: Path, tmp_path: Path) -> None:
    """`--workers 2` of an agent that takes ten minutes over every item after its first:
    once a scoring process is scoring the first answers, the writer is killed with -9, and
    every agent process (busy with an item), scoring process and the resource tracker
    beside them must end by themselves. The wait is generous; nothing is timed."""
    db = tmp_path / "a.db"
    env = cli_env(site) | {"AA_TEST_TAG": str(tmp_path)}
    writer = subprocess.Popen(
        [str(AGENT_ASSAY), "run", "--adapter", "lingering", "--config", "good", "--repeats",
         "3", "--workers", "2", "--db", str(db)],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started = scoring_started(writer.pid, str(tmp_path))
    writer.send_signal(signal.SIGKILL)
    writer.communicate(timeout=30)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(alive(pid) for pid in started):
        time.sleep(0.2)
    assert [pid for pid in started if alive(pid)] == []


def test_more_workers_than_a_writer_can_use_is_refused_before_a_run_exists(
    site: Path, tmp_path: Path
) -> None:
    db = tmp_path / "a.db"
    done = invoke("run", "--adapter", "toy", "--config", "good", "--workers", str(2**31),
                  "--db", str(db))
    assert one_error_line(done) == (
        "error: --workers 2147483648 is more than 256, the most agent processes one writer "
        "can use")
    assert not db.exists() or count(db, "SELECT count(*) FROM runs") == 0
