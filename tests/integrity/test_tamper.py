"""Forged, copied and edited evidence is caught: by the database, by every report, by verify.

Each test starts from a copy of one certified (ADMISSIBLE) run and edits the
database the way a careless or dishonest person could after the fact: with
plain SQL (dropping triggers where that is what it takes) or through the
harness's own API, which keeps the chain consistent and so must be caught by
what the certificates bind.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from agent_assay.adapters.loaded import load_system
from agent_assay.controls.execute import run_controls
from agent_assay.errors import AssayError
from agent_assay.integrity.admissibility import assess
from agent_assay.model import Trajectory
from agent_assay.run_context import score_records
from agent_assay.runner import resolve_config
from agent_assay.scoring.outcome import OutcomeMatch
from agent_assay.store import open_store
from tests.support.certify import Certified, certified_store, private_copy
from tests.support.invoke import Invocation, invoke
from tests.support.tamper import sql
from tests.support.toy import RichToyAdapter, ToyAdapter
from tests.support.toyrun import toy_run

# Copies of a run's score sets with the first value (trajectory.exact) made 0.5.
FORGERY = (
    "INSERT INTO score_sets (trajectory_id, run_id, item_id, repetition, scorers, "
    "packed_values, details{extra_cols}) SELECT trajectory_id, run_id, item_id, repetition, "
    "scorers, '000000000000e03f' || substr(packed_values, 17), details{extra_vals} "
    "FROM score_sets WHERE run_id = ?"
)


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> Certified:
    return certified_store(tmp_path_factory.mktemp("certified") / "assay.db")


@pytest.fixture
def db(certified: Certified, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_copy(certified, tmp_path, monkeypatch)


def count(db: Path, query: str, params: tuple[object, ...] = ()) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute(query, params).fetchone()[0])
    finally:
        con.close()


def report(db: Path, run: str) -> Invocation:
    return invoke("report", run, "--db", str(db))


def verify(db: Path, *args: str) -> Invocation:
    return invoke("verify", *args, "--db", str(db))


def findings(result: Invocation) -> list[str]:
    return [line for line in result.out.splitlines() if line.startswith("FINDING ")]


def assert_tampered(result: Invocation) -> None:
    assert result.traceback is None, result.traceback
    assert result.code == 2
    lines = result.out.splitlines()
    assert lines[0].startswith("!!! TAMPERED -- the stored evidence of run ")
    assert "ADMISSIBLE --" not in result.out.replace("INADMISSIBLE --", "")
    assert "mean of k" not in result.out  # no number is shown


def test_the_untouched_store_verifies_and_reports_admissible(
    db: Path, certified: Certified
) -> None:
    checked = verify(db)
    assert checked.code == 0, checked.out
    # the certified run, identical_config's two twins, and the uncertified run
    assert checked.out.splitlines()[-1] == "verify: 4 run(s), 0 finding(s) -- nothing is off"
    shown = report(db, certified.run)
    assert shown.code == 0
    assert shown.out.splitlines()[3].startswith("ADMISSIBLE -- ")
    assert shown.out.splitlines()[4].startswith("evidence chain: ")


def test_the_plain_insert_forgery_is_refused_by_the_database(
    db: Path, certified: Certified
) -> None:
    before = count(db, "SELECT count(*) FROM score_sets")
    shown = report(db, certified.run).out
    for extra_cols, extra_vals in (
        ("", ""),  # as a forger who never read the schema would write it
        (", block, digest, generation", ", block, digest, generation"),
        (", block, digest, generation",
         ", (SELECT max(seq) FROM ledger WHERE run_id = score_sets.run_id), digest, 1"),
    ):
        with pytest.raises(sqlite3.DatabaseError):
            sql(db, FORGERY.format(extra_cols=extra_cols, extra_vals=extra_vals),
                params=(certified.run,))
    assert count(db, "SELECT count(*) FROM score_sets") == before
    assert report(db, certified.run).out == shown


def test_the_insert_forgery_past_dropped_guards_is_named_and_tampered(
    db: Path, certified: Certified
) -> None:
    first_forged = count(db, "SELECT max(id) FROM score_sets") + 1
    sql(
        db,
        "DROP TRIGGER score_sets_chained",
        "DROP INDEX ux_score_sets_slot",
        FORGERY.format(extra_cols=", block, digest, generation",
                       extra_vals=", block, digest, generation"),
        params=(certified.run,),
    )
    forged = count(db, "SELECT count(*) FROM score_sets WHERE id >= ?", (first_forged,))
    assert forged > 0
    assert_tampered(report(db, certified.run))
    checked = verify(db, certified.run, "--skip-rescore")
    assert checked.code == 2
    lines = findings(checked)
    for row_id in range(first_forged, first_forged + forged):
        assert any(f"score_sets row {row_id} (" in line for line in lines), row_id
    assert any("trigger score_sets_chained: is missing" in line for line in lines)
    assert any("index ux_score_sets_slot: is missing" in line for line in lines)


def test_a_verdict_copied_with_sql_makes_the_target_tampered(
    db: Path, certified: Certified
) -> None:
    sql(
        db,
        "DROP TRIGGER control_outcomes_chained",
        "INSERT INTO control_outcomes (run_id, kind, version, status, suite_hash, config_hash, "
        "payload, created_at, block, digest) SELECT ?, kind, version, status, suite_hash, "
        f"config_hash, payload, created_at, block, digest FROM control_outcomes "
        f"WHERE run_id = '{certified.run}'",
        params=(certified.other,),
    )
    assert_tampered(report(db, certified.other))
    compared = invoke("compare", certified.run, certified.other, "--db", str(db), "--force")
    assert compared.code == 2
    assert "STORE_TAMPERED" in compared.out and "--force cannot compare" in compared.out


def test_a_verdict_copied_through_the_api_is_void_and_compare_refuses(
    db: Path, certified: Certified
) -> None:
    store = open_store(str(db))
    other = store.get_run(certified.other)
    for outcome in store.control_outcomes(certified.run).values():
        store.put_control_outcome(other.run_id, other.suite_hash, other.config_hash,
                                  outcome.payload)
    verdict = assess(store, other)
    assert not verdict.tampered  # the chain is consistent: the certificates are what fail
    assert not verdict.admissible
    assert any(
        "it was judged on run " + certified.run in reason and "copied verdict" in reason
        for reason in verdict.reasons
    ), verdict.reasons
    store.close()
    compared = invoke("compare", certified.run, certified.other, "--db", str(db))
    assert compared.code == 4  # refused, not tampered: every row is what was written
    assert "COMPARISON REFUSED" in compared.out
    assert f"RUN_INADMISSIBLE: {certified.other}: " in compared.out
    assert "copied verdict" in compared.out
    assert any("copied verdict" in line for line in findings(verify(db, certified.other)))


def test_a_dropped_trigger_is_named_and_restored_by_repair(db: Path, certified: Certified) -> None:
    sql(db, "DROP TRIGGER score_sets_no_update")
    checked = verify(db, "--skip-rescore")
    assert findings(checked) == [
        "FINDING trigger score_sets_no_update: is missing (`agent-assay migrate --repair`)"]
    assert_tampered(report(db, certified.run))
    migrated = invoke("migrate", "--db", str(db))
    assert migrated.code == 2 and "trigger score_sets_no_update: is missing" in migrated.out
    repaired = invoke("migrate", "--repair", "--db", str(db))
    assert repaired.code == 0, repaired.out
    assert "restored trigger score_sets_no_update" in repaired.out
    assert count(db, "SELECT count(*) FROM store_repairs") == 1
    again = verify(db)
    assert again.code == 0, again.out
    assert "note: store repaired at " in again.out
    assert report(db, certified.run).code == 0
    with pytest.raises(sqlite3.DatabaseError, match="score_sets is append-only: UPDATE refused"):
        sql(db, "UPDATE score_sets SET details = NULL")


def test_an_update_while_the_trigger_was_gone_stays_visible(db: Path, certified: Certified) -> None:
    sql(
        db,
        "DROP TRIGGER score_sets_no_update",
        "UPDATE score_sets SET packed_values = '0000000000000000' || substr(packed_values, 17) "
        f"WHERE packed_values LIKE '000000000000f03f%' AND run_id = '{certified.run}'",
    )
    assert invoke("migrate", "--repair", "--db", str(db)).code == 0
    assert_tampered(report(db, certified.run))
    lines = findings(verify(db, certified.run))
    edited = [line for line in lines if "generation 0): content does not match" in line]
    rederived = [line for line in lines if "trajectory.exact: stored 0.0, re-derived 1.0" in line]
    void = [line for line in lines if "certificate" in line and "scores changed" in line]
    assert len(edited) == len(rederived) > 0
    assert sorted(lines) == sorted(edited + rederived + void)


def _edit_item(db: Path, mutate: str) -> str:
    """Rewrite one item's gold (emptied path) in place; return its id."""
    con = sqlite3.connect(db)
    item_id, payload = con.execute(
        "SELECT item_id, payload FROM items ORDER BY position LIMIT 1").fetchone()
    data = json.loads(payload)
    data["gold"]["path"] = []
    new = json.dumps(data, sort_keys=True, separators=(",", ":"))
    con.execute("DROP TRIGGER items_no_update")
    con.execute(f"UPDATE items SET payload = ?{mutate} WHERE item_id = ?", (new, item_id))
    con.commit()
    con.close()
    return str(item_id)


def test_rewritten_gold_is_named_and_nothing_rescores_it(db: Path, certified: Certified) -> None:
    item_id = _edit_item(db, "")
    lines = findings(verify(db, certified.run, "--skip-rescore"))
    assert any(
        f"item '{item_id}' of suite " in line and "does not match its item hash" in line
        for line in lines
    ), lines
    rescored = invoke("score", certified.run, "--db", str(db))
    assert rescored.code == 2 and "fails its integrity check" in rescored.err  # a trigger is gone
    assert invoke("migrate", "--repair", "--db", str(db)).code == 0
    rescored = invoke("score", certified.run, "--db", str(db))  # the trigger back, gold still not
    assert rescored.code == 2 and "fails its integrity check" in rescored.err
    assert f"item '{item_id}' of suite " in rescored.err and "nothing was re-scored" in rescored.err


def test_gold_rewritten_with_its_item_hash_breaks_the_suite_hash(
    db: Path, certified: Certified
) -> None:
    con = sqlite3.connect(db)
    item_id, payload = con.execute(
        "SELECT item_id, payload FROM items ORDER BY position LIMIT 1").fetchone()
    con.close()
    from agent_assay.model import Item

    item = Item.from_json(json.loads(payload))
    edited = replace(item, gold=replace(item.gold, path=()))
    sql(
        db,
        "DROP TRIGGER items_no_update",
        "UPDATE items SET payload = ?, item_hash = ? WHERE item_id = ?",
        params=(json.dumps(edited.to_json(), sort_keys=True, separators=(",", ":")),
                edited.content_hash, item_id),
    )
    lines = findings(verify(db, certified.run, "--skip-rescore"))
    assert any("its items no longer hash to the suite hash" in line for line in lines), lines


def test_an_edited_config_is_named_and_resume_refuses_it(db: Path, certified: Certified) -> None:
    sql(
        db,
        "DROP TRIGGER configs_no_update",
        "UPDATE configs SET payload = replace(payload, '\"good\"', '\"wrong_arg\"')",
    )
    lines = findings(verify(db, certified.run, "--skip-rescore"))
    assert any("payload does not match its hash (the config was edited)" in line
               for line in lines), lines
    resumed = invoke("run", "--resume", certified.run, "--db", str(db))
    assert resumed.code == 2 and "fails its integrity check" in resumed.err  # a trigger is gone
    assert invoke("migrate", "--repair", "--db", str(db)).code == 0
    resumed = invoke("run", "--resume", certified.run, "--db", str(db))
    assert resumed.code == 2 and resumed.traceback is None
    assert "payload does not match its hash (the config was edited)" in resumed.err


def test_a_relabelled_config_hash_is_named(db: Path, certified: Certified) -> None:
    store = open_store(str(db))
    other = store.put_config(resolve_config(RichToyAdapter(), "wrong_arg"))
    store.close()
    sql(
        db,
        "DROP TRIGGER runs_no_update",
        "UPDATE runs SET config_hash = ? WHERE run_id = ?",
        params=(other, certified.run),
    )
    lines = findings(verify(db, certified.run, "--skip-rescore"))
    assert any("runs row: content does not match its digest" in line for line in lines), lines
    assert any(f"config {other}: is richtoy/wrong_arg, the run says richtoy/good" in line
               for line in lines), lines


def test_deleted_score_rows_are_named(db: Path, certified: Certified) -> None:
    deleted = count(db, "SELECT count(*) FROM score_sets WHERE run_id = ? AND "
                    "packed_values LIKE '000000000000f03f%'", (certified.run,))
    assert deleted > 0
    sql(db, "DROP TRIGGER score_sets_no_delete",
        "DELETE FROM score_sets WHERE run_id = ? AND packed_values LIKE '000000000000f03f%'",
        params=(certified.run,))
    lines = findings(verify(db, certified.run, "--skip-rescore"))
    short = [line for line in lines if "holds 0 score_sets row(s), its entry records 1" in line]
    assert len(short) == len({line.split("(")[0] for line in short}) > 0
    assert any("lacking ['" in line for line in lines)
    assert_tampered(report(db, certified.run))


def test_padded_repetitions_with_sql_are_named(db: Path, certified: Certified) -> None:
    sql(
        db,
        "DROP TRIGGER trajectories_chained",
        "INSERT INTO trajectories (run_id, item_id, repetition, crashed, payload, created_at, "
        "block, digest) SELECT run_id, item_id, repetition + 100, crashed, payload, created_at, "
        "block, digest FROM trajectories WHERE run_id = ?",
        params=(certified.run,),
    )
    lines = findings(verify(db, certified.run, "--skip-rescore"))
    assert any("/101: is outside the run's" in line for line in lines), lines
    assert_tampered(report(db, certified.run))


def test_padded_repetitions_through_the_api_are_tampered(
    db: Path, certified: Certified
) -> None:
    store = open_store(str(db))
    adapter = RichToyAdapter()
    run = store.get_run(certified.run)
    items = store.get_suite(run.suite_hash).by_id()
    scorers, ctx = load_system(adapter).scorers(), load_system(adapter).scoring_context()
    for t in store.trajectories(run.run_id)[:3]:
        padded = replace(t, repetition=101)
        store.write_trajectory(run.run_id, padded,
                               score_records(scorers, items[t.item_id], padded, ctx))
    verdict = assess(store, run)
    store.close()
    assert verdict.tampered  # the chain is consistent: the slots are what fail
    outside = [f.line() for f in verdict.integrity.findings]
    assert len(outside) == 3 and all("/101: is outside the run's" in f for f in outside)
    lines = findings(verify(db, certified.run))
    assert sum("/101: is outside the run's" in line for line in lines) == 3
    assert any("trajectories changed since it was judged" in line for line in lines)


def test_a_rescore_after_certification_voids_every_certificate(
    db: Path, certified: Certified, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(str(db))
    monkeypatch.setattr(OutcomeMatch, "version", "2")
    from agent_assay.rescoring import rescore

    assert rescore(store, RichToyAdapter(), certified.run).generation == 1
    verdict = assess(store, store.get_run(certified.run))
    store.close()
    assert not verdict.tampered and not verdict.admissible
    assert any("re-scored since it was judged (generation 0 then, 1 now)" in r
               for r in verdict.reasons), verdict.reasons


def test_controls_refuse_a_run_made_by_another_adapter_or_version(
    db: Path, certified: Certified
) -> None:
    store = open_store(str(db))
    run = store.get_run(certified.run)
    with pytest.raises(AssayError, match="was made by adapter richtoy, not toy: pass --adapter"):
        run_controls(store, ToyAdapter(), run)
    newer = RichToyAdapter()
    newer.version = "2.0.0"
    with pytest.raises(AssayError, match=r"made by richtoy 1\.0\.0; the installed adapter is 2"):
        run_controls(store, newer, run)
    store.close()


def test_controls_refuse_a_tampered_run(db: Path, certified: Certified) -> None:
    sql(db, "DROP TRIGGER trajectories_no_update",
        "UPDATE trajectories SET payload = replace(payload, 'switch_on', 'switch_off')")
    store = open_store(str(db))
    with pytest.raises(AssayError, match=r"fails its integrity check .* nothing was certified"):
        run_controls(store, RichToyAdapter(), store.get_run(certified.run))
    store.close()


def test_a_bundle_verifies_elsewhere_and_fails_on_any_changed_byte(
    db: Path, certified: Certified, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = tmp_path / "evidence.jsonl"
    written = invoke("export", certified.run, str(bundle), "--db", str(db))
    assert written.code == 0, written.err
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    moved = elsewhere / "evidence.jsonl"
    shutil.move(bundle, moved)
    db.unlink()
    monkeypatch.chdir(elsewhere)
    checked = invoke("verify", str(moved), "--db", str(elsewhere / "absent.db"))
    assert checked.code == 0, checked.out
    assert checked.out.splitlines()[-1] == "verify: 1 run(s), 0 finding(s) -- nothing is off"
    shown = invoke("report", str(moved))
    assert shown.code == 0 and "ADMISSIBLE -- " in shown.out
    assert not (elsewhere / "absent.db").exists() and not (elsewhere / "run").exists()
    original = moved.read_bytes()
    import random

    rng = random.Random(12)
    positions = [0, len(original) - 1, len(original) - 2, *rng.sample(range(len(original)), 25)]
    for position in positions:
        changed = bytearray(original)
        changed[position] ^= 1 << rng.randrange(8)
        moved.write_bytes(bytes(changed))
        result = invoke("verify", str(moved))
        assert result.traceback is None, result.traceback
        assert result.code != 0, position
        assert len(result.err.strip().splitlines()) == 1, result.err
        assert result.err.startswith("error: ") and str(moved) in result.err, result.err


def test_a_path_digest_that_misstates_the_payload_is_named_by_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer that records a false proposal-path digest in each block (so the consistency
    figure would read what it likes) keeps a consistent chain; verify, which decodes every
    payload, names each such trajectory."""
    db = tmp_path / "paths.db"
    store = open_store(str(db))
    honest = toy_run(store, ToyAdapter(), "good", repeats=2)
    monkeypatch.setattr(Trajectory, "path_digest", lambda self: "0" * 64)
    forged = toy_run(store, ToyAdapter(), "good", repeats=2)
    monkeypatch.undo()
    store.close()
    assert findings(verify(db, honest.run_id, "--skip-rescore")) == []
    lines = findings(verify(db, forged.run_id, "--skip-rescore"))
    assert len(lines) == 8 and all(
        "its proposal path is not the one its ledger block" in line for line in lines), lines
