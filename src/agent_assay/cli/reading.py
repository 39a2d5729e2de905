"""`report`, `compare`, `plan`, `runs list/show`, `trajectories show` and `adapters list`:
read, never run an agent."""

from __future__ import annotations

import json

import click

from agent_assay.cli.options import db_option, json_option, stderr


@click.command("report")
@click.argument("run_id", metavar="RUN")
@json_option("the summary")
@click.option("--headline-only", is_flag=True, help="Only the adapter's headline metrics.")
@click.option("--passk-curve", is_flag=True, help="Append pass^k and pass@k for k = 1..k.")
@click.option("--cluster", default=None, metavar="tag|tag:PREFIX",
              help="Add a cluster-robust interval, items clustered by a tag.")
@db_option
def report_command(
    run_id: str, as_json: bool, headline_only: bool, passk_curve: bool, cluster: str | None,
    db: str,
) -> int:
    """Summarise a stored run (RUN is a run id, or an evidence bundle written by `export`).

    The report opens with the verdict: TAMPERED (exit 2, no number shown) when the run's
    stored evidence fails its own chain, then the reasons an inadmissible run is one.
    """
    from agent_assay import api

    shown = api.report(
        run_id, store=db, headline_only=headline_only, passk_curve=passk_curve,
        cluster=cluster, notice=stderr,
    )
    if as_json:
        click.echo(json.dumps(shown.data, sort_keys=True, indent=2))
    else:
        click.echo(shown.text, nl=False)
    return shown.exit_code


@click.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@click.option("--force", is_flag=True, help="Compare anyway; every line is stamped unsound.")
@click.option("--cluster", default=None, metavar="tag|tag:PREFIX",
              help="Add a cluster-robust interval, items clustered by a tag.")
@db_option
def compare_command(run_a: str, run_b: str, force: bool, cluster: str | None, db: str) -> int:
    """Paired comparison of two runs, refused (exit 2) when they are not comparable."""
    from agent_assay import api

    compared = api.compare(run_a, run_b, store=db, force=force, cluster=cluster)
    click.echo(compared.text, nl=False)
    return compared.exit_code


@click.group("runs")
def runs_group() -> None:
    """Stored runs."""


@runs_group.command("list")
@db_option
def runs_list(db: str) -> None:
    """List stored runs, oldest first."""
    from agent_assay.aggregates import run_status
    from agent_assay.store.store import open_existing_store

    store = open_existing_store(db)
    for run in store.list_runs():
        status = run_status(store, run).state
        role = ""
        if "control" in run.env:
            role = f"  [made by control {run.env['control']} for {run.env.get('certifies', '?')}]"
        click.echo(
            f"{run.run_id}  {run.adapter}/{run.config_name}  k={run.repeats}  "
            f"items={len(run.item_ids)}  {status}  {run.created_at}{role}"
        )


@runs_group.command("show")
@click.argument("run_id", metavar="RUN")
@json_option("the run")
@db_option
def runs_show(run_id: str, as_json: bool, db: str) -> None:
    """What RUN is and how it went: config, suite, environment, every event, the crashed
    items with their stored errors, the controls that judged it and the verdict."""
    from agent_assay import api
    from agent_assay.views.run_view import run_json, run_text

    view = api.show_run(run_id, store=db)
    if as_json:
        click.echo(json.dumps(run_json(view), sort_keys=True, indent=2, default=str))
    else:
        click.echo(run_text(view), nl=False)


@click.group("trajectories")
def trajectories_group() -> None:
    """Stored trajectories, one at a time."""


@trajectories_group.command("show")
@click.argument("run_id", metavar="RUN")
@click.argument("item_id", metavar="ITEM")
@click.option("--rep", "repetition", default=1, show_default=True, type=click.IntRange(min=1),
              help="Which repetition of the item.")
@json_option("the trajectory")
@db_option
def trajectories_show(run_id: str, item_id: str, repetition: int, as_json: bool, db: str) -> None:
    """ITEM's trajectory in RUN turn by turn beside gold (the first divergence marked), the
    final state against each gold assertion, and every score with its definition."""
    from agent_assay import api
    from agent_assay.views.trajectory_view import trajectory_json, trajectory_text

    view = api.show_trajectory(run_id, item_id, repetition=repetition, store=db)
    if as_json:
        click.echo(json.dumps(trajectory_json(view), sort_keys=True, indent=2, default=str))
    else:
        click.echo(trajectory_text(view), nl=False)


@click.group("adapters")
def adapters_group() -> None:
    """Registered adapters (entry-point group agent_assay.adapters)."""


@adapters_group.command("list")
def adapters_list() -> None:
    """Show every adapter's name, version and the distribution that provides it."""
    from agent_assay.adapters.registry import list_adapters

    for info in list_adapters():
        click.echo(f"{info.name}\t{info.version}\t{info.source}")


@click.command("plan")
@click.option("--run", "run_id", required=True, help="The run whose spread to plan from.")
@click.option("--effect", "effects", type=float, multiple=True, required=True,
              help="Difference in the metric's mean to detect (repeatable).")
@click.option("--power", type=float, default=0.8, show_default=True)
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--metric", default=None, help="Default: the run's first headline metric.")
@click.option("--correlation", type=float, default=0.5, show_default=True,
              help="Share of item difficulty two agents are assumed to have in common.")
@json_option("the plan")
@db_option
def plan_command(
    run_id: str, effects: tuple[float, ...], power: float, alpha: float, metric: str | None,
    correlation: float, as_json: bool, db: str,
) -> None:
    """Items and repeats a paired comparison needs to detect each --effect, from RUN's spread."""
    from agent_assay import api

    planned = api.plan(run_id, store=db, effects=effects, metric=metric, power=power,
                       alpha=alpha, correlation=correlation)
    if as_json:
        click.echo(json.dumps(planned.data, sort_keys=True, indent=2))
    else:
        click.echo(planned.text, nl=False)
