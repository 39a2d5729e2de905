"""Run ids as people type them, on both backends: a prefix names one run, and what no run
id can be is refused before the database driver sees it (PostgreSQL rejects a NUL byte
and an unencodable string with its own exceptions)."""

from __future__ import annotations

import pytest

from agent_assay.errors import AssayError
from agent_assay.runner import build_and_store_suite, resolve_config
from agent_assay.store import open_store
from tests.store.conftest import Backend
from tests.support.toy import ToyAdapter


def test_a_prefix_names_one_run_and_no_argument_reaches_the_driver(backend: Backend) -> None:
    store = open_store(backend.db)
    toy = ToyAdapter()
    suite = build_and_store_suite(store, toy, None)
    config = resolve_config(toy, "good")
    store.put_config(config)
    first, second = ("f00d" + c * 28 for c in "12")
    for run_id in (first, second):
        store.create_run(adapter="toy", suite_hash=suite.suite_hash,
                         config_hash=config.config_hash, config_name="good", repeats=1, seed=0,
                         item_ids=["on-L1"], env={}, affects_results=(), run_id=run_id)
    assert store.get_run("f00d2").run_id == second
    assert store.get_run(first).run_id == first
    with pytest.raises(AssayError, match=f"^run id prefix f00d is ambiguous: it starts 2 runs "
                                         f"\\({first}, {second}\\)"):
        store.get_run("f00d")
    for bad in ("f00d\x00", "\udcff", "f" * 256, "_%__"):
        with pytest.raises(AssayError, match=r"^(not a run id|unknown run id): "):
            store.get_run(bad)
    store.close()
