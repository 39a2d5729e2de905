"""`report`, `compare`, `plan`, `runs list/show`, `trajectories show` and `adapters list`:
read, never run an agent."""

from __future__ import annotations

import json
from pathlib import Path

import click

from agent_assay import collector
from agent_assay.cli.options import db_option, emit_json, json_option, stderr, writable_file
from agent_assay.errors import AssayError
from agent_assay.exitcodes import ExitCode
from agent_assay.outfiles import write_whole

html_option = click.option(
    "--html", type=click.Path(path_type=Path, dir_okay=False), default=None, metavar="FILE",
    help="Write a self-contained HTML page (plots, tables, every trajectory) to FILE.",
)


def write_page(path: Path, page: str, what: str) -> None:
    """Write the page; say where, how big, and the verdict it carries."""
    write_whole(path, page.encode("utf-8"), "--html")
    click.echo(f"wrote {path} ({len(page.encode()) / 1024:.0f} KiB): {what}")



@click.command("report")
@click.argument("run_id", metavar="RUN")
@json_option("the summary")
@click.option("--csv", "as_csv", is_flag=True,
              help="Emit one table as CSV (the per-item one with --items, the per-tag one "
                   "with --by-tag, else the metrics), the verdict on every row.")
@click.option("--headline-only", is_flag=True, help="Only the adapter's headline metrics.")
@click.option("--passk-curve", is_flag=True, help="Append pass^k and pass@k for k = 1..k.")
@click.option("--cluster", default=None, metavar="tag|tag:PREFIX",
              help="Add a cluster-robust interval, items clustered by a tag (refused with "
                   "too few clusters).")
@click.option("--by-tag", is_flag=True, help="Append every headline metric per tag, with n.")
@click.option("--items", "items_metric", default=None, metavar="METRIC",
              help="Append METRIC for every item, a column per repetition.")
@click.option("--failed", is_flag=True,
              help="With --items: only the items that failed METRIC at some repetition.")
@click.option("--exit-zero", is_flag=True,
              help="Exit 0 for an INADMISSIBLE run or a refused headline, to publish its "
                   "report without failing the step (still 2 for TAMPERED, 1 on an error).")
@html_option
# a report is bounded work that leaves no cycles: the collector's passes over the modules it
# imports and the rows it reads would cost a tenth of it (`agent_assay.collector`)
@collector.paused()
@db_option
def report_command(
    run_id: str, as_json: bool, as_csv: bool, headline_only: bool, passk_curve: bool,
    cluster: str | None, by_tag: bool, items_metric: str | None, failed: bool,
    exit_zero: bool, html: Path | None, db: str,
) -> int:
    """Summarise a stored run (RUN is a run id, or an evidence bundle written by `export`).

    The report opens with the verdict: TAMPERED (no number shown) when the run's stored
    evidence fails its chain, slot, suite or config check (or a run its certificates relied
    on does), then the reasons an inadmissible run is one.

    Exits by the verdict: 0 admissible, 3 INADMISSIBLE, 4 when the headline is refused (a
    single pass of a config not shown to be deterministic), 2 TAMPERED, 1 on an error
    (the table: docs/ci.md).
    """
    from agent_assay import api

    if sum((as_json, as_csv, html is not None)) > 1:
        raise AssayError("choose one of --json, --csv and --html")
    if html is not None:
        writable_file(html, "--html")
    if as_csv and by_tag and items_metric:
        raise AssayError("--csv writes one table: choose --by-tag or --items, not both")
    shown = api.report(
        run_id, store=db, headline_only=headline_only, passk_curve=passk_curve,
        cluster=cluster, by_tag=by_tag, items=items_metric, failed=failed, notice=stderr,
    )
    if html is not None:
        write_page(html, shown.html, f"run {shown.run.run_id}: {shown.verdict_word}")
    elif as_json:
        click.echo(json.dumps(shown.data, sort_keys=True, indent=2))
    elif as_csv:
        click.echo(shown.csv, nl=False)
    else:
        click.echo(shown.text, nl=False)
    if exit_zero and shown.exit_code in (ExitCode.INADMISSIBLE, ExitCode.REFUSED):
        return ExitCode.OK
    return shown.exit_code


@click.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@click.option("--force", is_flag=True, help="Compare anyway; every line is stamped unsound.")
@click.option("--cluster", default=None, metavar="tag|tag:PREFIX",
              help="Make every p-value and interval cluster-robust, items clustered by a "
                   "tag (refused with too few clusters).")
@click.option("--fail-on-regression", is_flag=True,
              help="RUN_A is the baseline: exit 5 when a gated metric of RUN_B is worse by "
                   "the paired test (its interval leaves out 0 on the worse side), 4 when "
                   "the comparison is refused, even with --force.")
@click.option("--metric", "metrics", multiple=True, metavar="NAME",
              help="With --fail-on-regression: gate on NAME (repeatable; default: the "
                   "headline metrics). Its kind must say which way is better.")
@click.option("--alpha", type=float, default=None,
              help="With --fail-on-regression: the level the gate tests at, its interval "
                   "at 1 - alpha (default: 0.05, the level of compare's intervals).")
@json_option("the comparison (a refused one too)")
@html_option
@db_option
def compare_command(
    run_a: str, run_b: str, force: bool, cluster: str | None, fail_on_regression: bool,
    metrics: tuple[str, ...], alpha: float | None, as_json: bool, html: Path | None, db: str,
) -> int:
    """Paired comparison of two runs, refused (exit 4) when they are not comparable.

    Each metric gets B - A over the items both runs scored, with the interval and p-value of
    one paired t on item means, so the interval leaves out 0 exactly when p < 0.05.

    Exits 0 when compared (or forced), 4 when refused, 2 when a run is TAMPERED, 1 on an
    error; with --fail-on-regression, 5 when RUN_B regressed (the table: docs/ci.md)."""
    from agent_assay import api
    from agent_assay.views.gates import comparison_json
    from agent_assay.views.regression_view import gate_json

    if as_json and html is not None:
        raise AssayError("choose one of --json and --html")
    if html is not None:
        writable_file(html, "--html")
    compared = api.compare(run_a, run_b, store=db, force=force, cluster=cluster,
                           fail_on_regression=fail_on_regression, metrics=metrics, alpha=alpha)
    if html is not None:
        gated = "" if compared.gate is None else f", regression gate {compared.gate.word}"
        write_page(html, compared.html,
                   f"runs {run_a} and {run_b}: {compared.verdict_word}{gated}")
    elif as_json:
        gate = {} if compared.gate is None else {"gate": gate_json(compared.gate)}
        emit_json(comparison_json(compared.comparison, forced=force) | gate)
    else:
        click.echo(compared.text, nl=False)
    return compared.exit_code


@click.group("runs")
def runs_group() -> None:
    """Stored runs."""


@runs_group.command("list")
@json_option("the runs")
@db_option
def runs_list(as_json: bool, db: str) -> None:
    """List stored runs, oldest first."""
    from agent_assay import api
    from agent_assay.views.run_view import runs_list_json, runs_list_text

    listed = api.runs(store=db)
    if as_json:
        emit_json(runs_list_json(listed))
    else:
        click.echo(runs_list_text(listed), nl=False)


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
        emit_json(run_json(view))
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
@click.option("--attempt", type=click.IntRange(min=1), default=None,
              help="Which attempt at the slot (default: the newest, which the figures read; "
                   "a crashed slot run again by `run --resume --retry` keeps the earlier).")
@json_option("the trajectory")
@db_option
def trajectories_show(
    run_id: str, item_id: str, repetition: int, attempt: int | None, as_json: bool, db: str
) -> None:
    """ITEM's trajectory in RUN turn by turn beside gold (the first divergence marked), the
    final state against each gold assertion, and every score with its definition."""
    from agent_assay import api
    from agent_assay.views.trajectory_view import trajectory_json, trajectory_text

    view = api.show_trajectory(run_id, item_id, repetition=repetition, attempt=attempt,
                               store=db)
    if as_json:
        emit_json(trajectory_json(view))
    else:
        click.echo(trajectory_text(view), nl=False)


@click.group("adapters")
def adapters_group() -> None:
    """Registered adapters (entry-point group agent_assay.adapters)."""


@adapters_group.command("list")
def adapters_list() -> None:
    """Show every adapter's name, version and the distribution that provides it."""
    from agent_assay import api

    for info in api.adapters():
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
        emit_json(planned.data)
    else:
        click.echo(planned.text, nl=False)
