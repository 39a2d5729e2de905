"""Logs made once per session (Inspect's eval costs seconds each), plugins registered.

Inspect is imported by the fixtures, not here: without inspect_ai every test that needs a
log is skipped with the reason (`logs.py`), and the boundary test still runs."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from tests.inspect_log.logs import register

    where = tmp_path_factory.mktemp("site")
    register(where)
    yield where
    sys.path.remove(str(where))


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory, site: Path) -> dict[str, Path]:
    """good: every answer right; worse: 8 of 12 wrong (same task and dataset); other:
    another task; matched: the same task scored by match() instead of includes(); json:
    the good run written as a .json log."""
    from inspect_ai.scorer import match

    from tests.inspect_log.logs import make_log, said_code

    root = tmp_path_factory.mktemp("logs")
    return {
        "good": make_log(root / "good"),
        "worse": make_log(root / "worse", wrong=[f"s{i}" for i in range(8)]),
        "other": make_log(root / "other", task="other_balances"),
        "matched": make_log(root / "matched", scorer=match(location="any")),
        "json": make_log(root / "json", fmt="json"),
        "custom": make_log(root / "custom", scorer=said_code()),
    }
