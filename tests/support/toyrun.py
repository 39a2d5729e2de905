"""Helpers for core tests: run the toy adapter through the Python API, and drive the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from agent_assay.model import Run
from agent_assay.store import Store
from tests.support.toy import ToyAdapter

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
AGENT_ASSAY = BIN / "agent-assay"


def new_toy_run(
    store: Store,
    adapter: ToyAdapter,
    config: str = "good",
    *,
    repeats: int = 1,
    seed: int = 0,
    tags: Sequence[str] = (),
    limit: int | None = None,
) -> Run:
    """Create (but do not execute) a toy run."""
    from agent_assay import api  # here: an agent process importing a test's system skips it

    return api.start(adapter, config, store=store, repeats=repeats, seed=seed,
                     selection=api.Selection.of(tags=tags, limit=limit))


def toy_run(
    store: Store,
    adapter: ToyAdapter,
    config: str = "good",
    *,
    repeats: int = 1,
    seed: int = 0,
) -> Run:
    """Create and execute a toy run; return it."""
    from agent_assay import api

    return api.evaluate(adapter, config, store=store, repeats=repeats, seed=seed).run


def write_toy_dist(directory: Path) -> Path:
    """A fake installed distribution registering the toy adapter, without installing anything."""
    dist = directory / "toyadapter-0.1.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toyadapter\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[agent_assay.adapters]\ntoy = tests.support.toy:ToyAdapter\n"
    )
    return directory


def cli_env(extra_path: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    parts = [str(extra_path)] if extra_path is not None else []
    # this checkout's src too: the console script would otherwise import the installed
    # (editable) package, which in a git worktree is another checkout's code
    env["PYTHONPATH"] = os.pathsep.join([*parts, str(ROOT / "src"), str(ROOT)])
    env.pop("PYTHONHASHSEED", None)
    return env


def agent_assay(
    *args: str, env: dict[str, str], cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the installed `agent-assay` console script."""
    return subprocess.run(
        [str(AGENT_ASSAY), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
