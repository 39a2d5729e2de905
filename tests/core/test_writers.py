"""Telling a live writer from a dead one, and never raising on a forged writer record."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest

from agent_assay.writers import (
    Liveness,
    liveness,
    recorded_writer,
    start_time,
    still_writing,
    this_process,
)


def finished_pid() -> int:
    """A pid that existed a moment ago and has exited."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_this_process_is_alive_and_round_trips() -> None:
    me = this_process()
    assert liveness(me) is Liveness.ALIVE
    assert recorded_writer({"writer": me.to_json()}) == me
    assert still_writing({"writer": me.to_json()}) is None  # we never wait for ourselves


def test_an_exited_process_is_gone() -> None:
    gone = replace(this_process(), pid=finished_pid())
    assert liveness(gone) is Liveness.GONE
    assert still_writing({"writer": gone.to_json()}) is None


@pytest.mark.skipif(not this_process().start, reason="no /proc start times on this system")
def test_a_reused_pid_is_gone() -> None:
    reused = replace(this_process(), start="1")  # our pid, another process's start time
    assert liveness(reused) is Liveness.GONE


@pytest.mark.skipif(not this_process().boot, reason="no boot id on this system")
def test_a_writer_from_before_a_reboot_is_gone() -> None:
    assert liveness(replace(this_process(), boot="another-boot")) is Liveness.GONE


def test_another_hosts_writer_cannot_be_checked() -> None:
    elsewhere = replace(this_process(), host="some-other-host")
    assert liveness(elsewhere) is Liveness.UNKNOWN
    assert still_writing({"writer": elsewhere.to_json()}) is None


def test_a_live_other_process_is_still_writing() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        other = replace(this_process(), pid=child.pid, start=start_time(child.pid))
        assert liveness(other) is Liveness.ALIVE
        assert still_writing({"writer": other.to_json()}) == f"pid {child.pid} on {other.host}"
    finally:
        child.kill()
        child.wait()


@pytest.mark.parametrize(
    "detail",
    [
        None, [], "writer", {"writer": None}, {"writer": []}, {"writer": {}},
        {"writer": {"host": "h", "boot": "b", "pid": "12", "start": "1"}},
        {"writer": {"host": "h", "boot": "b", "pid": True, "start": "1"}},
        {"writer": {"host": "h", "boot": "b", "pid": -4, "start": "1"}},
        {"writer": {"host": 3, "boot": "b", "pid": 4, "start": "1"}},
    ],
)
def test_a_malformed_writer_record_reads_as_none(detail: Any) -> None:
    assert recorded_writer(detail) is None
    assert still_writing(detail) is None


def test_a_huge_recorded_pid_is_gone_not_an_overflow() -> None:
    huge = replace(this_process(), pid=2**80)
    assert liveness(huge) is Liveness.GONE
