"""Admissible iff the store is intact, zero invariant violations, and every control PASSED
(or allowed NOT_RUN) with a certificate that still matches the stored evidence, and no
control that cannot be waived was waived (`integrity.choices`), and no measured failure
was run again more than once (`integrity.retries`). An admissible run judged under
anything but the harness's defaults, or whose measured failures were run again, is
ADMISSIBLE WITH WAIVERS, each one named.

Decided from the store alone. First the integrity check (`store.evidence.check_evidence`:
the schema's triggers and indexes, the run's chain with every row re-hashed, its
slots, suite, gold and config, and the same of every run its certificates relied on):
a store that fails it is TAMPERED and nothing else is decided, since its rows cannot be
trusted to decode. Then the run's status, its manifest, and the newest stored
outcome of every registered control, each bound to the evidence it judged.
The reasons are listed in the order a reader should fix them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_assay.aggregates import RunStatus, run_status, scorer_versions
from agent_assay.controls.registry import control_kinds
from agent_assay.exitcodes import ExitCode
from agent_assay.findings import Finding
from agent_assay.integrity.certificates import void_reasons
from agent_assay.integrity.choices import SINGLE_PASS, judge_choices
from agent_assay.integrity.retries import judge_retries
from agent_assay.model import Run
from agent_assay.store import RunEvent, Store, StoredOutcome
from agent_assay.store.evidence import ChainCheck, check_evidence


@dataclass(frozen=True)
class Integrity:
    """The cheap check `report`, `compare` and `controls show` make every time."""

    findings: tuple[Finding, ...]
    check: ChainCheck
    events: tuple[RunEvent, ...] = ()
    """The run's events as the check read them (empty when it found the chain broken)."""
    outcomes: Mapping[str, StoredOutcome] = field(default_factory=dict)
    """Its controls' newest outcomes as the check read them (empty likewise)."""

    @property
    def tampered(self) -> bool:
        return bool(self.findings)


def integrity(store: Store, run: Run) -> Integrity:
    checked = check_evidence(store, run.run_id)
    return Integrity(tuple(checked.findings), checked.check, checked.events, checked.outcomes)


WAIVED = "ADMISSIBLE WITH WAIVERS"


@dataclass(frozen=True)
class Admissibility:
    admissible: bool
    reasons: tuple[str, ...]
    outcomes: dict[str, StoredOutcome]
    integrity: Integrity
    waivers: tuple[str, ...] = ()
    """Each allowed NOT_RUN and looser band the verdict stands on, with who chose it."""
    disclosures: tuple[str, ...] = ()
    """Departures from the defaults that waive nothing (stricter bands, the headline)."""
    choices: Mapping[str, Any] = field(default_factory=dict)
    """The choices bound in the newest certificate, as stored."""
    status: RunStatus | None = None
    """The run's status as the verdict read it (None when TAMPERED: nothing is read)."""

    @property
    def tampered(self) -> bool:
        return self.integrity.tampered

    @property
    def word(self) -> str:
        """TAMPERED, ADMISSIBLE, ADMISSIBLE WITH WAIVERS or INADMISSIBLE: what every form
        of the report leads with."""
        if self.tampered:
            return "TAMPERED"
        if not self.admissible:
            return "INADMISSIBLE"
        return WAIVED if self.waivers else "ADMISSIBLE"

    @property
    def exit_code(self) -> ExitCode:
        """What a command that gates on this verdict exits with: admissible (with waivers or
        without) is OK; otherwise TAMPERED or INADMISSIBLE."""
        if self.tampered:
            return ExitCode.TAMPERED
        return ExitCode.OK if self.admissible else ExitCode.INADMISSIBLE

    @property
    def statement(self) -> str:
        """The word and, for a waived verdict, every waiver: one line, for any view."""
        if self.word == WAIVED:
            return f"{WAIVED}: {'; '.join(self.waivers)}"
        return self.word

    @property
    def one_line(self) -> str:
        """The statement and every other departure from the defaults: a CSV cell."""
        return "; ".join((self.statement, *self.disclosures))


def assess(store: Store, run: Run, state: Integrity | None = None) -> Admissibility:
    state = state or integrity(store, run)
    if state.tampered:
        reason = (
            f"the store fails its integrity check ({len(state.findings)} finding(s)): "
            f"run `agent-assay verify {run.run_id}`"
        )
        return Admissibility(False, (reason,), {}, state)
    reasons: list[str] = []
    status = run_status(store, run, state.events)
    if status.state != "complete":
        reasons.append(f"run is {status.state}: {'; '.join(status.reasons)}")
    elif status.crashed:
        reasons.append(f"{status.crashed} crashed trajectories")
    outcomes = dict(state.outcomes)
    versions = scorer_versions(store, run, state.events)
    failed = [k for k, o in outcomes.items() if o.status in ("FAILED", "ERROR")]
    if failed:
        reasons.append(f"failed control(s): {', '.join(failed)}")
    not_run = [
        k
        for k, o in outcomes.items()
        if o.status == "NOT_RUN" and not o.payload.get("allowed_not_run")
    ]
    if not_run:
        reasons.append(f"control(s) NOT_RUN without allowance: {', '.join(not_run)}")
    missing = [k for k in control_kinds() if k not in outcomes]
    if missing:
        reasons.append(f"control(s) never run for this run: {', '.join(missing)}")
    void: dict[str, list[str]] = {}
    for kind, o in outcomes.items():
        for why in void_reasons(store, run, o, state.check, versions):
            void.setdefault(why, []).append(kind)
    for why, kinds in void.items():
        reasons.append(f"certificate void ({', '.join(kinds)}): {why}")
    chosen = judge_choices(run, outcomes)
    retried = judge_retries(store, run)
    reasons += [*chosen.refusals, *retried.refusals]
    return Admissibility(not reasons, tuple(reasons), outcomes, state,
                         (*chosen.waivers, *retried.waivers),
                         (*chosen.disclosures, *retried.disclosures), chosen.bound, status)


@dataclass(frozen=True)
class SinglePass:
    """Whether a k=1 headline may stand, and on whose identical_config it stands."""

    reasons: tuple[str, ...]
    certified_by: str | None = None


def determinism_certifier(store: Store, run: Run) -> str | None:
    """The newest run whose PASSED identical_config speaks for `run`: same config and
    suite, items that include all of `run`'s, and a certificate that still matches its
    own intact evidence. A pass on another subset says nothing about these items."""
    wanted = set(run.item_ids)
    for o in reversed(store.control_outcomes_for_config(run.config_hash, "identical_config")):
        if o.status != "PASSED" or o.suite_hash != run.suite_hash:
            continue
        certified = store.get_run(o.run_id)
        if not wanted <= set(certified.item_ids):
            continue
        checked = check_evidence(store, certified.run_id)
        if checked.findings:
            continue
        latest = checked.outcomes.get("identical_config")
        if latest is None or latest.row_id != o.row_id:
            continue  # a newer identical_config outcome for that run replaced this one
        versions = scorer_versions(store, certified)
        loosened = judge_choices(certified, {SINGLE_PASS: o})
        if loosened.waivers or loosened.refusals:
            continue  # a pass under a loosened band does not show determinism
        if not void_reasons(store, certified, o, checked.check, versions):
            return certified.run_id
    return None


def single_pass_refusal(store: Store, run: Run) -> SinglePass:
    """Why a k=1 headline is refused: none when the config is declared deterministic AND an
    identical_config that covers this run's items has PASSED."""
    if run.repeats > 1:
        return SinglePass(())
    reasons = []
    if not store.manifest(run.run_id).get("deterministic", False):
        reasons.append("the adapter does not declare this config deterministic")
    certifier = determinism_certifier(store, run)
    if certifier is None:
        reasons.append(
            "no identical_config has PASSED for this config on these items (a pass on "
            f"another subset does not count): run `agent-assay controls run --run {run.run_id}`"
        )
    return SinglePass(tuple(reasons), certifier if not reasons else None)
