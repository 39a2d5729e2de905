"""What a control outcome certifies: the exact stored evidence it judged.

A verdict without this is a label anyone can copy. With it, the verdict names
the run, the chain head at judging time, the digests of the trajectories and
of the scoring generation it judged, the suite, the config, the scorer set,
the adapter and harness versions, the head of every run the control made
for itself (identical_config's twins), and the choices it was judged under
(`controls.choices`: bands, allowances, seeds, headline). Admissibility holds only
while all of these still match the store (`integrity.certificates`), and names
every choice that departs from the harness's defaults (`integrity.choices`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_assay.model import Run
from agent_assay.store import Store
from agent_assay.store.evidence import ChainCheck
from agent_assay.version import harness_version


def certificate(
    check: ChainCheck,
    run: Run,
    scorer_versions: Mapping[str, str],
    adapter_version: str,
    aux_heads: Mapping[str, Any],
    choices: Mapping[str, Any],
) -> dict[str, Any]:
    return {
        **check.evidence.to_json(),
        "suite_hash": run.suite_hash,
        "config_hash": run.config_hash,
        "scorers": dict(sorted(scorer_versions.items())),
        "adapter": run.adapter,
        "adapter_version": adapter_version,
        "harness_version": harness_version(),
        "aux_runs": dict(sorted(aux_heads.items())),
        "choices": dict(choices),
    }


def runs_made_for(store: Store, run: Run, before: Sequence[str]) -> dict[str, Any]:
    """Heads of the runs made since `before` that say they certify `run`."""
    known = set(before)
    made: dict[str, Any] = {}
    for run_id in store.run_ids():
        if run_id in known:
            continue
        if store.get_run(run_id).env.get("certifies") == run.run_id:
            head = store.head(run_id)
            made[run_id] = head.to_json() if head else None
    return made
