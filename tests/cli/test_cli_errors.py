"""User mistakes on the command line: one `error:` line, no traceback, non-zero exit, no run."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_assay import cli
from agent_assay.store import open_store
from tests.support.invoke import Invocation, invoke, on_path
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run, write_toy_dist

MISSING = "MISSING"  # stands for a --db inside a directory that does not exist

CASES: dict[str, tuple[tuple[str, ...], str]] = {
    "unknown_adapter": (("run", "--adapter", "nope", "--config", "good"),
                        "error: unknown adapter: nope (registered: "),
    "unknown_config": (("run", "--adapter", "toy", "--config", "nope"),
                       "error: unknown config 'nope' for adapter toy (available: "),
    "unknown_run_report": (("report", "0123abcd"), "error: unknown run id: 0123abcd"),
    "unknown_run_resume": (("run", "--resume", "0123abcd"), "error: unknown run id: 0123abcd"),
    "limit_zero": (("run", "--adapter", "toy", "--config", "good", "--limit", "0"),
                   "error: --limit must be at least 1, got 0"),
    "repeats_zero": (("run", "--adapter", "toy", "--config", "good", "--repeats", "0"),
                     "error: --repeats must be between 1 and 10000, got 0"),
    "repeats_huge": (("run", "--adapter", "toy", "--config", "good", "--repeats", str(2**70)),
                     f"error: --repeats must be between 1 and 10000, got {2**70}"),
    "seed_overflow": (("run", "--adapter", "toy", "--config", "good", "--seed", str(2**63)),
                      f"error: --seed must be between 0 and {2**63 - 1} (2**63 - 1), got {2**63}"),
    "workers_zero": (("run", "--adapter", "toy", "--config", "good", "--workers", "0"),
                     "error: Invalid value for '--workers': 0 is not in the range x>=1."),
    "workers_negative": (("run", "--adapter", "toy", "--config", "good", "--workers", "-3"),
                         "error: Invalid value for '--workers': -3 is not in the range x>=1."),
    "missing_dir_run": (("run", "--adapter", "toy", "--config", "good", "--db", MISSING),
                        "error: database directory does not exist: "),
    "missing_dir_migrate": (("migrate", "--db", MISSING),
                            "error: database directory does not exist: "),
}


def runs_in(db: Path) -> int:
    with sqlite3.connect(db) as con:
        return int(con.execute("SELECT count(*) FROM runs").fetchone()[0])


@pytest.fixture(scope="module")
def outcomes(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, tuple[Invocation, Path]]]:
    """Every case run once in this process, each against its own copy of a one-run database."""
    home = tmp_path_factory.mktemp("cli_errors")
    site = write_toy_dist(home / "site")
    base = home / "base.db"
    store = open_store(str(base))
    toy_run(store, ToyAdapter(), "good")
    store.close()
    assert runs_in(base) == 1

    def launch(name: str) -> tuple[Invocation, Path]:
        args, _ = CASES[name]
        if MISSING in args:
            db = home / f"absent-{name}" / "assay.db"
            args = tuple(str(db) if a == MISSING else a for a in args)
        else:
            db = home / f"{name}.db"
            shutil.copyfile(base, db)
            args = (*args, "--db", str(db))
        return invoke(*args), db

    with on_path(site):
        results = {name: launch(name) for name in CASES}
    yield results


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_error_line(
    outcomes: dict[str, tuple[Invocation, Path]], name: str
) -> None:
    done, db = outcomes[name]
    _, prefix = CASES[name]
    assert done.traceback is None, done.traceback
    assert done.code != 0
    lines = done.err.splitlines()
    assert len(lines) == 1, done.err
    assert lines[0].startswith("error: ")
    assert lines[0].startswith(prefix), lines[0]
    assert done.out == ""
    if name.startswith("missing_dir"):
        assert str(db.parent) in lines[0]
        assert not db.parent.exists()  # an explicit --db directory is never created
    else:
        assert runs_in(db) == 1  # no new run row


def test_unknown_adapter_lists_registered(
    outcomes: dict[str, tuple[Invocation, Path]],
) -> None:
    done, _ = outcomes["unknown_adapter"]
    registered = done.err.strip().split("(registered: ", 1)[1].rstrip(")").split(", ")
    assert "toy" in registered
    config_line = outcomes["unknown_config"][0].err.strip()
    assert config_line.endswith(f"(available: {', '.join(sorted(ToyAdapter().configs()))})")


def test_click_usage_error_is_one_error_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(
        sys, "argv",
        ["agent-assay", "run", "--config", "good", "--limit", "abc", "--db",
         str(tmp_path / "a.db")],
    )
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code != 0
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "error: Invalid value for '--limit': 'abc' is not a valid integer."]


@pytest.mark.parametrize("args", [
    ("run", "--adapter", "toy", "--config", "good", "--items", "nosuch"),
    ("run", "--adapter", "toy", "--config", "good", "-M", "nosuch=1"),
    ("controls", "run", "--adapter", "toy", "--config", "good", "--repeats", "0"),
    ("mutate", "--adapter", "toy", "--config", "good", "--match", "nothing-*"),
    ("suite", "build", "--adapter", "nope"),
])
def test_a_refused_writer_leaves_no_new_store_behind(tmp_path: Path, args: tuple[str, ...]) -> None:
    """A store the command created is taken away when it refuses before storing a run (the
    suite a selection needed may have been stored first); a store that existed stays."""
    db = tmp_path / "new.db"
    with on_path(write_toy_dist(tmp_path / "site")):
        done = invoke(*args, "--db", str(db))
        assert done.traceback is None and done.code != 0 and done.err.startswith("error: ")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
        made = invoke("run", "--adapter", "toy", "--config", "good", "--db", str(db))
        assert made.code == 0, made.err
        again = invoke(*args, "--db", str(db))
    assert again.code != 0 and runs_in(db) == 1  # a store that was there is never removed


@pytest.mark.parametrize("planted, shown", [
    ("\x1b[2J", "\\x1b[2J"),  # a terminal escape that would clear the screen
    ("a\u2028b", "a\\u2028b"),  # a line separator some terminals and logs break at
    ("a\x85b", "a\\x85b"),  # NEL, a line break to Python's splitlines
    ("a\nerror: forged", "a\\nerror: forged"),
    ("café", "café"),  # printable text is left as it is
])
def test_an_error_quoting_what_was_typed_stays_one_plain_line(
    tmp_path: Path, planted: str, shown: str
) -> None:
    with on_path(write_toy_dist(tmp_path / "site")):
        done = invoke("run", "--adapter", "toy", "--config", f"x{planted}",
                      "--db", str(tmp_path / "a.db"))
    assert done.traceback is None and done.code != 0
    assert done.err.splitlines() == [done.err.rstrip("\n")] and "\x1b" not in done.err
    assert f"x{shown}" in done.err, done.err
    with on_path(write_toy_dist(tmp_path / "site")):  # click's own usage errors too
        usage = invoke("trajectories", "show", "RUN", "ITEM", "--rep", f"x{planted}")
    assert usage.err.splitlines() == [usage.err.rstrip("\n")] and "\x1b" not in usage.err
    assert f"x{shown}" in usage.err, usage.err
