"""Shared fixtures: a fresh store per test and the toy adapter."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_assay.store import Store, open_store
from tests.support.toy import ToyAdapter


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(str(tmp_path / "assay.db"))


@pytest.fixture
def toy() -> ToyAdapter:
    return ToyAdapter()
