"""Everything stored about one run: what ran, how it went, what judged it, and its headline.

`runs show` answers "what is this run" before anyone reads its scores: the config and its
parameters, the suite, the recorded environment (keys that make runs incomparable
starred), its status and every event in order (who wrote each session, why one
stopped), the crashed items with the errors stored for them and whose failure each
was (the agent's or the harness's), the slots run again after a crash (`run --resume
--retry`, whose earlier attempts stay stored), the newest outcome of each control with
the verdict those outcomes add up to, and then the headline figures under that verdict
(none when the run's evidence fails its checks, as in the report). `report` has every
other figure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_assay.aggregates import RunStatus
from agent_assay.integrity.admissibility import Admissibility
from agent_assay.integrity.choices import JudgedChoices
from agent_assay.model import AGENT_CRASH, Config, CrashCause, Run
from agent_assay.views.gates import verdict_json
from agent_assay.views.render import fmt, fmt_mean_ci, run_identity, status_json
from agent_assay.views.run_data import RunData
from agent_assay.views.summary import MetricSummary, metric_summaries
from agent_assay.writers import recorded_writer

if TYPE_CHECKING:
    from agent_assay.runner import RunResult
    from agent_assay.store import RetriedSlot, RunEvent


@dataclass(frozen=True)
class Crash:
    item_id: str
    repetition: int
    error: str
    cause: CrashCause = AGENT_CRASH


@dataclass(frozen=True)
class RunView:
    run: Run
    config: Config
    suite_items: int
    suite_source: str
    status: RunStatus
    events: tuple[RunEvent, ...]
    crashes: tuple[Crash, ...]
    controls: tuple[tuple[str, str], ...]
    """(kind, status) of the newest outcome of each control, in the order they ran."""
    verdict: Admissibility
    headline: tuple[MetricSummary, ...] | None
    """The headline metrics' figures; None when the evidence fails its checks."""
    retried: Mapping[tuple[str, int], RetriedSlot] = field(default_factory=dict)
    """The slots run again after a crash: the newest attempt and the earlier ones' causes."""


def run_view_of(data: RunData) -> RunView:
    """The view of a run loaded with its history (`views.load.show_run`)."""
    run, verdict, status, events = data.run, data.verdict, data.status, data.events
    outcomes = sorted(data.outcomes.values(), key=lambda o: o.row_id)
    return RunView(
        run=run,
        config=data.config,
        suite_items=len(data.suite.items),
        suite_source=data.suite.source,
        status=status,
        events=events,
        crashes=_crashes(events, data.crash_causes, data.retried),
        controls=tuple((o.kind, o.status) for o in outcomes),
        verdict=verdict,
        headline=None if verdict.tampered else _headline(data),
        retried=data.retried,
    )


def _headline(data: RunData) -> tuple[MetricSummary, ...]:
    """The headline metrics' means and intervals, computed as the report computes them."""
    return tuple(m for m in metric_summaries(data.columns, data.manifest, data.run.repeats)
                 if m.headline)


def _crashes(
    events: Sequence[RunEvent],
    causes: Mapping[tuple[str, int], CrashCause],
    retried: Mapping[tuple[str, int], RetriedSlot],
) -> tuple[Crash, ...]:
    """The crashed slots as their `item_crashed` events recorded them (a slot resumed after
    a crash is recorded once per crash), each with the cause its stored trajectory records;
    of a slot run again, only its newest attempt's crash (the earlier are `retried`)."""
    crashes = []
    for e in events:
        if e.event == "item_crashed" and isinstance(e.detail, Mapping):
            slot = (str(e.detail.get("item_id")), int(e.detail.get("repetition") or 0))
            if slot in retried and e.detail.get("attempt", 1) != retried[slot].newest:
                continue
            crashes.append(Crash(*slot, str(e.detail.get("error")),
                                 causes.get(slot, AGENT_CRASH)))
    return tuple(crashes)


def retried_lines(run_id: str, retried: Mapping[tuple[str, int], RetriedSlot],
                  crashed: Mapping[tuple[str, int], CrashCause], shown: int) -> list[str]:
    """The slots run again: each one's earlier attempts and how its newest went."""
    if not retried:
        return []
    lines = [f"retried ({len(retried)} slot(s) run again after a crash; the earlier attempts "
             "stay stored):"]
    for (item, rep), slot in sorted(retried.items())[:shown]:
        earlier = ", ".join(f"attempt {n} crashed (by the {cause})"
                            for n, cause in enumerate(slot.earlier, start=1))
        now = f"crashed (by the {crashed[(item, rep)]})" if (item, rep) in crashed else "ran"
        lines.append(f"  item {item} rep {rep}: {earlier}; attempt {slot.newest} {now}")
    if len(retried) > shown:
        lines.append(f"  ... and {len(retried) - shown} more (--json lists all)")
    (item, rep), _ = min(retried.items())
    lines.append(f"  -> an earlier attempt: agent-assay trajectories show {run_id} {item} "
                 f"--rep {rep} --attempt 1")
    return lines


def _event_note(event: RunEvent) -> str:
    """What an event adds in one line: its writer, why it stopped, what it wrote, and where
    its agents ran when that was not this host's processes (a Dask scheduler)."""
    detail = event.detail if isinstance(event.detail, Mapping) else {}
    writer = recorded_writer(detail)
    parts = [f"by {writer.describe()}"] if writer is not None else []
    for key in ("retry", "slots", "written", "skipped", "retried", "why", "executor",
                "scheduler"):
        if detail.get(key) not in (None, ""):
            parts.append(f"{key}: {detail[key]}")
    if event.event == "item_crashed":
        parts.append(f"item {detail.get('item_id')} rep {detail.get('repetition')}")
    return "; ".join(parts)


def run_text(view: RunView, *, shown_crashes: int = 10) -> str:
    run, status = view.run, view.status
    lines = [
        f"run {run.run_id}  {run.adapter}/{run.config_name}  status={status.state}",
        f"config {run.config_hash}",
        f"  params: {json.dumps(dict(view.config.params), sort_keys=True, default=str)}",
        f"suite {run.suite_hash}: {view.suite_items} items, {view.suite_source}",
        f"items in this run: {len(run.item_ids)}  repetitions (k): {run.repeats}  "
        f"seed: {run.seed}  created: {run.created_at}",
        f"trajectories: {status.stored} of {status.expected} ({status.crashed} crashed)",
        *(f"!!! {reason}" for reason in status.reasons),
        "environment (* makes runs incomparable):",
        *(
            f"  {key}{' *' if key in run.affects_results else ''} = "
            f"{json.dumps(value, sort_keys=True, default=str)}"
            for key, value in sorted(run.env.items())
        ),
        f"events ({len(view.events)}):",
        *(f"  {e.at}  {e.event}  {_event_note(e)}".rstrip() for e in view.events
          if e.event != "item_crashed"),
    ]
    if view.crashes:
        lines.append(f"crashed ({len(view.crashes)}):")
        lines += [f"  item {c.item_id} rep {c.repetition} (by the {c.cause}): {c.error}"
                  for c in view.crashes[:shown_crashes]]
        if len(view.crashes) > shown_crashes:
            lines.append(f"  ... and {len(view.crashes) - shown_crashes} more (--json lists all)")
        first = view.crashes[0]
        lines.append(f"  -> next: agent-assay trajectories show {run.run_id} {first.item_id} "
                     f"--rep {first.repetition}")
    lines += retried_lines(run.run_id, view.retried,
                           {(c.item_id, c.repetition): c.cause for c in view.crashes},
                           shown_crashes)
    lines.append("controls: " + (", ".join(f"{k} {s}" for k, s in view.controls)
                                 if view.controls else "none run"))
    verdict = view.verdict
    lines.append(f"verdict: {verdict.statement}" + ("" if verdict.admissible else
                                                    f" ({'; '.join(verdict.reasons)})"))
    if not verdict.admissible:  # an admissible verdict's statement names them already
        lines += [f"  waived: {waiver}" for waiver in verdict.waivers]
    lines += [f"  {line}" for line in verdict.disclosures]
    lines += headline_lines(view)
    return "\n".join(lines) + "\n"


def headline_lines(view: RunView) -> list[str]:
    """The headline under the verdict it stands under; `report` has the rest."""
    if view.headline is None:
        return [f"headline: not shown: the run's evidence fails its checks "
                f"(agent-assay verify {view.run.run_id})"]
    if not view.headline:
        return ["headline: no scores stored"]
    word = view.verdict.word
    width = max(len(m.name) for m in view.headline)
    return [f"headline ({word}; mean over items of the mean of k, 95% interval):",
            *(f"  {m.name:<{width}}  {fmt(m.mean_of_k)}  {fmt_mean_ci(m)}  "
              f"n={m.n_items}".rstrip() for m in view.headline)]


def run_json(view: RunView) -> dict[str, Any]:
    run = view.run
    return {
        "schema": "agent-assay/runs-show/2",
        "run_id": run.run_id,
        "adapter": run.adapter,
        "config": {"name": run.config_name, "hash": run.config_hash,
                   "params": dict(view.config.params)},
        "suite": {"hash": run.suite_hash, "items": view.suite_items,
                  "source": view.suite_source},
        "items": list(run.item_ids),
        "repeats": run.repeats,
        "seed": run.seed,
        "created_at": run.created_at,
        "environment": {k: {"value": v, "affects_results": k in run.affects_results}
                        for k, v in sorted(run.env.items())},
        "status": status_json(view.status),
        "events": [{"event": e.event, "at": e.at, "detail": e.detail} for e in view.events],
        "crashes": [{"item_id": c.item_id, "repetition": c.repetition, "error": c.error,
                     "cause": c.cause} for c in view.crashes],
        "retried": [{"item_id": item, "repetition": rep, "attempts": slot.newest,
                     "earlier": list(slot.earlier)}
                    for (item, rep), slot in sorted(view.retried.items())],
        "controls": [{"kind": k, "status": s} for k, s in view.controls],
        "headline": None if view.headline is None else [
            {"metric": m.name, "kind": m.kind, "mean": m.mean_of_k, "n_items": m.n_items,
             "ci": None if m.mean_ci is None else list(m.mean_ci),
             "interval_refused": m.mean_refused}
            for m in view.headline
        ],
        **verdict_json(view.verdict),
        "reasons": list(view.verdict.reasons),
    }


# ---- `run`: what one run (or resume) wrote ------------------------------------------------
def run_result_json(result: RunResult, *, resumed: bool) -> dict[str, Any]:
    """`run --json`: the run, and what this session of it stored (the stderr lines' data)."""
    return {"schema": "agent-assay/run/1"} | run_identity(result.run) | {
        "resumed": resumed,
        "written": result.written,
        "skipped": result.skipped,
        "crashed": result.crashed,
        "crashed_by_harness": result.harness,
        "retried": result.retried,
        "unreachable": result.unreachable,
        "first_crashes": list(result.first_crashes),
        "first_unreachable": result.first_unreachable,
    }


# ---- `runs list` --------------------------------------------------------------------------
@dataclass(frozen=True)
class ListedRun:
    run: Run
    status: str
    waived: JudgedChoices | None = None
    """What the run's newest control outcomes waived; None when no control has run."""

    @property
    def control(self) -> str | None:
        """The control that made this run for another (identical_config's twin), or None."""
        return str(self.run.env["control"]) if "control" in self.run.env else None

    @property
    def certifies(self) -> str | None:
        """The run that control certified, when one made this run."""
        certified = self.run.env.get("certifies")
        return None if self.control is None or certified is None else str(certified)


def _waiver_marker(listed: ListedRun) -> str:
    """`[WAIVED: ...]` naming each waiver, `[NOT WAIVABLE: ...]` each refused one."""
    if listed.waived is None:
        return ""
    marks = [f"  [NOT WAIVABLE: {'; '.join(listed.waived.refusals)}]"] if (
        listed.waived.refusals) else []
    if listed.waived.waivers:
        marks.append(f"  [WAIVED: {'; '.join(listed.waived.waivers)}]")
    return "".join(marks)


def runs_list_text(runs: Sequence[ListedRun]) -> str:
    lines = []
    for listed in runs:
        run = listed.run
        role = ""
        if listed.control is not None:
            role = f"  [made by control {run.env['control']} for {run.env.get('certifies', '?')}]"
        lines.append(
            f"{run.run_id}  {run.adapter}/{run.config_name}  k={run.repeats}  "
            f"items={len(run.item_ids)}  {listed.status}  {run.created_at}{role}"
            f"{_waiver_marker(listed)}"
        )
    return "".join(line + "\n" for line in lines)


def runs_list_json(runs: Sequence[ListedRun]) -> dict[str, Any]:
    return {
        "schema": "agent-assay/runs-list/1",
        "runs": [
            {
                "run_id": listed.run.run_id,
                "adapter": listed.run.adapter,
                "config_name": listed.run.config_name,
                "config_hash": listed.run.config_hash,
                "suite_hash": listed.run.suite_hash,
                "repeats": listed.run.repeats,
                "seed": listed.run.seed,
                "n_items": len(listed.run.item_ids),
                "status": listed.status,
                "created_at": listed.run.created_at,
                "made_by_control": listed.control,
                "certifies": listed.certifies,
                "waivers": None if listed.waived is None else list(listed.waived.waivers),
                "not_waivable": None if listed.waived is None else list(
                    listed.waived.refusals),
            }
            for listed in runs
        ],
    }
