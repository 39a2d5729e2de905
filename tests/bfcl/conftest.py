from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bfcl.support import write_dist
from tests.support.invoke import registered_site


@pytest.fixture(scope="module")
def registered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The bfcl systems registered for the module, in this process and in the agent
    processes it starts (they inherit PYTHONPATH)."""
    site = write_dist(tmp_path_factory.mktemp("bfcl_site"))
    with registered_site(site):
        yield site
