"""The labelled sets the case study's judge is measured on: the judged banking system's
replies and tau-bench's published airline final messages. Scripted judges only."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent_assay import api
from agent_assay.adapters.loaded import load_system
from agent_assay.controls.bands import load_bands
from agent_assay.controls.execute import control_context
from agent_assay.controls.judge_calibration import JudgeCalibration
from agent_assay.controls.judge_probes import PADDING, labelled_pairs
from agent_assay.errors import AssayError
from agent_assay.scoring.judging import JudgeAsk
from agent_assay.store import Store
from agent_assay_bundled.judged.banking import JudgedBankingAdapter, load_replies
from agent_assay_bundled.judged.tau_airline import airline_labelled


def test_every_banking_reply_is_labelled_on_its_own_class_question() -> None:
    data = load_replies()
    for outcome, replies in data["replies"].items():
        question = data["questions"][outcome]
        assert all(set(reply["labels"]) == {question["id"]} for reply in replies)
        labels = [reply["labels"][question["id"]] for reply in replies]
        assert question["expected"] in labels and (not question["expected"]) in labels


def test_a_perfect_judge_could_pass_the_banking_set() -> None:
    """Enough distinct pairs of each label for the default band's lower bound."""
    system = JudgedBankingAdapter()
    pairs = labelled_pairs(system, system.build_suite().items)
    assert sum(p.label for p in pairs) >= 14 and sum(not p.label for p in pairs) >= 14


class LabelledJudge(JudgedBankingAdapter):
    """A judge that knows every label: what a calibrated judge would say."""

    def judge_backend(self) -> JudgeAsk:
        known = {(p.question.question, p.answer.answer): p.label
                 for p in labelled_pairs(self, self.build_suite().items)}
        known |= {(p.question.question, p.answer.short): p.label
                  for p in labelled_pairs(self, self.build_suite().items) if p.answer.short}

        def ask(prompt: str) -> str:
            question = re.search(r"QUESTION: (.*?)\n", prompt + "\n")
            answer = re.search(r"ANSWER: (.*?)(\n\n|$)", prompt, re.S)
            assert question and answer
            text = answer.group(1).strip().removesuffix(PADDING.strip()).strip()
            return "yes" if known[(question.group(1), text)] else "no"

        return ask


def test_a_calibrated_judge_passes_on_the_banking_mock_run(store: Store, tmp_path: Path) -> None:
    """A judge that answers from the labels passes, but only under the certifier's waiver:
    without it, a backend the system wrote (this one is the attack itself) is refused."""
    system = LabelledJudge()
    assert load_system(system).configs()["mock"]["judge"]["model"].startswith("SmolLM2")
    run = api.evaluate(system, "mock", store=store, repeats=1, seed=0).run
    ctx = control_context(store, system, run, random_seeds=10)
    with pytest.raises(AssayError, match="is the system's own code"):
        JudgeCalibration().run(ctx, load_bands().get("judge_calibration"))
    scripted = tmp_path / "scripted.yaml"
    scripted.write_text("judge_calibration:\n  allow_system_judge: true\n"
                        "  derivation: a scripted judge stands in for the model\n")
    got = JudgeCalibration().run(ctx, load_bands(None, scripted).get("judge_calibration"))
    assert got.status == "PASSED", got.summary
    rows = [r for r in store.current_scores(run.run_id) if r.scorer == "judged.outcome.match"]
    assert rows and all(r.value in (0.0, None) for r in rows)  # the mock says nothing
    assert {r.detail["why"] for r in rows if r.value == 0.0} <= {
        "no final answer to judge", "the deterministic verdict fails"}


def test_tau_airline_keeps_only_what_the_final_message_decides(tmp_path: Path) -> None:
    def result(task: int, final: str, said: bool) -> dict[str, object]:
        return {"task_id": task, "trial": 0, "reward": 0.0, "traj": [
            {"role": "assistant", "content": "The refund is 1,200 dollars."},
            {"role": "assistant", "content": final}],
            "info": {"task": {"outputs": ["1200"]},
                     "reward_info": {"info": {"outputs": {"1200": said}}}}}

    published = tmp_path / "run.json"
    published.write_text(json.dumps([
        result(1, "Your refund of 1,200 is on its way.", True),
        result(2, "Goodbye!", True),  # said earlier: the final message does not decide it
        result(3, "Goodbye!", False),
    ]))
    found = airline_labelled(published)
    assert [(a.item_id.split("#")[0], a.labels) for _, a in found] == [
        (found[0][1].item_id.split("#")[0], {"says-1200": True}),
        (found[1][1].item_id.split("#")[0], {"says-1200": False})]
    assert found[0][0].question == "Does the reply tell the user 1200?"


def test_the_banking_judge_is_the_harness_client() -> None:
    """The bundled judged system asks through the harness's client, so it needs no waiver."""
    from agent_assay.llm.judge_client import OpenAIJudge

    backend = JudgedBankingAdapter().judge_backend()
    assert type(backend) is OpenAIJudge and backend.model == JudgedBankingAdapter.judge_model
