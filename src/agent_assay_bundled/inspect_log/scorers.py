"""One agent-assay scorer per scorer of the log (`InspectScore`), with two sources that
are never mixed silently, as tau-bench's reward is:

* a trajectory imported from the log, judged against the target it was published with,
  carries the log's own score (stored with ``imported`` set); agent-assay computed nothing;
* any other trajectory (the do-nothing agent, an imported answer judged against another
  sample's target, the self-test's planted answer) is scored by re-running the log's
  scorer when it is one of Inspect's built-in string scorers (`rerun`), and is n/a with
  the reason otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from agent_assay.model import Gold, Trajectory
from agent_assay.scoring.base import ScoreKind, ScoreValue, ScoringContext
from agent_assay_bundled.inspect_log.rerun import rerun
from agent_assay_bundled.inspect_log.rules import (
    PREFIX,
    PUBLISHED,
    rerunnable,
    scorer_version,
    target_digest,
)

GOLD_ANSWER = "answer_is_target"
"""The meta flag of the self-test's base: a trajectory recorded as answering the target
itself (what a correct agent says), the answer the planted defect then replaces."""
PLANTED = "agent-assay planted answer: not the target"


class InspectScore:
    """The log scorer `spec` names (key, scorer, options, kind), as agent-assay's metric."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = dict(spec)
        self.key = str(spec["key"])
        self.name = PREFIX + self.key
        self.version = scorer_version(spec)
        self.kind: ScoreKind = spec["kind"]
        how = ("re-run by agent-assay (Inspect's built-in scorer, same options)"
               if rerunnable(spec) else "n/a: agent-assay does not re-run this scorer")
        self.definition = (
            f"Inspect scorer {spec['scorer']!r} (options {spec.get('options') or {}}), C/I/P/N "
            "as 1/0/0.5/0: the value published in the log for a sample under its own target; "
            f"otherwise {how}"
        )

    def score(self, gold: Gold, trajectory: Trajectory, ctx: ScoringContext) -> ScoreValue:
        meta = trajectory.meta
        if meta.get("target_sha256") == target_digest(gold):
            published = (meta.get("scores") or {}).get(self.key)
            if published is None:
                return ScoreValue(None, {"reason": "the log has no such score for this sample"})
            return ScoreValue(float(published["mapped"]), {"source": PUBLISHED}, imported=True)
        if not rerunnable(self.spec):
            return ScoreValue(None, {"reason": f"{self.spec['scorer']!r} is not re-run here"})
        target = gold.truth["target"]
        answer = _answer_for(meta, target)
        value = rerun(self.spec, answer, target, trajectory.item_id)
        return ScoreValue(value, {"source": "re-run by agent-assay", "answer": answer[:200]})

    def plant_defect(self, gold: Gold, t: Trajectory, ctx: ScoringContext) -> Trajectory | None:
        """A wrong answer in place of the right one, no published score left to fall back on."""
        if not rerunnable(self.spec):
            return None
        drop = ("scores", "target_sha256", GOLD_ANSWER)
        meta = {k: v for k, v in t.meta.items() if k not in drop}
        return replace(t, meta={**meta, "answer": PLANTED})


def _answer_for(meta: Mapping[str, Any], target: Any) -> str:
    if meta.get(GOLD_ANSWER):
        return target if isinstance(target, str) else str(target[0]) if target else ""
    return str(meta.get("answer") or "")
