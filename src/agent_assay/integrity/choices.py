"""What each stored verdict was judged under, read back from its certificate and named.

The words of a verdict are decided here and only here (`Admissibility.word` and
`statement` render what this returns). A run judged under the harness's defaults with
nothing waived is ADMISSIBLE. A control allowed NOT_RUN, or a band looser than the
default, is a waiver: the run can be at most ADMISSIBLE WITH WAIVERS, each waiver named.
Some controls cannot be waived at all (UNWAIVABLE, and identical_config under a k=1
headline): allowed or not, their NOT_RUN makes the run INADMISSIBLE. A band stricter than
the default is disclosed ("under the system's own bands: ...") but waives nothing, and
judge_calibration's NOT_RUN for want of a judge has nothing to calibrate, so it is not a
waiver either.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_assay.controls.registry import NOT_APPLICABLE
from agent_assay.model import Run
from agent_assay.store import StoredOutcome

if TYPE_CHECKING:
    from agent_assay.controls.bands import Departure, SetBy

# controls.bands (its rules are checked with yamlfile's, which loads PyYAML) is imported
# where a stored departure is read: a report on a run whose bands are the defaults needs
# none of it

UNWAIVABLE: Mapping[str, str] = {
    "null_agent": "a headline a do-nothing agent scores close to measures nothing about the "
                  "agent",
    "shuffled_gold": "a headline that does not fall when gold is deranged does not measure "
                     "agreement with gold",
    "scorer_selftest": "a headline scorer not shown to go red on its own defect may be blind "
                       "to it",
}
"""Controls no one may waive for an admissible verdict, and why (docs/threat-model.md)."""

SINGLE_PASS = "identical_config"
SINGLE_PASS_WHY = "a k=1 headline is a measurement only if the config is shown deterministic"


def unwaivable(run: Run) -> dict[str, str]:
    """UNWAIVABLE, with identical_config when the run's headline is a single pass."""
    return {**UNWAIVABLE, **({SINGLE_PASS: SINGLE_PASS_WHY} if run.repeats == 1 else {})}


@dataclass(frozen=True)
class JudgedChoices:
    refusals: tuple[str, ...]
    """Why the choices make the run INADMISSIBLE (an unwaivable control waived)."""
    waivers: tuple[str, ...]
    """Each allowed NOT_RUN and each looser band, named with who chose it."""
    disclosures: tuple[str, ...]
    """Departures that waive nothing: stricter bands, the system's own headline scorers."""
    bound: Mapping[str, Any]
    """The newest certificate's choices as stored (empty when none is bound)."""


def _choices(outcome: StoredOutcome) -> Mapping[str, Any] | None:
    cert = outcome.payload.get("certificate")
    found = cert.get("choices") if isinstance(cert, Mapping) else None
    return found if isinstance(found, Mapping) else None


def _who(set_by: SetBy) -> str:
    from agent_assay.controls.bands import CERTIFIER

    if set_by.who == CERTIFIER and set_by.file:
        return f"--bands {Path(set_by.file).name}"
    return set_by.who


def _departure(kind: str, raw: Any) -> Departure | None:
    """A stored departure of `kind`'s band, or None when it is not one the rules know."""
    if not isinstance(raw, Mapping) or raw.get("kind") != kind:
        return None
    from agent_assay.controls.bands import RULES, Departure, SetBy

    key = str(raw.get("key"))
    if not (key in RULES.get(kind, {}) or (kind == "shuffled_gold"
                                           and key.startswith("min_drop."))):
        return None
    file = raw.get("file")
    return Departure(kind, key, raw.get("value"), raw.get("default"),
                     SetBy(str(raw.get("set_by")), str(file) if file else None))


def judge_choices(run: Run, outcomes: Mapping[str, StoredOutcome]) -> JudgedChoices:
    """Refusals, waivers and disclosures of the newest outcome of each control, each read
    from that outcome's own certificate. An outcome without bound choices is voided
    elsewhere (`integrity.certificates`), so it adds nothing here."""
    never = unwaivable(run)
    refusals: list[str] = []
    waivers: list[str] = []
    stricter: dict[str, list[str]] = {}
    newest: Mapping[str, Any] = {}
    for kind, outcome in sorted(outcomes.items(), key=lambda pair: pair[1].row_id):
        choices = _choices(outcome)
        if choices is None:
            continue
        newest = choices
        if _waived_not_run(outcome):
            by = (choices.get("allowed_not_run") or {}).get(kind, "an allowance")
            if kind in never:
                refusals.append(f"{kind} NOT_RUN cannot be waived ({never[kind]}); it was "
                                f"allowed by {by}")
            else:
                waivers.append(f"{kind} NOT_RUN (allowed by {by})")
        for raw in choices.get("departures") or ():
            departure = _departure(kind, raw)
            if departure is None:
                continue
            said = f"{kind} {departure.key} {departure.value} (default {departure.default})"
            if not _looser(departure):
                stricter.setdefault(_who(departure.set_by), []).append(said)
            elif kind == SINGLE_PASS and kind in never:
                refusals.append(f"{said}, set by {_who(departure.set_by)}: {SINGLE_PASS} "
                                f"cannot be loosened ({SINGLE_PASS_WHY})")
            else:
                waivers.append(f"{said}, set by {_who(departure.set_by)}")
    disclosures = [f"under {_under(who)}: {'; '.join(said)}" for who, said in stricter.items()]
    disclosures += _headline_disclosure(newest)
    return JudgedChoices(tuple(refusals), tuple(waivers), tuple(disclosures), newest)


def _looser(departure: Departure) -> bool:
    """Which way the harness's rule says it moved; a value that is not a number cannot be
    shown stricter, so it counts as a waiver."""
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool)
                  for v in (departure.value, departure.default))
    return departure.looser if numbers else True


def _waived_not_run(outcome: StoredOutcome) -> bool:
    """An allowed NOT_RUN, except a control's with nothing to judge on this system."""
    if outcome.status != "NOT_RUN" or not outcome.payload.get("allowed_not_run"):
        return False
    return outcome.payload.get("reason") not in NOT_APPLICABLE.get(outcome.kind, frozenset())


def _under(who: str) -> str:
    from agent_assay.controls.bands import SEEDS_FLAG, SYSTEM

    return {SYSTEM: "the system's own bands", SEEDS_FLAG: SEEDS_FLAG}.get(who, who)


def _headline_disclosure(choices: Mapping[str, Any]) -> list[str]:
    """The headline metrics that are the system's own scorers, not generic ones: trusted
    only as declared, so named (the whole headline set is in the bound choices)."""
    own = [str(m) for m in choices.get("system_scorers") or ()]
    if not own:
        return []
    return [f"headline metrics that are the system's own scorers: {', '.join(own)}"]
