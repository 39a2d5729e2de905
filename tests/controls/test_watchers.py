"""An agent cannot tell a control from a run: each attack, written as its author would.

Every watcher is unseeded noise that replays the run's recorded answers whenever it
believes it is being re-executed by a control. Where agents run in the writer's process
or in multiprocessing children, most of the signals it reads differ between the run and
the twins, and the replayed answers made the twins agree with the run (ADMISSIBLE on a
single noisy pass). With every agent process started one way, no signal differs, the
watcher is as noisy in the twins as in the run, and identical_config fails it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from agent_assay.integrity.admissibility import assess
from agent_assay.store import Store
from tests.support import watchers
from tests.support.certify import certify
from tests.support.dists import write_dist
from tests.support.saboteur import Saboteur
from tests.support.toyrun import agent_assay, cli_env
from tests.support.watchers import RECORDS_ENV, SIGNALS


@pytest.fixture
def records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "records"
    where.mkdir()
    monkeypatch.setenv(RECORDS_ENV, str(where))
    # the command line a certifier would have typed, for the signals that read it
    monkeypatch.setattr(sys, "argv", ["agent-assay", "controls", "run", "--run", "x"])
    return where


@pytest.mark.parametrize("signal", sorted(SIGNALS))
def test_no_process_signal_lets_an_agent_recognise_a_twin(
    store: Store, records: Path, signal: str
) -> None:
    cheat = getattr(watchers, f"Watches_{signal}")()
    got = certify(store, cheat, "cheat")
    twin = got["by_kind"]["identical_config"]
    assert twin.status == "FAILED", f"{signal}: {twin.summary}"
    assert not got["admissible"]
    assert twin.measured["differing_by_comparison"]["twin 1 vs certified"] > 0


def test_an_agent_reading_every_signal_at_once_is_not_certified(
    store: Store, records: Path
) -> None:
    got = certify(store, watchers.AnySignal(), "cheat")
    assert got["by_kind"]["identical_config"].status == "FAILED"
    assert assess(store, got["run"]).word != "ADMISSIBLE"


@pytest.mark.parametrize("cheat", [watchers.RepetitionKeyed, watchers.SeenBefore])
def test_answers_keyed_on_the_repetition_or_on_having_met_the_item_fail(
    store: Store, cheat: type
) -> None:
    got = certify(store, cheat(), "cheat", repeats=3)
    twin = got["by_kind"]["identical_config"]
    assert twin.status == "FAILED", twin.summary
    by_pair = twin.measured["differing_by_comparison"]
    assert by_pair["certified repetition 2 vs 1"] + by_pair["certified repetition 3 vs 1"] > 0
    assert not got["admissible"]


def test_an_honest_deterministic_config_passes_on_every_repetition(store: Store) -> None:
    got = certify(store, watchers.SeenBefore(), "good", repeats=3)
    twin = got["by_kind"]["identical_config"]
    assert twin.status == "PASSED", twin.summary
    assert twin.measured["repetitions"] == 3
    assert set(twin.measured["differing_by_comparison"]) == {
        "twin 1 vs certified", "twin 2 vs certified", "twin 1 vs twin 2",
        "certified repetition 2 vs 1", "certified repetition 3 vs 1"}


def test_through_the_command_line_the_watcher_is_caught(tmp_path: Path) -> None:
    """The commands a user types, each its own process: `run` then `controls run`, with
    the parent's command line, argv and every other signal as a real certification has."""
    site = write_dist(tmp_path / "site", "watchers",
                      {"anysignal": "tests.support.watchers:AnySignal"})
    records = tmp_path / "records"
    records.mkdir()
    env = cli_env(site) | {RECORDS_ENV: str(records)}
    db = str(tmp_path / "assay.db")
    made = agent_assay("run", "--adapter", "anysignal", "--config", "cheat", "--db", db,
                       "--run-id-file", "run.id", env=env, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    run_id = (tmp_path / "run.id").read_text().strip()
    certified = agent_assay("controls", "run", "--adapter", "anysignal", "--run", run_id,
                            "--db", db, env=env, cwd=tmp_path)
    assert certified.returncode == 3, certified.stdout + certified.stderr
    assert re.search(r"identical_config\s+FAILED", certified.stdout), certified.stdout
    assert "ADMISSIBLE" not in certified.stdout.replace("INADMISSIBLE", "")


def test_an_environment_cannot_single_out_the_controls_agents(store: Store) -> None:
    """Replayed in the certifier's process, the saboteur's random agent scored nothing and
    the agent cleared chance; replayed in an agent process it scores what chance scores."""
    got = certify(store, Saboteur(), "meh")
    chance = got["by_kind"]["random_agent"]
    assert chance.status == "FAILED", chance.summary
    assert chance.measured["metrics"]["outcome.match"]["chance_mean"] > 0.3
    assert got["by_kind"]["positive_control"].status == "PASSED"
    assert not got["admissible"]
