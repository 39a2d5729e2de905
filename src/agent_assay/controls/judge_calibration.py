"""judge_calibration: a model-based judge is measured against people's labels before any
run it scored may carry a claim.

On the run's items that have labelled answers, the judge's sensitivity (yes where a
person said the question holds) and specificity (no where they said it does not) are
judged on their exact one-sided Clopper-Pearson lower bounds; a position probe (question
and answer swapped) and a verbosity probe (a wrong answer padded with confident text, a
right one shortened) count verdicts that move with the form alone; a judge that says the
same thing to every labelled pair fails outright. Every shortfall is named in the
summary.

Refused before anything is measured (an ERROR, one line each): a judge scorer the harness
did not build (only its judged scorer is brake-only by construction), a stored judged
value above the deterministic verdict it brakes, and a judge of the agent's own model
family unless the certifier's bands waive it (`allow_same_family`, shown as a waiver).
NOT_RUN, allowed, only when the system declares no judged question on the run's items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.adapters.judged import LazyBackend, judging, questions_of
from agent_assay.adapters.system import JudgesAnswers
from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement, outcome
from agent_assay.controls.judge_family import model_family, same_family
from agent_assay.controls.judge_probes import (
    Asked,
    Pair,
    Tally,
    ask_pair,
    flipped,
    labelled_pairs,
    questions_declared,
    tally,
)
from agent_assay.controls.registry import NO_JUDGE, NO_QUESTION
from agent_assay.errors import AssayError
from agent_assay.llm.judge_client import OpenAIJudge
from agent_assay.model import Item
from agent_assay.scoring.base import Scorer, is_judge
from agent_assay.scoring.judging import JudgedScorer
from agent_assay.stats.intervals import exact_interval, exact_lower


class JudgeCalibration:
    kind = "judge_calibration"
    version = "2"
    requires: Requirement | None = None

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        system = judging(ctx.adapter.raw)
        judges = [s for s in ctx.scorers if is_judge(s)]
        if system is None or questions_declared(system, ctx.items) == 0:
            foreign = [s.name for s in judges if not _harness_made(s)]
            if foreign:  # the harness's own judge, with no question, is never asked
                raise AssayError(f"judge scorers {', '.join(foreign)} present but no judged "
                                 "question is declared to calibrate them on")
            why = NO_JUDGE if system is None else NO_QUESTION
            return ControlOutcome(self.kind, self.version, "NOT_RUN", why, reason=why)
        for scorer in judges:
            refuse_raised_verdicts(ctx, scorer)
        judge = the_judge(judges)
        refuse_changed_questions(ctx, system, judge)
        waived = [*family_check(ctx, judge, band), *backend_check(judge, band)]
        pairs = labelled_pairs(system, ctx.items)
        asked = [ask_pair(judge.backend, pair) for pair in pairs]
        unlabelled = unlabelled_questions(system, ctx.items, pairs)
        return self._verdict(system, judge, asked, band, waived, unlabelled)

    def _verdict(self, system: JudgesAnswers, judge: JudgedScorer, asked: Sequence[Asked],
                 band: Mapping[str, Any], waived: Sequence[str],
                 unlabelled: Sequence[str]) -> ControlOutcome:
        counts = tally(asked)
        measured, failures = judged(counts, band)
        if unlabelled:
            failures.append(f"{len(unlabelled)} judged question(s) with no labelled answer "
                            f"(first: {unlabelled[0]!r})")
        failures = [_named(failure, asked) for failure in failures]
        measured |= {"judge": judge.model.identity(), "judge_family":
                     model_family(judge.model.model), "judge_scorer": judge.name,
                     "judge_version": judge.version, "brakes": system.judge_brakes,
                     "waived": list(waived), "unlabelled_questions": list(unlabelled)}
        said = (f"judge {judge.model.model}: sensitivity {counts.true_positives}/"
                f"{counts.positives}, specificity {counts.true_negatives}/{counts.negatives}, "
                f"{counts.position_flips} position and {counts.verbosity_flips} verbosity flips")
        if waived:
            said += f"; waived by the certifier: {', '.join(waived)}"
        summary = said if not failures else f"{said}; " + "; ".join(failures)
        return outcome(self, not failures, summary, measured, band)


def _named(failure: str, asked: Sequence[Asked]) -> str:
    """A probe's failure with the first pairs whose verdict moved (item/question)."""
    for which in ("position", "verbosity"):
        if failure.startswith(f"{which}-biased"):
            return f"{failure}, first {', '.join(flipped(asked, which)[:3])}"
    return failure


def unlabelled_questions(system: JudgesAnswers, items: Sequence[Item],
                         pairs: Sequence[Pair]) -> list[str]:
    """The questions asked of the run's items that no labelled pair measures the judge on:
    a judge calibrated on easy questions would otherwise be trusted on hard ones."""
    measured = {pair.question.question for pair in pairs}
    asked = sorted({q.question for item in items
                    for q in questions_of(system, item.item_id, item.gold)})
    return [question for question in asked if question not in measured]


def the_judge(judges: Sequence[Scorer]) -> JudgedScorer:
    """The harness's judged scorer; any other judge is refused (only the harness's is
    brake-only by construction, and only it asks the prompt the probes vary)."""
    foreign = [s.name for s in judges if not _harness_made(s)]
    if foreign or not judges:
        raise AssayError(f"judge scorers {', '.join(foreign) or '(none)'} are not the harness's "
                         "judged scorer: declare judged questions (JudgesAnswers) instead")
    found = judges[0]
    assert isinstance(found, JudgedScorer)
    return found


def _harness_made(scorer: object) -> bool:
    """The harness's own class, not a subclass that could override its brake."""
    return type(scorer) is JudgedScorer


def refuse_raised_verdicts(ctx: ControlContext, judge: Scorer) -> None:
    """A stored judged value above the deterministic one it brakes is refused: whatever
    wrote it, a judge may lower a verdict, never raise it. A judge that names no metric it
    brakes is refused too: there is nothing to hold it under."""
    brakes = getattr(judge, "brakes", None)
    if not isinstance(brakes, Scorer):
        raise AssayError(f"judge {judge.name} names no deterministic metric it brakes: a judge "
                         "may only lower a verdict")
    values: dict[tuple[str, int], dict[str, float | None]] = {}
    for row in ctx.store.current_scores(ctx.run.run_id):
        if row.scorer in (judge.name, brakes.name):
            values.setdefault((row.item_id, row.repetition), {})[row.scorer] = row.value
    raised = sorted(f"{item}#{rep}" for (item, rep), got in values.items()
                    if _above(got.get(judge.name), got.get(brakes.name)))
    if raised:
        raise AssayError(f"judge {judge.name} raised the verdict of {len(raised)} "
                         f"trajectories ({', '.join(raised[:3])}) above {brakes.name}: a "
                         "judge may only lower a verdict")


def refuse_changed_questions(ctx: ControlContext, system: JudgesAnswers,
                             judge: JudgedScorer) -> None:
    """The questions a stored score says were asked of an item must be the ones calibrated
    on now: a system whose questions differ between scoring and calibration would have its
    judge measured on one task and trusted on another."""
    items = {item.item_id: item for item in ctx.items}
    for row in ctx.store.current_scores(ctx.run.run_id):
        detail = row.detail or {}
        if row.scorer != judge.name or "questions" not in detail or row.item_id not in items:
            continue
        item = items[row.item_id]
        now = [[q.question_id, q.question, q.expected]
               for q in questions_of(system, item.item_id, item.gold)]
        if detail["questions"] != now:
            raise AssayError(f"the questions scored on {row.item_id}#{row.repetition} differ "
                             "from those asked now: the judge would be calibrated on other "
                             "questions than it scored with")


def _above(judged: float | None, deterministic: float | None) -> bool:
    if judged is None:
        return False
    return deterministic is None or judged > deterministic


def family_check(ctx: ControlContext, judge: JudgedScorer,
                 band: Mapping[str, Any]) -> list[str]:
    """["same model family as the agent"] when it is and the certifier waived it; a judge
    of the agent's family without the waiver is refused."""
    agent = ctx.config.params.get("model")
    agent_model = agent if isinstance(agent, str) else None
    if not same_family(agent_model, judge.model.model):
        return []
    if band.get("allow_same_family") is True:
        return ["same model family as the agent"]
    raise AssayError(
        f"judge {judge.model.model} is of the agent's model family "
        f"({model_family(judge.model.model)}, agent {agent_model}): refused unless whoever "
        "certifies waives it (judge_calibration.allow_same_family: true in --bands FILE)")


def backend_check(judge: JudgedScorer, band: Mapping[str, Any]) -> list[str]:
    """[] when the judge is the harness's client for the declared model; a backend the
    system wrote is refused unless the certifier waived it (["a judge the system wrote"])."""
    backend = judge.backend.resolved() if isinstance(judge.backend, LazyBackend) else judge.backend
    if type(backend) is OpenAIJudge and backend.model == judge.model:
        return []
    if band.get("allow_system_judge") is True:
        return [f"a judge the system wrote ({type(backend).__name__})"]
    raise AssayError(
        f"judge backend {type(backend).__name__} is the system's own code, not the harness's "
        f"client for {judge.model.model}: refused unless whoever certifies waives it "
        "(judge_calibration.allow_system_judge: true in --bands FILE)")


def judged(counts: Tally, band: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The figures and every shortfall against `band`."""
    confidence = float(band["confidence"])
    rates = {
        "sensitivity": (counts.true_positives, counts.positives, band["min_sensitivity"]),
        "specificity": (counts.true_negatives, counts.negatives, band["min_specificity"]),
    }
    measured: dict[str, Any] = {"counts": counts.to_json()}
    failures: list[str] = []
    for name, (hits, n, floor) in rates.items():
        lower = exact_lower(hits, n, confidence)
        measured[name] = {"hits": hits, "n": n, "rate": hits / n if n else None,
                          "lower_bound": lower, "ci95": exact_interval(hits, n)}
        if lower < floor:
            failures.append(f"{name} {hits}/{n}: lower bound {lower:.3f} < {floor}")
    failures += _constant(counts) + _flips(counts, band)
    return measured, failures


def _constant(counts: Tally) -> list[str]:
    said = [word for word, n in counts.verdicts.items() if n]
    if len(said) == 1:
        return [f"constant judge: always {said[0]} on {counts.position_pairs} labelled pairs"]
    return []


def _flips(counts: Tally, band: Mapping[str, Any]) -> list[str]:
    failures = []
    for which, flips, n in (("position", counts.position_flips, counts.position_pairs),
                            ("verbosity", counts.verbosity_flips, counts.verbosity_pairs)):
        limit = float(band[f"max_{which}_flips"])
        if n == 0:
            failures.append(f"{which} probe: no labelled pair to probe")
        elif flips / n > limit:
            failures.append(f"{which}-biased: {flips}/{n} verdicts moved (max {limit:g})")
    return failures
