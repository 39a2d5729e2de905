"""Fuzzed `run` options: a run, or one `error:` line and no run stored. Never a traceback.

Each case draws every numeric option and the tag from text a user might type (numbers
out of range, signs, exponents, huge integers, words, empty strings, non-ASCII) and runs
the toy adapter in this process. The case counts are printed at the end of the test run.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.invoke import invoke, on_path
from tests.support.toyrun import write_toy_dist

CASES = 120

typed = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.sampled_from(["0", "1", "2", "-1", "1e3", "0x10", "3.5", "", " 2", "nan", "∞", "٣",
                     str(2**63), str(2**63 - 1), "10000", "10001"]),
    st.text(max_size=6),
)

usual = st.integers(min_value=1, max_value=3).map(str)  # a value a run accepts


def runs_in(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        tables = con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'runs'").fetchone()
        return int(con.execute("SELECT count(*) FROM runs").fetchone()[0]) if tables[0] else 0


@pytest.mark.usefixtures("same_cases_in_any_run")
def test_run_options_give_a_run_or_one_error_line(
    tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    seen: Counter[str] = Counter()
    site = write_toy_dist(tmp_path / "site")

    @settings(max_examples=CASES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(seed=usual | typed, repeats=usual | typed, limit=usual | typed,
           tag=st.none() | st.sampled_from(["on", "off"]) | st.text(max_size=5))
    def case(seed: str, repeats: str, limit: str, tag: str | None) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            db = Path(scratch) / "a.db"
            args = ["run", "--adapter", "toy", "--config", "good", "--seed", seed,
                    "--repeats", repeats, "--limit", limit, "--db", str(db)]
            if tag is not None:
                args += ["--tag", tag]
            done = invoke(*args)
            assert done.traceback is None, (args, done.traceback)
            if done.code == 0:
                assert runs_in(db) == 1
                seen["ran"] += 1
                return
            lines = done.err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: "), (args, done.err)
            assert runs_in(db) == 0, args
            seen["one-line error"] += 1

    with on_path(site):
        case()
    total = sum(seen.values())
    assert total == CASES
    record_property(
        "summary",
        f"run-option fuzz: {total} cases, {seen['one-line error']} one-line errors, "
        f"{seen['ran']} runs, 0 tracebacks",
    )
