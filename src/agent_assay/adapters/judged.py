"""The judged scorer a `JudgesAnswers` system gets, built by the harness, not the system.

The system only declares questions, labels, the judge model and the metric the judge may
lower; the harness builds the scorer, so the brake (a judged verdict never above the
deterministic one) is the harness's code and no system can write a judge that credits.
The judge's identity goes into every config's parameters here, so it is part of the
config hash: a run judged by another model is another config.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.adapters.system import JudgesAnswers
from agent_assay.errors import AssayError
from agent_assay.model import Gold
from agent_assay.scoring.base import Scorer, is_judge
from agent_assay.scoring.judging import (
    JudgedQuestion,
    JudgedScorer,
    JudgeModel,
    judged_binding,
)

JUDGE_PARAM = "judge"
"""The config parameter that carries the judge's identity."""


def judging(raw: object) -> JudgesAnswers | None:
    return raw if isinstance(raw, JudgesAnswers) else None


def with_judge(configs: Mapping[str, Mapping[str, Any]],
               system: JudgesAnswers) -> dict[str, dict[str, Any]]:
    """Every config with the judge's identity among its parameters (a value the system put
    there itself is replaced: the judge is the one the harness will call)."""
    model = judge_model(system)
    return {name: {**params, JUDGE_PARAM: model.identity()} for name, params in configs.items()}


def judge_model(system: JudgesAnswers) -> JudgeModel:
    model = system.judge_model
    if not isinstance(model, JudgeModel) or not model.model.strip():
        raise AssayError("judge_model must be an agent_assay JudgeModel naming a model")
    return model


def braked_scorer(scorers: Sequence[Scorer], name: str) -> Scorer:
    """The deterministic binary scorer a judge may lower; anything else is refused, since a
    judge braking a judge, or a graded metric, could end above what was checked."""
    found = {s.name: s for s in scorers}.get(name)
    if found is None:
        raise AssayError(f"judge_brakes names {name!r}, which is not a scorer of this system")
    if found.kind != "binary" or is_judge(found):
        raise AssayError(f"judge_brakes names {name!r}: a judge may only lower a deterministic "
                         "binary metric")
    return found


def judged_scorer(system: JudgesAnswers, scorers: Sequence[Scorer]) -> JudgedScorer:
    """The harness's judged scorer for `system`, its version bound to every labelled
    answer (the questions asked of a trajectory are in each score's detail, which the
    scores' digest binds)."""
    return JudgedScorer(
        brakes=braked_scorer(scorers, system.judge_brakes),
        model=judge_model(system),
        questions_of=lambda item_id, gold: questions_of(system, item_id, gold),
        backend=LazyBackend(system),
        binding=judged_binding(tuple(system.labelled_answers())),
    )


def questions_of(system: JudgesAnswers, item_id: str, gold: Gold) -> tuple[JudgedQuestion, ...]:
    questions = tuple(system.judged_questions(item_id, gold))
    if not all(isinstance(q, JudgedQuestion) for q in questions):
        raise AssayError(f"judged_questions for {item_id!r} must be JudgedQuestion objects")
    return questions


class LazyBackend:
    """The system's judge, asked for only when a question is first put (so loading a
    system, or scoring a run whose verdicts all fail, opens no client)."""

    def __init__(self, system: JudgesAnswers) -> None:
        self.system = system
        self.ask: Any = None

    def resolved(self) -> Any:
        """The system's backend itself (judge_calibration checks whose code it is)."""
        if self.ask is None:
            self.ask = self.system.judge_backend()
        return self.ask

    def __call__(self, prompt: str) -> str:
        return str(self.resolved()(prompt))
