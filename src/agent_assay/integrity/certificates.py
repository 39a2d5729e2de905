"""Does a stored verdict still speak for the evidence in the store?

A certificate (see `controls.certificate`) is void when it was judged on
another run (a copied verdict), when its chain head is not in this run's
chain, when trajectories or scores changed since (a later-added row, a
re-score), when the suite, config, scorer set or harness version differ, or
when a run it relied on has changed. Each reason says what changed. A certificate
recorded before the choices it was judged under were bound (bands, allowances, seeds,
headline) is void too: nothing says what it waived.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_assay.model import Run
from agent_assay.store import Store, StoredOutcome
from agent_assay.store.evidence import ChainCheck
from agent_assay.version import harness_version

UNBOUND = (
    "recorded before verdicts were bound to evidence (store schema < 3): "
    "re-run `agent-assay controls run` to certify this run"
)
CHOICES_UNBOUND = (
    "recorded before choices were bound (bands, allowances, random seeds, headline): "
    "re-run `agent-assay controls run`"
)


def _set(cert: Mapping[str, Any], key: str) -> tuple[Any, Any]:
    value = cert.get(key) or {}
    return value.get("n"), value.get("digest")


def void_reasons(
    store: Store,
    run: Run,
    outcome: StoredOutcome,
    check: ChainCheck,
    scorer_versions: Mapping[str, str],
) -> list[str]:
    """Why `outcome` no longer certifies `run`'s stored evidence; empty when it does."""
    cert = outcome.payload.get("certificate")
    if not isinstance(cert, dict):
        return [UNBOUND]
    if cert.get("run_id") != run.run_id:
        return [f"it was judged on run {cert.get('run_id')}, not this one (a copied verdict)"]
    return [
        *([] if isinstance(cert.get("choices"), dict) else [CHOICES_UNBOUND]),
        *_evidence_changed(cert, check),
        *_judged_otherwise(cert, run, scorer_versions),
        *(f"run {aux}, which it made and judged, has changed or is missing"
          for aux, recorded in sorted((cert.get("aux_runs") or {}).items())
          if _head_json(store, aux) != recorded),
    ]


def _head_json(store: Store, run_id: str) -> Any:
    now = store.head(run_id)
    return now.to_json() if now else None


def _evidence_changed(cert: Mapping[str, Any], check: ChainCheck) -> list[str]:
    """How the run's chain, trajectories and scores differ from those the certificate
    judged."""
    reasons: list[str] = []
    head = cert.get("head") or {}
    if check.digests.get(head.get("seq", -1)) != head.get("digest"):
        reasons.append("the chain head it judged is not in this run's chain")
    evidence = check.evidence
    n, digest = _set(cert, "trajectories")
    if (n, digest) != (evidence.trajectories.n, evidence.trajectories.digest):
        reasons.append(
            f"trajectories changed since it was judged ({n} then, {evidence.trajectories.n} now)"
        )
    scores = cert.get("scores") or {}
    if scores.get("generation") != evidence.generation:
        reasons.append(
            f"re-scored since it was judged (generation {scores.get('generation')} then, "
            f"{evidence.generation} now)"
        )
    elif _set(cert, "scores") != (evidence.scores.n, evidence.scores.digest):
        counts = (
            f"the same {evidence.scores.n} rows, other content"
            if scores.get("n") == evidence.scores.n
            else f"{scores.get('n')} rows then, {evidence.scores.n} now"
        )
        reasons.append(f"scores changed since it was judged ({counts})")
    return reasons


def _judged_otherwise(
    cert: Mapping[str, Any], run: Run, scorer_versions: Mapping[str, str]
) -> list[str]:
    """How what judged the run (suite, config, scorers, harness) differs from now."""
    reasons: list[str] = []
    if (cert.get("suite_hash"), cert.get("config_hash")) != (run.suite_hash, run.config_hash):
        reasons.append("it was judged on a different suite or config")
    if cert.get("scorers") != dict(sorted(scorer_versions.items())):
        reasons.append("it was judged with a different scorer set than the run's scores have")
    if cert.get("harness_version") != harness_version():
        reasons.append(
            f"it was judged by agent-assay {cert.get('harness_version')}, this is "
            f"{harness_version()}: the controls have not shown this version can go red"
        )
    return reasons
