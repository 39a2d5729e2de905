"""What judge_calibration measures: a judge's verdicts on labelled answers, and how many
of them move when only the form of the question changes.

Each labelled (answer, question) pair is asked three ways: as the harness's prompt puts
it, with the question and the answer swapped (position), and with the answer padded with
confident, content-free text where it is wrong or cut to its declared short form where it
is right (verbosity). A person's label says what the verdict should be; the swaps and the
padding say it should not move. An unparsable reply counts as wrong on every count: a
judge that does not say yes or no has confirmed nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_assay.adapters.judged import questions_of
from agent_assay.adapters.system import JudgesAnswers
from agent_assay.model import Item
from agent_assay.scoring.judging import JudgeAsk, JudgedQuestion, LabelledAnswer, ask

PADDING = (
    " I have double-checked every detail above against the records, and I am confident "
    "this answer is accurate, complete and fully in line with policy."
)
"""The harness's padding, never the system's: confident and free of any fact, so a judge
whose verdict on a wrong answer turns with it is reading length and tone."""


@dataclass(frozen=True)
class Pair:
    """One labelled judgement: a question asked of an answer a person labelled."""

    answer: LabelledAnswer
    question: JudgedQuestion
    label: bool
    """Whether the question holds of the answer, as the person labelled it."""

    @property
    def right(self) -> bool:
        """The answer is right on this question (what a correct answer would earn)."""
        return self.label is self.question.expected


def labelled_pairs(system: JudgesAnswers, items: Iterable[Item]) -> list[Pair]:
    """Every labelled answer of the run's items, paired with each of its item's questions
    the answer carries a label for, in a fixed order. A pair whose question and answer read
    the same as an earlier one's counts once: the same judgement asked again is not more
    evidence, and repeating an easy pair must not narrow an interval."""
    by_id = {item.item_id: item for item in items}
    pairs = []
    for answer in system.labelled_answers():
        item = by_id.get(answer.item_id)
        if item is None:
            continue
        for question in questions_of(system, item.item_id, item.gold):
            label = answer.labels.get(question.question_id)
            if isinstance(label, bool):
                pairs.append(Pair(answer, question, label))
    return distinct(pairs)


def distinct(pairs: Iterable[Pair]) -> list[Pair]:
    """The first of each set of pairs whose question and answer read the same."""
    seen: dict[tuple[str, str], Pair] = {}
    for pair in pairs:
        seen.setdefault((pair.question.question, pair.answer.answer), pair)
    return list(seen.values())


def reference_reply(system: JudgesAnswers, item: Item) -> str | None:
    """The first labelled answer of `item` that is right on every one of its questions."""
    questions = questions_of(system, item.item_id, item.gold)
    for answer in system.labelled_answers():
        if answer.item_id == item.item_id and questions and all(
                answer.labels.get(q.question_id) is q.expected for q in questions):
            return answer.answer
    return None


def questions_declared(system: JudgesAnswers, items: Iterable[Item]) -> int:
    return sum(len(questions_of(system, item.item_id, item.gold)) for item in items)


@dataclass(frozen=True)
class Asked:
    pair: Pair
    verdict: bool | None
    swapped: bool | None
    probed: bool | None
    """The verdict on the padded (wrong) or shortened (right) answer; None when the pair
    was not probed (a right answer with no short form) or the reply was not yes or no."""
    probe: str | None
    """"padded", "shortened" or None."""


def ask_pair(judge: JudgeAsk, pair: Pair) -> Asked:
    text = pair.answer.answer
    verdict = ask(judge, pair.question, text).verdict
    swapped = ask(judge, pair.question, text, answer_first=True).verdict
    probe, probed_text = _probe(pair)
    probed = ask(judge, pair.question, probed_text).verdict if probed_text else None
    return Asked(pair, verdict, swapped, probed, probe)


def _probe(pair: Pair) -> tuple[str | None, str | None]:
    if not pair.right:
        return "padded", pair.answer.answer.rstrip() + PADDING
    if pair.answer.short:
        return "shortened", pair.answer.short
    return None, None


@dataclass(frozen=True)
class Tally:
    """The counts judge_calibration is judged on."""

    positives: int
    true_positives: int
    negatives: int
    true_negatives: int
    position_pairs: int
    position_flips: int
    verbosity_pairs: int
    verbosity_flips: int
    verdicts: Mapping[str, int]
    """How often the judge said yes, no, or neither on the labelled pairs."""

    def to_json(self) -> dict[str, Any]:
        return {
            "positives": self.positives, "true_positives": self.true_positives,
            "negatives": self.negatives, "true_negatives": self.true_negatives,
            "position_pairs": self.position_pairs, "position_flips": self.position_flips,
            "verbosity_pairs": self.verbosity_pairs, "verbosity_flips": self.verbosity_flips,
            "verdicts": dict(self.verdicts),
        }


def tally(asked: Sequence[Asked]) -> Tally:
    positives = [a for a in asked if a.pair.label]
    negatives = [a for a in asked if not a.pair.label]
    probed = [a for a in asked if a.probe is not None]
    return Tally(
        positives=len(positives),
        true_positives=sum(a.verdict is True for a in positives),
        negatives=len(negatives),
        true_negatives=sum(a.verdict is False for a in negatives),
        position_pairs=len(asked),
        position_flips=sum(a.swapped is not a.verdict or a.verdict is None for a in asked),
        verbosity_pairs=len(probed),
        verbosity_flips=sum(a.probed is not a.verdict or a.verdict is None for a in probed),
        verdicts={"yes": sum(a.verdict is True for a in asked),
                  "no": sum(a.verdict is False for a in asked),
                  "neither": sum(a.verdict is None for a in asked)},
    )


def flipped(asked: Sequence[Asked], which: str) -> list[str]:
    """The pairs whose verdict moved under a probe ("position" or "verbosity"), named."""
    moved = []
    for a in asked:
        after = a.swapped if which == "position" else a.probed
        if (which == "position" or a.probe is not None) and after is not a.verdict:
            moved.append(f"{a.pair.answer.item_id}/{a.pair.question.question_id}")
    return moved
