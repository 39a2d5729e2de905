"""Shared fixtures: a fresh store per test, the toy adapter, the demo database, and fuzz
tests that draw the same cases however the suite is split."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_assay.store import Store, open_store
from tests.support.demo import build_demo_db
from tests.support.invoke import on_path
from tests.support.postgres import PgServer, start_server
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run, write_toy_dist


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(str(tmp_path / "assay.db"))


@pytest.fixture
def toy() -> ToyAdapter:
    return ToyAdapter()


@pytest.fixture(scope="module")
def toy_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A store holding one toy run of config `good`, with the toy adapter registered for
    the module's command-line tests; (db, run id). Tests copy the db before writing."""
    home = tmp_path_factory.mktemp("toy_cli")
    base = home / "base.db"
    store = open_store(str(base))
    run = toy_run(store, ToyAdapter(), "good")
    store.close()
    with on_path(write_toy_dist(home / "site")):
        yield base, run.run_id


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> tuple[Path, str]:
    """The database `make demo` builds (banking mock, k=3, controls), built once per test
    session and shared by every xdist worker; (path, certified run id). Tests copy it."""
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent
    db, run_file = shared / "demo.db", shared / "demo.run"
    with (shared / "demo.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not run_file.exists():
            run_file.write_text(build_demo_db(db))
    return db, run_file.read_text()


@pytest.fixture(scope="session")
def pg_server(worker_id: str) -> Iterator[PgServer]:
    """A PostgreSQL server for this test process (see tests/support/postgres.py); the
    tests that need one are skipped, with the reason printed, only when none can run."""
    server = start_server(worker_id.replace("-", "_"))
    if isinstance(server, str):
        pytest.skip(server)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def same_cases_in_any_run(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Hypothesis (6.131 on) also draws literals found in whichever project modules are
    imported, so one seed makes other cases when other tests ran first in the process:
    turned off here, so the counts are the same however the suite is selected or split."""
    from hypothesis.internal.conjecture import providers

    if not hasattr(providers, "_get_local_constants"):  # another Hypothesis: nothing to do
        yield
        return
    monkeypatch.setattr(providers, "_get_local_constants", providers.Constants)
    providers.CONSTANTS_CACHE.cache.clear()
    yield
    providers.CONSTANTS_CACHE.cache.clear()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print every test's `summary` property (case counts of fuzz and flip tests); it
    travels in the test report, so it is shown under pytest-xdist too."""
    lines = [
        str(value)
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "call"
        for key, value in getattr(report, "user_properties", ())
        if key == "summary"
    ]
    if lines:
        terminalreporter.section("case counts")
        for line in sorted(lines):
            terminalreporter.write_line(line)


SLOW_FIRST = (
    "tests/inspect_task/test_certification.py",
    "tests/integrity/test_byte_flips.py",
    "tests/verifiers_env/test_adapter.py",
    "tests/verifiers_env/test_valid_action.py",
    "tests/cli/test_reading_never_writes.py",
    "tests/inspect_task/test_planted.py",
    "tests/adapters/test_governance_controls.py",
    "tests/html/test_html_report.py",
    "tests/controls/test_watchers.py",
    "tests/inspect_task/test_inspect_task.py",
    "tests/executors/test_dask_executor.py",
    "tests/dojo/test_agentdojo.py",
    "tests/html/test_report_check.py",
    "tests/banking/test_golden_set_fuzz.py",
    "tests/importers/test_tau_bench_fuzz.py",
    "tests/store/test_lifecycle.py",
    "tests/integrity/test_comparison_and_gates.py",
    "tests/verifiers_env/test_model_config.py",
    "tests/store/test_scale_path.py",
    "tests/dojo/",
    "tests/bfcl/",
    "tests/verifiers_env/",
    "tests/html/",
)
"""The files that take longest (Inspect's and verifiers' agent processes, whole
certifications, byte flips, a real browser), longest first as measured on the whole suite
(`--durations`), then the directories of slow files not named. pytest-xdist's `--dist
loadfile` hands a worker its next file when it is nearly out of tests, in the order of
the work queue: longest first, the short files fill in around them at the end, and no long
file starts last while the other worker idles (re-measure when a file's time changes much).
The work queue keeps collection order only without xdist's own reordering by the number of
tests in a file, which would start one-test files last: `pytest_configure` turns it off."""


def pytest_configure(config: pytest.Config) -> None:
    """Keep the order above under `--dist loadfile` (see SLOW_FIRST)."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Collect the slow files first, each file's tests in their own order (a stable sort)."""

    def rank(item: pytest.Item) -> int:
        return next((i for i, prefix in enumerate(SLOW_FIRST) if item.nodeid.startswith(prefix)),
                    len(SLOW_FIRST))

    items.sort(key=rank)
