"""What running crashed slots again (`run --resume --retry`) does to a run's verdict.

Read from the stored attempts themselves (`Store.retried_slots`: whose crash each
earlier attempt's payload records), never from what a retry event says it did, so a
forged event cannot soften it. The rule (docs/threat-model.md, "Retried slots"):

* A slot the **harness** crashed was never measured: running it again takes nothing
  back. It is disclosed (how many slots, that the earlier attempts are kept) and waives
  nothing.
* A slot the **agent** crashed was a measured failure. Running it again replaces a
  failure with whatever the next attempt does, which is how a 60% agent is re-run into
  a 100% one, and a fixed agent's attempts sit beside the unfixed agent's passes. It is
  a waiver: the run is at best ADMISSIBLE WITH WAIVERS, and the waiver says how many
  failures were run again and how many of them no longer fail as crashes.
* A slot the agent crashed that was run again **more than once** is retrying until it
  passes, which no waiver covers: the run is INADMISSIBLE.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_assay.model import AGENT_CRASH, Run
from agent_assay.store import Store


@dataclass(frozen=True)
class JudgedRetries:
    refusals: tuple[str, ...] = ()
    waivers: tuple[str, ...] = ()
    disclosures: tuple[str, ...] = ()


def judge_retries(store: Store, run: Run) -> JudgedRetries:
    """The refusals, waivers and disclosures the run's retried slots add to its verdict."""
    retried = store.retried_slots(run.run_id)
    if not retried:
        return JudgedRetries()
    by_agent = {slot: r for slot, r in retried.items() if AGENT_CRASH in r.earlier}
    harness = len(retried) - len(by_agent)
    look = f"(earlier attempts kept: `agent-assay runs show {run.run_id}` lists them)"
    disclosures = (f"{harness} slot(s) the harness crashed (never measured) were run again "
                   f"{look}",) if harness else ()
    if not by_agent:
        return JudgedRetries(disclosures=disclosures)
    still = set(store.crash_causes(run.run_id))
    recovered = sum(slot not in still for slot in by_agent)
    waivers = (f"{len(by_agent)} slot(s) the agent crashed (measured failures) were run again "
               f"by `run --resume --retry crashed`, {recovered} of them no longer crashing: "
               f"those figures are not the first measurement {look}",)
    repeated = sum(r.earlier.count(AGENT_CRASH) > 1 for r in by_agent.values())
    refusals = (f"{repeated} slot(s) the agent crashed were run again more than once: "
                "re-running failures until they pass is not a measurement (start a new run)",
                ) if repeated else ()
    return JudgedRetries(refusals, waivers, disclosures)
