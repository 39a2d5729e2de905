"""The integrity check every command makes before it reads or extends a run.

From the run's first checkpoint when it has one (see `checkpoint`): the covered rows
must still stream to the digest it records, and every block after it is walked in
full, its rows re-hashed. Otherwise, or when anything after the checkpoint adds
trajectories, scores or a scoring generation, the whole chain is walked
(`chain_check`). Either way the answer is a `ChainCheck` with the same findings a full
walk would give a store that is intact, and a finding when it is not.

What a verdict depends on reaches past the run's chain, so `check_evidence` (what
`report`, `compare` and `controls show` check before a number, and `require_intact`
before anything builds on a run) adds the schema, the run's content (`content_check`:
its slots, suite, gold and config) and the same checks of every run its current
certificates relied on, each finding worded as `verify` words it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from agent_assay.collector import paused
from agent_assay.errors import AssayError, TamperedEvidence
from agent_assay.findings import Finding
from agent_assay.store.database.schema_check import schema_findings
from agent_assay.store.encoding import chain
from agent_assay.store.evidence.chain_check import (
    ChainCheck,
    Evidence,
    Row,
    Walk,
    check_base_states,
    check_blocks,
    check_links,
    check_run_chain,
    check_terminal_heads,
    sound_entries,
)
from agent_assay.store.evidence.checkpoint import (
    CHANGED,
    EVIDENCE_TABLES,
    KIND,
    BeyondCheckpoint,
    Claim,
    Stream,
    ledger_query,
    parse_claim,
    stream_from,
)
from agent_assay.store.evidence.content_check import content_findings
from agent_assay.store.evidence.raw import RawReader
from agent_assay.store.facade.store import Store
from agent_assay.store.records import Head, LedgerEntry, RunEvent, StoredOutcome

ChainWalk = Callable[[Store, str], ChainCheck]
"""How a run's chain is checked: `check_run` for every command, `check_run_chain` (always
the full walk) for `verify`."""


def check_run(store: Store, run_id: str) -> ChainCheck:
    """The run's chain check: from its first checkpoint when one can be used, else in full."""
    with paused():
        quick = None
        if RawReader(store).embedded:
            with store.snapshot() as conn:
                quick = _quick(store, run_id, conn)
        if quick is not None and not quick.findings and quick.crashed is not None:
            store.lend_checked(run_id, quick.slots, quick.crashed)
        return quick if quick is not None else check_run_chain(store, run_id)


def _quick(store: Store, run_id: str, conn: Connection | None) -> ChainCheck | None:
    """The check from the run's first checkpoint, every read on `conn` (one snapshot), or
    None when it cannot start from one: no checkpoint, a detail that does not parse (the
    full walk treats it as any block and `verify` names it), or trajectories or scores
    added after it."""
    raw = RawReader(store)
    if not raw.has_block(run_id, KIND, conn):
        return None  # a run without one: the ledger is read once, by the full walk
    ledger = list(raw.read_raw(ledger_query(run_id, None), conn))
    at = next((i for i, row in enumerate(ledger) if row[1] == KIND), None)
    if at is None or type(ledger[at][0]) is not int:
        return None
    entry = _entry(ledger[at])
    claim, _ = parse_claim(entry)
    if claim is None:
        return None
    covered = [row for row in ledger[:at] if type(row[0]) is int and row[0] <= claim.through]
    try:
        stream = stream_from(store, run_id, claim.through, covered, conn)
    except BeyondCheckpoint:
        return None
    if stream.digest != claim.stream:
        full = check_run_chain(store, run_id, conn)  # in this snapshot: never a second one
        if full.findings:
            return full
        finding = Finding(f"ledger block {entry.seq} ({KIND})", CHANGED)
        return ChainCheck(full.run_id, (finding,), full.evidence, full.blocks, full.rows,
                          full.ledger, full.paths, full.digests, full.states, full.slots)
    tail = [_entry(row) for row in ledger[at:]]
    return _from_checkpoint(store, run_id, claim, stream, tail, conn)


def _entry(row: tuple[Any, ...]) -> LedgerEntry:
    """A ledger entry from the stream's row of it (its detail read back from bytes, as a
    tolerant read decodes a damaged one)."""
    seq, kind, prev_digest, digest, at, stored_as, detail = row
    text = None if stored_as == "null" else detail.decode("utf-8", "surrogateescape")
    return LedgerEntry(seq, kind, text, prev_digest, digest, at)  # type: ignore[arg-type]


def _from_checkpoint(
    store: Store,
    run_id: str,
    claim: Claim,
    stream: Stream,
    after: list[LedgerEntry],
    conn: Connection | None,
) -> ChainCheck:
    """Walk the blocks after the checkpoint's `through` (`after`, the checkpoint first) in
    full; the rest is the claim's, but for the slots, which are the stream's rows'."""
    covered = stream.digests
    walk = Walk(run_id)
    raw = RawReader(store)
    rows: dict[str, list[Row]] = {}
    for table in chain.CHAINED_TABLES:
        if table not in EVIDENCE_TABLES:
            rows[table], _ = walk.digest_rows(
                table, raw.chained_rows(table, run_id, after=claim.through, conn=conn))
    tail = sound_entries(walk, after)
    if claim.through not in covered:
        walk.add(f"ledger block {claim.through}", "is missing: a checkpoint covers it")
    check_links(walk, tail, claim.through + 1, covered.get(claim.through, chain.GENESIS))
    check_blocks(walk, tail, {})
    digests = {**covered, **{entry.seq: entry.digest for entry in tail}}
    check_terminal_heads(walk, digests, rows["run_events"])
    check_base_states(walk, store, set(claim.states))
    last = tail[-1] if tail else None
    evidence = Evidence(
        run_id=run_id,
        head=Head(last.seq, last.digest) if last else None,
        trajectories=claim.trajectories,
        generation=claim.generation,
        scores=claim.scores,
    )
    return ChainCheck(run_id, tuple(walk.findings), evidence, claim.through + len(tail),
                      claim.rows + walk.rows, tuple(tail), claim.paths, digests, claim.states,
                      stream.slots, stream.sets, stream.crashed)


@dataclass(frozen=True)
class CheckedEvidence:
    """What checking a run's evidence found, and what it read on the way: the run's
    events and its controls' newest outcomes, so that the verdict judges the rows the
    check checked instead of reading them again (both empty when the chain failed:
    its rows cannot be trusted to decode)."""

    findings: list[Finding]
    check: ChainCheck
    events: tuple[RunEvent, ...] = ()
    outcomes: Mapping[str, StoredOutcome] = field(default_factory=dict)


def run_findings(store: Store, run_id: str, walk: ChainWalk = check_run) -> CheckedEvidence:
    """The run's chain check and, when its chain is intact, its content check. (Rows of a
    chain that fails cannot be trusted to decode; the run is tampered with already.)"""
    check = walk(store, run_id)
    if check.findings:
        return CheckedEvidence(list(check.findings), check)
    events = tuple(store.events(run_id))
    found = content_findings(store, store.get_run(run_id), check, events)
    return CheckedEvidence(found, check, events)


def relied_on(outcome: StoredOutcome) -> list[str]:
    """The runs `outcome`'s certificate says its control made and judged (identical_config's
    twins): the verdict stands on their evidence too."""
    certificate = outcome.payload.get("certificate")
    runs = certificate.get("aux_runs") if isinstance(certificate, dict) else None
    return sorted(runs) if isinstance(runs, dict) else []


def relied_on_findings(
    store: Store, made_by: str, run_id: str, walk: ChainWalk = check_run
) -> list[Finding]:
    """`run_id`, a run the `made_by` control relied on, checked as a run is (`run_findings`),
    each finding named for it; none when it is not stored (the certificate is void then,
    which `integrity.certificates` says)."""
    if run_id not in store.run_ids():
        return []
    found = run_findings(store, run_id, walk).findings
    return [Finding(f"run {run_id} (made by {made_by})", f.line()) for f in found]


def check_evidence(store: Store, run_id: str, walk: ChainWalk = check_run) -> CheckedEvidence:
    """Check this run's evidence: the one entry point. Everything a verdict on `run_id`
    depends on: the schema's guards, the run's chain and content (walked by `walk`), and
    those of every run its current certificates relied on."""
    with store.reading() as conn:
        found = schema_findings(conn)
    own = run_findings(store, run_id, walk)
    found += own.findings
    if own.check.findings:
        return CheckedEvidence(found, own.check)  # its outcomes cannot be trusted to decode
    outcomes = store.control_outcomes(run_id)
    for kind, outcome in outcomes.items():
        for aux in relied_on(outcome):
            found += relied_on_findings(store, kind, aux)
    return CheckedEvidence(found, own.check, own.events, outcomes)


def require_intact(
    store: Store, run_id: str, doing: str, walk: ChainWalk = check_run
) -> ChainCheck:
    """The run's chain check, refusing to go on (`doing` it) when anything a verdict on the
    run depends on fails (`check_evidence`): nothing is certified, mutated, re-scored
    or resumed on evidence that was edited or does not belong to the run."""
    checked = check_evidence(store, run_id, walk)
    if checked.findings:
        raise refusal(run_id, checked.findings, doing)
    return checked.check


def refusal(run_id: str, problems: Sequence[Finding], doing: str) -> AssayError:
    """The one-line refusal (exit 2) of a command that will not go on (`doing` it) with a
    run whose evidence fails its integrity check."""
    return TamperedEvidence(
        f"run {run_id} fails its integrity check ({len(problems)} finding(s), first: "
        f"{problems[0].line()}); nothing was {doing}. Run `agent-assay verify {run_id}` "
        "for the full list"
    )
