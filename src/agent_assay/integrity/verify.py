"""`agent-assay verify`: re-derive everything a stored run claims, from what is stored.

It makes the check every report makes (schema, chain, row digests, and the
content check that shares its code: items against their suite, the config
against its hash, each trajectory in one of the run's slots), but always
walking the whole chain; beyond it, it decodes every trajectory and checks
its slot and step count against its ledger block, checks that every
trajectory has one score per scorer of the current generation, re-scores
every stored trajectory with the recorded scorer versions and compares the
stored rows with `==`, and checks that every certificate still matches the
evidence it judged. It never raises on what it finds: each problem is one
finding, and nothing is off only when there is none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import DatabaseError

from agent_assay.adapters.loaded import LoadedSystem, load_system
from agent_assay.aggregates import run_status, scorer_versions
from agent_assay.errors import AssayError
from agent_assay.findings import Finding
from agent_assay.hashing import canonical_json
from agent_assay.integrity.certificates import void_reasons
from agent_assay.model import Run, Trajectory
from agent_assay.rescoring import fresh_scores
from agent_assay.store import Store
from agent_assay.store.database import (
    BaseStates,
    damage_report,
    schema,
    schema_findings,
)
from agent_assay.store.encoding import DELTA_KEY, decode_json, expanded
from agent_assay.store.evidence import (
    ChainCheck,
    RawReader,
    WitnessCheck,
    check_run_chain,
    checkpoint_findings,
    config_findings,
    marked_complete,
    relied_on,
    relied_on_findings,
    slot_findings,
    suite_findings,
)

AdapterLoader = Callable[[str], LoadedSystem | object]

INTERNAL = "verification stopped on a value no check anticipated (please report it)"


@dataclass
class RunVerification:
    run_id: str
    findings: list[Finding] = field(default_factory=list)
    blocks: int = 0
    rows: int = 0
    rederived: int = 0
    imported: int = 0
    certificates: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, where: str, problem: str) -> None:
        self.findings.append(Finding(where, problem))


@dataclass
class Verification:
    database: list[Finding] = field(default_factory=list)
    runs: list[RunVerification] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    below_sql: str = "integrity_check ok"
    """What was checked beneath the rows: SQLite's page-level check, or PostgreSQL's catalog."""
    witness: WitnessCheck | None = None
    """The heads a witness file holds, checked against the store (`verify --witness`)."""

    @property
    def findings(self) -> list[Finding]:
        witnessed = self.witness.findings if self.witness else []
        return [*self.database, *(f for r in self.runs for f in r.findings), *witnessed]

    @property
    def ok(self) -> bool:
        return not self.findings


def verify_store(
    store: Store,
    run_ids: Sequence[str] | None,
    load_adapter: AdapterLoader | None,
) -> Verification:
    """Verify `run_ids` (every run when None); `load_adapter` None skips re-scoring."""
    result = Verification()
    try:
        if not _database_checks(store, result):
            return result
        known = store.run_ids()
        if run_ids is None:
            run_ids = known
            _orphan_ledgers(store, known, result)
        for run_id in run_ids:
            if run_id not in known:
                raise AssayError(f"unknown run id: {run_id}")
            result.runs.append(verify_run(store, run_id, load_adapter))
    except DatabaseError as exc:
        result.database.append(Finding("database", f"cannot be read: {exc.orig}"))
    return result


def _database_checks(store: Store, result: Verification) -> bool:
    """Damage below SQL (reported, and nothing further is read), then schema and repairs."""
    path = store.engine.url.database
    if store.engine.dialect.name == "sqlite" and path and Path(path).is_file():
        damage = [Finding("database", line) for line in damage_report(Path(path))]
        if damage:
            result.database += damage
            return False
    with store.reading() as conn:
        result.database += schema_findings(conn)
        repairs = conn.execute(select(schema.store_repairs)).all()
        if conn.dialect.name == "postgresql":
            from agent_assay.store.database import guard_holder_notes

            result.below_sql = "PostgreSQL, checked from its catalog"
            result.notes += guard_holder_notes(conn)
    for row in repairs:
        result.notes.append(f"store repaired at {row.at}: restored {row.restored}")
    return True


def _orphan_ledgers(store: Store, known: Sequence[str], result: Verification) -> None:
    with store.reading() as conn:
        chained = set(conn.execute(select(schema.ledger.c.run_id).distinct()).scalars())
    for run_id in sorted(chained - set(known)):
        result.database.append(
            Finding(f"ledger of run {run_id}", "has no runs row: the run was removed")
        )


def verify_run(store: Store, run_id: str, load_adapter: AdapterLoader | None) -> RunVerification:
    out = RunVerification(run_id)
    check = check_run_chain(store, run_id)
    out.findings += check.findings
    if not check.findings:  # a walk that found damage says more than a checkpoint's stream
        out.findings += checkpoint_findings(store, run_id, check.ledger)
    out.blocks, out.rows = check.blocks, check.rows
    try:
        run = store.get_run(run_id)
        found, suite = suite_findings(store, run)
        out.findings += found + config_findings(store, run)
        # read before the rows: a run a writer completes meanwhile then has every slot it
        # completed with in the rows read after (a complete event follows its trajectories)
        complete = marked_complete(store.events(run_id))
        trajectories = _check_trajectories(store, run, check, complete, out)
        if not complete:
            _say_unfinished(store, run, out)
        _say_retried(store, run, out)
        manifest = store.manifest(run_id)
        _check_score_sets(store, run, manifest, trajectories, out)
        if load_adapter is not None and suite is not None:
            _rederive(store, run, manifest, load_adapter, out)
        _check_certificates(store, run, check, manifest, out)
    except AssayError as exc:
        out.add(f"run {run_id}", f"could not be read further: {exc}")
    except DatabaseError:
        raise
    except Exception as exc:  # a damaged row no check anticipated: say so, never a traceback
        out.add(f"run {run_id}", f"{INTERNAL}: {type(exc).__name__}: {exc}")
    return out


def _check_trajectories(
    store: Store, run: Run, check: ChainCheck, complete: bool, out: RunVerification
) -> list[Trajectory]:
    """Decode every stored trajectory row (each attempt at a slot, in order), check it
    against its row and its ledger block, then the run's slots as a whole."""
    details = _trajectory_blocks(check)
    found: list[Trajectory] = []
    bases = BaseStates(store.engine)  # fetched as payloads name them, each checked once
    stored = RawReader(store).chained_rows("trajectories", run.run_id)  # a slot's attempts in order
    slots = []
    causes: dict[tuple[Any, Any, Any], object] = {}
    for values in stored.rows:
        row = dict(zip(stored.columns, values, strict=True))
        slot = (row["item_id"], row["repetition"])
        slots.append(slot)
        attempt = row["attempt"]
        where = f"trajectory {slot[0]}/{slot[1]}" + (f" attempt {attempt}" if attempt != 1
                                                      else "")
        decoded = _decoded(row, bases, where, out)
        if decoded is None:
            continue
        data, trajectory = decoded
        if (trajectory.item_id, trajectory.repetition) != slot:
            out.add(where, "its payload names another slot")
        if bool(row["crashed"]) != trajectory.crashed:
            out.add(where, "its crashed flag differs from its payload")
        causes[(*slot, attempt)] = trajectory.crash_cause
        detail = details.get(row["block"]) if row["block"] is not None else None
        if isinstance(detail, dict):
            _check_against_block(detail, row, data, trajectory, causes, where, out)
        found.append(trajectory)
    out.findings += slot_findings(run, slots, complete)
    return found


def _trajectory_blocks(check: ChainCheck) -> dict[int, Any]:
    """Each trajectory block's decoded detail by its sequence number (one that does not
    decode is already a chain finding)."""
    details: dict[int, Any] = {}
    for entry in check.ledger:
        if entry.kind == "trajectory":
            try:
                details[entry.seq] = decode_json("ledger", entry.seq, entry.detail)
            except AssayError:
                continue
    return details


def _decoded(
    row: dict[str, Any], bases: BaseStates, where: str, out: RunVerification
) -> tuple[Any, Trajectory] | None:
    """A trajectory row's payload and the trajectory it decodes to; None (and a finding)
    when it does not decode."""
    try:
        data = decode_json("trajectories", row["id"], row["payload"])
        return data, Trajectory.from_json(expanded(data, bases.fresh))
    except (AssayError, KeyError, TypeError, ValueError, AttributeError) as exc:
        out.add(where, f"payload does not decode ({exc})")
        return None


def _check_against_block(
    detail: dict[str, Any],
    row: dict[str, Any],
    data: Any,
    trajectory: Trajectory,
    causes: dict[tuple[Any, Any, Any], object],
    where: str,
    out: RunVerification,
) -> None:
    """What the row's ledger block records against what the row holds: the crash a retry
    runs again, the slot, the steps, the base state and the proposal path."""
    slot, attempt = (row["item_id"], row["repetition"]), row["attempt"]
    if "attempt" in detail:
        before = causes.get((*slot, attempt - 1)) if isinstance(attempt, int) else None
        if detail.get("cause") != before:
            out.add(where, f"its ledger block records that it runs again the "
                           f"{detail.get('cause')}'s crash; the attempt before it "
                           f"records {before or 'no crash'}")
    if detail.get("slot") != [slot[0], slot[1]]:
        out.add(where, f"its ledger block {row['block']} records another slot")
    if detail.get("steps") != len(trajectory.steps):
        out.add(
            where,
            f"has {len(trajectory.steps)} steps, its ledger block records "
            f"{detail.get('steps')}",
        )
    named = data.get(DELTA_KEY, {}).get("base") if isinstance(data, dict) else None
    if detail.get("state") != named:
        out.add(where, f"its payload's base state {str(named)[:16]} is not the one its "
                       f"ledger block records ({str(detail.get('state'))[:16]})")
    if "path" in detail and detail["path"] != trajectory.path_digest():
        out.add(where, f"its proposal path is not the one its ledger block "
                f"{row['block']} records")


def _say_unfinished(store: Store, run: Run, out: RunVerification) -> None:
    """One line for a run not marked complete: its stored slots were checked like any
    other's, and the slots still to come are not findings."""
    status = run_status(store, run)
    state = {"running": "in progress", "interrupted": "interrupted"}.get(status.state,
                                                                        "not finished")
    out.notes.append(
        f"{state}: {status.stored} of {status.expected} slot(s) stored; those were checked, "
        "the rest are not findings"
    )


def _say_retried(store: Store, run: Run, out: RunVerification) -> None:
    """One line for a run with slots run again after a crash: their earlier attempts were
    checked like every row, and the figures read the newest."""
    retried = store.retried_slots(run.run_id)
    if retried:
        earlier = sum(len(slot.earlier) for slot in retried.values())
        out.notes.append(
            f"{len(retried)} slot(s) run again after a crash (`run --resume --retry`) hold "
            f"{earlier} earlier attempt(s), checked like every row; the figures read the "
            f"newest (`agent-assay runs show {run.run_id}` lists them)"
        )


def _check_score_sets(
    store: Store,
    run: Run,
    manifest: dict[str, Any],
    trajectories: Sequence[Trajectory],
    out: RunVerification,
) -> None:
    names = {s["name"] for s in manifest.get("scorers", [])}
    per_slot: dict[tuple[str, int], set[str]] = {}
    for record in store.current_scores(run.run_id):
        per_slot.setdefault((record.item_id, record.repetition), set()).add(record.scorer)
    for t in trajectories:
        have = per_slot.get((t.item_id, t.repetition), set())
        if names and have != names:
            lacking, extra = sorted(names - have), sorted(have - names)
            out.add(
                f"scores of trajectory {t.item_id}/{t.repetition}",
                f"lacking {lacking} extra {extra} against the run's scorer set",
            )


def _rederive(
    store: Store,
    run: Run,
    manifest: dict[str, Any],
    load_adapter: AdapterLoader,
    out: RunVerification,
) -> None:
    where = f"run {run.run_id}"
    try:
        adapter = load_system(load_adapter(run.adapter), run.adapter)
    except AssayError as exc:
        out.add(where, f"scores cannot be re-derived: {exc} (pass --skip-rescore to check the "
                "chain alone)")
        return
    made_by = manifest.get("adapter_version", run.env.get("adapter_version"))
    if made_by is not None and made_by != adapter.version:
        out.add(where, f"scores cannot be re-derived: made by {run.adapter} {made_by}, "
                f"installed {adapter.version}")
        return
    recorded = scorer_versions(store, run)
    installed = {s.name: s.version for s in adapter.scorers()}
    if recorded != installed:
        differ = sorted(
            f"{name} {recorded.get(name, 'absent')} vs {installed.get(name, 'absent')}"
            for name in recorded.keys() | installed.keys()
            if recorded.get(name) != installed.get(name)
        )
        out.add(where, f"scores cannot be re-derived: recorded vs installed scorer versions "
                f"differ ({'; '.join(differ)})")
        return
    try:
        # the stored scores first: a trajectory is stored with its scores, so every score
        # read now has its trajectory among those re-scored next, however a writer goes on
        stored_scores = list(store.current_scores(run.run_id))
        fresh = {r.slot_key(): r for r in fresh_scores(store, adapter, run.run_id)}
    except AssayError as exc:
        out.add(where, f"re-scoring raised: {exc}")
        return
    for stored in stored_scores:
        again = fresh.get(stored.slot_key())
        name = f"score {stored.item_id}/{stored.repetition} {stored.scorer}"
        if again is None:
            out.add(name, "no installed scorer produces it")
        elif (stored.value, canonical_json(stored.detail)) != (
            again.value,
            canonical_json(again.detail),
        ):
            out.add(name, f"stored {stored.value!r}, re-derived {again.value!r}")
        else:
            out.rederived += 1
            out.imported += stored.imported


def _check_certificates(
    store: Store, run: Run, check: ChainCheck, manifest: dict[str, Any], out: RunVerification
) -> None:
    versions = scorer_versions(store, run)
    for kind, outcome in store.control_outcomes(run.run_id).items():
        out.certificates += 1
        for why in void_reasons(store, run, outcome, check, versions):
            out.add(f"certificate {kind}", f"void: {why}")
        for aux in relied_on(outcome):
            out.findings += relied_on_findings(store, kind, aux, check_run_chain)
