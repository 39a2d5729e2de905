"""The task's own scorers as system scorers, one per Inspect scorer (``inspect.<name>``).

Each is a pure function of (gold, trajectory). Gold's truth names the task (its source line)
and the sample. The scorer runs that sample again in Inspect with the trajectory's calls as
its model's tool calls and its recorded answer as its model's last reply, so the
task's scorer reads the messages, the store and the output Inspect itself built (a scorer
that looks at the store or at tool results is served as in Inspect). A trajectory whose
stored final state is not the state its calls produce is refused (value 0). The Score's
value becomes a number by Inspect's ``value_to_float`` (C 1, I 0, P 0.5, numbers as they
are); the value, the answer and the explanation it gave go in the detail. One replay serves
every scorer of the task (kept per process, keyed by the trajectory's digest).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agent_assay.errors import AssayError, EnvironmentFailed, described
from agent_assay.model import Gold, Step, Trajectory
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from agent_assay.statepaths import changed_paths
from agent_assay_bundled.inspect_task.episode import InspectEpisode
from agent_assay_bundled.inspect_task.items import sample_named
from agent_assay_bundled.inspect_task.loading import load_task
from agent_assay_bundled.inspect_task.source import TaskSource
from agent_assay_bundled.inspect_task.tools import ANSWER, ANSWER_ARG, answer_of

PREFIX = "inspect."
"""A scorer ``includes`` is ``inspect.includes``; one giving {"utility": ...} is
``inspect.NAME.utility``."""
DETAIL_CHARS = 200
DETAIL_PATHS = 5
_REPLAYS: dict[str, tuple[dict[str, Any] | None, Mapping[str, Any]]] = {}
"""digest of (source, sample, calls, answer) -> (the final state, the scores by name)."""


def scorer_names(task: Any) -> list[tuple[str, str | None]]:
    """(short registry name, value key or None) of every number the task's scorers give,
    in the task's order: a scorer whose metrics are declared per key (``{"utility": [...]}``)
    gives a mapping, one number per key."""
    from inspect_ai.util import registry_info

    names: list[tuple[str, str | None]] = []
    for scorer in task.scorer or []:
        info = registry_info(scorer)
        short = str(info.name).rsplit("/", 1)[-1]
        keys = [str(k) for m in info.metadata.get("metrics") or []
                if isinstance(m, Mapping) for k in m]
        names += [(short, key) for key in keys] if keys else [(short, None)]
    return names


def source_of(gold: Gold) -> TaskSource:
    source = TaskSource.described_in(str(gold.truth.get("source", "")))
    if source is None:
        raise AssayError(f"gold truth names no Inspect task (source {gold.truth.get('source')!r})")
    return source


def calls_of(steps: Sequence[Step]) -> list[tuple[str, dict[str, Any]]]:
    return [(s.call.tool, dict(s.call.args)) for s in steps if s.call.tool != ANSWER]


def replayed(gold: Gold, steps: Sequence[Step], answer: str | None
             ) -> tuple[dict[str, Any] | None, Mapping[str, Any]]:
    """(final state, scores) of gold's sample run with `steps` and `answer`, scoring on."""
    source = source_of(gold)
    calls = calls_of(steps)
    key = hashlib.sha256(json.dumps([source.describe(), gold.truth.get("sample_id"), calls,
                                     answer], sort_keys=True, default=str).encode()).hexdigest()
    if key not in _REPLAYS:
        task = load_task(source)
        sample = sample_named(source, task, str(gold.truth.get("sample_id")))
        episode = InspectEpisode(task, sample.id)
        for tool, args in calls:
            episode.call(tool, args)
        if answer is not None:
            episode.call(ANSWER, {ANSWER_ARG: answer})
        ending = episode.finish()
        state = None if ending.final_state is None else dict(ending.final_state)
        _REPLAYS[key] = (state, episode.scores())
    return _REPLAYS[key]


def number(value: Any) -> float | None:
    """A Score value as a number (None: a value Inspect cannot make one of, a mapping)."""
    from inspect_ai.scorer import value_to_float

    if isinstance(value, Mapping | list):
        return None
    return float(value_to_float()(value))


def check(name: str, key: str | None, gold: Gold, trajectory: Trajectory) -> ScoreValue:
    """The Inspect scorer `name`'s verdict on the trajectory, replayed (its value's `key`
    when the scorer gives a mapping)."""
    if trajectory.final_state is None:
        return ScoreValue(None, {"reason": "no final state"})
    answer = trajectory.meta.get("final_answer")
    try:
        state, scores = replayed(gold, trajectory.steps,
                                 answer if isinstance(answer, str) else None)
    except EnvironmentFailed as exc:
        return ScoreValue(0.0, {"reason": "the replay failed in Inspect", "error": str(exc)})
    differs = changed_paths(state or {}, trajectory.final_state)
    if differs:
        return ScoreValue(0.0, {"reason": "the final state is not the state its calls produce",
                                "paths": differs[:DETAIL_PATHS]})
    score = scores.get(name) or next((s for k, s in scores.items()
                                      if k.rsplit("/", 1)[-1] == name), None)
    if score is None:
        return ScoreValue(None, {"reason": f"Inspect gave no score named {name!r}"})
    detail = {"value": score.value, "answer": (score.answer or "")[:DETAIL_CHARS],
              "explanation": (score.explanation or "")[:DETAIL_CHARS],
              "model_output": answer_of(trajectory.meta)[:DETAIL_CHARS]}
    value = score.value
    if key is not None:
        if not isinstance(value, Mapping) or key not in value:
            return ScoreValue(None, {**detail, "reason": f"the score has no value {key!r}"})
        value = value[key]
    try:
        return ScoreValue(number(value), detail)
    except Exception as exc:  # a value value_to_float refuses
        return ScoreValue(None, {**detail, "reason": described(exc)})


class TaskScorer:
    """One of the task's Inspect scorers. Its self-test defect drops the last tool call and
    blanks the answer, which every scorer that reads the work must notice."""

    version = "1"
    kind: ScoreKind = "fraction"

    def __init__(self, short_name: str, key: str | None = None) -> None:
        self.short_name, self.key = short_name, key
        self.name = PREFIX + short_name + ("" if key is None else f".{key}")
        which = "its value" if key is None else f"its value's {key!r}"
        self.definition = (f"the task's own Inspect scorer {short_name!r} on the sample "
                           "replayed in Inspect with the trajectory's calls and answer, "
                           f"{which} by value_to_float (C 1, I 0)")

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        return check(self.short_name, self.key, gold, trajectory)

    def plant_defect(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext
                     ) -> Trajectory | None:
        steps = [s for s in trajectory.steps if s.call.tool != ANSWER][:-1]
        state, _ = replayed(gold, steps, "")
        meta = {**trajectory.meta, "final_answer": ""}
        return replace(trajectory, steps=tuple(steps), final_state=state, meta=meta)
