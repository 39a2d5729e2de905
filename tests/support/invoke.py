"""Run an agent-assay command in this process, as the console script would, and capture it.

An exception escaping `run_cli` is a traceback the user would have seen; it is
returned, not raised, so a test can count and show it.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent_assay.cli import run_cli


@dataclass(frozen=True)
class Invocation:
    code: int
    out: str
    err: str
    traceback: str | None = None


def invoke(*args: str) -> Invocation:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = run_cli(list(args))
        except BaseException:  # a traceback the user would see: report it, do not raise
            return Invocation(-1, out.getvalue(), err.getvalue(), traceback.format_exc())
    return Invocation(code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def on_path(site: Path) -> Iterator[None]:
    """SITE on sys.path for the block: the distributions in it register their entry points."""
    sys.path.insert(0, str(site))
    try:
        yield
    finally:
        sys.path.remove(str(site))


@contextlib.contextmanager
def registered_site(site: Path) -> Iterator[Path]:
    """SITE's distributions registered for the block in this process (`on_path`) and in
    every process it starts, which inherit PYTHONPATH (agent processes included)."""
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), before) if p)
    try:
        with on_path(site):
            yield site
    finally:
        if before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = before
