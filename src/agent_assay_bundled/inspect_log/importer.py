"""`agent-assay import inspect LOG.eval|LOG.json|DIR`: Inspect logs stored as runs.

Every log is read and checked whole (`parse.parse_log`) before the first write; a
directory's logs are all checked before any is stored, and each becomes its own run
(logs of different tasks are fine: each run has its own suite). Idempotent as
tau-bench's importer is: a log whose SHA-256 is already stored is that run again (an
interrupted import is completed), so importing a log twice gives the same run and the
same suite hash.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_assay.adapters.loaded import load_system
from agent_assay.importers import ImportReport
from agent_assay.model import Config, Run
from agent_assay.run_context import run_context
from agent_assay.store import Store
from agent_assay_bundled.inspect_log.adapter import InspectLogAdapter
from agent_assay_bundled.inspect_log.agreement import Agreement, agreements
from agent_assay_bundled.inspect_log.parse import ParsedLog, parse_log
from agent_assay_bundled.inspect_log.read import log_files
from agent_assay_bundled.inspect_log.rules import ADAPTER, RERUNNABLE, rerunnable


@dataclass(frozen=True)
class Stored:
    run: Run
    created: bool
    written: int
    parsed: ParsedLog
    agreements: tuple[Agreement, ...]


def existing_run(store: Store, sha256: str) -> Run | None:
    for run in store.list_runs():
        if run.adapter == ADAPTER and run.env.get("source_sha256") == sha256:
            return run
    return None


def store_log(store: Store, parsed: ParsedLog, name: str | None) -> Stored:
    """A new run for the log, or the missing trajectories of the run it already is."""
    from agent_assay.runner import start_run  # storing only: reading a run needs no runner

    adapter = load_system(InspectLogAdapter())
    adapter.prepare(parsed.suite)  # its scorers are learned from the suite, manifest first
    run = existing_run(store, parsed.sha256)
    created = run is None
    if run is None:
        store.put_suite(parsed.suite)
        params: dict[str, Any] = {"source_sha256": parsed.sha256, "task": parsed.task,
                                  "model": parsed.model, "log_status": parsed.status}
        config = Config(adapter=ADAPTER, name=name or parsed.path.stem, params=params)
        run = start_run(store, adapter, parsed.suite, config, repeats=parsed.epochs, seed=0,
                        items=sorted(parsed.suite.items, key=lambda i: i.item_id),
                        extra_env={"source_file": parsed.path.name})
    context = run_context(store, adapter, run)
    checked = tuple(agreements(parsed.scorers, context.items, parsed.trajectories))
    stored = store.stored_slots(run.run_id)
    todo = [t for t in parsed.trajectories if (t.item_id, t.repetition) not in stored]
    for trajectory in todo:
        store.write_trajectory(run.run_id, trajectory, context.score(trajectory))
    if created or todo:
        store.append_event(run.run_id, "complete", {
            "written": len(todo), "imported_from": parsed.path.name,
            "source_sha256": parsed.sha256,
            "rerun_agreement": {a.metric: a.to_json() for a in checked}})
    return Stored(run, created, len(todo), parsed, checked)


def summary_lines(done: Stored) -> list[str]:
    """What the import found, and what every imported number rests on."""
    parsed, run = done.parsed, done.run
    n = len(parsed.trajectories)
    head = (f"run {run.run_id} ({run.config_name}) imported from {parsed.path.name} "
            f"(sha256 {parsed.sha256}): task {parsed.task}, model {parsed.model}, "
            f"log status {parsed.status}")
    if not done.created:
        head = (f"already imported: {parsed.path.name} is run {run.run_id}; "
                + (f"completed it with {done.written} missing trajectories" if done.written
                   else "nothing added"))
    lines = [head, f"suite {parsed.suite.suite_hash} ({len(parsed.suite.items)} samples x "
                   f"{parsed.epochs} epochs = {n} trajectories)"]
    for spec in parsed.scorers:
        values = [t.meta["scores"][spec["key"]]["mapped"] for t in parsed.trajectories
                  if spec["key"] in t.meta["scores"]]
        mean = sum(values) / len(values) if values else float("nan")
        how = "re-runnable" if rerunnable(spec) else (
            f"not re-run (only {', '.join(sorted(RERUNNABLE))} are): null_agent and "
            "shuffled_gold will be NOT_RUN")
        lines.append(f"inspect.{spec['key']} ({spec['kind']}, published, imported): "
                     f"mean {mean:.4f} over {len(values)} of {n}; scorer {spec['scorer']} {how}")
    return lines + [a.line() for a in done.agreements]


class InspectLogImporter:
    """`agent-assay import inspect LOG.eval|LOG.json|DIR`."""

    name = "inspect"
    description = "an Inspect AI eval log (.eval or .json), or a directory of them"

    def parse(self, path: Path) -> tuple[ParsedLog, ...]:
        return tuple(parse_log(p) for p in log_files(path))

    def store(self, store: Store, parsed: tuple[ParsedLog, ...], *,
              name: str | None) -> ImportReport:
        done = [store_log(store, p, name if len(parsed) == 1 else None) for p in parsed]
        lines = [line for d in done for line in summary_lines(d)]
        return ImportReport("\n".join(d.run.run_id for d in done), tuple(lines))
