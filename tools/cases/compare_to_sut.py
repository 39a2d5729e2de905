"""Does agent-assay score synthbank exactly as synthbank scores itself?

This is the only code that reads both sides. It runs synthbank's own
evaluation (its own agent, its own scorer, in a separate process so nothing is
shared), reads the per-script report it writes, and compares it with the
harness's stored scores for repetition 1 of a run: the aggregate and every
script individually, floats compared with ==, never isclose.

Usage: python -m tools.cases.compare_to_sut RUN_ID [--db run/assay.db] [--json-out PATH]
Exit 0 and "reproduced to the digit" on full agreement; otherwise every
mismatch is printed and the exit code is 1.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from agent_assay.errors import AssayError
from agent_assay.store import open_store

AGGREGATE_FROM_HARNESS = {
    "trajectory_accuracy": ("trajectory.exact", "mean"),
    "mean_lcs_ratio": ("trajectory.lcs", "mean"),
    "outcome_accuracy": ("outcome.match", "mean"),
    "wrong_tool_calls_total": ("tools.wrong", "total"),
    "missing_tool_calls_total": ("tools.missing", "total"),
}


def system_report(seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "self_report.json"
        subprocess.run(
            [sys.executable, "-m", "synthbank.evaluate", "--out", str(out), "--seed", str(seed)],
            check=True,
        )
        data: dict[str, Any] = json.loads(out.read_text())
    return data


def harness_view(run_id: str, db: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]], int]:
    store = open_store(db)
    run = store.get_run(run_id)
    if run.adapter != "banking":
        raise AssayError(f"run {run_id} is a {run.adapter} run; this compares banking runs")
    config = store.get_config(run.config_hash)
    if config.params.get("noisy"):
        raise AssayError(f"run {run_id} uses {config.name}; only the deterministic mock compares")
    values: dict[str, dict[str, float | None]] = defaultdict(dict)
    for row in store.current_scores(run_id):
        if row.repetition == 1:
            values[row.item_id][row.scorer] = row.value
    scripts: dict[str, dict[str, Any]] = {}
    for trajectory in store.trajectories(run_id):
        if trajectory.repetition != 1:
            continue
        v = values[trajectory.item_id]
        scripts[trajectory.item_id] = {
            "exact_match": v["trajectory.exact"] == 1.0,
            "lcs_ratio": v["trajectory.lcs"],
            "actual_outcome": trajectory.outcome,
            "actual_path": [c.tool for c in trajectory.calls],
        }
    ordered = sorted(values)
    aggregate: dict[str, Any] = {"n": len(ordered)}
    for name, (scorer, how) in AGGREGATE_FROM_HARNESS.items():
        column = [values[i][scorer] or 0.0 for i in ordered]
        total = sum(column)
        aggregate[name] = total / len(column) if how == "mean" else int(total)
    return aggregate, scripts, int(config.params["defect_seed"])


def compare(run_id: str, db: str) -> dict[str, Any]:
    aggregate, scripts, seed = harness_view(run_id, db)
    theirs = system_report(seed)
    rows = [
        {
            "metric": key,
            "agent_assay": aggregate[key],
            "system": theirs["aggregate"][key],
            "match": aggregate[key] == theirs["aggregate"][key],
        }
        for key in ["n", *AGGREGATE_FROM_HARNESS]
    ]
    mismatches = []
    for script_id in sorted(set(scripts) | set(theirs["scripts"])):
        ours, system = scripts.get(script_id), theirs["scripts"].get(script_id)
        if ours is None or system is None:
            mismatches.append(
                {
                    "script": script_id,
                    "field": "presence",
                    "agent_assay": ours is not None,
                    "system": system is not None,
                }
            )
            continue
        for field in ("exact_match", "lcs_ratio", "actual_outcome", "actual_path"):
            if ours[field] != system[field]:
                mismatches.append(
                    {
                        "script": script_id,
                        "field": field,
                        "agent_assay": ours[field],
                        "system": system[field],
                    }
                )
    return {
        "run_id": run_id,
        "aggregate": rows,
        "scripts_compared": len(scripts),
        "per_script_mismatches": mismatches,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_id")
    parser.add_argument("--db", default="run/assay.db")
    parser.add_argument("--json-out", type=Path, default=None)
    args = parser.parse_args()
    try:
        result = compare(args.run_id, args.db)
    except AssayError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print("metric\tagent-assay\tsynthbank self-report\tmatch")
    for row in result["aggregate"]:
        print(
            f"{row['metric']}\t{row['agent_assay']}\t{row['system']}\t"
            f"{'yes' if row['match'] else 'NO'}"
        )
    bad = result["per_script_mismatches"]
    print(
        f"per-script: {result['scripts_compared']} scripts compared on exact_match, lcs_ratio, "
        f"actual_outcome, actual_path; {len(bad)} mismatches"
    )
    for m in bad:
        print(
            f"  MISMATCH {m['script']} {m['field']}: agent-assay={m['agent_assay']!r} "
            f"system={m['system']!r}"
        )
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(result, sort_keys=True, indent=2) + "\n")
    if bad or not all(r["match"] for r in result["aggregate"]):
        print("RESULT: NOT reproduced")
        return 1
    print("RESULT: reproduced to the digit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
