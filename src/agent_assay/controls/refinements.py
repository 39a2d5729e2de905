"""Does a system's metric move the way the generic metric it claims to refine moves?

On a run that is wrong by construction (deranged gold, a do-nothing agent) the generic
metric falls below the real run. A refinement that falls by less than half as much is
telling a different story about the same trajectories, and the reader should know
before trusting the refinement as a headline. Reported beside the verdict; the headline
bands already fail a refinement that does not move at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_assay.aggregates import improvement
from agent_assay.controls.base import ControlContext
from agent_assay.scoring.base import refined_metric


def disagreements(ctx: ControlContext, wrong: Mapping[str, float | None]) -> list[dict[str, Any]]:
    """Each headline refinement whose fall on the `wrong` run is under half its generic's."""
    found = []
    for scorer in ctx.scorers:
        generic = refined_metric(scorer)
        if generic is None or scorer.name not in ctx.headline:
            continue
        falls = {}
        for metric in (scorer.name, generic):
            real, bad = ctx.real_means.get(metric), wrong.get(metric)
            falls[metric] = (
                None if real is None or bad is None
                else improvement(ctx.kind_of(metric), real, bad)
            )
        mine, theirs = falls[scorer.name], falls[generic]
        if theirs is not None and theirs > 0 and (mine is None or mine < theirs / 2):
            found.append({"metric": scorer.name, "refines": generic, "fall": mine,
                          "generic_fall": theirs})
    return found


def disagreement_text(found: list[dict[str, Any]]) -> str:
    if not found:
        return ""
    return "; disagrees with the metric it refines: " + ", ".join(
        f"{d['metric']} fell {_f(d['fall'])} where {d['refines']} fell {_f(d['generic_fall'])}"
        for d in found
    )


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"
