"""Labelled judged questions from tau-bench's published airline run, read where it lies.

tau-bench says which strings an agent had to tell the user (`info.task.outputs`) and
checks each one mechanically: it counts when it appears, case-blind and with commas
removed, in what the agent said. Four airline tasks carry such outputs. For every
result of those tasks the question "does the reply tell the user OUTPUT?" is asked of the
agent's final message, labelled by tau-bench's own rule applied to that message; a result
whose final message does not decide the published label (the output was said earlier, or
the published label disagrees) is left out, since its label would not be about the text
the judge reads.

The labels are a benchmark's mechanical check, not a person's reading: a reply that gives
the figure in other words ("ten thousand") is labelled no. The published file is read
from wherever it is (never copied into this repository).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_assay.scoring.judging import JudgedQuestion, LabelledAnswer
from agent_assay_bundled.tau_bench.parse import item_id_of

LABEL_SOURCE = ("tau-bench's own output check (info.task.outputs, case-blind, commas "
                "removed) applied to the final assistant message of the published gpt-4o "
                "airline run")


def final_message(traj: Any) -> str | None:
    """The last assistant message with text."""
    said = [m["content"] for m in traj or () if isinstance(m, Mapping)
            and m.get("role") == "assistant" and isinstance(m.get("content"), str)]
    said = [text for text in said if text.strip()]
    return said[-1] if said else None


def says(output: str, text: str) -> bool:
    return output.lower() in text.lower().replace(",", "")


def question_for(output: str) -> JudgedQuestion:
    return JudgedQuestion(f"says-{output}",
                          f"Does the reply tell the user {output}?", expected=True)


def airline_labelled(path: Path) -> list[tuple[JudgedQuestion, LabelledAnswer]]:
    """Every (question, labelled final message) the published run decides, in file order."""
    results = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for result in results:
        info = result.get("info") or {}
        outputs = (info.get("task") or {}).get("outputs") or []
        published = ((info.get("reward_info") or {}).get("info") or {}).get("outputs") or {}
        final = final_message(result.get("traj"))
        if final is None:
            continue
        item = f"{item_id_of(result['task_id'])}#{result.get('trial')}"
        for output in outputs:
            label = says(str(output), final)
            if published.get(str(output)) is not label:
                continue
            question = question_for(str(output))
            found.append((question, LabelledAnswer(item, final,
                                                   {question.question_id: label})))
    return found
