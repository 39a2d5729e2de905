"""The governance system and its bundled suite, built once per test module that asks for
them (the governance suite and scoring tests share them; the SynthWorld tests ask for
neither)."""

from __future__ import annotations

import pytest

from agent_assay.adapters.loaded import LoadedSystem, load_system
from agent_assay.model import Suite
from agent_assay_bundled.governance import GovernanceAdapter


@pytest.fixture(scope="module")
def adapter() -> LoadedSystem:
    return load_system(GovernanceAdapter())


@pytest.fixture(scope="module")
def suite(adapter: LoadedSystem) -> Suite:
    return adapter.build_suite(None)
