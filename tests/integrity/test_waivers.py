"""What the verdict's word says about the benchmark's choices: ADMISSIBLE only under the
harness's defaults with nothing waived; ADMISSIBLE WITH WAIVERS naming each waiver;
INADMISSIBLE when a control that cannot be waived was, whoever allowed it."""

from __future__ import annotations

from pathlib import Path

from agent_assay.controls.registry import control_kinds
from agent_assay.integrity.admissibility import assess
from agent_assay.store import Store
from agent_assay.views.gates import admissibility_lines
from agent_assay.views.load import report_text
from tests.support.choosy import Excuses, LooseBands, SomeExcuses, StrictBands, certified
from tests.support.toy import RichToyAdapter

OWN = "set by the system's own bands file"


def test_an_honest_run_under_the_defaults_stays_plainly_admissible(store: Store) -> None:
    _, verdict = certified(store, RichToyAdapter(), "good")
    assert verdict.admissible, verdict.reasons
    assert (verdict.word, verdict.statement) == ("ADMISSIBLE", "ADMISSIBLE")
    assert verdict.waivers == verdict.disclosures == ()
    assert admissibility_lines(verdict) == [
        "ADMISSIBLE -- zero invariant violations; every control PASSED or allowed NOT_RUN, "
        "judged under the harness's defaults with nothing waived"]


def test_an_unseeded_agent_under_its_own_loose_bands_is_not_admissible(store: Store) -> None:
    """The attack: every band loosened by the system's own file, so an agent claimed
    deterministic that flips an unseeded coin passes identical_config at k=1. identical_config
    cannot be loosened for a k=1 headline, and every other loosened band is named."""
    run, verdict = certified(store, LooseBands(), "cheat")
    assert verdict.word == "INADMISSIBLE"
    refused = f"identical_config max_differing_paths 40 (default 0), {OWN}: identical_config "
    assert any(reason.startswith(refused + "cannot be loosened") for reason in verdict.reasons)
    for waived in ("null_agent min_margin 0.01 (default 0.25)",
                   "random_agent seeds 5 (default 10)", "mutation alpha 0.5 (default 0.05)",
                   "shuffled_gold min_drop.default 0.01 (default 0.25)",
                   "scorer_selftest probe_items 1 (default 5)"):
        assert f"{waived}, {OWN}" in verdict.waivers
    text = report_text(store, run)
    assert "identical_config max_differing_paths 40 (default 0)" in text
    assert "!!! single run; not a measurement" in text  # nor does it certify a k=1 headline


def test_loosened_bands_over_repetitions_are_admissible_only_with_waivers(store: Store) -> None:
    _, verdict = certified(store, LooseBands(), "good", repeats=2)
    assert verdict.admissible, verdict.reasons
    assert verdict.word == "ADMISSIBLE WITH WAIVERS"
    assert verdict.statement.startswith("ADMISSIBLE WITH WAIVERS: scorer_selftest probe_items 1 "
                                        f"(default 5), {OWN}; ")
    assert f"identical_config max_differing_paths 40 (default 0), {OWN}" in verdict.waivers
    assert len(verdict.waivers) == 12  # every loosened value, each named once
    assert admissibility_lines(verdict)[0].startswith("!!! ADMISSIBLE WITH WAIVERS -- ")


def test_stricter_bands_are_named_but_waive_nothing(store: Store) -> None:
    _, verdict = certified(store, StrictBands(), "good")
    assert verdict.word == "ADMISSIBLE", verdict.reasons
    assert verdict.disclosures == (
        "under the system's own bands: scorer_selftest probe_items 8 (default 5); "
        "null_agent min_margin 0.3 (default 0.25)",)
    assert "    under the system's own bands: scorer_selftest probe_items 8" in "\n".join(
        admissibility_lines(verdict))


def test_every_control_allowed_not_run_is_inadmissible_naming_the_unwaivable(
    store: Store,
) -> None:
    _, verdict = certified(store, Excuses(), "good", allowed=frozenset(control_kinds()))
    assert verdict.word == "INADMISSIBLE"
    for kind in ("null_agent", "shuffled_gold", "scorer_selftest", "identical_config"):
        assert any(reason.startswith(f"{kind} NOT_RUN cannot be waived (") and
                   reason.endswith("allowed by --allow-not-run") for reason in verdict.reasons)
    for kind in ("positive_control", "mutation", "random_agent", "state_check_bites",
                 "judge_calibration"):  # a judge "calibrated elsewhere" is not "no judge"
        assert f"{kind} NOT_RUN (allowed by --allow-not-run)" in verdict.waivers


def test_waivable_controls_allowed_not_run_are_each_named(store: Store, tmp_path: Path) -> None:
    allow_file = tmp_path / "mine.yaml"
    allow_file.write_text("allow_not_applicable: true\n")
    _, verdict = certified(store, SomeExcuses(), "good", repeats=2,
                             allowed=frozenset({"positive_control"}), bands_file=allow_file)
    assert verdict.word == "ADMISSIBLE WITH WAIVERS", verdict.reasons
    assert verdict.waivers == (
        "state_check_bites NOT_RUN (allowed by --bands FILE (allow_not_applicable))",
        "positive_control NOT_RUN (allowed by --allow-not-run)",
        "mutation NOT_RUN (allowed by --bands FILE (allow_not_applicable))",
    )
    assert "judge_calibration" not in verdict.statement  # no judge: nothing was waived


def test_a_certificate_recorded_before_choices_were_bound_says_so(store: Store) -> None:
    """An outcome stored the way agent-assay wrote them before this binding existed (its
    certificate has no `choices`) reads as unbound, never as a crash or a clean verdict."""
    run, _ = certified(store, Excuses(), "good", allowed=frozenset(control_kinds()))
    for outcome in store.control_outcomes(run.run_id).values():
        old = dict(outcome.payload)
        old["certificate"] = {k: v for k, v in old["certificate"].items() if k != "choices"}
        store.put_control_outcome(run.run_id, run.suite_hash, run.config_hash, old)
    verdict = assess(store, run)
    assert verdict.word == "INADMISSIBLE"
    assert any("recorded before choices were bound" in reason and "re-run" in reason
               for reason in verdict.reasons)
    assert verdict.waivers == ()
    assert "recorded before choices were bound" in report_text(store, run)
