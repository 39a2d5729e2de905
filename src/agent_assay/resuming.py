"""What `run --resume` accepts besides the run, and what it says is left to do after it.

A resume continues a run with the run's own settings: its adapter, config, items,
repetitions and seed are stored with it. An option that names them differently was
once ignored in silence, so a user who typed `--repeats 5` to extend a k=3 run got
a k=3 run and no word; now any such option is refused in one line naming both
values (the same value is fine: it says nothing new). Runs a control made (its
twins) are the control's to make again, never resumed.

When a session ends with crashed slots, the next step is the exact command: the
harness's crashes are run again with `--retry harness`; the agent's (measured
failures) only with `--retry crashed`, which every verdict discloses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from agent_assay.adapters.loaded import LoadedSystem
from agent_assay.adapters.pure_suite import build_pure_suite
from agent_assay.errors import AssayError
from agent_assay.model import AGENT_CRASH, HARNESS_CRASH, CrashCause, Run
from agent_assay.runner import select_items
from agent_assay.store import Store


def refuse_control_made(run: Run) -> None:
    """A run a control made for another is not resumed: the control makes new ones."""
    control, certifies = run.env.get("control"), run.env.get("certifies")
    if control is not None:
        raise AssayError(
            f"run {run.run_id} was made by control {control} for run {certifies}, not by "
            f"`run`; it is not resumed (`agent-assay controls run --run {certifies}` makes "
            "new ones)"
        )


def differences(
    store: Store,
    run: Run,
    system: LoadedSystem,
    *,
    adapter: str | None = None,
    config: str | None = None,
    source: Path | None = None,
    repeats: int | None = None,
    limit: int | None = None,
    seed: int | None = None,
    tags: Sequence[str] | None = None,
) -> list[str]:
    """Each option given (not None) that names something other than the run's own, as
    `--OPTION GIVEN ... run's VALUE`; the items are compared by what the run's stored
    suite would give under the options, the suite by what `source` builds."""
    found = []
    for option, given, own in (("--adapter", adapter, run.adapter),
                               ("--config", config, run.config_name),
                               ("--repeats", repeats, run.repeats),
                               ("--seed", seed, run.seed)):
        if given is not None and given != own:
            found.append(f"{option} {given} (the run's: {own})")
    if tags or limit is not None:
        chosen = [i.item_id for i in select_items(store.get_suite(run.suite_hash),
                                                  tags=tags or (), limit=limit)]
        if chosen != list(run.item_ids):
            asked = " ".join([*(f"--tag {t}" for t in tags or ()),
                              *([f"--limit {limit}"] if limit is not None else [])])
            found.append(f"{asked} selects {len(chosen)} item(s) (the run's: "
                         f"{len(run.item_ids)} item(s))")
    if source is not None:
        built = build_pure_suite(system, source).suite_hash
        if built != run.suite_hash:
            found.append(f"--source {source} builds suite {built[:12]} (the run's: "
                         f"{run.suite_hash[:12]})")
    return found


def refuse_differences(run: Run, found: Sequence[str]) -> None:
    if found:
        raise AssayError(
            f"run --resume {run.run_id} continues the run with its own settings, but "
            f"{'; '.join(found)}: drop the option, or start a new run"
        )


def next_steps(run_id: str, left: Mapping[CrashCause, int], where: str) -> list[str]:
    """The commands that go on from a session that left crashed slots (`left`, by cause):
    `where` is the ` --db DB` the commands need, or empty."""
    steps = []
    if left.get(HARNESS_CRASH):
        steps.append(f"{left[HARNESS_CRASH]} slot(s) the harness crashed (never measured): "
                     f"run them again with `agent-assay run --resume {run_id} --retry harness"
                     f"{where}`")
    if left.get(AGENT_CRASH):
        steps.append(f"{left[AGENT_CRASH]} slot(s) the agent crashed count as failures; once "
                     f"the agent is fixed, `agent-assay run --resume {run_id} --retry crashed"
                     f"{where}` runs them again, which the verdict discloses as a waiver (a "
                     "new run measures the fixed agent without one)")
    return steps
