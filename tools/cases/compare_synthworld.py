"""Reproduce synthworld's own agentic report from agent-assay runs, one config at a time.

For each config (always_deny, current_state, reference, auditor) this builds the
suite, starts and executes a run through the harness API, then hands the rows the
store holds to synthworld's `evaluate_agentic_trace` (after its validator). For
every package metric it prints the harness aggregate beside the package value and
whether they are equal. Equality is `==` on floats: no tolerance, because both
sides divide the same integers. Exit 0 when every row matches, 1 otherwise.

    .venv/bin/python -m tools.cases.compare_synthworld [--source DIR] [--db PATH] [--json-out PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_assay import api
from agent_assay.errors import AssayError
from agent_assay.store import Store, open_store
from agent_assay.views.load import summarise
from agent_assay_bundled.synthworld import SynthWorldAgenticAdapter, evaluate_rows
from agent_assay_bundled.synthworld_scoring import harness_figures

CONFIGS = ("always_deny", "current_state", "reference", "auditor")


def compare_config(
    store: Store, adapter: SynthWorldAgenticAdapter, source: Path | None, name: str
) -> dict[str, Any]:
    """Run one config through the harness and line its aggregates up with the package's."""
    run = api.evaluate(adapter, name, store=store, source=source, repeats=1, seed=0).run
    trajectories = store.trajectories(run.run_id)
    crashed = [t for t in trajectories if t.crashed]
    if crashed:
        first = crashed[0]
        raise AssayError(
            f"{name}: {len(crashed)} trajectories crashed; {first.item_id}: {first.error}"
        )
    means = {m.name: m.mean_of_k for m in summarise(store, run).metrics}
    details = [
        r.detail
        for r in store.current_scores(run.run_id)
        if r.scorer == "synthworld.provenance_exact"
    ]
    package = evaluate_rows(source, {t.item_id: t.final_state for t in trajectories})
    rows = []
    for figure in harness_figures(means, details):
        reported = package[figure.metric]
        rows.append(
            {
                "metric": figure.metric,
                "family": reported.family,
                "harness": figure.value,
                "package": reported.value,
                "support": reported.support,
                "match": figure.value == reported.value,
                "harness_source": figure.source,
            }
        )
    missing = sorted(set(package) - {r["metric"] for r in rows})
    return {"config": name, "run_id": run.run_id, "rows": rows, "uncompared": missing}


def compare_all(source: Path | None, db: str) -> list[dict[str, Any]]:
    store = open_store(db)
    adapter = SynthWorldAgenticAdapter()
    return [compare_config(store, adapter, source, name) for name in CONFIGS]


def _show(value: float | None) -> str:
    return "null" if value is None else repr(value)


def render(results: Sequence[dict[str, Any]]) -> str:
    lines = [f"{'config':<14}{'metric':<36}{'harness':<22}{'package':<22}{'n':>4}  match"]
    for result in results:
        for row in result["rows"]:
            lines.append(
                f"{result['config']:<14}{row['metric']:<36}{_show(row['harness']):<22}"
                f"{_show(row['package']):<22}{row['support']:>4}  "
                f"{'match' if row['match'] else 'MISMATCH'}"
            )
        if result["uncompared"]:
            lines.append(f"{result['config']}: not compared: {', '.join(result['uncompared'])}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=None, help="benchmark directory")
    parser.add_argument("--db", default=None, help="store (default: a fresh temporary file)")
    parser.add_argument("--json-out", type=Path, default=None, help="write results as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="compare-synthworld-") as scratch:
        db = args.db or str(Path(scratch) / "assay.db")
        try:
            results = compare_all(args.source, db)
        except AssayError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    print(render(results))
    mismatches = [
        (r["config"], row["metric"]) for r in results for row in r["rows"] if not row["match"]
    ]
    if args.json_out is not None:
        args.json_out.write_text(
            json.dumps({"results": results, "mismatches": mismatches}, indent=2) + "\n",
            encoding="utf-8",
        )
    if mismatches:
        print(f"{len(mismatches)} mismatches", file=sys.stderr)
        return 1
    print("every compared metric matches exactly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
