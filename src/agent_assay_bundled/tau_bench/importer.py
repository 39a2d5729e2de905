"""Store a parsed tau-bench results file as a suite, a run and its trajectories.

Idempotent: a second import of a file whose SHA-256 is already stored adds
nothing, and an interrupted import is completed instead. `TauBenchImporter` is
what the `agent_assay.importers` entry point registers: `agent-assay import
tau-bench FILE` calls it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_assay.importers import ImportReport, TrajectoryFault
from agent_assay.model import Config, Run
from agent_assay.run_context import run_context
from agent_assay.store import Store
from agent_assay_bundled.tau_bench.adapter import TauBenchAdapter
from agent_assay_bundled.tau_bench.parse import ParsedResults, parse_results
from agent_assay_bundled.tau_bench.rules import ADAPTER, DOMAIN, reward_rule


# ---- storing --------------------------------------------------------------------
@dataclass(frozen=True)
class RuleAgreement:
    """How the reward rule (used for the null agent) compares with the published rewards."""

    decided: int
    agree: int
    disagree_computed: int
    disagree_no_reward_info: int
    undecided: int


@dataclass(frozen=True)
class ImportResult:
    run: Run
    created: bool
    written: int
    parsed: ParsedResults
    agreement: RuleAgreement


def existing_run(store: Store, sha256: str) -> Run | None:
    for run in store.list_runs():
        if run.adapter == ADAPTER and run.env.get("source_sha256") == sha256:
            return run
    return None


def rule_agreement(parsed: ParsedResults) -> RuleAgreement:
    items = parsed.suite.by_id()
    decided = agree = wrong = wrong_uncomputed = 0
    for t in parsed.trajectories:
        value, _ = reward_rule(items[t.item_id].gold, t)
        if value is None:
            continue
        decided += 1
        if value == t.meta["published_reward"]:
            agree += 1
        elif t.meta.get("reward_computed"):
            wrong += 1
        else:
            wrong_uncomputed += 1
    undecided = len(parsed.trajectories) - decided
    return RuleAgreement(decided, agree, wrong, wrong_uncomputed, undecided)


def import_results(
    store: Store,
    path: Path,
    *,
    name: str | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> ImportResult:
    """Validate the whole file, then store suite, config, run and every trajectory with scores."""
    return store_parsed(store, parse_results(path), name=name, on_progress=on_progress)


def store_parsed(
    store: Store,
    parsed: ParsedResults,
    *,
    name: str | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> ImportResult:
    """Store a validated file: a new run, or the missing trajectories of the run it already is."""
    # the runner only when storing: a report loads this module for its trajectory_faults
    from agent_assay.runner import start_run

    path = parsed.path
    adapter = TauBenchAdapter()
    agreement = rule_agreement(parsed)
    run = existing_run(store, parsed.sha256)
    created = run is None
    if run is None:
        store.put_suite(parsed.suite)
        params: dict[str, Any] = {"source_sha256": parsed.sha256, "domain": DOMAIN}
        if parsed.model is not None:
            params["model"] = parsed.model
        config = Config(adapter=ADAPTER, name=name or path.stem, params=params)
        run = start_run(
            store,
            adapter,
            parsed.suite,
            config,
            repeats=parsed.trials,
            seed=0,
            items=sorted(parsed.suite.items, key=lambda i: i.item_id),
            extra_env={"source_file": path.name},
        )
    written = write_trajectories(store, adapter, run, parsed, on_progress)
    if created or written:
        store.append_event(
            run.run_id,
            "complete",
            {"written": written, "imported_from": path.name, "source_sha256": parsed.sha256},
        )
    return ImportResult(run, created, written, parsed, agreement)


def write_trajectories(
    store: Store,
    adapter: TauBenchAdapter,
    run: Run,
    parsed: ParsedResults,
    on_progress: Callable[[int, int], None] | None = None,
) -> int:
    """Store every trajectory not yet stored for `run`, each with its scores in one transaction."""
    context = run_context(store, adapter, run)
    stored = store.stored_slots(run.run_id)
    todo = [t for t in parsed.trajectories if (t.item_id, t.repetition) not in stored]
    for done, trajectory in enumerate(todo, start=1):
        records = context.score(trajectory)
        store.write_trajectory(run.run_id, trajectory, records)
        if trajectory.meta.get("malformed"):
            store.append_event(
                run.run_id,
                "item_malformed",
                {
                    "item_id": trajectory.item_id,
                    "repetition": trajectory.repetition,
                    "result_index": trajectory.meta["result_index"],
                    "faults": trajectory.meta["malformed"],
                },
            )
        if on_progress is not None:
            on_progress(done, len(todo))
    return len(todo)



def summary_lines(result: ImportResult) -> list[str]:
    parsed, run, agree = result.parsed, result.run, result.agreement
    n = len(parsed.trajectories)
    rewards = [float(t.meta["published_reward"]) for t in parsed.trajectories]
    lines = [
        f"suite {parsed.suite.suite_hash} (tau-bench {run.env.get('domain')}, "
        f"{len(parsed.suite.items)} tasks)"
    ]
    if not result.created:
        lines.append(
            f"already imported: {parsed.path.name} (sha256 {parsed.sha256}) is run {run.run_id}; "
            + (
                f"completed it with {result.written} missing trajectories"
                if result.written
                else "nothing added"
            )
        )
        return lines
    lines += [
        f"run {run.run_id} ({run.config_name}) imported from {parsed.path.name} "
        f"(sha256 {parsed.sha256}), model {parsed.model or 'not recorded in the file'}",
        f"{len(parsed.suite.items)} tasks x {parsed.trials} trials = {n} trajectories, "
        f"{len(parsed.malformed)} malformed, {len(parsed.without_reward_info)} without "
        "reward_info (published reward kept)",
        f"tau.reward (published, imported): {int(sum(rewards))} of {n} = {sum(rewards) / n:.4f}",
        f"reward rule (what the null agent is scored by) decides {agree.decided} of {n} "
        f"published rewards and agrees with {agree.agree}; contradicts "
        f"{agree.disagree_computed} that tau-bench computed and "
        f"{agree.disagree_no_reward_info} without reward_info",
    ]
    return lines


class TauBenchImporter:
    """`agent-assay import tau-bench FILE`."""

    name = "tau-bench"
    description = "a tau-bench results file: a JSON list of task_id/trial/reward/info/traj"
    trajectory_faults = (
        TrajectoryFault(
            "malformed", "malformed", "present",
            "malformed trajectories: {n} (stored with their faults in meta.malformed; "
            "scored as recorded)"),
        TrajectoryFault(
            "no_reward_info", "reward_computed", "false",
            "results without reward_info: {n} (the source computed no reward for them and "
            "published 0; kept as published)"),
    )
    """What `parse` records in a trajectory's meta: a message it could not read (its
    faults, listed), and a result tau-bench computed no reward for."""

    def parse(self, path: Path) -> ParsedResults:
        return parse_results(path)

    def store(self, store: Store, parsed: ParsedResults, *, name: str | None) -> ImportReport:
        result = store_parsed(store, parsed, name=name)
        return ImportReport(result.run.run_id, tuple(summary_lines(result)))
