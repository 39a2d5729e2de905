"""judge_calibration passes a calibrated judge, names each broken one, and refuses a judge
that would raise a verdict or grade its own model family without the certifier's waiver.
Every judge here is scripted (tests/support/judged_toy.py): no network call."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay.controls.bands import load_bands
from agent_assay.controls.base import ControlOutcome
from agent_assay.controls.execute import control_context, run_controls
from agent_assay.controls.judge_calibration import JudgeCalibration
from agent_assay.errors import AssayError
from agent_assay.integrity.admissibility import assess
from agent_assay.integrity.choices import judge_choices
from agent_assay.model import Gold, Trajectory
from agent_assay.schemas import schema
from agent_assay.scoring.base import Scorer, ScoreValue, ScoringContext
from agent_assay.scoring.judging import JudgedScorer, JudgeModel, brake
from agent_assay.scoring.outcome import OutcomeMatch
from agent_assay.store import Store
from tests.support.judged_toy import (
    AlwaysYesToy,
    JudgedToy,
    LengthToy,
    PositionToy,
    SameFamilyToy,
)

SCRIPTED = ("judge_calibration:\n  allow_system_judge: true\n  derivation: the test's "
            "scripted judge stands in for a model\n")
"""The certifier's waiver every scripted judge needs: a judge the system wrote."""


def waiver(where: Path, text: str = SCRIPTED) -> Path:
    path = where / f"waiver{len(list(where.glob('waiver*')))}.yaml"
    path.write_text(text)
    return path


def calibrate(store: Store, system: JudgedToy, config: str = "good",
              bands: Path | str | None = SCRIPTED) -> ControlOutcome:
    """Run `config`, then judge_calibration alone on the run (the other controls are
    tested elsewhere), under the defaults and `bands` (a file, or a file's text; by default
    the certifier's waiver of a scripted judge)."""
    run = api.evaluate(system, config, store=store, repeats=1, seed=0).run
    ctx = control_context(store, system, run, random_seeds=10)
    if isinstance(bands, str):
        bands = waiver(Path(tempfile.mkdtemp()), bands)
    band = load_bands(None, bands).get("judge_calibration")
    try:
        return JudgeCalibration().run(ctx, band)
    except AssayError as exc:
        return ControlOutcome("judge_calibration", "2", "ERROR", str(exc))


def test_a_calibrated_judge_passes(store: Store) -> None:
    got = calibrate(store, JudgedToy())
    assert got.status == "PASSED", got.summary
    assert got.measured["sensitivity"]["hits"] == got.measured["sensitivity"]["n"] == 16
    assert got.measured["specificity"]["lower_bound"] >= 0.8
    assert got.measured["judge"] == {"model": "scripted-judge-1", "base_url": None}


@pytest.mark.parametrize(("system", "named"), [
    (AlwaysYesToy(), "constant judge: always yes"),
    (PositionToy(), "position-biased: 16/32 verdicts moved"),
    (LengthToy(), "verbosity-biased: 20/20 verdicts moved"),
])
def test_a_broken_judge_fails_and_is_named(store: Store, system: JudgedToy, named: str) -> None:
    got = calibrate(store, system)
    assert got.status == "FAILED"
    assert named in got.summary


@pytest.mark.parametrize(("system", "clean"), [(PositionToy(), "verbosity"),
                                              (LengthToy(), "position")])
def test_only_the_named_fault_fails(store: Store, system: JudgedToy, clean: str) -> None:
    """The position- and length-biased judges are right on the plain prompt: what fails
    them is the probe, not their accuracy."""
    got = calibrate(store, system)
    failures = got.summary.split("; ", 1)[1]
    assert "sensitivity" not in failures and "specificity" not in failures
    assert f"{clean}-biased" not in failures


def test_the_judge_lowers_a_wrong_reply_the_outcome_passed(store: Store) -> None:
    """wrong_arg switches the next lamp: outcome.match still says done, the judge does not."""
    run = api.evaluate(JudgedToy(), "wrong_arg", store=store, repeats=1, seed=0).run
    rows = {(r.item_id, r.scorer): r for r in store.current_scores(run.run_id)}
    assert rows[("on-L1", "outcome.match")].value == 1.0
    judged = rows[("on-L1", "judged.outcome.match")]
    assert judged.value == 0.0
    asked = judged.detail["asked"][0]
    assert asked["raw"] == "No." and asked["verdict"] is False
    assert "ANSWER: Lamp L2 is now on." in asked["prompt"]


def test_brake_never_raises_a_verdict() -> None:
    assert brake(0.0, True) == 0.0
    assert brake(1.0, False) == 0.0
    assert brake(1.0, True) == 1.0
    assert brake(None, True) is None


class RaisingJudge(JudgedScorer):
    """A judge that credits whatever it sees: the brake written around."""

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return ScoreValue(1.0)


class RaisingToy(JudgedToy):
    def __init__(self, version: str = "1.0.0") -> None:
        super().__init__(version)
        from dataclasses import replace

        from agent_assay.scoring.state import StateAssertions

        brakes: Scorer = StateAssertions()
        raising = RaisingJudge(brakes, self.judge_model, self.judged_questions,
                               self.judge_backend(), "raising")
        raising.name = "raising.judge"
        self.facts = replace(JudgedToy.facts, scorers=(raising,))


def test_a_judge_that_raises_a_verdict_is_refused(store: Store) -> None:
    got = calibrate(store, RaisingToy(), "wrong_arg")
    assert got.status == "ERROR"
    assert got.summary.startswith("judge raising.judge raised the verdict of")
    assert "\n" not in got.summary


def test_a_judge_of_the_agents_family_is_refused_without_a_waiver(store: Store) -> None:
    got = calibrate(store, SameFamilyToy(), "gpt-agent")
    assert got.status == "ERROR"
    assert "is of the agent's model family (openai, agent gpt-4o)" in got.summary


def test_the_system_cannot_waive_its_own_family(tmp_path: Path) -> None:
    own = tmp_path / "own.yaml"
    own.write_text("judge_calibration:\n  allow_same_family: true\n  derivation: ours\n")
    with pytest.raises(AssayError, match="cannot waive a judge of the agent's model family"):
        load_bands(own)


def test_the_certifiers_waiver_is_accepted_and_shown(store: Store, tmp_path: Path) -> None:
    both = waiver(tmp_path, "judge_calibration:\n  allow_same_family: true\n"
                  "  allow_system_judge: true\n"
                  "  derivation: no other judge is available for this audit\n")
    system = SameFamilyToy()
    run = api.evaluate(system, "gpt-agent", store=store, repeats=1, seed=0).run
    result = run_controls(store, system, run, bands_file=both)
    judged = {o.kind: o for o in result.outcomes}["judge_calibration"]
    assert judged.status == "PASSED", judged.summary
    assert ("waived by the certifier: same model family as the agent, a judge the system "
            "wrote (function)") in judged.summary
    waived = tuple(f"judge_calibration {key} True (default False), set by --bands "
                   f"{both.name}" for key in ("allow_same_family", "allow_system_judge"))
    assert judge_choices(run, store.control_outcomes(run.run_id)).waivers == waived
    bound = store.control_outcomes(run.run_id)["judge_calibration"].payload["certificate"]
    departures = schema("controls-show")["$defs"]["choices"]["properties"]["departures"]
    jsonschema.validate(bound["choices"]["departures"], departures)  # true is no number
    verdict = assess(store, run)
    assert verdict.admissible, verdict.reasons
    assert verdict.statement == f"ADMISSIBLE WITH WAIVERS: {'; '.join(waived)}"


def test_a_judge_the_system_wrote_is_refused_without_a_waiver(store: Store) -> None:
    """A system that writes its judge can answer the labelled pairs from their labels."""
    got = calibrate(store, JudgedToy(), bands=None)
    assert got.status == "ERROR"
    assert got.summary.startswith("judge backend function is the system's own code, not the "
                                  "harness's client for scripted-judge-1: refused unless")


def test_the_system_cannot_waive_its_own_judge(tmp_path: Path) -> None:
    with pytest.raises(AssayError, match="cannot waive a judge backend the system wrote"):
        load_bands(waiver(tmp_path))


def test_a_judged_system_with_a_calibrated_judge_is_admissible(
    store: Store, tmp_path: Path
) -> None:
    """Every control, the judged scorer's self-test included (a reply that does nothing
    planted in the oracle, which ends in a reply labelled right); the scripted judge is
    the system's own code, so the verdict names the certifier's waiver."""
    system = JudgedToy()
    run = api.evaluate(system, "good", store=store, repeats=1, seed=0).run
    scripted = waiver(tmp_path)
    result = run_controls(store, system, run, bands_file=scripted)
    statuses = {o.kind: o.status for o in result.outcomes}
    assert statuses["scorer_selftest"] == statuses["judge_calibration"] == "PASSED"
    verdict = assess(store, run)
    assert verdict.admissible, verdict.reasons
    assert verdict.statement == ("ADMISSIBLE WITH WAIVERS: judge_calibration "
                                 "allow_system_judge True (default False), set by --bands "
                                 f"{scripted.name}")


def test_the_judge_is_part_of_the_config_hash() -> None:
    plain = load_system(JudgedToy()).configs()["good"]
    other = type("OtherJudge", (JudgedToy,), {"judge_model": JudgeModel("another-judge")})()
    assert plain["judge"] == {"model": "scripted-judge-1", "base_url": None}
    assert load_system(other).configs()["good"]["judge"]["model"] == "another-judge"


class Unasked(JudgedToy):
    def judged_questions(self, item_id: str, gold: Gold) -> tuple[()]:
        return ()


def test_no_judged_question_is_an_allowed_not_run(store: Store) -> None:
    got = calibrate(store, Unasked())
    assert got.status == "NOT_RUN"
    assert got.reason == "the system declares no judged question on these items"


class Repeats(JudgedToy):
    """Every labelled answer given five times over: the same judgement, asked again."""

    def labelled_answers(self) -> list[Any]:
        return [answer for answer in super().labelled_answers() for _ in range(5)]


def test_a_repeated_labelled_pair_counts_once(store: Store) -> None:
    got = calibrate(store, Repeats())
    assert got.measured["sensitivity"]["n"] == got.measured["specificity"]["n"] == 16


class TooFewLabels(JudgedToy):
    """Only the first switch item labelled: a perfect judge, but too little evidence."""

    def labelled_answers(self) -> list[Any]:
        return list(super().labelled_answers())[:8]


def test_too_few_labels_fail_even_a_perfect_judge(store: Store) -> None:
    got = calibrate(store, TooFewLabels())
    assert got.status == "FAILED"
    assert "sensitivity 4/4: lower bound 0.473 < 0.8" in got.summary


class Shifty(JudgedToy):
    """Asks one wording while scoring and, once told, another while being calibrated."""

    wording = "Does it say that lamp {lamp} is now {state}?"

    def judged_questions(self, item_id: str, gold: Gold) -> list[Any]:
        asked = list(super().judged_questions(item_id, gold))
        return [replace(q, question=type(self).wording.format(
            lamp=q.question.split()[5], state=q.question.split()[-1].rstrip("?")))
            for q in asked]


def test_questions_that_change_between_scoring_and_calibration_are_refused(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = Shifty()
    run = api.evaluate(system, "good", store=store, repeats=1, seed=0).run
    monkeypatch.setattr(Shifty, "wording", "Is lamp {lamp} now {state}, as the reply says?")
    ctx = control_context(store, system, run, random_seeds=10)
    with pytest.raises(AssayError, match="differ from those asked now"):
        JudgeCalibration().run(ctx, load_bands(None, waiver(tmp_path)).get("judge_calibration"))


def replace_name(scorer: OutcomeMatch, name: str) -> OutcomeMatch:
    scorer.name = name
    return scorer


class Squatter(JudgedToy):
    facts = replace(JudgedToy.facts, scorers=(replace_name(OutcomeMatch(), "judged.mine"),))


def test_a_system_scorer_may_not_take_the_judged_prefix() -> None:
    with pytest.raises(AssayError, match=r"takes the prefix 'judged\.'"):
        load_system(Squatter())


class SkipsALamp(JudgedToy):
    """Labels every lamp but L3: the judge is then trusted on a question never measured."""

    def labelled_answers(self) -> list[Any]:
        return [a for a in super().labelled_answers() if "L3" not in a.item_id]


def test_a_question_with_no_labelled_answer_fails(store: Store) -> None:
    got = calibrate(store, SkipsALamp())
    assert got.status == "FAILED"
    assert ("1 judged question(s) with no labelled answer (first: 'Does it say that lamp L3 "
            "is now on?')") in got.summary
