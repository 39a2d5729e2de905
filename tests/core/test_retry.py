"""`run --resume --retry`: crashed slots run again as recorded attempts, the crashed ones kept
in the chain; a second trajectory that no retry made is caught; a resume that names other
settings than its run's is refused; a run a control made is not resumed.

The fixable toy crashes on one item by its agent and on another by its environment until
AA_TEST_FIXED says otherwise; everything runs in this process but the agents.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_assay import api
from agent_assay.integrity.admissibility import assess
from agent_assay.run_context import run_context
from agent_assay.runner import execute_run, start_run
from agent_assay.store import Attempt, Store, open_store
from tests.support.fixable import FIXED_ENV, FixableToy, write_fixable_dist
from tests.support.invoke import Invocation, invoke, on_path
from tests.support.toy import ToyAdapter
from tests.support.toyrun import new_toy_run


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    site = write_fixable_dist(tmp_path_factory.mktemp("fixable"))
    with on_path(site):
        yield site


def rows(db: str, sql: str, *params: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as con:
        return list(con.execute(sql, params))


def one_error_line(done: Invocation) -> str:
    assert done.traceback is None, done.traceback
    assert done.code != 0
    lines = done.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.err
    return lines[0]


def test_crashed_slots_run_again_as_attempts_and_the_run_completes(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "a.db")
    first = invoke("run", "--adapter", "fixable", "--config", "good", "--db", db)
    assert (first.code, first.traceback) == (1, None), first.err  # the harness crashed one
    run_id = first.out.strip()
    assert (f"  -> 1 slot(s) the harness crashed (never measured): run them again with "
            f"`agent-assay run --resume {run_id} --retry harness --db {db}`") in first.err

    monkeypatch.setenv(FIXED_ENV, "harness")
    harness = invoke("run", "--resume", run_id, "--retry", "harness", "--db", db)
    assert (harness.code, harness.traceback) == (0, None), harness.err
    assert "wrote 1 trajectories (0 crashed), skipped 3 already stored" in harness.err
    assert (f"once the agent is fixed, `agent-assay run --resume {run_id} --retry crashed "
            f"--db {db}` runs them again") in harness.err

    monkeypatch.setenv(FIXED_ENV, "agent,harness")
    agent = invoke("run", "--resume", run_id, "--retry", "crashed", "--db", db)
    assert (agent.code, agent.traceback) == (0, None), agent.err
    assert "wrote 1 trajectories (0 crashed), skipped 3 already stored" in agent.err
    assert "  -> " not in agent.err  # nothing left to do

    # every attempt is in the chain, the crashed ones first
    assert rows(db, "SELECT item_id, attempt, crashed FROM trajectories ORDER BY item_id, "
                    "attempt") == [("off-L4", 1, 0), ("on-L1", 1, 0), ("on-L2", 1, 1),
                                   ("on-L2", 2, 0), ("on-L3", 1, 1), ("on-L3", 2, 0)]
    shown = json.loads(invoke("runs", "show", run_id, "--json", "--db", db).out)
    assert (shown["status"]["state"], shown["status"]["crashed"]) == ("complete", 0)
    assert shown["retried"] == [
        {"item_id": "on-L2", "repetition": 1, "attempts": 2, "earlier": ["agent"]},
        {"item_id": "on-L3", "repetition": 1, "attempts": 2, "earlier": ["harness"]}]
    assert [w.split(",")[0] for w in shown["waivers"]] == [
        "1 slot(s) the agent crashed (measured failures) were run again by `run --resume "
        "--retry crashed`"]
    assert any(d.startswith("1 slot(s) the harness crashed (never measured) were run again")
               for d in shown["disclosures"])
    report = invoke("report", run_id, "--db", db)
    assert "    waived: 1 slot(s) the agent crashed (measured failures)" in report.out

    checked = invoke("verify", run_id, "--db", db)
    assert (checked.code, checked.traceback) == (0, None), checked.out
    assert ("2 slot(s) run again after a crash (`run --resume --retry`) hold 2 earlier "
            "attempt(s)") in checked.out
    earlier = json.loads(invoke("trajectories", "show", run_id, "on-L2", "--attempt", "1",
                                "--json", "--db", db).out)
    newest = json.loads(invoke("trajectories", "show", run_id, "on-L2", "--json", "--db",
                               db).out)
    assert [(t["attempt"], t["attempts"], t["crashed"], t["crash_cause"])
            for t in (earlier, newest)] == [(1, 2, True, "agent"), (2, 2, False, None)]


@pytest.fixture
def crashed(tmp_path: Path) -> Iterator[tuple[Store, str]]:
    """A fixable run whose agent crashed on-L2 and whose harness crashed on-L3."""
    store = open_store(str(tmp_path / "a.db"))
    run = new_toy_run(store, FixableToy(), "good")
    execute_run(store, FixableToy(), run, progress=False)
    yield store, run.run_id
    store.close()


def findings(store: Store, run_id: str) -> list[str]:
    checked = api.verify(run_id, store=store, rescore=False)
    return [f.line() for f in checked.findings]


def sound_attempt(store: Store, run_id: str, slot: tuple[str, int], attempt: Attempt) -> None:
    """Append, through the Store API, an attempt at `slot` by the toy that never crashes."""
    run = store.get_run(run_id)
    context = run_context(store, ToyAdapter(), run)
    item = context.items[slot[0]].public()
    done = ToyAdapter().run_item(item, store.get_config(run.config_hash), seed=0,
                                 repetition=slot[1])
    store.write_trajectories(run_id, [(done, context.score(done))], {slot: attempt})


def test_a_second_trajectory_no_retry_recorded_is_caught(crashed: tuple[Store, str]) -> None:
    store, run_id = crashed
    slot = ("on-L2", 1)
    sound_attempt(store, run_id, slot, store.newest_crashes(run_id)[slot])
    assert findings(store, run_id) == [
        "trajectory on-L2/1 attempt 2: has no retry event before it (a second trajectory "
        "for the slot that no `run --resume --retry` recorded)"]
    assert api.report(run_id, store=store).verdict_word == "TAMPERED"


def test_a_retry_of_a_slot_that_did_not_crash_is_caught(crashed: tuple[Store, str]) -> None:
    store, run_id = crashed
    store.append_event(run_id, "retry", {"retry": "crashed", "slots": 1})
    (digest,) = rows(str(store.engine.url.database),
                     "SELECT digest FROM trajectories WHERE item_id = 'on-L1'")[0]
    sound_attempt(store, run_id, ("on-L1", 1), Attempt(2, str(digest), "agent"))
    assert findings(store, run_id) == [
        "trajectory on-L1/1 attempt 2: runs again attempt 1, which did not crash",
        "trajectory on-L1/1 attempt 2: its ledger block records that it runs again the "
        "agent's crash; the attempt before it records no crash"]


def test_an_agent_crash_passed_off_as_the_harness_is_caught(crashed: tuple[Store, str]) -> None:
    """`--retry harness` runs only the harness's crashes: an attempt that says it ran one
    again, over the agent's crash, is named by the chain (the mode) and by verify (the
    crashed payload's own cause)."""
    store, run_id = crashed
    store.append_event(run_id, "retry", {"retry": "harness", "slots": 1})
    slot = ("on-L2", 1)
    agent_crash = store.newest_crashes(run_id)[slot]
    sound_attempt(store, run_id, slot, Attempt(2, agent_crash.retries, "harness"))
    lines = [f.line() for f in api.verify(run_id, store=store, rescore=False).findings]
    assert lines == ["trajectory on-L2/1 attempt 2: its ledger block records that it runs "
                     "again the harness's crash; the attempt before it records agent"]


def test_an_edited_attempt_number_is_caught(
    crashed: tuple[Store, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, run_id = crashed
    monkeypatch.setenv(FIXED_ENV, "harness")
    execute_run(store, FixableToy(), store.get_run(run_id), progress=False, retry="harness")
    assert findings(store, run_id) == []
    db = str(store.engine.url.database)
    with sqlite3.connect(db) as con:  # the crashed attempt made to look like the newest
        con.executescript("DROP TRIGGER trajectories_no_update; UPDATE trajectories "
                          "SET attempt = 3 WHERE item_id = 'on-L3' AND attempt = 1")
    found = findings(store, run_id)
    assert any(line.endswith("(on-L3/1 attempt 3): is attempt 3, its ledger block "
                             f"{block} records 1") for line in found
               for (block,) in rows(db, "SELECT block FROM trajectories WHERE attempt = 3")
               ), found


def test_measured_failures_run_again_are_a_waiver_and_again_and_again_inadmissible(
    crashed: tuple[Store, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, run_id = crashed
    run = store.get_run(run_id)
    once = execute_run(store, FixableToy(), run, progress=False, retry="crashed")
    assert (once.retried, once.crashed, dict(once.crashes_left)) == (
        2, 2, {"agent": 1, "harness": 1})
    verdict = assess(store, run)
    assert verdict.waivers[0].startswith("1 slot(s) the agent crashed (measured failures) "
                                         "were run again by `run --resume --retry crashed`, "
                                         "0 of them no longer crashing")
    assert not any("more than once" in reason for reason in verdict.reasons)
    monkeypatch.setenv(FIXED_ENV, "agent,harness")
    twice = execute_run(store, FixableToy(), run, progress=False, retry="crashed")
    assert (twice.retried, twice.crashed, dict(twice.crashes_left)) == (2, 0, {})
    assert ("1 slot(s) the agent crashed were run again more than once: re-running failures "
            "until they pass is not a measurement (start a new run)") in assess(
                store, run).reasons
    assert findings(store, run_id) == []  # recorded honestly: the chain holds all three


def test_a_resume_that_names_other_settings_is_refused_and_writes_nothing(
    site: Path, tmp_path: Path
) -> None:
    db = str(tmp_path / "a.db")
    run_id = invoke("run", "--adapter", "fixable", "--config", "good", "--db", db).out.strip()
    source, same_source = tmp_path / "two.txt", tmp_path / "all.txt"
    source.write_text("on-L1 on-L2")
    same_source.write_text("on-L1 on-L2 on-L3 off-L4")
    refused = {
        ("--config", "wrong_arg"): "--config wrong_arg (the run's: good)",
        ("--repeats", "3"): "--repeats 3 (the run's: 1)",
        ("--seed", "7"): "--seed 7 (the run's: 0)",
        ("--adapter", "toy"): "--adapter toy (the run's: fixable)",
        ("--limit", "2"): "--limit 2 selects 2 item(s) (the run's: 4 item(s))",
        ("--tag", "on"): "--tag on selects 3 item(s) (the run's: 4 item(s))",
        ("--source", str(source)): f"--source {source} builds suite ",
    }
    before = rows(db, "SELECT count(*) FROM ledger")
    for option, said in refused.items():
        line = one_error_line(invoke("run", "--resume", run_id, *option, "--db", db))
        assert line.startswith(f"error: run --resume {run_id} continues the run with its own "
                               f"settings, but {said}"), line
        assert line.endswith(": drop the option, or start a new run")
    assert rows(db, "SELECT count(*) FROM ledger") == before
    same = invoke("run", "--resume", run_id, "--adapter", "fixable", "--config", "good",
                  "--repeats", "1", "--seed", "0", "--limit", "4", "--source",
                  str(same_source), "--db", db)
    assert (same.code, same.traceback) == (0, None), same.err
    assert "wrote 0 trajectories (0 crashed), skipped 4 already stored" in same.err


def test_retry_without_resume_is_refused_before_a_run_exists(site: Path, tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    line = one_error_line(invoke("run", "--adapter", "fixable", "--config", "good", "--retry",
                                 "harness", "--db", str(db)))
    assert line == ("error: --retry needs --resume RUN_ID (it runs a stored run's crashed "
                    "slots again)")
    assert not db.exists() or rows(str(db), "SELECT count(*) FROM runs") == [(0,)]


def test_a_twin_its_control_left_unfinished_is_abandoned_not_resumed(
    site: Path, tmp_path: Path
) -> None:
    """identical_config's twin, stopped with its control: listed as abandoned (not an
    interrupted run waiting for a resume), and a resume of it is refused in one line."""
    db = str(tmp_path / "a.db")
    store = open_store(db)
    certified = new_toy_run(store, FixableToy(), "good")
    suite = store.get_suite(certified.suite_hash)
    twin = start_run(store, FixableToy(), suite, store.get_config(certified.config_hash),
                     repeats=1, seed=0, items=suite.items, extra_env={
                         "control": "identical_config", "certifies": certified.run_id,
                         "execution": 1})
    store.append_event(twin.run_id, "interrupted", {"written": 0, "why": "stopped"})
    store.close()
    listed = invoke("runs", "list", "--db", db).out.splitlines()
    (line,) = [entry for entry in listed if entry.startswith(twin.run_id)]
    assert " abandoned " in line
    assert line.endswith(f"[made by control identical_config for {certified.run_id}]")
    refused = one_error_line(invoke("run", "--resume", twin.run_id, "--db", db))
    assert refused == (
        f"error: run {twin.run_id} was made by control identical_config for run "
        f"{certified.run_id}, not by `run`; it is not resumed (`agent-assay controls run "
        f"--run {certified.run_id}` makes new ones)")
