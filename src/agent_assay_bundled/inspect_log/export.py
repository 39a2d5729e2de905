"""`agent-assay export RUN --format inspect --out FILE.eval`: a run as an Inspect log.

Any stored run, imported or executed, is written as an `EvalLog` through Inspect's own
`write_eval_log`, so `inspect view` opens it: one sample per trajectory (the item's id,
the repetition as the epoch), its messages and tool calls, its current scores (each
metric a score; an imported value says so in the score's metadata), and the verdict in
the log's metadata under ``agent_assay`` (the word, every reason, every waiver, the run
id, the store head, each control's status), the word also in the task's display name and
tags, where `inspect view` shows it first. The API has decided the verdict and refused
a TAMPERED run before this module is called. The file is written beside its target and
renamed over it, so a failure leaves no half-written log.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    write_eval_log,
)
from inspect_ai.model import ModelOutput, ModelUsage
from inspect_ai.scorer import Score

from agent_assay.exporters import ExportRequest
from agent_assay.hashing import canonical_json
from agent_assay.model import Item, Trajectory
from agent_assay.store import ScoreRecord
from agent_assay_bundled.inspect_log.messages import from_rows, from_steps

ScoresBySlot = Mapping[tuple[str, int], Sequence[ScoreRecord]]


def verdict_metadata(request: ExportRequest) -> dict[str, Any]:
    """What the log's metadata says about the run: the verdict first, then where it stands."""
    run = request.run
    return {"agent_assay": {
        "verdict": request.verdict, "reasons": list(request.reasons),
        "waivers": list(request.waivers), "disclosures": list(request.disclosures),
        "controls": dict(request.controls),
        "not_run": sorted(k for k, s in request.controls.items() if s == "NOT_RUN"),
        "run_id": run.run_id, "adapter": run.adapter, "config": run.config_name,
        "suite_hash": run.suite_hash, "config_hash": run.config_hash,
        "store_head": {"seq": request.head_seq, "digest": request.head_digest},
        "trajectories": run.env.get("trajectories") or "executed by agent-assay",
        "source": run.env.get("source_file"),
    }}


def sample_of(item: Item, t: Trajectory, scores: Sequence[ScoreRecord], model: str) -> EvalSample:
    prompt = str(item.input.get("input") or canonical_json(dict(item.input)))
    answer = str(t.meta.get("answer") or t.outcome or "")
    rows = t.meta.get("messages")
    messages = (from_rows(rows) if isinstance(rows, list) and rows and "role" in rows[0]
                else from_steps(prompt, t, answer))
    target = item.gold.truth.get("target", item.gold.outcome or "")
    usage = {m: ModelUsage(**u) for m, u in (t.meta.get("usage") or {}).items()}
    return EvalSample(
        id=item.input.get("sample_id", item.item_id), epoch=t.repetition, input=prompt,
        target=target if isinstance(target, str | list) else str(target),
        messages=messages, output=ModelOutput.from_content(model, answer),
        scores={s.scorer: Score(value=s.value, metadata={
            "imported": s.imported, "scorer_version": s.scorer_version})
            for s in scores if s.value is not None},
        model_usage=usage,
        metadata={"agent_assay": {"item_id": t.item_id, "repetition": t.repetition,
                                  "crashed": t.crashed, "error": t.error,
                                  "cost_usd": t.cost.usd, "cost": t.cost.reason}},
    )


def results_of(samples: Sequence[EvalSample], imported: Mapping[str, bool]) -> EvalResults:
    """Each metric's mean over the samples that have it, said to be imported or computed."""
    values: dict[str, list[float]] = defaultdict(list)
    for sample in samples:
        for name, score in (sample.scores or {}).items():
            values[name].append(float(score.value))  # type: ignore[arg-type]
    return EvalResults(
        total_samples=len(samples), completed_samples=len(samples),
        scores=[EvalScore(name=name, scorer=name, scored_samples=len(v),
                          metrics={"mean": EvalMetric(name="mean", value=sum(v) / len(v))},
                          metadata={"imported": imported.get(name, False)})
                for name, v in sorted(values.items())])


def _scores_by_slot(request: ExportRequest) -> dict[tuple[str, int], list[ScoreRecord]]:
    found: dict[tuple[str, int], list[ScoreRecord]] = defaultdict(list)
    for record in request.store.current_scores(request.run.run_id):
        found[(record.item_id, record.repetition)].append(record)
    return found


def build_log(request: ExportRequest) -> EvalLog:
    store, run = request.store, request.run
    items = store.get_suite(run.suite_hash).by_id()
    scores = _scores_by_slot(request)
    model = str(run.env.get("model") or f"agent-assay/{run.config_name}")
    samples = [sample_of(items[t.item_id], t, scores[(t.item_id, t.repetition)], model)
               for t in store.trajectories(run.run_id)]
    imported = {r.scorer: r.imported for rs in scores.values() for r in rs}
    task = str(run.env.get("task") or f"agent-assay/{run.adapter}")
    spec = EvalSpec(
        created=run.created_at, task=task, task_id=run.run_id,
        task_display_name=f"{task} [agent-assay: {request.verdict}]", run_id=run.run_id,
        model=model,
        dataset=EvalDataset(name=run.suite_hash, samples=len(items),
                            sample_ids=[items[i].input.get("sample_id", i) for i in run.item_ids]),
        config=EvalConfig(epochs=run.repeats),
        tags=["agent-assay", request.verdict], metadata=verdict_metadata(request))
    return EvalLog(eval=spec, status="success", samples=samples,
                   results=results_of(samples, imported), metadata=verdict_metadata(request))


class InspectExporter:
    """`agent-assay export RUN --format inspect --out FILE.eval` (or FILE.json)."""

    name = "inspect"
    description = "an Inspect AI eval log (.eval or .json) that `inspect view` opens"

    def write(self, request: ExportRequest, path: Path) -> int:
        log = build_log(request)
        partial = path.with_name(f".{path.stem}.partial{path.suffix}")
        try:
            write_eval_log(log, str(partial))
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
        return len(log.samples or [])
