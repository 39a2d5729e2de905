"""Where a benchmark's figures go: one sorted JSON file under reports/bench/, echoed."""

from __future__ import annotations

import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

CLI = str(Path(sys.executable).with_name("agent-assay"))
"""The agent-assay command of the interpreter running the benchmark."""

_MEASURE = """
import ctypes, json, os, resource, subprocess, sys, time
# adopt every descendant that detaches (the harness's agent processes fork away from their
# parent), so that its CPU is counted in this probe's children when it is reaped below
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
deadline = time.monotonic() + 60
while True:
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if pid == 0:
        if time.monotonic() > deadline:
            break
        time.sleep(0.02)
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"code": p.returncode, "cpu": use.ru_utime + use.ru_stime,
                  "rss_mb": use.ru_maxrss / 1024, "err": p.stderr[-500:]}))
"""


def measured(command: list[str]) -> dict[str, Any]:
    """`command` in a fresh child, which is all its probe measures: its exit code, CPU
    seconds (user + system, every descendant included, even one that detached, as the
    harness's agent processes do: the probe adopts and reaps them), the largest peak RSS of
    one process, and the tail of stderr."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, *command], capture_output=True,
                         text=True, check=True).stdout
    got: dict[str, Any] = json.loads(out)
    return got


def child_figures(command: list[str], what: str) -> dict[str, Any]:
    """Run `command`, which prints its figures as JSON on its last line; a failure ends the
    benchmark in one line naming `what` and the child's last line of stderr."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines() or ["no output"]
        raise SystemExit(f"{what} failed: {tail[-1]}")
    got: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return got


def write_figures(out: Path, figures: dict[str, Any]) -> None:
    """Write FIGURES to OUT (creating its folder) and print the same text."""
    text = json.dumps(figures, sort_keys=True, indent=2) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(text, end="")


def machine() -> dict[str, str]:
    """Where a figure was measured."""
    return {"platform": platform.platform(), "python": platform.python_version()}


def paired(trials: dict[str, list[float]], digits: int) -> dict[str, Any]:
    """Two measurements taken in alternating rounds: each one's median, every round's
    value, and the ratio of the first median to the second."""
    (first, a), (second, b) = trials.items()
    return {
        "median": {first: round(statistics.median(a), digits),
                   second: round(statistics.median(b), digits)},
        "trials": {name: [round(v, digits) for v in values] for name, values in trials.items()},
        "ratio": round(statistics.median(a) / statistics.median(b), 3),
        "rounds": len(a),
    }


def at_least(ratio: float, target: float) -> dict[str, Any]:
    """A ratio that must reach `target`: the ratio, its target and whether it is met, under
    the keys bench-targets reads."""
    return {"ratio": ratio, "targets": {"ratio_min": target},
            "meets_targets": {"ratio": ratio >= target}}
