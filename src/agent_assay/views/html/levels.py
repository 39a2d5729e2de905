"""What the negative and positive controls measured on a headline metric, and the line
each drew: read from the stored control outcomes, so the page runs nothing.

Three controls measure a level on the metric itself. Each stores, in its payload:
- null_agent: `measured.agents.NAME.scores[metric]`, the do-nothing agent's mean; its
  band `min_margin` says by how much the run's mean must beat it;
- random_agent: `measured.metrics[metric]`, the mean over seeds of well-formed random
  calls (`chance_mean`), the bound chance is judged by (`chance_upper` for a pass/fail
  metric, else the mean) and the margin required above it (`required_margin`);
- positive_control: `measured.scores[metric]`, what gold replayed through the same
  environment scores; it must reach the metric's ceiling.
A control that was not run, or stored no level for the metric, yields a level with a
`missing` sentence instead of a number, so the plot can say why nothing is drawn.

A level's status is the control's verdict on that metric, from what it stored (the margin
it measured, whether the real mean cleared chance, whether gold reached the ceiling), not
the control's overall status: a control that failed on one headline metric passed on the
others, and a plot that printed FAILED beside a dot the run clearly beat would mislead.
The overall status is kept and shown where it differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_assay.aggregates import direction
from agent_assay.controls.next_steps import next_step
from agent_assay.scoring.base import ScoreKind

if TYPE_CHECKING:
    from agent_assay.store import StoredOutcome


@dataclass(frozen=True)
class Level:
    control: str
    label: str
    status: str
    value: float | None
    threshold: float | None
    """Where the band puts the line the run's mean had to clear (None: no such line)."""
    band: str
    """The band in words."""
    missing: str = ""
    """Why there is no value (empty when there is one)."""
    overall: str = ""
    """The control's overall status (empty: the same as `status`)."""

    @property
    def caption(self) -> str:
        """How the plot labels the row: the verdict on this metric, then the control's."""
        if not self.overall or self.overall == self.status:
            return f"{self.label} · {self.status}"
        return f"{self.label} · {self.status} here (control {self.overall})"


def _on_metric(cleared: bool | None, overall: str) -> tuple[str, str]:
    """(status on this metric, overall status): the metric's own verdict when it is known."""
    if cleared is None:
        return overall, ""
    return ("PASSED" if cleared else "FAILED"), overall


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None


def _not_measured(kind: str, label: str, outcome: StoredOutcome | None) -> Level | None:
    if outcome is None:
        return Level(kind, label, "never run", None, None, "",
                     "never run for this run (`agent-assay controls run` runs it)")
    if outcome.status in ("NOT_RUN", "ERROR"):
        why = str(outcome.payload.get("reason") or outcome.payload.get("summary") or "")
        return Level(kind, label, outcome.status, None, None, "",
                     f"{outcome.status}: {why}" if why else outcome.status)
    return None


def _shifted(base: float | None, margin: float | None, kind: ScoreKind) -> float | None:
    if base is None or margin is None or direction(kind) == 0:
        return None
    return base + direction(kind) * margin


def null_levels(outcome: StoredOutcome | None, metric: str, kind: ScoreKind) -> list[Level]:
    idle = _not_measured("null_agent", "null agent", outcome)
    if idle is not None or outcome is None:
        return [idle] if idle is not None else []
    agents = outcome.payload.get("measured", {}).get("agents", {}) or {}
    margin = _number(outcome.payload.get("band", {}).get("min_margin"))
    if not agents:
        return [Level("null_agent", "null agent", outcome.status, None, None, "",
                      "the adapter declares no null agent")]
    levels = []
    for name, measured in sorted(agents.items()):
        value = _number((measured.get("scores") or {}).get(metric))
        got = _number((measured.get("twin_margin") or {}).get(metric))
        cleared = None if got is None or margin is None else got >= margin
        status, overall = _on_metric(cleared, outcome.status)
        levels.append(Level(
            "null_agent", f"null agent {name}", status, value,
            _shifted(value, margin, kind),
            f"the run's mean must beat it by min_margin {margin:g}" if margin is not None
            else "no margin stored",
            "" if value is not None else f"no level stored for {metric}",
            overall,
        ))
    return levels


def random_levels(outcome: StoredOutcome | None, metric: str, kind: ScoreKind) -> list[Level]:
    idle = _not_measured("random_agent", "random agent", outcome)
    if idle is not None or outcome is None:
        return [idle] if idle is not None else []
    measured = outcome.payload.get("measured", {})
    seeds = measured.get("seeds")
    label = f"random agent, {seeds} seeds" if seeds else "random agent"
    row = (measured.get("metrics") or {}).get(metric)
    if not isinstance(row, Mapping) or _number(row.get("chance_mean")) is None:
        return [Level("random_agent", label, outcome.status, None, None, "",
                      f"no level stored for {metric}")]
    mean = _number(row.get("chance_mean"))
    upper = _number(row.get("chance_upper"))
    need = _number(row.get("required_margin"))
    base = upper if upper is not None else mean
    rule = str(row.get("rule", ""))
    band = (f"{rule}; required margin {need:g}" if need is not None else rule) or "no band stored"
    cleared = row.get("cleared")
    status, overall = _on_metric(cleared if isinstance(cleared, bool) else None, outcome.status)
    return [Level("random_agent", label, status, mean, _shifted(base, need, kind), band,
                  overall=overall)]


def positive_levels(outcome: StoredOutcome | None, metric: str, kind: ScoreKind) -> list[Level]:
    label = "positive control (gold replayed)"
    idle = _not_measured("positive_control", label, outcome)
    if idle is not None or outcome is None:
        return [idle] if idle is not None else []
    value = _number((outcome.payload.get("measured", {}).get("scores") or {}).get(metric))
    ceiling = None if direction(kind) == 0 else (1.0 if direction(kind) > 0 else 0.0)
    cleared = None if value is None or ceiling is None else value == ceiling
    status, overall = _on_metric(cleared, outcome.status)
    return [Level(
        "positive_control", label, status, value, ceiling,
        f"must reach the ceiling {ceiling:g}" if ceiling is not None else "no ceiling",
        "" if value is not None else f"no level stored for {metric}",
        overall,
    )]


def levels(outcomes: Mapping[str, StoredOutcome], metric: str, kind: ScoreKind) -> list[Level]:
    """The null agents', the random agent's and the positive control's level on `metric`."""
    return [
        *null_levels(outcomes.get("null_agent"), metric, kind),
        *random_levels(outcomes.get("random_agent"), metric, kind),
        *positive_levels(outcomes.get("positive_control"), metric, kind),
    ]


@dataclass(frozen=True)
class ControlRow:
    kind: str
    status: str
    summary: str
    hint: str
    passed: bool


def control_rows(outcomes: Mapping[str, StoredOutcome]) -> list[ControlRow]:
    """The rows `control_table` prints (kind, status, what it measured, the next step), in
    the order the controls ran."""
    rows = []
    for stored in sorted(outcomes.values(), key=lambda o: o.row_id):
        o = stored.payload
        allowed = bool(o.get("allowed_not_run"))
        hint = "" if allowed else next_step(o["kind"], o["status"], o.get("reason", ""))
        rows.append(ControlRow(
            kind=str(o["kind"]),
            status=str(o["status"]) + (" (allowed)" if allowed else ""),
            summary=str(o.get("summary", "")),
            hint=hint,
            passed=o["status"] == "PASSED" or allowed,
        ))
    return rows
