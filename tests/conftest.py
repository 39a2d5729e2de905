"""Shared fixtures: a fresh store per test, the toy adapter, and the demo database."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

from agent_assay.store import Store, open_store
from tests.support.demo import build_demo_db
from tests.support.toy import ToyAdapter


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(str(tmp_path / "assay.db"))


@pytest.fixture
def toy() -> ToyAdapter:
    return ToyAdapter()


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
