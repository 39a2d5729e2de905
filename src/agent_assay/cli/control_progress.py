"""`controls run`'s progress on stderr: a line per control finished, with the time it took
and an estimate of the time left; on a terminal also a bar naming the control running.

The estimate is the mean time of the controls finished so far times the number left.
Controls differ in cost (identical_config runs the agent again; most replay or re-score),
so it is rough, and said to be: it only ever goes on stderr, never into --json.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

if TYPE_CHECKING:
    from agent_assay.api import ControlStep, ControlWatch


def duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes < 60 else f"{minutes // 60}h{minutes % 60:02d}m"


class _Clock:
    """When the controls and the current one started, and what is left."""

    def __init__(self) -> None:
        self.started = self.current = time.monotonic()

    def begin(self) -> None:
        self.current = time.monotonic()

    def finished_line(self, step: ControlStep) -> str:
        now = time.monotonic()
        left = step.total - step.number
        mean = (now - self.started) / step.number
        eta = f"; about {duration(mean * left)} left" if left else ""
        return (f"control {step.number}/{step.total} {step.kind}: {step.status} "
                f"({duration(now - self.current)}{eta})")

    def estimate(self, done: int, total: int) -> str:
        if not done:
            return "estimating"
        return f"about {duration((time.monotonic() - self.started) / done * (total - done))} left"


@contextmanager
def control_progress() -> Iterator[ControlWatch]:
    """A watch for `certify`: one line per control finished, and while stderr is a
    terminal a transient bar."""
    clock = _Clock()
    if not sys.stderr.isatty():
        def plain(step: ControlStep) -> None:
            if step.status is None:
                clock.begin()
            else:
                click.echo(clock.finished_line(step), err=True)

        yield plain
        return
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), TextColumn("{task.fields[left]}"),
        console=Console(stderr=True, emoji=False), transient=True,
    ) as bar:
        task = bar.add_task("controls", total=None, left="")

        def drawn(step: ControlStep) -> None:
            if step.status is None:
                clock.begin()
                bar.update(task, total=step.total, completed=step.number - 1,
                           description=f"control {step.kind}",
                           left=clock.estimate(step.number - 1, step.total))
            else:
                bar.console.print(clock.finished_line(step), markup=False, highlight=False)
                bar.update(task, completed=step.number)

        yield drawn

