"""A model-based judge as a brake on a deterministic verdict, and what it is asked.

A judge is a language model asked yes/no questions about an agent's final answer. Its
errors are not known in advance, so it is never allowed to credit what the deterministic
scorers did not: the judged metric of a trajectory is the deterministic verdict it brakes,
lowered to 0 when a question the judge was asked comes out against the answer
(`brake`). A judge can therefore catch a right-looking path that ends in a wrong reply, but
a judge that is wrong cannot manufacture a pass; judge_calibration measures how often it
lowers a verdict that should stand.

Everything the judge said is kept: each question's prompt, the raw reply and the parsed
verdict are the score's detail, so a reader can re-judge the judge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.hashing import content_hash
from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import ScoreKind, Scorer, ScoreValue, ScoringContext, passes

PROMPT_VERSION = "1"
"""Bumped whenever `judge_prompt` or `parse_verdict` change: it is part of every judged
scorer's version, so a certificate judged under the old wording is void."""

JUDGED_KIND = "aa.judged.1"
JUDGED_PREFIX = "judged."
"""The names of the harness's judged scorers; no system scorer may take it."""

JudgeAsk = Callable[[str], str]
"""The judge seam: a prompt in, the model's raw reply out. The harness's own is an
OpenAI-compatible chat completion (`llm.judge_client`); tests hand a scripted function."""


@dataclass(frozen=True)
class JudgeModel:
    """Which model judges: its name and where it is served (None: the local default)."""

    model: str
    base_url: str | None = None

    def identity(self) -> dict[str, Any]:
        return {"model": self.model, "base_url": self.base_url}


@dataclass(frozen=True)
class JudgedQuestion:
    """One yes/no question about a final answer, and the reply a correct answer earns."""

    question_id: str
    question: str
    expected: bool = True


@dataclass(frozen=True)
class LabelledAnswer:
    """A final answer for an item with a person's label for each question: does the
    question hold of this answer? `short` is the same answer in fewer words (its labels
    unchanged), for the verbosity probe."""

    item_id: str
    answer: str
    labels: Mapping[str, bool]
    short: str | None = None


@dataclass(frozen=True)
class Judgement:
    """One question put to the judge: what was sent, what came back, what it means."""

    question_id: str
    prompt: str
    raw: str
    verdict: bool | None
    """True for yes, False for no, None when the reply was neither."""

    def to_json(self) -> dict[str, Any]:
        return {"question_id": self.question_id, "prompt": self.prompt, "raw": self.raw,
                "verdict": self.verdict}


def judge_prompt(question: str, answer: str, *, answer_first: bool = False) -> str:
    """The one prompt every judge is sent. `answer_first` swaps the two passages: the
    position probe asks both orders, and a judge that reads order changes its verdict."""
    passages = [f"QUESTION: {question.strip()}", f"ANSWER: {answer.strip()}"]
    if answer_first:
        passages.reverse()
    return (
        "You check an assistant's answer. Reply with exactly one word, yes or no: does the "
        "question below hold of the answer?\n\n" + "\n\n".join(passages) + "\n\nReply yes or no."
    )


def parse_verdict(raw: str) -> bool | None:
    """yes -> True, no -> False, from the reply's first word; anything else is None (a
    judge that does not answer the question asked has not confirmed anything)."""
    words = raw.strip().lower().split()
    first = words[0].strip(".,!:;\"'*") if words else ""
    return {"yes": True, "no": False}.get(first)


def ask(judge: JudgeAsk, question: JudgedQuestion, answer: str, *,
        answer_first: bool = False) -> Judgement:
    prompt = judge_prompt(question.question, answer, answer_first=answer_first)
    raw = judge(prompt)
    if not isinstance(raw, str):
        raise AssayError(f"the judge answered {type(raw).__name__}, not text")
    return Judgement(question.question_id, prompt, raw, parse_verdict(raw))


def brake(deterministic: float | None, judged_pass: bool) -> float | None:
    """The judged metric: the deterministic verdict, lowered to 0 when the judge does not
    confirm the answer; never above the deterministic verdict."""
    if deterministic is None:
        return None
    return deterministic if judged_pass else min(deterministic, 0.0)


QuestionsOf = Callable[[str, Gold], Sequence[JudgedQuestion]]
AnswerOf = Callable[[Trajectory], str | None]


PLANTED_REPLY = "I am sorry, I could not complete your request, and nothing was changed."
"""The judged scorer's own defect for scorer_selftest: the right path ending in a reply
that does nothing the caller asked. Only the judge can see it, so a judge that lets it
pass is shown blind where it exists to look."""


def final_answer(trajectory: Trajectory) -> str | None:
    """The agent's last reply, where the harness's model agent and the importers keep it."""
    meta = trajectory.meta if isinstance(trajectory.meta, Mapping) else {}
    answer = meta.get("final_answer")
    return answer if isinstance(answer, str) and answer.strip() else None


class JudgedScorer:
    """`judged.<brakes>`: the deterministic metric `brakes`, lowered where the judge does
    not confirm the final answer on every question declared for the item.

    Its version carries a digest of the judge's identity, the prompt's version, the metric
    it brakes and every question and label it was built with (`binding`), so a
    certificate names exactly what judged, and a change to any of them voids it."""

    judge = True
    """The `Judge` protocol's flag: judge_calibration must calibrate this scorer."""

    def __init__(self, brakes: Scorer, model: JudgeModel, questions_of: QuestionsOf,
                 backend: JudgeAsk, binding: str, answer_of: AnswerOf = final_answer) -> None:
        self.brakes = brakes
        self.model = model
        self.questions_of = questions_of
        self.backend = backend
        self.answer_of = answer_of
        self.name = f"{JUDGED_PREFIX}{brakes.name}"
        self.kind: ScoreKind = "binary"
        identity = content_hash(JUDGED_KIND, {"model": model.identity(),
                                              "prompt": PROMPT_VERSION,
                                              "brakes": [brakes.name, brakes.version],
                                              "binding": binding})
        self.version = f"1+{identity[:16]}"
        self.definition = (f"{brakes.name}, lowered to 0 where the judge {model.model} does "
                           "not confirm the final answer on every judged question (never "
                           "raised)")

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        base = self.brakes.score(gold, trajectory, ctx).value
        questions = tuple(self.questions_of(trajectory.item_id, gold))
        declared = [[q.question_id, q.question, q.expected] for q in questions]
        if not passes(self.brakes.kind, base) or not questions:
            why = "no judged question" if questions == () else "the deterministic verdict fails"
            return ScoreValue(base, {"judge": self.model.model, "questions": declared,
                                     "asked": [], "why": why})
        answer = self.answer_of(trajectory)
        if answer is None:  # nothing to confirm: the brake holds, and no judge is asked
            return ScoreValue(brake(base, False), {"judge": self.model.model,
                                                   "questions": declared, "asked": [],
                                                   "why": "no final answer to judge"})
        asked = [ask(self.backend, q, answer) for q in questions]
        confirmed = all(j.verdict is q.expected for j, q in zip(asked, questions, strict=True))
        return ScoreValue(brake(base, confirmed), {
            "judge": self.model.model, "questions": declared, "deterministic": base,
            "confirmed": confirmed,
            "asked": [j.to_json() for j in asked]})


    def plant_defect(
        self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext
    ) -> Trajectory | None:
        """The same trajectory with its final reply replaced by `PLANTED_REPLY`."""
        if not self.questions_of(trajectory.item_id, gold):
            return None
        meta = dict(trajectory.meta) if isinstance(trajectory.meta, Mapping) else {}
        return replace(trajectory, meta={**meta, "final_answer": PLANTED_REPLY})


def judged_binding(labelled: Sequence[LabelledAnswer]) -> str:
    """One digest of every labelled answer: what the judge is calibrated on."""
    return content_hash(JUDGED_KIND, {
        "labelled": [[a.item_id, a.answer, dict(sorted(a.labels.items())), a.short]
                     for a in labelled],
    })
