"""`report` checks what the verdict depends on, not only the chain.

The chain proves that no row changed after it was appended; it does not prove that what
was appended belongs to the run, nor anything about the rows it names by hash (the
suite, its items' gold, the config), nor about the runs a certificate relied on. Each
test here starts from a copy of one certified (ADMISSIBLE) store and does what someone
holding the store could: append trajectories outside the run's slots through the Store
API (the chain stays consistent), edit the stored gold or config with SQL and put the
trigger back, edit an identical_config twin. Then `report`, `compare`, `controls show`
and `controls run` must all refuse it as `verify` does, with `verify`'s words.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from agent_assay.adapters.loaded import load_system
from agent_assay.aggregates import scorer_versions
from agent_assay.controls.certificate import certificate
from agent_assay.integrity.admissibility import integrity
from agent_assay.integrity.verify import verify_store
from agent_assay.run_context import score_records
from agent_assay.store import open_store
from agent_assay.store.evidence import (
    RawReader,
    check_run,
    check_run_chain,
    claim_of,
    covered_stream,
)
from tests.support.certify import (
    Certified,
    certified_store,
    certify,
    private_copy,
    richtoy_named,
)
from tests.support.invoke import Invocation, invoke
from tests.support.tamper import sql
from tests.support.toy import RichToyAdapter
from tests.support.toyrun import new_toy_run


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> Certified:
    return certified_store(tmp_path_factory.mktemp("report_checks") / "assay.db")


@pytest.fixture
def db(certified: Certified, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_copy(certified, tmp_path, monkeypatch)


def rows(db: Path, query: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    con = sqlite3.connect(db)
    try:
        return con.execute(query, params).fetchall()
    finally:
        con.close()


def put_trigger_back(db: Path) -> None:
    """What a careful editor does after an UPDATE behind a dropped trigger: restore it, so the
    schema looks as created."""
    repaired = invoke("migrate", "--repair", "--db", str(db))
    assert repaired.code == 0, repaired.out + repaired.err


def pad(db: Path, run_id: str, repetitions: tuple[int, ...]) -> int:
    """Append copies of the run's first trajectories at `repetitions` (outside k=1), scored
    by the run's own scorers, through the Store API: each is a well-formed block."""
    store = open_store(str(db))
    adapter = load_system(RichToyAdapter())
    run = store.get_run(run_id)
    items = store.get_suite(run.suite_hash).by_id()
    written = 0
    for t, repetition in zip(store.trajectories(run.run_id), repetitions, strict=False):
        padded = replace(t, repetition=repetition)
        store.write_trajectory(run.run_id, padded, score_records(
            adapter.scorers(), items[t.item_id], padded, adapter.scoring_context()))
        written += 1
    store.close()
    return written


def edit_gold(db: Path) -> str:
    """Empty one item's gold path in place (its item hash left as it was); its id."""
    item_id, payload = rows(db, "SELECT item_id, payload FROM items ORDER BY position LIMIT 1")[0]
    data = json.loads(str(payload))
    data["gold"]["path"] = []
    sql(db, "DROP TRIGGER items_no_update",
        "UPDATE items SET payload = ? WHERE item_id = ?",
        params=(json.dumps(data, sort_keys=True, separators=(",", ":")), item_id))
    put_trigger_back(db)
    return str(item_id)


def edit_config(db: Path) -> None:
    """The good agent's config relabelled as another mode, behind its trigger."""
    sql(db, "DROP TRIGGER configs_no_update",
        "UPDATE configs SET payload = replace(payload, '\"good\"', '\"wrong_arg\"')")
    put_trigger_back(db)


def report(db: Path, run: str, *args: str) -> Invocation:
    return invoke("report", run, *args, "--db", str(db))


def assert_tampered(result: Invocation) -> None:
    assert result.traceback is None, result.traceback
    assert result.code == 2, result.out + result.err
    lines = result.out.splitlines()
    assert lines[0].startswith("!!! TAMPERED -- the stored evidence of run "), result.out
    assert "ADMISSIBLE --" not in result.out.replace("INADMISSIBLE --", "")
    assert "mean of k" not in result.out  # no number is shown


def report_findings(db: Path, run_id: str) -> list[str]:
    """What every report of `run_id` checks, as finding lines."""
    store = open_store(str(db))
    try:
        return [f.line() for f in integrity(store, store.get_run(run_id)).findings]
    finally:
        store.close()


def verify_findings(db: Path, run_id: str) -> list[str]:
    store = open_store(str(db))
    try:
        return [f.line() for f in verify_store(store, [run_id], None).findings]
    finally:
        store.close()


def assert_agree(db: Path, run_id: str, expected: str) -> list[str]:
    """Report and verify both name `expected`, in the same words, and report names nothing
    verify does not."""
    by_report, by_verify = report_findings(db, run_id), verify_findings(db, run_id)
    assert any(expected in line for line in by_report), by_report
    assert set(by_report) <= set(by_verify), (by_report, by_verify)
    return by_report


def controls_run(db: Path, run_id: str) -> Invocation:
    return invoke("controls", "run", "--run", run_id, "--adapter", "richtoy", "--db", str(db))


def assert_controls_refuse(db: Path, run_id: str) -> None:
    """`controls run` refuses in one line, exit 2, and writes nothing: no outcome, no twin."""
    counted = "SELECT (SELECT count(*) FROM control_outcomes), (SELECT count(*) FROM runs)"
    before = rows(db, counted)
    refused = controls_run(db, run_id)
    assert refused.traceback is None, refused.traceback
    assert refused.code == 2, refused.out + refused.err
    assert len(refused.err.strip().splitlines()) == 1, refused.err
    assert "fails its integrity check" in refused.err and "nothing was certified" in refused.err
    assert rows(db, counted) == before


def test_the_honest_store_reports_admissible_and_verify_agrees(
    db: Path, certified: Certified
) -> None:
    shown = report(db, certified.run)
    assert shown.code == 0, shown.out
    assert shown.out.splitlines()[3].startswith("ADMISSIBLE -- ")
    assert report_findings(db, certified.run) == []
    assert verify_findings(db, certified.run) == []
    assert invoke("controls", "show", certified.run, "--db", str(db)).code == 0


def test_padding_outside_the_slots_then_a_real_controls_run_is_tampered(
    db: Path, certified: Certified
) -> None:
    padded = pad(db, certified.run, (2, 0, 7))
    assert padded == 3
    found = assert_agree(db, certified.run, "/2: is outside the run's 12 items x k=1")
    assert sum("is outside the run's" in line for line in found) == 3
    assert_controls_refuse(db, certified.run)
    assert_tampered(report(db, certified.run))
    assert_tampered(report(db, certified.run, "--headline-only"))
    as_json = report(db, certified.run, "--json")
    shown = json.loads(as_json.out)
    assert as_json.code == 2 and shown["tampered"] and "mean" not in as_json.out
    assert set(shown["integrity_findings"]) == set(found)


def test_padding_with_the_verdicts_rebound_through_the_api_is_tampered(
    db: Path, certified: Certified
) -> None:
    """Padding, then every stored verdict appended again with a certificate bound to the
    padded evidence (what a controls run that does not look at the slots would write):
    every certificate matches, the chain is consistent, and only the slot check stands
    between the padding and ADMISSIBLE."""
    pad(db, certified.run, (2, 3))
    store = open_store(str(db))
    run = store.get_run(certified.run)
    evidence = check_run(store, run.run_id)
    for outcome in store.control_outcomes(run.run_id).values():
        bound = certificate(evidence, run, scorer_versions(store, run), "1.0.0",
                            outcome.payload["certificate"]["aux_runs"],
                            outcome.payload["certificate"]["choices"])
        store.put_control_outcome(run.run_id, run.suite_hash, run.config_hash,
                                  {**outcome.payload, "certificate": bound})
    store.close()
    assert_tampered(report(db, certified.run))
    assert_agree(db, certified.run, "/3: is outside the run's 12 items x k=1")


def test_a_duplicated_slot_is_tampered(db: Path, certified: Certified) -> None:
    """The table rebuilt without its UNIQUE slot constraint, then a second copy of a slot
    appended through the API (a well-formed block). The rebuilt table is a schema finding
    and the chain walk counts every slot, so this held before the content check too."""
    (table_sql,) = rows(db, "SELECT sql FROM sqlite_master WHERE name = 'trajectories'")[0]
    loose = str(table_sql).replace("CONSTRAINT uq_trajectory_slot UNIQUE (run_id, item_id, "
                                   "repetition, attempt),", "")
    assert loose != table_sql
    con = sqlite3.connect(db)
    con.executescript(
        "PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = ON; BEGIN;"
        "ALTER TABLE trajectories RENAME TO trajectories_old;"
        f"{loose};"
        "INSERT INTO trajectories SELECT * FROM trajectories_old;"
        "DROP TABLE trajectories_old; DROP INDEX ux_score_sets_slot; COMMIT;"
    )
    con.close()
    pad(db, certified.run, (1,))
    invoke("migrate", "--repair", "--db", str(db))  # the triggers back; the table stays loose
    assert_tampered(report(db, certified.run))
    assert_agree(db, certified.run, ": stored 2 times")
    assert_controls_refuse(db, certified.run)


def test_edited_gold_is_tampered(db: Path, certified: Certified) -> None:
    item_id = edit_gold(db)
    assert_tampered(report(db, certified.run))
    assert_agree(db, certified.run, f"item '{item_id}' of suite ")
    assert_agree(db, certified.run, "payload does not match its item hash (gold or input changed)")
    assert_controls_refuse(db, certified.run)


def test_gold_edited_with_its_item_hash_is_tampered(db: Path, certified: Certified) -> None:
    from agent_assay.model import Item

    item_id, payload = rows(db, "SELECT item_id, payload FROM items ORDER BY position LIMIT 1")[0]
    item = Item.from_json(json.loads(str(payload)))
    edited = replace(item, gold=replace(item.gold, path=()))
    sql(db, "DROP TRIGGER items_no_update",
        "UPDATE items SET payload = ?, item_hash = ? WHERE item_id = ?",
        params=(json.dumps(edited.to_json(), sort_keys=True, separators=(",", ":")),
                edited.content_hash, item_id))
    put_trigger_back(db)
    assert_tampered(report(db, certified.run))
    assert_agree(db, certified.run, "its items no longer hash to the suite hash")


def test_an_edited_config_is_tampered(db: Path, certified: Certified) -> None:
    edit_config(db)
    assert_tampered(report(db, certified.run))
    assert_agree(db, certified.run, "payload does not match its hash (the config was edited)")
    assert_controls_refuse(db, certified.run)


def test_an_edited_twin_is_tampered(db: Path, certified: Certified) -> None:
    """A twin's trajectory rewritten behind its trigger, the trigger put back: the twin's
    head is unchanged, so the certificate still matches; its rows do not."""
    twin = certified.twins[0]
    sql(db, "DROP TRIGGER trajectories_no_update",
        "UPDATE trajectories SET payload = replace(payload, 'switch_on', 'switch_off') "
        "WHERE run_id = ?", params=(twin,))
    put_trigger_back(db)
    assert_tampered(report(db, certified.run))
    found = assert_agree(db, certified.run, f"run {twin} (made by identical_config): ")
    assert all(line.startswith(f"run {twin} (made by identical_config): ") for line in found)
    assert_controls_refuse(db, certified.run)


def test_a_twin_padded_outside_its_slots_is_tampered(db: Path, certified: Certified) -> None:
    twin = certified.twins[1]
    pad(db, twin, (2,))
    assert_tampered(report(db, certified.run))
    assert_agree(db, certified.run,
                 f"run {twin} (made by identical_config): trajectory ")


def test_compare_and_controls_show_refuse_a_tampered_run(db: Path, certified: Certified) -> None:
    edit_gold(db)
    compared = invoke("compare", certified.run, certified.other, "--db", str(db), "--force")
    assert compared.traceback is None, compared.traceback
    assert compared.code == 2
    assert "STORE_TAMPERED" in compared.out and "--force cannot compare" in compared.out
    shown = invoke("controls", "show", certified.run, "--db", str(db))
    assert_tampered(shown)
    assert "PASSED" not in shown.out  # nor what the controls measured
    as_json = invoke("controls", "show", certified.run, "--json", "--db", str(db))
    assert as_json.traceback is None and as_json.code == 2 and as_json.out == ""
    assert len(as_json.err.strip().splitlines()) == 1
    assert "fails its integrity check" in as_json.err and "nothing was shown" in as_json.err


def _partly_written(db: Path, repeats: int = 2, every_item: bool = False) -> str:
    """A run written through the Store API, repetition 1 of its first item only (as a run
    interrupted early leaves it) or of `every_item`."""
    store = open_store(str(db))
    adapter = RichToyAdapter()
    run = new_toy_run(store, adapter, repeats=repeats)
    loaded = load_system(adapter)
    items = store.get_suite(run.suite_hash).by_id()
    config = store.get_config(run.config_hash)
    for item_id in run.item_ids if every_item else run.item_ids[:1]:
        done = adapter.run_item(items[item_id].public(), config, seed=0, repetition=1)
        store.write_trajectory(run.run_id, done, score_records(
            loaded.scorers(), items[item_id], done, loaded.scoring_context()))
    store.close()
    return run.run_id


def test_padding_hidden_by_a_forged_first_checkpoint_is_tampered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run written whole through the Store API, padded, marked complete, and given its
    first checkpoint by the same hand: the checkpoint streams the stored bytes honestly but
    claims only the run's own slots. The quick check trusts a first checkpoint's claim, so
    the slots must come from the rows it streams, not from what it claims."""
    db = tmp_path / "assay.db"
    run_id = _partly_written(db, repeats=1, every_item=True)
    pad(db, run_id, (2, 3))
    store = open_store(str(db))
    store.append_event(run_id, "complete", {})
    check = check_run_chain(store, run_id)
    assert check.evidence.head is not None and not check.findings
    claim = claim_of(check, covered_stream(store, run_id, check.evidence.head.seq))
    assert claim is not None
    claim["paths"]["by_item"] = {item: reps[:1] for item, reps in claim["paths"]["by_item"].items()}
    claim["trajectories"]["n"] = sum(1 for reps in claim["paths"]["by_item"].values() if reps)
    assert store.append_checkpoint(run_id, lambda conn, head: claim) is not None
    quick = check_run(store, run_id)
    assert len(quick.ledger) < quick.blocks and len(quick.paths) == 12  # from the claim
    store.close()
    monkeypatch.setattr("agent_assay.adapters.registry.load_adapter", richtoy_named)
    assert_controls_refuse(db, run_id)
    assert_tampered(report(db, run_id))
    assert_agree(db, run_id, "/3: is outside the run's 12 items x k=1")


def test_rows_edited_under_a_forged_first_checkpoint_are_tampered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose writer left no checkpoint (its completion walk found something, or it
    was stored before checkpoints existed): a score edited behind its trigger, the trigger
    put back, then a checkpoint appended through the Store API that streams the edited
    bytes and claims the clean walk taken before the edit. Certifying walked the whole
    chain and left the run its first checkpoint, so the forged one is never the one a
    report starts from: every report says TAMPERED, as `verify` does."""
    db = tmp_path / "assay.db"
    store = open_store(str(db))
    monkeypatch.setattr("agent_assay.runner.write_checkpoint", lambda store, run_id: None)
    run = certify(store, RichToyAdapter(), "good")["run"]
    monkeypatch.undo()
    certifiers = RawReader(store).first_block(run.run_id, "checkpoint")
    assert certifiers is not None
    clean = check_run_chain(store, run.run_id)
    store.close()
    sql(db, "DROP TRIGGER score_sets_no_update",
        "UPDATE score_sets SET packed_values = '0000000000000000' || substr(packed_values, 17) "
        "WHERE id = (SELECT min(id) FROM score_sets WHERE run_id = ?)", params=(run.run_id,))
    put_trigger_back(db)
    store = open_store(str(db))
    assert clean.evidence.head is not None
    claim = claim_of(clean, covered_stream(store, run.run_id, clean.evidence.head.seq))
    assert store.append_checkpoint(run.run_id, lambda conn, head: claim) is not None
    assert RawReader(store).first_block(run.run_id, "checkpoint") == certifiers
    store.close()
    assert any("content does not match its digest" in line
               for line in verify_findings(db, run.run_id))
    assert_tampered(report(db, run.run_id))


def test_an_unfinished_run_is_not_tampered_for_its_missing_slots(tmp_path: Path) -> None:
    """A run still being written has slots missing: that is a state, not tampering."""
    db = tmp_path / "assay.db"
    run_id = _partly_written(db)
    assert report_findings(db, run_id) == [] == verify_findings(db, run_id)
    shown = report(db, run_id)
    assert shown.code == 3 and "TAMPERED" not in shown.out, shown.out  # unfinished, not edited


def test_a_run_marked_complete_with_slots_missing_is_tampered(tmp_path: Path) -> None:
    """A `complete` event appended through the API to a run that is not: verify names it,
    and so does every report."""
    db = tmp_path / "assay.db"
    run_id = _partly_written(db)
    store = open_store(str(db))
    store.append_event(run_id, "complete", {})
    store.close()
    assert_tampered(report(db, run_id))
    assert_agree(db, run_id, "is marked complete but 23 slot(s) are missing")
