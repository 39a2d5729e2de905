"""The inspect system's tests: skipped, saying why, without inspect_ai; the system registered
for a module that asks for it."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.dists import write_dist
from tests.support.invoke import registered_site

ADAPTER = "agent_assay_bundled.inspect_task.system:InspectTaskSystem"

if importlib.util.find_spec("inspect_ai") is None:
    print("tests/inspect_task skipped: inspect_ai is not installed (make install adds the "
          "inspect extra)")
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="module")
def registered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The inspect system registered for the module, in this process and in the agent
    processes it starts (they inherit PYTHONPATH)."""
    site = write_dist(tmp_path_factory.mktemp("inspect_site"), "itask", {"inspect": ADAPTER})
    with registered_site(site):
        yield site
