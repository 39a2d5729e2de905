"""Has B regressed against the baseline A? The gate `compare --fail-on-regression` applies.

A gated metric regresses when the paired test the comparison already made
(`comparability.paired`: B - A over item means) puts its whole interval at level
1 - alpha on the worse side of 0, which is two-sided p < alpha with B worse. Which side is
worse comes from the metric's declared kind (`aggregates.direction`: binary and fraction
are better higher, count lower); a measure declares no side, so it cannot be gated and
asking to is refused. Nothing here passes by default: a comparison that was refused
(forced or not), or a gated metric whose items differ but could not be tested, is never a
pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from agent_assay.aggregates import direction
from agent_assay.errors import AssayError
from agent_assay.exitcodes import ExitCode
from agent_assay.integrity.comparability import Comparison, PairedMetric
from agent_assay.scoring.base import ScoreKind
from agent_assay.stats.intervals import Interval
from agent_assay.stats.paired import ALPHA, interval_at

Status = Literal["regressed", "improved", "held", "untested"]


@dataclass(frozen=True)
class GatedMetric:
    paired: PairedMetric
    better: Literal["higher", "lower"]
    status: Status
    ci: Interval | None
    """B - A's interval at level 1 - alpha (None when there is none: see `paired.no_ci`)."""


@dataclass(frozen=True)
class RegressionGate:
    alpha: float
    metrics: tuple[GatedMetric, ...]
    refused: str | None = None
    """Why nothing was gated: the comparison was refused (the gate then fails)."""
    tampered: bool = False

    @property
    def regressed(self) -> tuple[GatedMetric, ...]:
        return tuple(m for m in self.metrics if m.status == "regressed")

    @property
    def untested(self) -> tuple[GatedMetric, ...]:
        return tuple(m for m in self.metrics if m.status == "untested")

    @property
    def exit_code(self) -> ExitCode:
        """TAMPERED, REFUSED for a refused comparison, REGRESSED when a gated metric is
        worse, REFUSED when one could not be tested, else OK."""
        if self.tampered:
            return ExitCode.TAMPERED
        if self.refused is not None:
            return ExitCode.REFUSED
        if self.regressed:
            return ExitCode.REGRESSED
        return ExitCode.REFUSED if self.untested else ExitCode.OK

    @property
    def word(self) -> str:
        return {ExitCode.OK: "PASSED", ExitCode.REGRESSED: "REGRESSED",
                ExitCode.TAMPERED: "TAMPERED"}.get(self.exit_code, "REFUSED")


def regression_gate(
    comparison: Comparison, metrics: Sequence[str] = (), alpha: float = ALPHA
) -> RegressionGate:
    """Gate B against the baseline A on `metrics` (default: the headline metrics either
    run's manifest names). A metric that was not compared, or that declares no better
    side, is refused before anything is judged (AssayError naming it)."""
    if not 0 < alpha < 1:
        raise AssayError(f"--alpha must be between 0 and 1, got {alpha}")
    if comparison.tampered:
        return RegressionGate(alpha, (), "a run's stored evidence fails its checks", True)
    if not comparison.sound:
        codes = ", ".join(sorted({m.code for m in comparison.mismatches}))
        return RegressionGate(alpha, (), f"the runs are not comparable ({codes})")
    return RegressionGate(alpha, tuple(_gated(m, alpha) for m in _chosen(comparison, metrics)))


def _chosen(comparison: Comparison, names: Sequence[str]) -> list[PairedMetric]:
    compared = {m.metric: m for m in comparison.metrics}
    if not names:
        chosen = [m for m in comparison.metrics if m.headline]
        if not chosen:
            raise AssayError("neither run names a compared headline metric: choose the "
                             "metrics to gate on with --metric NAME")
        source = "headline metric"
    else:
        for name in names:
            if name not in compared:
                where = ("B only" if name in comparison.only_in_b else
                         "A only" if name in comparison.only_in_a else "neither run")
                raise AssayError(f"metric {name} cannot be gated: it was not compared (scored "
                                 f"in {where}); compared: {', '.join(sorted(compared)) or 'none'}")
        chosen = [compared[name] for name in dict.fromkeys(names)]
        source = "metric"
    for m in chosen:
        if _sign(m.kind) == 0:
            raise AssayError(f"{source} {m.metric} is a {m.kind}: its scorer declares no "
                             "better direction, so a regression cannot be told from an "
                             "improvement; gate on a binary, fraction or count metric")
    return chosen


def _sign(kind: str) -> int:
    """+1 when higher is better, -1 when lower is, 0 when the kind says neither (a measure,
    or a kind this harness does not know)."""
    known = [k for k in get_args(ScoreKind) if k == kind]
    return direction(known[0]) if known else 0


def _gated(m: PairedMetric, alpha: float) -> GatedMetric:
    sign = _sign(m.kind)
    better: Literal["higher", "lower"] = "higher" if sign > 0 else "lower"
    if m.p_value is None:
        status: Status = "held" if m.differing == 0 else "untested"
        return GatedMetric(m, better, status, None)
    ci = interval_at(m.difference, m.se, m.df, m.p_value, alpha)
    if m.p_value >= alpha:
        status = "held"
    else:
        status = "improved" if m.difference * sign > 0 else "regressed"
    return GatedMetric(m, better, status, ci)
