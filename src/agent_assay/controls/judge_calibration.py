"""judge_calibration: a model-based judge must be calibrated before it may score.

No scorer in agent-assay's generic set is a judge, so this control reports
NOT_RUN with that reason. The reason is what makes NOT_RUN allowable: a run
whose scorer set contains a judge (a scorer with ``judge = True``) gets ERROR
here until calibration exists, and is inadmissible.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_assay.controls.base import ControlContext, ControlOutcome, Requirement
from agent_assay.controls.registry import NO_JUDGE
from agent_assay.scoring.base import is_judge


class JudgeCalibration:
    kind = "judge_calibration"
    version = "1"
    requires: Requirement | None = None

    def run(self, ctx: ControlContext, band: Mapping[str, Any]) -> ControlOutcome:
        judges = [s.name for s in ctx.scorers if is_judge(s)]
        if not judges:
            return ControlOutcome(self.kind, self.version, "NOT_RUN", NO_JUDGE, reason=NO_JUDGE)
        return ControlOutcome(
            self.kind,
            self.version,
            "ERROR",
            f"judge scorers {', '.join(judges)} present but calibration is not implemented",
            reason="calibration against human labels is not implemented",
        )
