"""`agent-assay import ...`: store published results from other harnesses as runs.

Parse and validate everything first; a file-level fault is one `error:` line and
nothing is stored. The run id is the last line on stdout, as with `run`.
"""

from __future__ import annotations

from pathlib import Path

import click

from agent_assay.importers.tau_bench import ImportResult, parse_results, store_parsed
from agent_assay.store import open_store

DEFAULT_DB = "run/assay.db"
"""The same default store as every other command (agent_assay.cli.DEFAULT_DB)."""


@click.group("import")
def import_group() -> None:
    """Import published results (trajectories agent-assay did not execute)."""


@import_group.command("tau-bench")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--name", default=None, help="Config name for the run (default: the file's stem).")
@click.option(
    "--db",
    default=DEFAULT_DB,
    show_default=True,
    help="SQLite file path or SQLAlchemy URL of the store.",
)
def import_tau_bench(file: Path, name: str | None, db: str) -> None:
    """Import a tau-bench results FILE (a JSON list of task_id/trial/reward/info/traj)."""
    parsed = parse_results(file)  # a bad file is refused before any store is opened
    if db == DEFAULT_DB:
        Path(DEFAULT_DB).parent.mkdir(exist_ok=True)
    result = store_parsed(open_store(db), parsed, name=name)
    for line in summary_lines(result):
        click.echo(line, err=True)
    click.echo(result.run.run_id)


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
