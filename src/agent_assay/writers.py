"""Who is writing a run, and whether that process still exists.

A run records its writer (host, boot, pid and the process's start time) in the
event that opens each writing session. A reader can then tell a run that is
being written from one whose writer was killed: the pid alone is not enough,
since pids are reused, so on Linux the process's start time (from /proc) must
match too, and a different boot id means the machine restarted since. A writer
on another host cannot be checked from here; it is reported as such, never
guessed dead.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


class Liveness(Enum):
    ALIVE = "alive"
    GONE = "gone"
    UNKNOWN = "unknown"  # another host, or a run recorded before writers were


@dataclass(frozen=True)
class Writer:
    host: str
    boot: str
    pid: int
    start: str

    def to_json(self) -> dict[str, Any]:
        return {"host": self.host, "boot": self.boot, "pid": self.pid, "start": self.start}

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host}"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return ""


def start_time(pid: int) -> str:
    """The process's start time in clock ticks after boot (field 22 of /proc/PID/stat),
    or "" where /proc is not available. The command name (field 2) may hold spaces and
    parentheses, so fields are counted from the last ')'."""
    stat = _read(Path(f"/proc/{pid}/stat"))
    fields = stat[stat.rfind(")") + 2 :].split() if ")" in stat else []
    return fields[19] if len(fields) > 19 else ""


def this_process() -> Writer:
    pid = os.getpid()
    return Writer(socket.gethostname(), _read(_BOOT_ID), pid, start_time(pid))


def recorded_writer(detail: object) -> Writer | None:
    """The writer an event's detail names, or None when it names none (or a malformed one:
    a forged or damaged detail must not be able to make a reader raise)."""
    raw = detail.get("writer") if isinstance(detail, Mapping) else None
    if not isinstance(raw, Mapping):
        return None
    host, boot, pid, start = (raw.get(k) for k in ("host", "boot", "pid", "start"))
    if not (isinstance(host, str) and isinstance(boot, str) and isinstance(start, str)):
        return None
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
        return None
    return Writer(host, boot, pid, start)


_MAX_PID = 2**22  # Linux's ceiling (pid_max); a larger recorded pid never existed here


def _pid_exists(pid: int) -> bool:
    if pid > _MAX_PID:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by another user
    return True


def liveness(writer: Writer | None) -> Liveness:
    """Whether `writer` is still running, judged from this machine."""
    if writer is None:
        return Liveness.UNKNOWN
    here = this_process()
    if writer.host != here.host:
        return Liveness.UNKNOWN
    if writer.boot and here.boot and writer.boot != here.boot:
        return Liveness.GONE
    if not _pid_exists(writer.pid):
        return Liveness.GONE
    if writer.start and start_time(writer.pid) not in ("", writer.start):
        return Liveness.GONE  # the pid was reused by a later process
    return Liveness.ALIVE


def still_writing(detail: object) -> str | None:
    """Who is still writing the session an event with `detail` opened, or None when nobody
    provably is: its writer is gone, is this process, or was never recorded. A writer on
    another host cannot be checked and is taken as gone (SQLite is not shared across
    hosts safely anyway)."""
    writer = recorded_writer(detail)
    if writer is None or writer == this_process() or liveness(writer) is not Liveness.ALIVE:
        return None
    return writer.describe()
