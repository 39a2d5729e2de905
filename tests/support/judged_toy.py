"""The rich toy with its final answers judged: scripted judges, never a network call.

Each agent ends with a reply ("Lamp L1 is now on."); the judge is asked whether the reply
says the right lamp is in the right state. The judges are functions of the prompt the
harness sends (`scoring.judging.judge_prompt`): a calibrated one that reads the reply, and
the broken kinds judge_calibration exists to catch (always yes, reads position, reads
length). Each system class is rebuilt with no arguments, as agent processes rebuild it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agent_assay.model import Config, Gold, PublicItem, Trajectory
from agent_assay.scoring.judging import JudgeAsk, JudgedQuestion, JudgeModel, LabelledAnswer
from tests.support.toy import LAMPS, RichToyAdapter


def target(gold: Gold) -> tuple[str, str] | None:
    """The lamp a switch item is about and the state it must end in."""
    for call in gold.path:
        if call.tool in ("switch_on", "switch_off"):
            return str(call.args["lamp"]), call.tool.removeprefix("switch_")
    return None


def reply(lamp: str, state: str) -> str:
    return f"Lamp {lamp} is now {state}."


def passages(prompt: str) -> tuple[str, str, bool]:
    """The question, the answer, and whether the answer came first."""
    question = re.search(r"QUESTION: (.*?)\n", prompt + "\n")
    answer = re.search(r"ANSWER: (.*?)\n\n", prompt + "\n\n", re.S)
    assert question and answer, prompt
    return question.group(1), answer.group(1), answer.start() < question.start()


def truth(prompt: str) -> bool:
    """What a careful reader says: the reply states that lamp, that state, and no failure."""
    question, answer, _ = passages(prompt)
    asked = re.search(r"lamp (L\d) is now (on|off)", question)
    assert asked, question
    lamp, state = asked.groups()
    said = re.search(rf"\b{lamp}\b (is now |is |)({state})\b", answer)
    return bool(said) and "could not" not in answer


def calibrated(prompt: str) -> str:
    return "Yes." if truth(prompt) else "No."


def always_yes(prompt: str) -> str:
    return "yes"


def position_biased(prompt: str) -> str:
    """Right when the question comes first; says yes to anything read answer-first."""
    return "yes" if passages(prompt)[2] else calibrated(prompt)


def length_biased(prompt: str) -> str:
    """Right on replies of ordinary length; a long reply convinces it, a terse one not."""
    answer = passages(prompt)[1]
    if len(answer) > 80:
        return "yes"
    if len(answer) < 12:
        return "no"
    return calibrated(prompt)


class JudgedToy(RichToyAdapter):
    """Replies in meta["final_answer"]; outcome.match braked by a scripted judge."""

    name = "judgedtoy"
    judge_model = JudgeModel("scripted-judge-1")
    judge_brakes = "outcome.match"
    script: Any = staticmethod(calibrated)

    def configs(self) -> Mapping[str, Mapping[str, Any]]:
        return {**super().configs(), "gpt-agent": {"mode": "good", "model": "gpt-4o"}}

    def run_item(
        self, item: PublicItem, config: Config, *, seed: int, repetition: int
    ) -> Trajectory:
        made = super().run_item(item, config, seed=seed, repetition=repetition)
        switched = [s.call for s in made.steps if s.call.tool.startswith("switch_") and s.ok]
        said = (reply(str(switched[-1].args["lamp"]), switched[-1].tool.removeprefix("switch_"))
                if switched else "I looked.")
        return replace(made, meta={"final_answer": said})

    def judged_questions(self, item_id: str, gold: Gold) -> Sequence[JudgedQuestion]:
        found = target(gold)
        if found is None:
            return ()
        lamp, state = found
        return (JudgedQuestion("says-state", f"Does it say that lamp {lamp} is now {state}?"),)

    def labelled_answers(self) -> Sequence[LabelledAnswer]:
        """Per switch item four right replies and four wrong ones, labelled by the rule the
        toy's gold states (the lamp and the state it must end in). A reworded item asks
        the same question of the same replies, so those pairs count once."""
        answers = []
        for item in self.build_suite().items:
            found = target(item.gold)
            if found is None:
                continue
            lamp, state = found
            other = LAMPS[(LAMPS.index(lamp) + 1) % len(LAMPS)]
            opposite = "off" if state == "on" else "on"
            right = {"says-state": True}
            wrong = {"says-state": False}
            answers += [
                LabelledAnswer(item.item_id, reply(lamp, state), right, short=f"{lamp} {state}."),
                LabelledAnswer(item.item_id, f"All done: I switched {lamp} {state} for you.",
                               right),
                LabelledAnswer(item.item_id, f"{lamp} is now {state}, as you asked.", right),
                LabelledAnswer(item.item_id, f"Okay, {lamp} is {state}.", right),
                LabelledAnswer(item.item_id, reply(other, state), wrong),
                LabelledAnswer(item.item_id, f"Sorry, I could not switch {lamp} {state}.", wrong),
                LabelledAnswer(item.item_id, reply(lamp, opposite), wrong),
                LabelledAnswer(item.item_id, f"I switched {other} {state} instead.", wrong),
            ]
        return answers

    def judge_backend(self) -> JudgeAsk:
        script: JudgeAsk = type(self).script
        return script


class AlwaysYesToy(JudgedToy):
    name = "judgedtoy"
    script = staticmethod(always_yes)


class PositionToy(JudgedToy):
    script = staticmethod(position_biased)


class LengthToy(JudgedToy):
    script = staticmethod(length_biased)


class SameFamilyToy(JudgedToy):
    """A judge of the agent's own family: gpt-4o-mini judging gpt-4o's replies."""

    judge_model = JudgeModel("gpt-4o-mini")
