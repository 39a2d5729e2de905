"""The banking system with its replies judged: questions and labelled replies from
`banking_replies.yaml`, a local judge, and outcome.match as the verdict the judge brakes.

A system of its own (`banking-judged`, built from its class) rather than a change to
`banking`: the judge's identity is part of every config's hash, so judging the bundled
banking runs would make them other configs. Each reply template is written for one
outcome class and made item-specific with what the item's gold acts on (a card, an
account, an address); the label does not depend on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.llm.judge_client import openai_judge
from agent_assay.model import Gold, Suite
from agent_assay.scoring.judging import JudgeAsk, JudgedQuestion, JudgeModel, LabelledAnswer
from agent_assay.yamlfile import read_located
from agent_assay_bundled.banking import SMOLLM2, BankingAdapter

REPLIES = Path(__file__).with_name("banking_replies.yaml")


def subject(gold: Gold) -> str:
    """What the item's last gold call acts on, as a reply would name it."""
    if not gold.path:
        return "your request"
    args = gold.path[-1].args
    for key, noun in (("card_id", "card"), ("account_id", "account"),
                      ("from_account_id", "account")):
        if isinstance(args.get(key), str):
            return f"{noun} {args[key]}"
    return "your address" if "street" in args else "your request"


def load_replies(path: Path = REPLIES) -> Mapping[str, Any]:
    data = read_located(path, "judged replies").data
    if not isinstance(data, dict) or not {"questions", "replies"} <= data.keys():
        raise AssayError(f"{path}: expected 'questions' and 'replies'")
    return data


class JudgedBankingAdapter(BankingAdapter):
    """`banking` with its final replies judged by a model (`judge_model`, the local
    SmolLM2 by default) as a brake on outcome.match."""

    name = "banking-judged"
    judge_model = JudgeModel(SMOLLM2)
    judge_brakes = "outcome.match"

    @cached_property
    def _replies(self) -> Mapping[str, Any]:
        return load_replies()

    @cached_property
    def _items(self) -> Suite:
        return self.build_suite()

    def judged_questions(self, item_id: str, gold: Gold) -> Sequence[JudgedQuestion]:
        spec = self._replies["questions"].get(gold.outcome or "")
        if spec is None:
            return ()
        return (JudgedQuestion(spec["id"], spec["question"], bool(spec["expected"])),)

    def labelled_answers(self) -> Sequence[LabelledAnswer]:
        answers = []
        for item in self._items.items:
            named = subject(item.gold)
            for reply in self._replies["replies"].get(item.gold.outcome or "", ()):
                short = reply.get("short")
                answers.append(LabelledAnswer(
                    item.item_id, self._named(reply["text"], named),
                    {k: bool(v) for k, v in reply["labels"].items()},
                    short=self._named(short, named) if short else None))
        return answers

    @staticmethod
    def _named(text: str, named: str) -> str:
        return f"About {named}: {text}"

    def judge_backend(self) -> JudgeAsk:
        return openai_judge(self.judge_model)
