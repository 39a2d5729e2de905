"""A past commit checked out beside this tree, for benchmarks that compare before and after."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def head_commit() -> str:
    """The short hash of this tree's HEAD, recorded next to every comparison."""
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
        check=True,
    ).stdout.strip()


@contextmanager
def checked_out(commit: str, where: Path) -> Iterator[Path]:
    """Check COMMIT out into a detached worktree under WHERE and remove it afterwards."""
    tree = where / f"base-{commit}"
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit], cwd=ROOT,
                   check=True, capture_output=True)
    try:
        yield tree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                       check=False, capture_output=True)


def tree_env(tree: Path) -> dict[str, str]:
    """The environment that makes this interpreter import agent_assay from TREE's sources."""
    return {**os.environ, "PYTHONPATH": f"{tree / 'src'}{os.pathsep}{tree}"}
