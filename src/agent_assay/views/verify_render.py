"""Render `verify`'s result: one line per finding, a line per run, a closing count."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_assay.findings import Finding
from agent_assay.integrity.verify import Verification

if TYPE_CHECKING:
    from agent_assay.store.evidence import WitnessCheck


def verify_text(result: Verification, *, rescored: bool) -> str:
    lines: list[str] = []
    if not result.database:
        lines.append(f"database: {result.below_sql}; schema, triggers and indexes as created")
    lines += [f"FINDING {f.line()}" for f in result.database]
    lines += [f"note: {note}" for note in result.notes]
    for run in result.runs:
        imported = (
            f" ({run.imported} of them imported values, re-read from their trajectories)"
            if run.imported
            else ""
        )
        scores = (
            f"{run.rederived} scores re-derived and equal{imported}"
            if rescored
            else "scores not re-derived (--skip-rescore)"
        )
        lines.append(
            f"run {run.run_id}: {run.blocks} blocks, {run.rows} rows re-hashed, {scores}, "
            f"{run.certificates} certificate(s) checked"
        )
        lines += [f"note: run {run.run_id}: {note}" for note in run.notes]
        lines += [f"FINDING run {run.run_id}: {f.line()}" for f in run.findings]
    if result.witness is not None:
        lines += _witness_lines(result.witness)
    n = len(result.findings)
    verdict = "nothing is off" if result.ok else "the store does not match its own evidence"
    lines.append(f"verify: {len(result.runs)} run(s), {n} finding(s) -- {verdict}")
    return "\n".join(lines) + "\n"


def _witness_lines(check: WitnessCheck) -> list[str]:
    return [
        f"witness {check.path}: {check.lines} line(s) checked against {check.runs} run(s) held "
        "here",
        *(f"note: {note}" for note in check.notes),
        *(f"FINDING {f.line()}" for f in check.findings),
    ]


def _findings(findings: list[Finding]) -> list[dict[str, str]]:
    return [{"where": f.where, "problem": f.problem} for f in findings]


def verify_json(result: Verification, *, rescored: bool, target: str | None) -> dict[str, Any]:
    """`verify --json`: what verify_text prints, as data; ok only when nothing is off (a
    `witness` key only when one was checked)."""
    witness = {} if result.witness is None else {"witness": {
        "file": str(result.witness.path),
        "lines_checked": result.witness.lines,
        "runs_covered": result.witness.runs,
        "findings": _findings(result.witness.findings),
        "notes": list(result.witness.notes),
    }}
    return {
        **witness,
        "schema": "agent-assay/verify/1",
        "target": target,
        "rescored": rescored,
        "ok": result.ok,
        "n_findings": len(result.findings),
        "database_findings": _findings(result.database),
        "notes": list(result.notes),
        "runs": [
            {
                "run_id": run.run_id,
                "blocks": run.blocks,
                "rows": run.rows,
                "rederived": run.rederived if rescored else None,
                "imported": run.imported,
                "certificates": run.certificates,
                "findings": _findings(run.findings),
                "notes": list(run.notes),
            }
            for run in result.runs
        ],
    }
