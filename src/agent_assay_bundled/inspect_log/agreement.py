"""Do the log's published scores agree with its own scorer, re-run on its own answers?

An Inspect log is a file anyone can edit: a score flipped from I to C reads as a
published value like any other. Where the scorer is one agent-assay re-runs
(`rules.RERUNNABLE`), every published value is checked against the scorer re-run on the
sample's stored answer and target, at import; the count, and the first disagreeing
samples, are printed and recorded in the run's `complete` event. A disagreement refuses
nothing (the published value is what the log says, and is stored as imported) but it is
never silent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_assay.model import Item, Trajectory
from agent_assay_bundled.inspect_log.rerun import rerun_all
from agent_assay_bundled.inspect_log.rules import rerunnable

SHOWN = 5
"""Disagreeing samples named in the line (all are counted)."""


@dataclass(frozen=True)
class Agreement:
    metric: str
    checked: int
    agree: int
    disagreeing: tuple[str, ...]
    """item/epoch of each published value the re-run contradicts."""

    def line(self) -> str:
        text = (f"{self.metric}: re-run by agent-assay on the stored answers agrees with "
                f"{self.agree} of {self.checked} published values")
        if self.disagreeing:
            named = ", ".join(self.disagreeing[:SHOWN])
            more = " ..." if len(self.disagreeing) > SHOWN else ""
            text += f"; CONTRADICTS {len(self.disagreeing)}: {named}{more}"
        return text

    def to_json(self) -> dict[str, Any]:
        return {"checked": self.checked, "agree": self.agree,
                "disagreeing": list(self.disagreeing)}


def agreements(specs: Sequence[Mapping[str, Any]], items: Mapping[str, Item],
               trajectories: Sequence[Trajectory]) -> list[Agreement]:
    """One `Agreement` per re-runnable scorer of the log."""
    return [_check(spec, items, trajectories) for spec in specs if rerunnable(spec)]


def _check(spec: Mapping[str, Any], items: Mapping[str, Item],
           trajectories: Sequence[Trajectory]) -> Agreement:
    key = str(spec["key"])
    judged = [(t, float(t.meta["scores"][key]["mapped"])) for t in trajectories
              if not t.crashed and key in (t.meta.get("scores") or {})]
    again = rerun_all(spec, [(str(t.meta.get("answer") or ""),
                              items[t.item_id].gold.truth["target"], t.item_id)
                             for t, _ in judged])
    disagreeing = tuple(f"{t.item_id}/{t.repetition}"
                        for (t, published), value in zip(judged, again, strict=True)
                        if value != published)
    return Agreement(f"inspect.{key}", len(judged), len(judged) - len(disagreeing), disagreeing)
